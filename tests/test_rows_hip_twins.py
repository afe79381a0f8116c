"""Rows that say HIP has no counterpart, checked against the name the usual prefix change gives.

HIPIFY's tables (ROCm 6.3 sync) leave many CUDA names without a HIP side although ROCm 6.4's HIP
headers declare the name that cuda -> hip, CUDA_ -> HIP_, cu -> hip or CU_ -> HIP_ gives. Some of those
twins are the counterpart; others share only the name (hipMemcpy takes a copy direction that cuMemcpy
lacks, hipFuncSetAttribute a host kernel pointer where cuFuncSetAttribute takes a CUfunction). A row
that keeps no counterpart must therefore name the twin in its caveat, so that a reader who finds the
HIP name learns how it differs. The class is recomputed from the headers: a twin counts only where a
compile probe finds it declared (ROCm 6.4's hip_runtime_api.h names some calls only in comments).

The libraries' prefixes give twins too: cublas -> hipblas, cufft -> hipfft, cusolver -> hipsolver,
cusparse -> hipsparse, curand -> hiprand and their upper-case enumerator prefixes (CUFFT_ -> HIPFFT_,
...). hipBLAS declares two forms of many calls: the plain one and a _v2 one (before a trailing _64), the
form taking hipComplex where the plain one of hipBLAS 2.x takes hipblasComplex. Both are twins, and a
row without a counterpart names each one the headers declare (the 64-bit cuBLAS calls, cufftXt* and
CUFFT_ names HIPIFY's tables leave out are such twins, given as HIP sides in overrides.yaml).
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
# Checked before PREFIXES: "cu" -> "hip" gives the same lower-case twins, but only these name the
# upper-case enumerator prefixes and hipBLAS's _v2 forms.
LIBRARY_PREFIXES = (("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_"), ("cufft", "hipfft"), ("CUFFT_", "HIPFFT_"),
                    ("cusolver", "hipsolver"), ("CUSOLVER_", "HIPSOLVER_"), ("cusparse", "hipsparse"),
                    ("CUSPARSE_", "HIPSPARSE_"), ("curand", "hiprand"), ("CURAND_", "HIPRAND_"))
# The library headers whose words narrow the twins to probe (the probe itself includes them all).
LIBRARY_FOLDERS = ("hipblas", "hipblaslt", "hipfft", "hipsolver", "hipsparse", "hiprand")
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


def _v2(name: str) -> str:
    """hipBLAS's _v2 form of a name: hipblasCsymm -> hipblasCsymm_v2, hipblasCsymm_64 -> hipblasCsymm_v2_64."""
    return name[:-3] + "_v2_64" if name.endswith("_64") else name + "_v2"


def twins(cuda: str) -> tuple[str, ...]:
    """The HIP spellings a prefix rule gives for a CUDA name: one, or for cuBLAS names without _v2 the
    plain and the _v2 form; () where no prefix applies."""
    for old, new in LIBRARY_PREFIXES:
        if cuda.startswith(old) and len(cuda) > len(old):
            t = new + cuda[len(old):]
            return (t, _v2(t)) if old == "cublas" and "_v2" not in t else (t,)
    t = twin(cuda)
    return (t,) if t else ()


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


def _no_counterpart(rows: dict) -> dict[str, tuple[str, ...]]:
    """CUDA name -> prefix twins, for rows whose HIP side is `none`."""
    out = {}
    for cuda, row in rows.items():
        side = row["sides"].get("hip")
        if side and side.get("relation") == "none" and not side.get("symbol") and (ts := twins(cuda)):
            out[cuda] = ts
    return out


def unwarned(rows: dict, declared: set[str]) -> list[str]:
    """Rows with no HIP counterpart whose caveat leaves out a declared twin."""
    out = []
    for cuda, ts in sorted(_no_counterpart(rows).items()):
        caveat = rows[cuda]["sides"]["hip"].get("caveat", "")
        left_out = [t for t in ts if t in declared and not re.search(rf"\b{re.escape(t)}\b", caveat)]
        if left_out:
            out.append(f"{cuda}: HIP declares {', '.join(left_out)}")
    return out


def _words(include: Path) -> frozenset[str]:
    """The words of the HIP runtime's preprocessed headers and of the library headers' text."""
    return frozenset().union(*(_declared(include, folder) for folder in ("hip", *LIBRARY_FOLDERS)
                               if folder == "hip" or (include / folder).is_dir()))


def _declared_twins(include: Path, rows: dict) -> set[str]:
    """The twins of no-counterpart rows that the headers declare: the headers' words narrow the
    candidates, and a compile probe settles each (a word in a comment, a string or a macro body is no
    declaration)."""
    words = _words(include)
    candidates = sorted({t for ts in _no_counterpart(rows).values() for t in ts if t in words} | set(COMMENT_ONLY))
    return _probe(include, candidates)


@pytest.mark.slow
def test_no_counterpart_row_names_its_declared_twin() -> None:
    found = _headers()
    rows = real_glossary().rows
    declared = _declared_twins(found.include, rows)
    assert not declared & set(COMMENT_ONLY), f"ROCm {found.version_text} declares {sorted(declared & set(COMMENT_ONLY))}"
    # The rows left without a counterpart after comparing declarations: the twin shares only the name.
    kept = {cuda for cuda, ts in _no_counterpart(rows).items() if set(ts) & declared}
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
    # The library prefixes: the 64-bit cuBLAS call has two declared twins, and a caveat naming one of
    # them leaves out the other; the cuFFT enumerator's twin comes from the upper-case prefix.
    for cuda in ("cublasCsymm_64", "CUFFT_COPY_HOST_TO_DEVICE", "cufftXtMalloc"):
        rows[cuda]["sides"]["hip"] = {"symbol": None, "relation": "none", "origin": "hipify",
                                      "caveat": f"HIPIFY's tables (ROCm 6.3 sync) list no HIP equivalent for {cuda}."}
    rows["cublasCsymm_64"]["sides"]["hip"]["caveat"] = "hipblasCsymm_64 takes hipblasComplex."
    declared = _declared_twins(found.include, rows)
    found_now = [b for b in unwarned(rows, declared) if b.split(":")[0] not in UNWARNED]
    assert found_now == ["CUFFT_COPY_HOST_TO_DEVICE: HIP declares HIPFFT_COPY_HOST_TO_DEVICE",
                         "cuFuncSetAttribute: HIP declares hipFuncSetAttribute", "cuMemcpy: HIP declares hipMemcpy",
                         "cublasCsymm_64: HIP declares hipblasCsymm_v2_64", "cufftXtMalloc: HIP declares hipfftXtMalloc"]


def test_library_twins() -> None:
    assert twins("cublasCsymm_64") == ("hipblasCsymm_64", "hipblasCsymm_v2_64")
    assert twins("cublasCsymm_v2_64") == ("hipblasCsymm_v2_64",)
    assert twins("cublasDgemm") == ("hipblasDgemm", "hipblasDgemm_v2")
    assert twins("CUBLAS_OP_N") == ("HIPBLAS_OP_N",)
    assert twins("CUFFT_XT_FORMAT_INPUT") == ("HIPFFT_XT_FORMAT_INPUT",)
    assert twins("cusparseSpMV") == ("hipsparseSpMV",)
    assert twins("CURAND_RNG_PSEUDO_DEFAULT") == ("HIPRAND_RNG_PSEUDO_DEFAULT",)
    assert twins("cuMemcpy") == ("hipMemcpy",) and twins("CU_EVENT_DEFAULT") == ("HIP_EVENT_DEFAULT",)
    assert twins("__shfl_sync") == ()


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
        if cuda in without and side.get("origin") == "override" and side.get("symbol") and side["symbol"] in twins(cuda):
            added[cuda] = side["symbol"]
    # The twins given today (38 of the runtime and driver, 84 of the libraries); a parse slip would drop them.
    assert len(added) >= 122, sorted(added)
    assert {c for c in added if c.startswith(("cublas", "cufft", "CUFFT_", "cusolver"))} >= {
        "cublasGemmEx_64", "cublasCsymm_64", "cufftXtMalloc", "CUFFT_COPY_HOST_TO_DEVICE", "cusolverSpDcsrlsvqr"}
    # The spellings differ from CUDA's, so the pair is never `same`.
    assert {rows[c]["sides"]["hip"]["relation"] for c in added} <= {"renamed", "approximate"}
    missing = set(added.values()) - _probe(found.include, sorted(set(added.values())))
    assert not missing, f"not declared in the ROCm {found.version_text} headers: {sorted(missing)}"


def _hipify_hip() -> dict[str, str]:
    """CUDA name -> the HIP spelling HIPIFY's imported tables give it."""
    out = {}
    for path in sorted(HIPIFY.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        out.update((r["cuda"], r["hip"]) for r in data["rows"] if r.get("hip"))
    return out


@pytest.mark.slow
def test_blas_64_rows_follow_their_32_bit_sibling() -> None:
    """An added 64-bit cuBLAS side is the HIP spelling HIPIFY gives the 32-bit sibling, with _64: the
    plain or the _v2 form as HIPIFY chose it there (cublasCsymm -> hipblasCsymm_v2, so cublasCsymm_64 ->
    hipblasCsymm_v2_64; cublasDsymm -> hipblasDsymm, so cublasDsymm_64 -> hipblasDsymm_64)."""
    rows = real_glossary().rows
    hipify = _hipify_hip()
    without = _hipify_without_hip()
    checked, off = 0, []
    for cuda, row in rows.items():
        side = row["sides"].get("hip") or {}
        if not (cuda.startswith("cublas") and cuda.endswith("_64") and cuda in without and side.get("origin") == "override"):
            continue
        sibling = hipify.get(cuda[:-3])
        if side.get("symbol") and sibling:
            checked += 1
            if side["symbol"] != sibling + "_64":
                off.append(f"{cuda}: {side['symbol']}, sibling {cuda[:-3]} -> {sibling}")
    assert checked >= 53, checked
    assert not off, off
