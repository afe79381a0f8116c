"""Symbol rows: HIPIFY's tables answered as AMD gives them, curated rows validated, nothing invented."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import GLOSSARY, REPO, write_glossary
from xlate import kb


def _tables_dir() -> Path | None:
    """HIPIFY's Markdown tables, where this checkout has them: $XLATE_HIPIFY_TABLES, or the shared
    data folder that sits beside the checkout in the project's working layout."""
    env = os.environ.get("XLATE_HIPIFY_TABLES")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data" / "hipify-tables")
    return next((p for p in candidates if (p / "PROVENANCE.md").is_file()), None)


def _imported() -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for path in sorted((GLOSSARY / "symbols" / "hipify").glob("*.yaml")):
        for row in yaml.load(path.read_text(), Loader=yaml.CSafeLoader)["rows"]:
            rows.setdefault(row["cuda"], row)
    return rows


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols(GLOSSARY)


@pytest.mark.slow  # over a second: the full suite runs it
def test_hipify_supported_pairs_are_answered_with_hipify_names(smap: kb.SymbolMap) -> None:
    """At least 99.5% of HIPIFY's supported pairs answer HIPIFY's HIP name; every other answer is a
    newer name from the cited override file."""
    supported = {k: r["hip"] for k, r in _imported().items() if r.get("hip")}
    assert len(supported) >= 4937
    same, newer, wrong = 0, [], []
    for cuda, hip in supported.items():
        entry = smap.get(cuda)
        if entry is not None and entry.hip == hip:
            same += 1
        elif entry is not None and entry.side("hip") is not None and entry.side("hip").origin == "override" and entry.side("hip").source:
            newer.append((cuda, hip, entry.hip))
        else:
            wrong.append((cuda, hip, entry and entry.hip))
    assert not wrong, wrong[:20]
    assert same / len(supported) >= 0.995, (same, len(supported), newer)


@pytest.mark.slow  # over a second: the full suite runs it
def test_hipify_unsupported_names_get_no_invented_hip_name(smap: kb.SymbolMap) -> None:
    unsupported = [k for k, r in _imported().items() if "hip" in r and r["hip"] is None]
    assert len(unsupported) >= 3900
    named = []
    for cuda in unsupported:
        entry = smap.get(cuda)
        assert entry is not None, cuda
        assert not entry.derived, f"{cuda}: a naming rule answered a name HIPIFY lists as unsupported"
        if entry.hip is not None:
            side = entry.side("hip")
            assert side.origin == "override" and side.source, (cuda, side)
            named.append(cuda)
        else:
            assert entry.hip_relation == "none" and entry.hip_caveat, cuda
    # Every name given is a newer fact AMD's headers or docs state, from the cited override file
    # (warp _sync functions, hip_bf16.h, OCP fp8 in hip_fp8.h, hipBLAS's one GEMM algorithm selector,
    # HIP's device trap, and the 38 runtime and 84 library prefix twins ROCm 6.4 declares that
    # tests/test_rows_hip_twins.py compiles): about 4.5% of these names today.
    assert len(named) <= 186, (len(named), named)


def test_the_issues_examples_are_answered_right(smap: kb.SymbolMap) -> None:
    expected = {
        "CUdevice": "hipDevice_t", "CUcontext": "hipCtx_t", "CUmodule": "hipModule_t", "CUfunction": "hipFunction_t",
        "CUDA_SUCCESS": "hipSuccess", "cusolverDnCreate": "hipsolverDnCreate", "cublasCreate_v2": "hipblasCreate",
        "__nv_fp8_e4m3": "__hip_fp8_e4m3", "__nv_fp8_e5m2": "__hip_fp8_e5m2", "nv_bfloat16": "__hip_bfloat16",
        "nv_bfloat162": "__hip_bfloat162", "CUBLAS_OP_HERMITAN": "HIPBLAS_OP_C", "CUBLAS_GEMM_DFALT": "HIPBLAS_GEMM_DEFAULT",
        "cublasDataType_t": "hipDataType", "CUFFT_INVERSE": "HIPFFT_BACKWARD", "atomicMax": "atomicMax",
        "wmma::store_matrix_sync": "rocwmma::store_matrix_sync", "cudaMemcpy2DAsync": "hipMemcpy2DAsync",
    }
    for cuda, hip in expected.items():
        entry = smap.get(cuda)
        assert entry is not None and entry.hip == hip, (cuda, entry and entry.hip)
    assert smap.get("cudnnCreate").side("miopen").symbol == "miopenCreate"
    assert smap.get("cudnnHandle_t").side("miopen").symbol == "miopenHandle_t"
    for unsupported in ("CUBLASLT_ALGO_CAP_SPLITK_SUPPORT", "cusolverDnXsyevd", "cufftProperty"):
        entry = smap.get(unsupported)
        assert entry is not None and entry.hip is None and entry.hip_relation == "none", unsupported


def test_names_in_no_row_are_derived_and_say_so(smap: kb.SymbolMap) -> None:
    entry = smap.get("cublasSomethingNew_v9")
    assert entry is not None and entry.derived and entry.kind == "derived"
    assert entry.hip == "hipblasSomethingNew_v9" and "derived" in entry.hip_caveat
    assert smap.get("myKernelHelper") is None


@pytest.mark.slow  # over a second: the full suite runs it
def test_import_is_current_and_idempotent(tmp_path: Path) -> None:
    tables = _tables_dir()
    if tables is None:
        pytest.skip("HIPIFY's Markdown tables are not available here (set XLATE_HIPIFY_TABLES to their folder)")
    out = tmp_path / "glossary"
    first = kb.import_hipify_tables(tables, out)
    written = {p.name: p.read_bytes() for p in (out / "symbols" / "hipify").glob("*.yaml")}
    kb.import_hipify_tables(tables, out)
    again = {p.name: p.read_bytes() for p in (out / "symbols" / "hipify").glob("*.yaml")}
    assert written == again
    committed = {p.name: p.read_bytes() for p in (GLOSSARY / "symbols" / "hipify").glob("*.yaml")}
    assert written == committed, "glossary/symbols/hipify/ is stale: rerun `xlate glossary import-hipify`"
    assert sum(first.values()) >= 8900


def test_importer_refuses_a_folder_that_is_not_hipify_tables(tmp_path: Path) -> None:
    with pytest.raises(kb.HipifyImportError, match="PROVENANCE"):
        kb.import_hipify_tables(tmp_path, tmp_path / "g")
    (tmp_path / "PROVENANCE.md").write_text("commit 0123456789abcdef0123456789abcdef01234567\n")
    (tmp_path / "CUDA_RTC_API_supported_by_HIP.md").write_text("|`nvrtcFoo`| | |\n")
    with pytest.raises(kb.HipifyImportError, match="before any table header"):
        kb.import_hipify_tables(tmp_path, tmp_path / "g")


CURATED = """\
title: Test rows
sources:
  spec: https://developer.apple.com/metal/
rows:
  - cuda: warpSize
    concept: warp
    metal: {symbol: threads_per_simdgroup, relation: renamed, source: spec §5.2}
"""


def _problems(root: Path, text: str) -> list[str]:
    (root / "symbols").mkdir(exist_ok=True)
    (root / "symbols" / "test.yaml").write_text(text)
    return [str(p) for p in kb.load_glossary(root).problems]


def test_a_valid_curated_row_loads(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "glossary")
    assert _problems(root, CURATED) == []
    row = kb.load_glossary(root).rows["warpSize"]
    assert row["sides"]["metal"]["symbol"] == "threads_per_simdgroup"
    assert row["sides"]["metal"]["source"] == "https://developer.apple.com/metal/ §5.2"


@pytest.mark.parametrize(("change", "message"), [
    ("relation: renamed, source", "relation: none, source"),
    ("concept: warp", "concept: no-such-concept"),
    ("source: spec §5.2", "source: somewhere"),
    ("relation: renamed, source: spec §5.2", "relation: approximate, source: spec §5.2"),
    ("symbol: threads_per_simdgroup, ", ""),
    ("source: spec §5.2", "source: https://exa mple"),
])
def test_defective_rows_are_reported_with_their_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    root = write_glossary(tmp_path / "glossary")
    problems = _problems(root, CURATED.replace(change, message))
    assert problems and all(p.startswith("glossary/symbols/test.yaml:") for p in problems), problems


def test_one_answer_per_spelling_and_side(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "glossary")
    (root / "symbols").mkdir()
    (root / "symbols" / "other.yaml").write_text(CURATED.replace("title: Test rows", "title: Other"))
    problems = _problems(root, CURATED)
    assert any("one answer per CUDA spelling and side" in p for p in problems), problems


def test_a_counterpart_shared_by_two_rows_must_say_so(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "glossary")
    text = CURATED + "  - cuda: warpSizeAlias\n    concept: warp\n    metal: {symbol: threads_per_simdgroup, relation: renamed, source: spec}\n"
    problems = _problems(root, text)
    assert any("shared: true" in p for p in problems), problems
    assert _problems(root, text.replace("source: spec}", "source: spec, shared: true}").replace(
        "source: spec §5.2}", "source: spec §5.2, shared: true}")) == []


@pytest.mark.slow
def test_the_real_glossary_rows_check_clean() -> None:
    g = kb.load_glossary(GLOSSARY)
    assert [str(p) for p in g.problems if "symbols" in p.path or "api" in p.path] == []
    assert len(g.rows) >= 8900


@pytest.mark.slow
def test_copying_the_glossary_keeps_the_rows(tmp_path: Path) -> None:
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    assert kb.load_symbols(root).get("cudaMemcpy2DAsync").hip == "hipMemcpy2DAsync"


METAL_EXPECTED = {
    "atomicMax": "atomic_fetch_max_explicit", "__any_sync": "simd_any", "__all_sync": "simd_all",
    "wmma::store_matrix_sync": "simdgroup_store", "wmma::load_matrix_sync": "simdgroup_load",
    "cg::exclusive_scan": "simd_prefix_exclusive_sum", "cooperative_groups::inclusive_scan": "simd_prefix_inclusive_sum",
    "__expf": "fast::exp", "expf": "exp", "exp2f": "exp2", "logf": "log", "rsqrtf": "rsqrt", "sqrtf": "sqrt",
    "fmaf": "fma", "tanhf": "tanh", "__popc": "popcount", "__clz": "clz", "__brev": "reverse_bits", "isnan": "isnan",
    "__threadfence_system": "atomic_thread_fence", "half2": "half2", "__shfl_xor_sync": "simd_shuffle_xor",
    "__shfl_down_sync": "simd_shuffle_down", "__ballot_sync": "simd_ballot", "__syncthreads": "threadgroup_barrier",
    "atomicAdd": "atomic_fetch_add_explicit", "atomicExch": "atomic_exchange_explicit",
}


def _spellings(side: kb.Side | None) -> set[str]:
    if not side or not side.symbol:
        return set()
    names = {side.symbol, *side.also}
    return names | {n.removeprefix("metal::") for n in names}


@pytest.mark.parametrize(("cuda", "metal"), sorted(METAL_EXPECTED.items()))
def test_device_side_metal_rows_name_their_own_msl_function(smap: kb.SymbolMap, cuda: str, metal: str) -> None:
    entry = smap.get(cuda)
    assert entry is not None and metal in _spellings(entry.side("metal")), (cuda, entry and entry.side("metal"))
    assert entry.side("metal").source, "a Metal answer cites the MSL specification"


def test_no_counterpart_is_prose(smap: kb.SymbolMap) -> None:
    """Every side's symbol is a code spelling: caveats carry the prose."""
    for name in smap.names():
        entry = smap.get(name)
        for side in entry.sides.values():
            symbol = side.symbol
            if symbol:
                assert not symbol.endswith(".") and " the " not in f" {symbol} " and len(symbol.split()) <= 3, (name, symbol)


def test_metal_none_for_library_handles(smap: kb.SymbolMap) -> None:
    entry = smap.get("cublasCreate_v2")
    assert entry.hip == "hipblasCreate" and entry.metal is None and entry.metal_relation == "none"
    assert entry.metal_caveat
