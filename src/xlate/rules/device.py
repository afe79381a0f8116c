"""Device-runtime rules: clocks, printf and heap allocation inside kernels."""

from __future__ import annotations

from collections.abc import Iterable

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import HIP_EXT, MSL_SPEC

METAL_LOGGING = "https://developer.apple.com/documentation/metal/logging-shader-debug-messages"


@register
class DeviceClock(Rule):
    code = "XL100"
    concepts = ("timeline-profiler",)
    references = (HIP_EXT,)
    summary = "`clock()` / `clock64()` read inside device code to time or throttle work."
    why = (
        "CUDA's `clock64()` counts SM cycles. In HIP, `clock()` and `clock64()` count cycles at a rate "
        "that changes with the GPU clock, and AMD documents them as not working properly on RDNA3; "
        "`wall_clock64()` ticks at a constant, queryable rate. Metal offers no clock inside a kernel."
    )
    example = (
        "__global__ void timed(float* x, long long* cycles) {\n"
        "  long long t0 = clock64();\n"
        "  x[threadIdx.x] *= 2.0f;\n"
        "  cycles[threadIdx.x] = clock64() - t0;\n"
        "}\n"
    )
    fix = (
        "On HIP use `wall_clock64()` and convert with `hipDeviceAttributeWallClockRate` when you need "
        "time; on Metal time whole dispatches with GPU timestamps (`MTLCounterSampleBuffer`) or the "
        "command buffer's `gpuStartTime`/`gpuEndTime`."
    )
    fixed_example = (
        "__global__ void timed(float* x, long long* ticks) {\n"
        "  long long t0 = wall_clock64();\n"
        "  x[threadIdx.x] *= 2.0f;\n"
        "  ticks[threadIdx.x] = wall_clock64() - t0;\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.device_calls(("clock", "clock64")):
            yield self.hazard(
                src, call,
                f"{call_name(call)}() counts cycles at a varying rate on AMD (use wall_clock64 with the wall-clock "
                "rate) and has no Metal equivalent: time whole dispatches instead",
            )


@register
class DevicePrintf(Rule):
    code = "XL101"
    concepts = ("device-printf",)
    references = (METAL_LOGGING, HIP_EXT)
    summary = "`printf` inside device code."
    why = (
        "HIP supports `printf` in kernels. Metal has no `printf`; since Metal 3.2 (macOS 15, iOS 18) "
        "shaders can log through `os_log` when the library is compiled with logging enabled, and older "
        "systems have no in-kernel output at all."
    )
    example = "__global__ void k(int n) { if (threadIdx.x == 0) printf(\"n = %d\\n\", n); }\n"
    fix = (
        "For Metal, log with `os_log` (Metal 3.2+, compiled with `-fmetal-enable-logging`) or write "
        "diagnostics into a buffer that the host prints after the dispatch."
    )
    fixed_example = "__global__ void k(int n, int* debug) { if (threadIdx.x == 0) debug[0] = n; }\n"

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.device_calls(("printf",)):
            yield self.hazard(
                src, call,
                "printf in device code: Metal has no printf (os_log needs Metal 3.2 and logging enabled); "
                "write diagnostics to a buffer",
            )


@register
class DeviceMalloc(Rule):
    code = "XL102"
    concepts = ("device-malloc",)
    references = (HIP_EXT, MSL_SPEC)
    summary = "Heap allocation inside device code (`malloc`, `free`, `new`, `delete`)."
    why = (
        "CUDA and HIP kernels can allocate from a device heap with `malloc`/`free` (and C++ `new`/`delete` "
        "in CUDA). Metal kernels cannot allocate memory: every buffer, including scratch space, is "
        "allocated by the host and bound before the dispatch."
    )
    example = (
        "__global__ void k(int n) {\n"
        "  float* scratch = (float*)malloc(n * sizeof(float));\n"
        "  free(scratch);\n"
        "}\n"
    )
    fix = (
        "Allocate scratch space on the host (one slice per thread or block) and pass it in, or use "
        "threadgroup memory for small per-block buffers."
    )
    fixed_example = (
        "__global__ void k(int n, float* scratch) {\n"
        "  float* mine = scratch + (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * n;\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.device_calls(("malloc", "free", "realloc", "calloc")):
            yield self.hazard(src, call, f"{call_name(call)} in device code: Metal kernels cannot allocate; "
                                         "allocate on the host and pass the buffer in")
        for node in src.nodes("new_expression", "delete_expression"):
            if src.in_device_code(node):
                what = "new" if node.type == "new_expression" else "delete"
                yield self.hazard(src, node, f"{what} in device code: Metal kernels cannot allocate; "
                                             "allocate on the host and pass the buffer in")
