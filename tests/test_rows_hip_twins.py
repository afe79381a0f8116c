"""Rows that say HIP has no counterpart, checked against the name the usual prefix change gives.

HIPIFY's tables (ROCm 6.3 sync) leave many CUDA names without a HIP side although ROCm 6.4's HIP
headers declare the name that cuda -> hip, CUDA_ -> HIP_, cu -> hip or CU_ -> HIP_ gives. Some of those
twins are the counterpart; others share only the name (hipMemcpy takes a copy direction that cuMemcpy
lacks, hipFuncSetAttribute a host kernel pointer where cuFuncSetAttribute takes a CUfunction). A row
that keeps no counterpart must therefore name the twin in its caveat, so that a reader who finds the
HIP name learns how it differs. The class is recomputed from the headers: a twin counts only where a
compile probe finds it declared (ROCm 6.4's hip_runtime_api.h names some calls only in comments).
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import pytest
import yaml

from glossary_once import real_glossary
from test_rows_headers import _declared
from xlate import hip_headers, kb

PREFIXES = (("cuda", "hip"), ("CUDA_", "HIP_"), ("CU_", "HIP_"), ("cu", "hip"))
# Named in a comment of ROCm 6.4's hip_runtime_api.h (a @see list) and declared nowhere; their rows
# say so. A probe that found them declared would mean the headers changed under the rows.
COMMENT_ONLY = ("hipMemcpyArrayToArray", "hipMemcpyFromArrayAsync", "hipMemcpyToArrayAsync")
# Rows that cannot carry the warning yet, each with the reason. The set only shrinks: the test fails
# once a listed row names its twin.
UNWARNED = {
    # HIPIFY's table says CUDA 12.4 removed it; CUDA 13.0 still declares it (deprecated), which
    # test_cuda_sides_declared.HIPIFY_STILL_IN_13 records on the condition that no hand-written side
    # exists for the name. hipFuncSetSharedMemConfig takes a host kernel pointer, not a CUfunction.
    "cuFuncSetSharedMemConfig": "its row may take no hand-written HIP side while HIPIFY_STILL_IN_13 lists it",
}
# The probes see the warp-sync builtins too, as test_rows_headers' do.
WARP_SYNC = "HIP_ENABLE_WARP_SYNC_BUILTINS"
HIPIFY = Path(__file__).resolve().parents[1] / "glossary" / "symbols" / "hipify"


def twin(cuda: str) -> str | None:
    """The HIP spelling the prefix rule gives for a CUDA name, or None where no prefix applies."""
    for old, new in PREFIXES:
        if cuda.startswith(old) and len(cuda) > len(old):
            return new + cuda[len(old):]
    return None


def _headers() -> hip_headers.RocmHeaders:
    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    if shutil.which("clang++-19") is None:
        pytest.skip("clang++-19 is not installed (scripts/install-test-deps.sh installs it)")
    return found


def _probe(include: Path, names: list[str]) -> set[str]:
    """The names among `names` that the HIP headers declare (or define as macros), probed as the rows' HIP
    sides are (kb.declared_names)."""
    declared, stray = kb.declared_names(names, include, str(shutil.which("clang++-19")), (WARP_SYNC,))
    assert not stray, f"the probe's own lines failed: {stray[:3]}"
    return declared


def _no_counterpart(rows: dict) -> dict[str, str]:
    """CUDA name -> prefix twin, for rows whose HIP side is `none`."""
    out = {}
    for cuda, row in rows.items():
        side = row["sides"].get("hip")
        if side and side.get("relation") == "none" and not side.get("symbol") and (t := twin(cuda)):
            out[cuda] = t
    return out


def unwarned(rows: dict, declared: set[str]) -> list[str]:
    """Rows with no HIP counterpart whose declared twin their caveat does not name."""
    out = []
    for cuda, t in sorted(_no_counterpart(rows).items()):
        if t in declared and not re.search(rf"\b{re.escape(t)}\b", rows[cuda]["sides"]["hip"].get("caveat", "")):
            out.append(f"{cuda}: HIP declares {t}")
    return out


def _declared_twins(include: Path, rows: dict) -> set[str]:
    """The twins of no-counterpart rows that the headers declare: the preprocessed headers' words narrow
    the candidates, and a compile probe settles each (a word in a string or a macro body is no declaration)."""
    words = _declared(include, "hip")
    candidates = sorted({t for t in _no_counterpart(rows).values() if t in words} | set(COMMENT_ONLY))
    return _probe(include, candidates)


@pytest.mark.slow
def test_no_counterpart_row_names_its_declared_twin() -> None:
    found = _headers()
    rows = real_glossary().rows
    declared = _declared_twins(found.include, rows)
    assert not declared & set(COMMENT_ONLY), f"ROCm {found.version_text} declares {sorted(declared & set(COMMENT_ONLY))}"
    # The rows left without a counterpart after comparing declarations: the twin shares only the name.
    kept = {cuda for cuda, t in _no_counterpart(rows).items() if t in declared}
    assert {"cuFuncSetAttribute", "cuFuncSetCacheConfig", "cudaDeviceGetTexture1DLinearMaxWidth"} <= kept
    bad = unwarned(rows, declared)
    listed = [b for b in bad if b.split(":")[0] in UNWARNED]
    assert len(listed) == len(UNWARNED), f"take off UNWARNED what now names its twin: {sorted(UNWARNED)} vs {listed}"
    bad = [b for b in bad if b not in listed]
    assert not bad, f"say how the like-named HIP declaration differs, or give it as the HIP side: {bad}"


@pytest.mark.slow
def test_the_check_catches_a_row_that_forgets_its_twin() -> None:
    found = _headers()
    rows = copy.deepcopy(real_glossary().rows)
    # As HIPIFY's import writes it: no counterpart, and a caveat that names nothing.
    rows["cuMemcpy"]["sides"]["hip"] = {"symbol": None, "relation": "none", "origin": "hipify",
                                        "caveat": "HIPIFY's tables (ROCm 6.3 sync) list no HIP equivalent for cuMemcpy."}
    rows["cuFuncSetAttribute"]["sides"]["hip"]["caveat"] = "No HIP equivalent."
    declared = _declared_twins(found.include, rows)
    found_now = [b for b in unwarned(rows, declared) if b.split(":")[0] not in UNWARNED]
    assert found_now == ["cuFuncSetAttribute: HIP declares hipFuncSetAttribute", "cuMemcpy: HIP declares hipMemcpy"]


def _hipify_without_hip() -> set[str]:
    """The CUDA names HIPIFY's imported tables list with no HIP spelling."""
    out = set()
    for path in sorted(HIPIFY.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        out.update(r["cuda"] for r in data["rows"] if "hip" in r and r["hip"] is None)
    return out


@pytest.mark.slow
def test_every_added_twin_spelling_is_declared() -> None:
    """Each HIP side the overrides give a name HIPIFY leaves without one, where that side is the name's
    prefix twin, compiles against the headers."""
    found = _headers()
    rows = real_glossary().rows
    without = _hipify_without_hip()
    added = {}
    for cuda, row in rows.items():
        side = row["sides"].get("hip") or {}
        if cuda in without and side.get("origin") == "override" and side.get("symbol") and side["symbol"] == twin(cuda):
            added[cuda] = side["symbol"]
    assert len(added) >= 38, sorted(added)  # the twins given today; a parse slip would drop them
    # The spellings differ from CUDA's, so the pair is never `same`.
    assert {rows[c]["sides"]["hip"]["relation"] for c in added} <= {"renamed", "approximate"}
    missing = set(added.values()) - _probe(found.include, sorted(set(added.values())))
    assert not missing, f"not declared in the ROCm {found.version_text} headers: {sorted(missing)}"
