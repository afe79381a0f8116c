"""Precision rules: number formats a backend does not have."""

from __future__ import annotations

from collections.abc import Iterable

from xlate.cuda.source import SourceView
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import MSL_SPEC
from xlate.rules.syntax import text


DOUBLE_VECTORS = frozenset({"double1", "double2", "double3", "double4"})


@register
class NoFp64Metal(Rule):
    code = "XL070"
    covers = frozenset({"double"})
    references = (MSL_SPEC,)
    summary = "`double` (or a double vector type) used in device code."
    why = (
        "The Metal Shading Language has no `double` type, so a kernel that computes in double cannot be "
        "written in Metal as is. AMD Instinct GPUs run FP64 natively, so HIP is unaffected."
    )
    example = (
        "__global__ void dot(const double* a, const double* b, double* out) {\n"
        "  double acc = a[threadIdx.x] * b[threadIdx.x];\n"
        "  out[threadIdx.x] = acc;\n"
        "}\n"
    )
    fix = (
        "Compute in `float` where the accuracy allows, use compensated (Kahan) or pairwise summation to "
        "recover accuracy, or emulate extra precision with float-float (double-word) arithmetic. Keep "
        "FP64-critical steps on the CPU."
    )
    fixed_example = (
        "__global__ void dot(const float* a, const float* b, float* out) {\n"
        "  float acc = a[threadIdx.x] * b[threadIdx.x];\n"
        "  out[threadIdx.x] = acc;\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        lines: set[int] = set()
        candidates = src.spelled(("double",), frozenset(("primitive_type",))) + src.named(DOUBLE_VECTORS)
        candidates.sort(key=lambda n: n.start_byte)
        for node in candidates:
            name = text(node)
            if node.start_point[0] in lines or not src.in_device_code(node):
                continue
            lines.add(node.start_point[0])
            yield self.hazard(
                src, node,
                f"'{name}' in device code: Metal has no 64-bit floating point; use float (with compensated "
                "summation) or keep this step on the CPU",
            )


HALF_INTRINSICS = frozenset({
    "__hadd", "__hsub", "__hmul", "__hdiv", "__hfma", "__hneg", "__habs", "__hmax", "__hmin",
    "__hadd2", "__hsub2", "__hmul2", "__h2div", "__hfma2", "__hneg2", "__habs2", "__hmax2", "__hmin2",
    "__heq", "__hne", "__hlt", "__hle", "__hgt", "__hge", "__heq2", "__hlt2", "__hgt2",
    "__float2half", "__float2half_rn", "__half2float", "__floats2half2_rn", "__float2half2_rn",
    "__half22float2", "__low2half", "__high2half", "__low2float", "__high2float", "__halves2half2",
    "__half2half2", "__lows2half2", "__highs2half2", "hexp", "hlog", "hsqrt", "hrsqrt", "hrcp",
    "h2exp", "h2log", "h2sqrt", "h2rsqrt", "h2rcp",
})


@register
class HalfIntrinsics(Rule):
    code = "XL071"
    covers = HALF_INTRINSICS
    concepts = ("fp16-format",)
    references = (MSL_SPEC,)
    summary = "CUDA half-precision intrinsics (`__hadd2`, `__hfma2`, `__float2half`, ...) in device code."
    why = (
        "CUDA exposes FP16 arithmetic through `cuda_fp16.h` intrinsics on `__half` and `__half2`; HIP "
        "ships the same names in `hip_fp16.h`. Metal has `half` and `half2` as built-in types with the "
        "ordinary operators and math functions, so none of these intrinsics exist there and each call "
        "becomes an expression."
    )
    example = (
        "__global__ void axpy(__half2 a, const __half2* x, __half2* y) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  y[i] = __hfma2(a, x[i], y[i]);\n"
        "}\n"
    )
    fix = "On Metal write the arithmetic directly on `half`/`half2` (`y[i] = fma(a, x[i], y[i]);`); keep the intrinsics for CUDA and HIP."
    fixed_example = (
        "// Metal Shading Language\n"
        "kernel void axpy(constant half2& a, device const half2* x, device half2* y,\n"
        "                 uint i [[thread_position_in_grid]]) {\n"
        "  y[i] = fma(a, x[i], y[i]);\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        lines: set[int] = set()
        for node in src.named(HALF_INTRINSICS):
            name = text(node)
            if node.type != "identifier" or node.start_point[0] in lines:
                continue
            parent = src.parent(node)
            if parent is None or parent.type != "call_expression" or not src.in_device_code(node):
                continue
            lines.add(node.start_point[0])
            yield self.hazard(
                src, parent,
                f"{name} is a CUDA/HIP half-precision intrinsic; Metal has native half/half2 operators: "
                "write the arithmetic directly",
            )
