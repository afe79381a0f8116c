"""The SymbolMap: glossary concepts plus the HIPIFY-derived API tables, with curated exceptions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from xlate import kb
from xlate.kb import glossary_root as default_root

ROOT = default_root()


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols(ROOT)


def test_at_least_two_thousand_distinct_cuda_symbols(smap: kb.SymbolMap) -> None:
    assert len(set(smap.names())) >= 2000


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("cudaMalloc", "hipMalloc"),
        ("cudaMallocHost", "hipHostMalloc"),  # exception to the cuda -> hip rule
        ("cudaFreeHost", "hipHostFree"),
        ("cudaEventCreateWithFlags", "hipEventCreateWithFlags"),
        ("cudaDevAttrMultiProcessorCount", "hipDeviceAttributeMultiprocessorCount"),
        ("cudaErrorMemoryAllocation", "hipErrorOutOfMemory"),
        ("__nv_bfloat16", "__hip_bfloat16"),
        ("nvrtcGetPTX", "hiprtcGetCode"),
        ("cuda_runtime.h", "hip/hip_runtime.h"),
        ("cuLaunchKernel", "hipModuleLaunchKernel"),  # driver API: not the cu -> hip rule
        ("cuMemAlloc_v2", "hipMalloc"),
        ("cuEventCreate", "hipEventCreateWithFlags"),
        ("cuCtxGetLimit", "hipDeviceGetLimit"),
        ("CUDA_ERROR_OUT_OF_MEMORY", "hipErrorOutOfMemory"),
    ],
)
def test_listed_names_and_exceptions(smap: kb.SymbolMap, cuda: str, hip: str) -> None:
    entry = smap.get(cuda)
    assert entry is not None and entry.hip == hip


@pytest.mark.parametrize("name", ["cudaThreadGetLimit", "cudaGraphConditionalHandleCreate", "__vadd2", "nvrtcGetLTOIR"])
def test_names_without_hip_equivalent_map_to_none(smap: kb.SymbolMap, name: str) -> None:
    entry = smap.get(name)
    assert entry is not None and entry.hip is None and entry.hip_relation == "none"


def test_event_create_with_flags_note(smap: kb.SymbolMap) -> None:
    # cudaEventCreate(&e, flags) is the C++ overload; HIP spells the flagged form hipEventCreateWithFlags.
    note = smap.get("cudaEventCreate")
    assert note is not None and note.hip == "hipEventCreate"
    assert note.hip_caveat and "hipEventCreateWithFlags" in note.hip_caveat


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("cublasDgemm", "hipblasDgemm"),
        ("CUBLAS_OP_T", "HIPBLAS_OP_T"),
        ("curandGenerateUniform", "hiprandGenerateUniform"),
        ("cufftExecC2C", "hipfftExecC2C"),
        ("cusparseSpMV", "hipsparseSpMV"),
        ("cusolverDnDpotrfBatchedX", "hipsolverDnDpotrfBatchedX"),
        ("cub::BlockReduce", "hipcub::BlockReduce"),
        ("thrust::sort", "thrust::sort"),
        ("ncclAllReduce", "ncclAllReduce"),
        ("nvcuda::wmma::mma_sync", "rocwmma::mma_sync"),
    ],
)
def test_family_rules(smap: kb.SymbolMap, cuda: str, hip: str) -> None:
    entry = smap.get(cuda)
    assert entry is not None and entry.hip == hip


def test_cudnn_rows_keep_hipify_hip_name_and_the_miopen_answer(smap: kb.SymbolMap) -> None:
    """HIPIFY's HIP column for cuDNN is hipDNN; its MIOpen column is the second answer, marked approximate."""
    entry = smap.get("cudnnCreate")
    assert entry is not None and entry.concept == "dnn"
    assert (entry.hip, entry.hip_relation) == ("hipdnnCreate", "renamed")
    assert entry.side("miopen").symbol == "miopenCreate"
    assert entry.side("miopen").relation == "approximate" and entry.side("miopen").caveat
    handle = smap.get("cudnnHandle_t")
    assert handle is not None and handle.side("miopen").symbol == "miopenHandle_t"


def test_unrelated_names_are_unknown(smap: kb.SymbolMap) -> None:
    for name in ("cursor", "cudaCheck", "myKernel", "std::min", "current", "cuFooBar"):
        assert smap.get(name) is None, name


@pytest.mark.slow
def test_every_glossary_cuda_symbol_is_in_the_map(smap: kb.SymbolMap) -> None:
    g = kb.load_glossary(ROOT)
    for cid, concept in g.concepts.items():
        for name in concept.terms.cuda.symbols:
            entry = smap.get(name)
            assert entry is not None, name
            assert entry.concept == cid, (name, entry.concept, cid)
            hip = concept.terms.hip
            if hip.relation.value == "none":
                assert entry.hip is None or entry.family is not None, name


def test_api_tables_validate_and_cite_hipify() -> None:
    tables = kb.load_families(ROOT)
    assert tables.problems == []
    sources = {f.family: f.source for f in tables.families}
    assert "github.com/ROCm/HIPIFY" in sources["cuda-runtime"]
    assert "github.com/ROCm/HIPIFY" in sources["cuda-device"]


def test_api_problems_carry_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "glossary" / "api"
    folder.mkdir(parents=True)
    (folder / "demo.yaml").write_text(
        "family: demo\ntitle: Demo\nsource: https://github.com/ROCm/HIPIFY\n"
        "rename: [[cuda, hip]]\nrenamed: [cudaA, fooB]\nunsupported: [cudaA]\nsurprise: 1\n"
    )
    tables = kb.load_families(tmp_path / "glossary")
    shown = [str(p) for p in tables.problems]
    assert any("demo.yaml:7" in s and "surprise" in s for s in shown), shown
    (folder / "demo.yaml").write_text(
        "family: demo\ntitle: Demo\nsource: https://github.com/ROCm/HIPIFY\n"
        "rename: [[cuda, hip]]\nrenamed: [cudaA,\n  fooB]\nunsupported: [cudaA]\n"
    )
    shown = [str(p) for p in kb.load_families(tmp_path / "glossary").problems]
    assert any("demo.yaml:6" in s and "fooB" in s for s in shown), shown
    assert any("demo.yaml:7" in s and "listed twice" in s for s in shown), shown


@pytest.mark.slow
def test_cache_follows_glossary_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "glossary"
    shutil.copytree(ROOT, root)
    first = kb.load_symbols(root)
    assert first.get("__nv_bfloat162").hip == "__hip_bfloat162"
    overrides = root / "symbols" / "overrides.yaml"
    overrides.write_text(overrides.read_text().replace("symbol: __hip_bfloat162, ", "symbol: __hip_changed162, "))
    second = kb.load_symbols(root)
    assert second.content_hash != first.content_hash
    assert second.get("__nv_bfloat162").hip == "__hip_changed162"
    assert len(list((tmp_path / "cache" / "xlate").glob("index-*.json"))) == 1  # the old one is replaced


def test_a_header_maps_to_a_header_never_to_a_function(smap: kb.SymbolMap) -> None:
    for name in ("nccl.h", "cuda.h", "cublas_v2.h", "cuda_runtime.h", "cooperative_groups.h", "mma.h"):
        entry = smap.get(name)
        assert entry is not None and entry.kind == "header", name
        assert entry.hip is None or entry.hip.endswith((".h", ".hpp", ".cuh")), (name, entry.hip)
    assert smap.get("nccl.h").hip == "rccl/rccl.h"
    assert smap.get("cublasLt.h").concept == "blas-lt"
