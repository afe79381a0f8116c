"""Host runtime rules: configuration calls that HIP accepts in name but not in effect."""

from __future__ import annotations

from collections.abc import Iterable

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.syntax import guarded_by_hip, strip_parens, text

HIP_RUNTIME_SOURCE = "https://github.com/ROCm/clr"

CACHE_CONFIG_CALLS = frozenset({
    "cudaDeviceSetCacheConfig", "cudaFuncSetCacheConfig", "cudaCtxSetCacheConfig",
    "cuCtxSetCacheConfig", "cuFuncSetCacheConfig",
    "cudaDeviceSetSharedMemConfig", "cudaFuncSetSharedMemConfig", "cuCtxSetSharedMemConfig",
    "cuFuncSetSharedMemConfig",
})


@register
class CacheConfigHint(Rule):
    code = "XL043"
    covers = CACHE_CONFIG_CALLS
    concepts = ("l1-cache", "shared-memory", "bank-conflict")
    references = (HIP_RUNTIME_SOURCE,)
    summary = "L1/shared-memory split and shared-memory bank-size settings (`cudaFuncSetCacheConfig`, ...)."
    why = (
        "On NVIDIA GPUs where L1 and shared memory share storage, these calls pick the split or the bank "
        "width. AMD GPUs have a fixed LDS and no bank-size setting: HIP documents the calls as ignored "
        "hints, and recent HIP releases document `hipDeviceSetCacheConfig` as returning "
        "`hipErrorNotSupported` on AMD, which an error-checking macro turns into a failure. Metal has no "
        "such control."
    )
    example = "CUDA_CHECK(cudaFuncSetCacheConfig(gemm, cudaFuncCachePreferShared));\n"
    fix = (
        "Drop the call for AMD and Apple targets, or accept `hipErrorNotSupported` as success; get "
        "the intended effect from tile sizes and padding (bank conflicts) instead."
    )
    fixed_example = (
        "#if !defined(__HIP_PLATFORM_AMD__)\n"
        "CUDA_CHECK(cudaFuncSetCacheConfig(gemm, cudaFuncCachePreferShared));\n"
        "#endif\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.calls(CACHE_CONFIG_CALLS):
            if guarded_by_hip(src, call):
                continue  # already kept out of the HIP build
            name = call_name(call)
            what = "bank size" if "SharedMem" in name else "L1/shared split"
            yield self.hazard(
                src, call,
                f"{name} sets the {what}, which AMD GPUs do not have: HIP ignores it or returns "
                "hipErrorNotSupported, Metal has no equivalent; drop it or tolerate the error",
            )


# Limits hipDeviceSetLimit accepts: stack size and malloc heap size (plus an AMD scratch extension);
# every other limit returns hipErrorUnsupportedLimit (ROCm clr, hip_device_runtime.cpp).
UNSUPPORTED_LIMITS = frozenset({
    "cudaLimitPrintfFifoSize", "cudaLimitDevRuntimeSyncDepth", "cudaLimitDevRuntimePendingLaunchCount",
    "cudaLimitMaxL2FetchGranularity", "cudaLimitPersistingL2CacheSize",
    "CU_LIMIT_PRINTF_FIFO_SIZE", "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH", "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT",
    "CU_LIMIT_MAX_L2_FETCH_GRANULARITY", "CU_LIMIT_PERSISTING_L2_CACHE_SIZE",
})
LIMIT_CALLS = frozenset({"cudaDeviceSetLimit", "cudaDeviceGetLimit", "cuCtxSetLimit", "cuCtxGetLimit"})


@register
class UnsupportedDeviceLimit(Rule):
    code = "XL044"
    covers = UNSUPPORTED_LIMITS
    concepts = ("device-properties",)
    references = (HIP_RUNTIME_SOURCE,)
    summary = "`cudaDeviceSetLimit` / `cudaDeviceGetLimit` with a limit HIP does not implement."
    why = (
        "`hipDeviceSetLimit` implements the stack size and the device malloc heap size; every other "
        "limit (printf FIFO size, dynamic-parallelism depth and pending launches, L2 fetch granularity, "
        "persisting L2 size) returns `hipErrorUnsupportedLimit`. Code that checks the result aborts at "
        "start-up; code that does not silently runs with the default."
    )
    example = "CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 64 << 20));\n"
    fix = (
        "Keep `cudaLimitStackSize` and `cudaLimitMallocHeapSize`; guard the other limits with an "
        "NVIDIA-only branch or treat `hipErrorUnsupportedLimit` as a warning."
    )
    fixed_example = (
        "#if !defined(__HIP_PLATFORM_AMD__)\n"
        "CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 64 << 20));\n"
        "#endif\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.calls(LIMIT_CALLS):
            if guarded_by_hip(src, call):
                continue  # already kept out of the HIP build
            args = call_arguments(call)
            index = 1 if call_name(call).endswith("GetLimit") else 0
            if index >= len(args):
                continue
            limit = strip_parens(args[index])
            if limit.type == "qualified_identifier":
                limit = limit.child_by_field_name("name") or limit
            if text(limit) in UNSUPPORTED_LIMITS:
                yield self.hazard(
                    src, limit,
                    f"{text(limit)} is not implemented by hipDeviceSetLimit/GetLimit (hipErrorUnsupportedLimit): "
                    "guard it for NVIDIA or tolerate the error",
                )
