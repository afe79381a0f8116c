"""Architecture and compiler detection rules: macros and properties that mean NVIDIA-only things."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.rules.model import Hazard, Rule, SymbolRule
from xlate.rules.registry import register
from xlate.rules.refs import AMD_GPU_SPECS, HIP_PORTING
from xlate.rules.syntax import declared_type, guarded_by_hip, name_nodes, strip_parens, text


ARCH_MACROS = frozenset({
    "__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDA_ARCH_SPECIFIC__", "__CUDA_ARCH_FAMILY_SPECIFIC__",
    "__CUDA_ARCH_FEAT_SM90_ALL", "__CUDA_ARCH_FEAT_SM100_ALL", "__CUDA_ARCH_FEAT_SM120_ALL",
})
COMPILER_MACROS = frozenset({
    "__CUDACC__", "__NVCC__", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__",
    "__CUDACC_RDC__", "__CUDACC_EWP__", "__CUDACC_RTC__", "CUDART_VERSION", "CUDA_VERSION",
})
PREPROC_CONDITIONS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef", "preproc_defined"})


@register
class CudaArchMacro(SymbolRule):
    code = "XL080"
    concepts = ("arch-macro", "compute-capability")
    references = (HIP_PORTING,)
    summary = "`__CUDA_ARCH__` used to detect device compilation or to pick code by compute capability."
    why = (
        "nvcc defines `__CUDA_ARCH__` (for example 900 for sm_90) only while compiling device code, so "
        "CUDA sources use it both to separate device from host code and to choose features by "
        "architecture. HIP-Clang never defines it for AMD targets: a device-only branch silently becomes "
        "the host or fallback branch, and version comparisons such as `__CUDA_ARCH__ >= 800` are simply "
        "false. Metal has no such macro either."
    )
    example = (
        "__device__ float fast_exp(float x) {\n"
        "#if __CUDA_ARCH__ >= 800\n"
        "  return __expf(x);\n"
        "#else\n"
        "  return expf(x);\n"
        "#endif\n"
        "}\n"
    )
    fix = (
        "Test `__HIP_DEVICE_COMPILE__` (HIP) or `__CUDA_ARCH__` together with it to tell the device pass "
        "from the host pass, and test the feature you need (`__HIP_ARCH_HAS_*__` macros, or a per-target "
        "macro such as `__gfx942__`) rather than a compute-capability number."
    )
    fixed_example = (
        "__device__ float fast_exp(float x) {\n"
        "#if defined(__HIP_DEVICE_COMPILE__) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)\n"
        "  return __expf(x);\n"
        "#else\n"
        "  return expf(x);\n"
        "#endif\n"
        "}\n"
    )

    symbols = ARCH_MACROS
    after_name = (
        " is never defined by HIP-Clang or Metal, so this test takes the non-CUDA branch: "
        "use __HIP_DEVICE_COMPILE__ or __HIP_ARCH_HAS_* feature macros"
    )

    covers = ARCH_MACROS

    def applies(self, src: SourceView, node: Node) -> bool:
        return not _guarded_by_hip(src, node)


def _guarded_by_hip(src: SourceView, node: Node) -> bool:
    return guarded_by_hip(src, node)


@register
class CudaCompilerMacro(SymbolRule):
    code = "XL081"
    concepts = ("compiler-driver", "arch-macro")
    references = (HIP_PORTING,)
    summary = "Preprocessor tests of nvcc or CUDA toolkit macros (`__CUDACC__`, `__NVCC__`, `CUDART_VERSION`)."
    why = (
        "`__CUDACC__` and `__NVCC__` are defined by nvcc; amdclang++ compiling HIP defines neither (it "
        "defines `__HIPCC__`, `__HIP__` and `__HIP_PLATFORM_AMD__`), and CUDA toolkit version macros do "
        "not exist without the CUDA headers. Headers that hide `__device__` code or qualifiers behind "
        "`#ifdef __CUDACC__` compile for the host only under HIP, which surfaces later as missing "
        "device functions or wrong fallbacks."
    )
    example = (
        "#ifdef __CUDACC__\n"
        "#define HD __host__ __device__\n"
        "#else\n"
        "#define HD\n"
        "#endif\n"
    )
    fix = "Test both compilers: `#if defined(__CUDACC__) || defined(__HIPCC__)`, or check `__HIP_PLATFORM_AMD__` explicitly."
    fixed_example = (
        "#if defined(__CUDACC__) || defined(__HIPCC__)\n"
        "#define HD __host__ __device__\n"
        "#else\n"
        "#define HD\n"
        "#endif\n"
    )

    symbols = COMPILER_MACROS
    after_name = (
        " is not defined when amdclang++ compiles HIP: also test __HIPCC__ "
        "(or __HIP_PLATFORM_AMD__) so HIP takes the device-capable branch"
    )

    covers = COMPILER_MACROS

    def applies(self, src: SourceView, node: Node) -> bool:
        return src.enclosing(node, PREPROC_CONDITIONS) is not None and not _guarded_by_hip(src, node)


COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
CC_ATTRS = frozenset({"cudaDevAttrComputeCapabilityMajor", "cudaDevAttrComputeCapabilityMinor",
                      "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"})


@register
class ComputeCapabilityCheck(Rule):
    code = "XL082"
    covers = CC_ATTRS
    concepts = ("compute-capability", "device-properties")
    references = (HIP_PORTING, AMD_GPU_SPECS)
    summary = "Host code that compares `cudaDeviceProp::major/minor` (compute capability) to pick features."
    why = (
        "A compute capability such as 8.0 stands for a set of NVIDIA features (tensor cores, async copy, "
        "BF16). HIP fills `hipDeviceProp_t::major`/`minor` on AMD GPUs from the GFX IP version (9.4 for "
        "MI300X, gfx942), so `prop.major >= 8` is true there for unrelated reasons and enables NVIDIA-only "
        "paths. Metal describes capabilities with GPU families (`supportsFamily`)."
    )
    example = (
        "cudaDeviceProp prop;\n"
        "cudaGetDeviceProperties(&prop, 0);\n"
        "bool use_tensor_cores = prop.major >= 7;\n"
    )
    fix = (
        "Ask for the feature, not the number: on HIP check `gcnArchName` or the specific attribute "
        "(e.g. `hipDeviceAttributeWarpSize`, `sharedMemPerBlock`), and keep compute-capability "
        "tests inside NVIDIA-only code. On Metal query `supportsFamily(...)`."
    )
    fixed_example = (
        "hipDeviceProp_t prop;\n"
        "hipGetDeviceProperties(&prop, 0);\n"
        "bool is_mi300 = std::string(prop.gcnArchName).rfind(\"gfx942\", 0) == 0;\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for member in src.named(("major", "minor")):
            field = src.parent(member)
            if member.type != "field_identifier" or field is None or field.type != "field_expression":
                continue
            obj = field.child_by_field_name("argument")
            if obj is None:
                continue
            parent = src.parent(field)
            while parent is not None and parent.type == "parenthesized_expression":
                parent = src.parent(parent)
            if parent is None or parent.type != "binary_expression":
                continue
            op = parent.child_by_field_name("operator")
            if op is None or text(op) not in COMPARISONS:
                continue
            base = strip_parens(obj)
            while base.type in ("field_expression", "subscript_expression", "pointer_expression"):
                nxt = base.child_by_field_name("argument")
                if nxt is None:
                    break
                base = strip_parens(nxt)
            type_text = declared_type(src, text(base), field) if base.type == "identifier" else None
            if type_text is None or "cudaDeviceProp" not in type_text:
                continue
            yield self.hazard(
                src, parent,
                f"comparing {text(field)} (compute capability) selects NVIDIA features; on AMD major/minor are the "
                "GFX IP version: test the feature or architecture name instead",
            )
        for node in name_nodes(src, CC_ATTRS):
            yield self.hazard(src, node, f"{text(node)} is an NVIDIA compute capability; on AMD it reports the "
                                         "GFX IP version: test the feature or gcnArchName instead")
