"""One GPU name resolver: every spelling of every spec sheet lands on the same sheet in lookup,
`compare` and the kernel runner, with or without the validation stack."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from xlate import compare, kb, lookup
from xlate.kernels import specs
from xlate.rules.memory import SharedMemoryCapacity

REPO = Path(__file__).resolve().parents[1]
SHEETS = sorted((REPO / "glossary" / "gpus").glob("*.yaml"))


def _spellings(path: Path) -> list[str]:
    """The test's own reading of a sheet: its id, name and aliases, plus how people shorten them."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    names = [data["id"], data["name"], *data.get("aliases", [])]
    return names + [n.upper() for n in names] + [n.replace(" ", "-").lower() for n in names]


CASES = [(path.stem, spelling) for path in SHEETS for spelling in _spellings(path)]


def test_every_sheet_is_covered() -> None:
    assert len(SHEETS) >= 9 and set(kb.gpu_sheets()) == {p.stem for p in SHEETS}


@pytest.mark.parametrize(("gid", "spelling"), CASES)
def test_every_spelling_resolves_the_same_everywhere(gid: str, spelling: str) -> None:
    assert kb.resolve_gpu(spelling) is not None and kb.resolve_gpu(spelling).id == gid
    # compare
    assert [s.id for s in compare.resolve([spelling])] == [gid]
    # lookup
    out = io.StringIO()
    lookup.run(spelling, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    assert payload["gpu"] is not None and payload["gpu"]["id"] == gid, spelling
    # the runner, with the name as a driver reports it
    found = specs.find(spelling)
    assert found is not None and found.id == gid


@pytest.mark.parametrize(("reported", "gid"), [("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA H200", "h200"),
                                               ("AMD Instinct MI300X OAM", "mi300x"), ("Apple M3 Ultra", "m3-ultra"),
                                               ("AMD Radeon RX 9070 XT", "rx-9070-xt"), ("NVIDIA B200", "b200")])
def test_driver_names_land_on_the_longest_spelling_inside_them(reported: str, gid: str) -> None:
    assert kb.resolve_gpu(reported, reported=True).id == gid
    assert specs.find(reported).id == gid


def test_a_driver_name_does_not_widen_what_a_person_types() -> None:
    # Containment is for names a driver reports; `compare h100 pcie` must not answer with the SXM sheet.
    assert kb.resolve_gpu("H100 PCIe") is None
    with pytest.raises(compare.CompareError):
        compare.resolve(["H100 PCIe"])
    assert kb.resolve_gpu("") is None and kb.resolve_gpu("()") is None


def test_sheet_figures_come_from_the_yaml() -> None:
    for path in SHEETS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        sheet = kb.gpu_sheets()[data["id"]]
        assert sheet.path == f"glossary/gpus/{path.name}"
        for field in kb.GPU_FIGURES:
            assert sheet.value(field) == data[field]["value"], (path.name, field)
            assert sheet.figure(field).source == data[field].get("source")


def test_runner_resolves_without_pydantic(tmp_path: Path) -> None:
    """On the kernel machine pydantic is absent and no index is cached: the same sheets, read unvalidated."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pydantic': raise ImportError('no pydantic here')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from xlate.kernels import specs\n"
        "import json\n"
        "names = json.loads(sys.argv[1])\n"
        "print(json.dumps([getattr(specs.find(n), 'id', None) for n in names]))\n"
        "assert 'pydantic' not in sys.modules\n"
    )
    names = [spelling for _, spelling in CASES] + ["NVIDIA H100 80GB HBM3", "Some Unknown GPU 9000"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code, json.dumps(names)], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout) == [gid for gid, _ in CASES] + ["h100-sxm", None]


def test_shared_memory_rule_states_the_sheets_figures() -> None:
    lds = {gid: kb.gpu_sheets()[gid].value("shared_memory_per_cu_kb") for gid in ("mi300x", "mi355x")}
    assert f"{lds['mi300x']:g} KiB" in SharedMemoryCapacity.summary
    why = SharedMemoryCapacity().why
    assert f"MI300X compute unit has {lds['mi300x']:g} KiB of LDS" in why
    assert f"MI355X have {lds['mi355x']:g} KiB" in why
