"""Name lists read from one library's C headers by scripts/list_c_header_names.py (the extract kept in
tests/data, one block per header, each opening with a `# LABEL: N names declared in FILE` line that names its
source): nvJitLink's header from the PyPI wheel nvidia-nvjitlink 13.5.37 (glossary/vocabulary/names-nvjitlink.yaml),
NVTX 3's headers from the CUDA 13.0 toolkit (names-nvtx.yaml) and the HSA runtime's headers bundled with triton 3.9.0 (names-hsa.yaml). Nothing downloads: the proof is the
stored extract. Every extracted name is listed once, on the card its header's group gives, unless a card or row
spells it already; no card or row spells a listed name; lookup answers each with its card; and the script
reads a header as stated."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import glossary_without_rows
from scripts_loader import load_script
from xlate import kb, lookup

DATA = Path(__file__).parent / "data"


class HeaderList(NamedTuple):
    names_of: str
    extract: Path
    source: str  # how each block's first line starts
    headers: tuple[str, ...]  # in the extract's order; a group's section names its header


LISTS = {
    "nvjitlink": HeaderList("nvJitLink.h name", DATA / "nvjitlink_header_names.txt",
                            "# PyPI wheel nvidia-nvjitlink 13.5.37", ("nvJitLink.h",)),
    "nvtx": HeaderList("NVTX 3 header name", DATA / "nvtx_header_names.txt",
                       "# CUDA 13.0 toolkit, include/nvtx3 (NVTX 3)", (
                           "nvToolsExt.h", "nvToolsExtCuda.h", "nvToolsExtCudaRt.h", "nvtx3.hpp")),
    "hsa": HeaderList("HSA runtime name", DATA / "hsa_header_names.txt",
                      "# triton 3.9.0 wheel, backends/amd/include/hsa", (
                          "hsa.h", "hsa_ext_amd.h", "hsa_ext_image.h", "hsa_ven_amd_loader.h",
                          "hsa_ven_amd_pc_sampling.h", "amd_hsa_kernel_code.h")),
}


def _blocks(hl: HeaderList) -> dict[str, list[str]]:
    """Header file -> the names extracted from it, in order."""
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in hl.extract.read_text().splitlines():
        if line.startswith("#"):
            current = out.setdefault(line.rsplit(" ", 1)[1], [])
        else:
            current.append(line.split("\t")[1])
    return out


def _groups(hl: HeaderList) -> list[tuple[str, str | None, list[str]]]:
    names = {n.names_of: n for n in glossary_without_rows().name_lists}[hl.names_of]
    return [(g.section, g.card, list(g.names)) for g in names.groups]


def _spelled(name: str) -> bool:
    index = kb.load_index()
    return name.casefold() in {label.casefold() for label, _, _, _ in index["labels"]} or bool(kb.find_rows(index, name, None))


@pytest.mark.parametrize("which", sorted(LISTS))
def test_each_block_names_its_source_and_count(which: str) -> None:
    hl = LISTS[which]
    heads = [ln for ln in hl.extract.read_text().splitlines() if ln.startswith("#")]
    assert [h.rsplit(" ", 1)[1] for h in heads] == list(hl.headers)
    for head, (header, names) in zip(heads, _blocks(hl).items()):
        assert head.startswith(hl.source) and head.endswith(f": {len(names)} names declared in {header}"), head


@pytest.mark.parametrize("which", sorted(LISTS))
def test_every_extracted_name_is_listed_once_under_its_header_unless_a_card_spells_it(which: str) -> None:
    hl = LISTS[which]
    listed = [n for _, _, names in _groups(hl) for n in names]
    assert len(listed) == len(set(listed))
    first_header: dict[str, str] = {}
    for header, names in _blocks(hl).items():
        for n in names:
            first_header.setdefault(n, header)
    unlisted = sorted(n for n in first_header if n not in set(listed) and not _spelled(n))
    assert not unlisted, unlisted
    assert set(listed) <= set(first_header)
    for section, _, names in _groups(hl):
        header = next(h for h in hl.headers if h in section) if len(hl.headers) > 1 else hl.headers[0]
        assert all(first_header[n] == header for n in names), section


@pytest.mark.parametrize("which", sorted(LISTS))
def test_no_card_or_row_spells_a_listed_name(which: str) -> None:
    spelled = [n for _, _, names in _groups(LISTS[which]) for n in names if _spelled(n)]
    assert not spelled, spelled


def _lookup_top(name: str) -> tuple[int, str | None]:
    out = io.StringIO()
    code = lookup.run(name, fmt="json", out=out)
    return code, (json.loads(out.getvalue())["matches"] or [{}])[0].get("concept")


@pytest.mark.parametrize("which", ["nvjitlink", "nvtx", pytest.param("hsa", marks=pytest.mark.slow)])
def test_lookup_answers_each_name_with_its_group_s_card(which: str) -> None:
    wrong = {}
    for _, card, names in _groups(LISTS[which]):
        for name in names:
            code, top = _lookup_top(name)
            if code != 0 or top != card:
                wrong[name] = (card, top)
    assert not wrong, wrong


def test_lookup_answers_a_sample_of_hsa_names_with_their_cards() -> None:
    for name, card in [("hsa_queue_destroy", "driver-api"), ("hsa_amd_memory_pool_t", "driver-api"),
                       ("hsa_ext_image_create", "texture-memory"), ("hsa_amd_agents_alow_access", "driver-api")]:
        assert _lookup_top(name) == (0, card), name


def test_the_script_reads_declarations_and_leaves_out_what_skip_matches(tmp_path: Path) -> None:
    header = tmp_path / "lib.h"
    header.write_text("#ifndef LIB_H\n#define LIB_H\ntypedef enum { LIB_OK, LIB_BAD } libResult;\n"
                      "libResult __libOpen_1_2(int);\n#define libOpen __libOpen_1_2\nlibResult libClose(void);\n#endif\n")
    lines = _run_script(header, "--skip", r"__lib\w+_\d+_\d+")
    assert lines[0] == f"# a test: {len(lines) - 1} names declared in lib.h"
    assert ("function", "__libOpen_1_2") not in [tuple(x.split("\t")) for x in lines[1:]]
    assert {"LIB_OK", "LIB_BAD", "libResult", "libOpen", "libClose"} <= {x.split("\t")[1] for x in lines[1:]}


def test_a_declaration_spelt_once_for_cplusplus_and_once_for_c_is_read_once(tmp_path: Path) -> None:
    # hsa_ext_amd.h opens some enums as `typedef enum e : int {` under __cplusplus and `typedef enum e {`
    # otherwise: reading both branches left one brace open and hid every later declaration.
    header = tmp_path / "two.h"
    header.write_text("#ifdef __cplusplus\ntypedef enum e_s : int {\n#else\ntypedef enum e_s {\n#endif\n"
                      "  E_A = 1,\n} e_t;\nint after(void);\n#if 0\nint dead(void);\n#else\nint live(void);\n#endif\n")
    names = {x.split("\t")[1] for x in _run_script(header)[1:]}
    assert {"E_A", "e_t", "after", "live"} <= names and "dead" not in names


def _run_script(header: Path, *extra: str) -> list[str]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert load_script("list_c_header_names").main([str(header), "--label", "a test", *extra]) == 0
    return out.getvalue().splitlines()
