"""The CUDA spellings the glossary presents as current are declared by the CUDA toolkit's headers.

Probed: every concept card's CUDA symbols, and the CUDA spelling of every symbol row of the CUDA
runtime, driver, device and language families or of a hand-written file (curated sides and overrides).
nvcc compiles them all for CUDA 13's lowest target and for sm_90a (xlate.cuda_headers); what is not a
name a header declares (a PTX instruction, a tool, a library outside the toolkit or missing from this
install) is skipped with its reason. A spelling the data says is gone (a row's `removed` version, or a
caveat sentence that says CUDA or CCCL removed it) must be undeclared, and anything else declared.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pytest

from xlate import cuda_headers, kb

FAMILIES = ("cuda-runtime", "cuda-driver", "cuda-device", "cuda-language")
HAND_WRITTEN = ("curated", "override")
# A sentence that says CUDA (or its CCCL) dropped the spelling.
_GONE = re.compile(r"\b(?:removed?|removes|no longer|cannot build|does not compile for any GPU|gone from|dropped)\b", re.I)
_CUDA_VERSION = re.compile(r"\b(?:CUDA|CCCL) \d+")
_SENTENCE = re.compile(r"(?<=[.;])\s+")

# Names the headers declare only under a macro that a Linux nvcc build of user code does not set.
MACRO_ONLY = {
    # #if defined(__CUDA_API_VERSION_INTERNAL): NVIDIA's own builds only (cuda.h); HIPIFY lists them as enumerators.
    "CU_LAUNCH_ATTRIBUTE_MAX": "__CUDA_API_VERSION_INTERNAL", "CU_DEV_RESOURCE_TYPE_MAX": "__CUDA_API_VERSION_INTERNAL",
    # the #elif defined(_WIN32) branch of crt/math_functions.h (MSVC's math helpers)
    "_Pow_int": "_WIN32", "_fdsign": "_WIN32", "_ldsign": "_WIN32",
    # #if defined(__CUDACC_RTC__) in crt/common_functions.h: NVRTC's assert
    "__assertfail": "__CUDACC_RTC__",
}

# HIPIFY-imported rows (glossary/symbols/hipify/, generated: never edited by hand) whose CUDA facts do not
# hold for CUDA 13.0. The row format has no field that overrides a CUDA version, so they are listed here;
# test_the_hipify_lists_are_still_needed fails once an import (or the toolkit) changes one.
# The tables give no `removed` version, and CUDA 13.0's headers declare none of these:
HIPIFY_NOT_IN_13 = frozenset({
    # runtime calls deprecated since CUDA 10 and earlier (cudaThread*, cudaSetDoubleFor*)
    "cudaThreadExit", "cudaThreadGetCacheConfig", "cudaThreadGetLimit", "cudaThreadSetCacheConfig", "cudaThreadSetLimit",
    "cudaThreadSynchronize", "cudaSetDoubleForDevice", "cudaSetDoubleForHost",
    # multi-device cooperative launch (deprecated in CUDA 11.3)
    "cudaLaunchCooperativeKernelMultiDevice", "cudaLaunchParams", "cudaCGScopeMultiGrid",
    "cudaCooperativeLaunchMultiDeviceNoPostSync", "cudaCooperativeLaunchMultiDeviceNoPreSync",
    "cudaDevAttrCooperativeMultiDeviceLaunch",
    # versioned entry points whose unsuffixed names CUDA 13.0 declares instead
    "cudaGraphAddDependencies_v2", "cudaGraphAddNode_v2", "cudaGraphGetEdges_v2", "cudaGraphNodeGetDependencies_v2",
    "cudaGraphNodeGetDependentNodes_v2", "cudaGraphRemoveDependencies_v2", "cudaStreamGetCaptureInfo_v3",
    "cudaStreamUpdateCaptureDependencies_v2", "cudaMemAdvise_v2", "cudaMemPrefetchAsync_v2",
    "cudaExternalSemaphoreSignalParams_v1", "cudaExternalSemaphoreWaitParams_v1", "cuCtxCreate_v2", "cuCtxCreate_v3",
    "cuGraphInstantiate_v2", "cuStreamGetCaptureInfo_v2",
    # texture references (CUDA 12.0 removed the rest of them; the tables mark those)
    "textureReference", "cuTexRefSetAddress2D_v2",
    # other enumerators and types
    "cudaDevAttrMaxTimelineSemaphoreInteropSupported", "cudaEglColorFormatBGR", "cudaEglColorFormatRGB",
    "cudaEglColorFormatYUV_ER", "CUstreamAttrValue_union", "CUstreamMemOpMemoryBarrierParams_st",
    "cuStreamBeginCapture_ptsz",
    # device helpers without the double underscore (CUDA declares __float2int_rn, __mul24, __saturatef ...)
    "float2int", "float_as_int", "float_as_uint", "int2float", "int_as_float", "uint2float", "uint_as_float",
    "mul24", "umul24", "mulhi", "mul64hi", "saturate",
    # not a global name: CUDA spells the enum CUeglColorFormat_enum (cudaEGL.h), and memoryBarrier is a
    # member of the CUstreamBatchMemOpParams union (cuda.h)
    "CUeglColorFormate_enum", "memoryBarrier",
})
# The tables say removed in CUDA 12.4; CUDA 13.0's cuda.h still declares them, marked __CUDA_DEPRECATED:
HIPIFY_STILL_IN_13 = frozenset({"cuCtxGetSharedMemConfig", "cuCtxSetSharedMemConfig", "cuFuncSetSharedMemConfig"})


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def _says_gone(text: str | None, spelling: str | None = None) -> bool:
    """Whether a caveat has a sentence saying CUDA (or CCCL) removed something (`spelling`, when given)."""
    for sentence in _SENTENCE.split(text or ""):
        if _GONE.search(sentence) and _CUDA_VERSION.search(sentence):
            if spelling is None or re.search(rf"(?<![\w/]){re.escape(spelling)}(?!\w)", sentence):
                return True
    return False


@cache
def _spellings() -> dict[str, dict[str, object]]:
    """spelling -> where it comes from: `cards` (id -> its CUDA caveat), `row` (the symbol row)."""
    out: dict[str, dict[str, object]] = {}
    for cid, card in kb.load_glossary().concepts.items():
        term = card.terms.cuda
        for symbol in term.symbols if term else ():
            cards = out.setdefault(symbol, {}).setdefault("cards", {})
            assert isinstance(cards, dict)
            cards[cid] = term.caveat
    symbols = kb.load_symbols()
    for name in symbols.names():
        entry = symbols.get(name)
        row = entry.row if entry else None
        if row is None:
            continue
        if row.family in FAMILIES or any(side.origin in HAND_WRITTEN for side in row.sides.values()):
            out.setdefault(name, {})["row"] = row
    return out


@cache
def _probed() -> tuple[cuda_headers.CudaHeaders, list[cuda_headers.Probe], cuda_headers.ProbeResult]:
    headers = cuda_headers.find_cuda_headers()
    if headers is None:
        pytest.skip(cuda_headers.absent_reason())
    probes = [cuda_headers.classify(s, headers) for s in sorted(_spellings())]
    return headers, probes, cuda_headers.probe(headers, [p for p in probes if p.skip is None])


def _removed_in(row: kb.Row | None, version: tuple[int, int]) -> str | None:
    removed = row.cuda_versions.get("removed") if row is not None else None
    return removed if removed and _version(removed) <= version else None


def _row_says_gone(row: kb.Row | None) -> bool:
    return row is not None and any(_says_gone(side.caveat) for side in row.sides.values())


def test_spellings_are_sorted_into_probes_and_reasons() -> None:
    kinds = {s: cuda_headers.classify(s) for s in ("cudaMalloc", "cub::BlockReduce", "threadIdx.x", "cuda_fp16.h",
                                                    "shfl.sync", "%laneid", "nvidia-smi", "ncu", "cudnnCreate", "sm_90a",
                                                    "HMMA", "CUDA_VISIBLE_DEVICES", "long long", "-arch", "<<<>>>")}
    assert [kinds[s].form for s in ("cudaMalloc", "cub::BlockReduce", "threadIdx.x", "cuda_fp16.h")] == [
        "identifier", "qualified", "member", "header"]
    assert all(p.skip for s, p in kinds.items() if s not in ("cudaMalloc", "cub::BlockReduce", "threadIdx.x", "cuda_fp16.h"))
    assert "cuDNN" in (kinds["cudnnCreate"].skip or "") and "PTX" in (kinds["%laneid"].skip or "")


def test_without_nvcc_the_probe_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cuda_headers.tools, "nvcc", lambda: None)
    assert cuda_headers.find_cuda_headers() is None
    assert "nvcc is not on PATH" in cuda_headers.absent_reason()
    _probed.cache_clear()
    with pytest.raises(pytest.skip.Exception, match="nvcc is not on PATH"):
        _probed()


def test_a_caveat_that_says_cuda_removed_a_name_is_read_as_such() -> None:
    assert _says_gone("The mask-free __shfl_down is deprecated since CUDA 9, so CUDA 13 cannot build it for any GPU.",
                      "__shfl_down")
    assert not _says_gone("HIPIFY removes this include; HIP declares the texture fetch functions in hip_runtime.h.")
    assert not _says_gone("Deprecated in CUDA 11.3 and removed in CUDA 12.", "__shfl")


@pytest.mark.slow
def test_current_cuda_spellings_are_declared() -> None:
    headers, probes, result = _probed()
    probed = [p for p in probes if p.skip is None]
    # Today about 4,500 spellings are probed; a collection or parse slip would drop most of them.
    assert len(probed) >= 4000, Counter(p.skip for p in probes)
    assert not result.problems, result.problems
    assert len(result.declared) + len(result.undeclared) == len(probed)
    spellings = _spellings()
    wrong = []
    for name, message in sorted(result.undeclared.items()):
        where = spellings[name]
        row = where.get("row")
        assert row is None or isinstance(row, kb.Row)
        cards = where.get("cards") or {}
        assert isinstance(cards, dict)
        for cid, caveat in cards.items():
            if not _says_gone(caveat, name):
                wrong.append(f"card {cid}: {name} ({message}); its CUDA caveat does not say CUDA removed it")
        if row is None or _removed_in(row, headers.version) or _row_says_gone(row):
            continue
        if name in MACRO_ONLY or name in HIPIFY_NOT_IN_13:
            continue
        wrong.append(f"row {name} ({row.family or 'curated'}): {message}; no `removed` fact or caveat says CUDA dropped it")
    assert not wrong, f"not declared by the CUDA {headers.version_text} headers:\n" + "\n".join(wrong)


@pytest.mark.slow
def test_spellings_marked_removed_are_not_declared() -> None:
    headers, _, result = _probed()
    wrong = []
    for name, targets in sorted(result.declared.items()):
        row = _spellings()[name].get("row")
        assert row is None or isinstance(row, kb.Row)
        removed = _removed_in(row, headers.version)
        if removed and name not in HIPIFY_STILL_IN_13:
            wrong.append(f"{name}: the row says removed in CUDA {removed}, but CUDA {headers.version_text} declares it "
                         f"(for {', '.join(targets)})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_the_hipify_lists_are_still_needed() -> None:
    headers, _, result = _probed()
    spellings = _spellings()
    for name in sorted(HIPIFY_NOT_IN_13 | HIPIFY_STILL_IN_13 | MACRO_ONLY.keys()):
        row = spellings.get(name, {}).get("row")
        assert isinstance(row, kb.Row) and row.family in FAMILIES, f"{name}: no longer a HIPIFY row of the CUDA families"
        hand = [side for side in row.sides.values() if side.origin in HAND_WRITTEN]
        # A hand-written side that names the macro states the condition in the data; the entry here only
        # keeps the probe from expecting a declaration.
        stated = name in MACRO_ONLY and any(MACRO_ONLY[name] in (side.caveat or "") for side in hand)
        # A hand-written side of a name CUDA still declares says so (the HIPIFY row's removal stays wrong).
        stated = stated or (name in HIPIFY_STILL_IN_13 and any("still declares" in (side.caveat or "") for side in hand))
        assert stated or not hand, f"{name}: a hand-written side can state it now"
    for name in sorted(HIPIFY_NOT_IN_13 | MACRO_ONLY.keys()):
        assert name in result.undeclared, f"{name}: CUDA {headers.version_text} declares it; drop it from the list"
        assert not _removed_in(spellings[name]["row"], headers.version), f"{name}: the tables say removed now"  # type: ignore[arg-type]
    for name in sorted(HIPIFY_STILL_IN_13):
        assert name in result.declared, f"{name}: CUDA {headers.version_text} no longer declares it; drop it from the list"
