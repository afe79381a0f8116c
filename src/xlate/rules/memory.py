"""Memory rules: shared-memory capacity and texture/surface objects."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate import kb
from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name, is_kernel
from xlate.rules.model import Hazard, Rule, SymbolRule
from xlate.rules.refs import AMD_GPU_SPECS, CUDA_GUIDE, HIP_EXT
from xlate.rules.registry import register
from xlate.rules.syntax import (
    evaluate,
    file_constants,
    has_qualifier,
    strip_parens,
    text,
    type_bytes,
)

METAL_TG_LIMIT = "https://developer.apple.com/documentation/metal/mtldevice/maxthreadgroupmemorylength"
METAL_FEATURE_TABLES = "https://developer.apple.com/metal/Metal-Feature-Set-Tables.pdf"

# Per-block limits the rule compares against. LDS per CU comes from the spec sheets (glossary/gpus),
# where the figures and their sources live: the reference part for CDNA3 is the MI300X, and the docs
# cite CDNA4's MI355X beside it. Apple's maximum threadgroup memory per compute kernel is a per-kernel
# API limit (maxThreadgroupMemoryLength, Metal feature set tables), not a per-core hardware figure, so
# the spec sheets do not carry it; it stays a documented setting here.
METAL_THREADGROUP_BYTES = 32 * 1024
CDNA3_REFERENCE_GPU = "mi300x"


def _sheet(gpu: str) -> kb.GpuSheet | None:
    return kb.resolve_gpu(gpu)


def _spec_lds_bytes(gpu: str) -> int | None:
    """LDS bytes per CU from a spec sheet, None where the glossary has no such sheet or figure (then
    the rule cannot judge that target). Read on first need: most files never come near the limit;
    the store keeps the sheets of the glossary's current content, so an edit is seen."""
    sheet = _sheet(gpu)
    kib = sheet.value("shared_memory_per_cu_kb") if sheet is not None else None
    return int(kib * 1024) if kib is not None else None


class _SheetFigures(dict[str, str]):
    """`{mi300x}` is a sheet's LDS per CU in KiB, `{mi300x_name}` its short name: read when asked."""

    def __missing__(self, key: str) -> str:
        gpu, _, what = key.partition("_")
        sheet, lds = _sheet(gpu), _spec_lds_bytes(gpu)
        if what == "name":
            return sheet.short_name if sheet is not None else gpu.upper()
        return _kib(lds) if lds is not None else f"the LDS of the {gpu} spec sheet (missing from this glossary)"


class SheetText:
    """A rule's documentation text whose figures come from the spec sheets. Formatted when read (the
    docs, SARIF), not at import: a cold explain never reads a sheet unless a file needs the limit."""

    def __init__(self, template: str) -> None:
        self.template = template

    def __get__(self, obj: object, owner: type | None = None) -> str:
        return self.template.format_map(_SheetFigures())


def _kib(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n % 1024 else f"{n // 1024} KiB"


def _backends_over(total: int) -> tuple[str, ...]:
    if total <= METAL_THREADGROUP_BYTES:
        return ()
    lds = _spec_lds_bytes(CDNA3_REFERENCE_GPU)
    if lds is not None and total > lds:
        return ("hip", "metal")
    if total > METAL_THREADGROUP_BYTES:
        return ("metal",)
    return ()


def _limits_text(backends: tuple[str, ...]) -> str:
    parts = []
    if "hip" in backends:
        figures = _SheetFigures()
        parts.append(f"{figures[CDNA3_REFERENCE_GPU]} of LDS per CU on CDNA3 ({figures[CDNA3_REFERENCE_GPU + '_name']})")
    if "metal" in backends:
        parts.append("32 KiB of threadgroup memory on Apple GPUs")
    return " and ".join(parts)


@register
class SharedMemoryCapacity(Rule):
    code = "XL040"
    concepts = ("shared-memory", "dynamic-shared-memory")
    references = (AMD_GPU_SPECS, METAL_TG_LIMIT, METAL_FEATURE_TABLES)
    summary = SheetText("Shared memory per block above {mi300x} (AMD CDNA3 LDS) or 32 KiB (Apple threadgroup memory).")
    why = SheetText(
        "Hopper and Blackwell let a block opt in to up to 227 KiB of shared memory "
        "(`cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`). An {mi300x_name} "
        "compute unit has {mi300x} of LDS (CDNA4 parts such as {mi355x_name} have {mi355x}), and Apple GPUs allow "
        "32 KiB of threadgroup memory per compute kernel. A kernel tiled for more fails to launch (HIP) "
        "or to build its pipeline (Metal). The rule adds up `__shared__` arrays whose sizes it can "
        "evaluate and checks dynamic sizes requested with a constant."
    )
    example = (
        "__global__ void gemm(const float* a, const float* b, float* c) {\n"
        "  __shared__ float as[128][64];\n"
        "  __shared__ float bs[64][128];\n"
        "}\n"
    )
    fix = (
        "Pick tile sizes per target so that the tiles fit the smallest limit you support (query "
        "`hipDeviceProp_t::sharedMemPerBlock` or `maxThreadgroupMemoryLength` at run time), use "
        "half-precision tiles, or split the K loop into more stages with smaller tiles."
    )
    fixed_example = (
        "template <int BM, int BN, int BK>\n"
        "__global__ void gemm(const float* a, const float* b, float* c) {\n"
        "  __shared__ float as[BM][BK];  // BM=64, BK=32 on Metal: 8 KiB\n"
        "  __shared__ float bs[BK][BN];\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        consts = file_constants(src)
        static_by_fn: dict[tuple[int, int], tuple[Node, int]] = {}
        kernel_static: dict[str, int] = {}
        for decl in src.qualified("__shared__"):
            if has_qualifier(decl, "extern"):
                continue
            size = self._declaration_bytes(decl, consts)
            if size is None:
                continue
            fn = src.function_of(decl)
            if fn is None:
                if _backends_over(size):
                    yield self._over(src, decl, size, "static __shared__ array")
                continue
            key = (fn.start_byte, fn.end_byte)
            first, total = static_by_fn.get(key, (decl, 0))
            before, total = total, total + size
            static_by_fn[key] = (first, total)
            if _backends_over(total) != _backends_over(before):
                yield self._over(src, decl, total, "static __shared__ memory of this function")
            if is_kernel(fn):
                declarator = fn.child_by_field_name("declarator")
                name = declarator.child_by_field_name("declarator") if declarator is not None else None
                if name is not None:
                    kernel_static[text(name)] = total

        for call in src.calls(("cudaFuncSetAttribute", "cuFuncSetAttribute")):
            args = call_arguments(call)
            if len(args) >= 3:
                if not any(a.type in ("identifier", "qualified_identifier") and text(a).endswith(
                        ("MaxDynamicSharedMemorySize", "MAX_DYNAMIC_SHARED_SIZE_BYTES")) for a in args[:2]):
                    continue
                value = evaluate(args[2], consts)
                if value is None:
                    continue
                kernel = text(strip_parens(args[0])).lstrip("&(").split("<")[0].strip(") ")
                total = value + kernel_static.get(kernel, 0)
                if _backends_over(total):
                    yield self._over(src, args[2], total, f"dynamic shared memory opted in for '{kernel}'")
        for launch in src.nodes("kernel_call_syntax"):
            config = [c for c in launch.named_children if c.type != "comment"]
            if len(config) < 3:
                continue
            value = evaluate(config[2], consts)
            if value is None:
                continue
            launch_call = src.parent(launch)
            kernel = call_name(launch_call) if launch_call is not None else ""
            total = value + kernel_static.get(kernel, 0)
            if _backends_over(total):
                yield self._over(src, config[2], total, f"shared memory of launch of '{kernel}'")

    def _over(self, src: SourceView, node: Node, total: int, what: str) -> Hazard:
        backends = _backends_over(total)
        return self.hazard(
            src, node,
            f"{what} is {_kib(total)}, above {_limits_text(backends)}: use smaller tiles per target",
            backends=backends,
        )

    @staticmethod
    def _declaration_bytes(decl: Node, consts: dict[str, int]) -> int | None:
        type_node = decl.child_by_field_name("type")
        if type_node is None:
            return None
        elem = type_bytes(text(type_node))
        if elem is None:
            return None
        total = 0
        for d in decl.children_by_field_name("declarator"):
            cur = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            count = 1
            while cur is not None and cur.type == "array_declarator":
                size = cur.child_by_field_name("size")
                value = evaluate(size, consts) if size is not None else None
                if value is None:
                    return None
                count *= value
                cur = cur.child_by_field_name("declarator")
            total += count * elem
        return total


TEXTURE_NAMES = frozenset({
    "tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered", "texCubemap", "texCubemapLayered",
    "tex2Dgather", "tex1DLod", "tex2DLod", "tex3DLod", "tex1DGrad", "tex2DGrad", "tex3DGrad",
    "surf1Dread", "surf1Dwrite", "surf2Dread", "surf2Dwrite", "surf3Dread", "surf3Dwrite",
    "surf2DLayeredread", "surf2DLayeredwrite", "surfCubemapread", "surfCubemapwrite",
    "cudaTextureObject_t", "cudaSurfaceObject_t", "cudaCreateTextureObject", "cudaCreateSurfaceObject",
    "cudaBindTexture", "cudaBindTexture2D", "cudaBindTextureToArray", "texture", "surface",
})


@register
class TextureObject(SymbolRule):
    code = "XL041"
    covers = TEXTURE_NAMES
    concepts = ("texture-memory",)
    references = (HIP_EXT,)
    summary = "Texture and surface objects or references, and their fetch functions."
    why = (
        "HIP implements texture objects, but texture support is partial and some AMD devices have no image "
        "hardware at all (HIP defines `__HIP_NO_IMAGE_SUPPORT` and reports "
        "`hipDeviceAttributeImageSupport`); legacy texture references are deprecated. In Metal, textures "
        "are typed kernel arguments (`texture2d<float, access::sample>`) with separate sampler objects, so "
        "`tex2D(obj, x, y)` calls need rewriting, not renaming."
    )
    example = (
        "__global__ void blur(cudaTextureObject_t img, float* out, int w) {\n"
        "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[x] = tex2D<float>(img, x + 0.5f, 0.5f);\n"
        "}\n"
    )
    fix = (
        "For compute kernels, read plain global memory (`const float* __restrict__`) and do the "
        "interpolation in code; that is portable everywhere. If filtering hardware matters, check image "
        "support on the AMD target and map to `texture2d` plus `sampler` on Metal."
    )
    fixed_example = (
        "__global__ void blur(const float* __restrict__ img, float* out, int w) {\n"
        "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[x] = img[x];\n"
        "}\n"
    )

    symbols = TEXTURE_NAMES
    after_name = (
        ": texture support on HIP is partial and absent on some AMD GPUs (__HIP_NO_IMAGE_SUPPORT); "
        "Metal binds textures as typed arguments with samplers: read global memory instead or rewrite"
    )

    def applies(self, src: SourceView, node: Node) -> bool:
        if text(node) in ("texture", "surface"):
            # only the legacy template `texture<T, dim, mode>` / `surface<void, dim>`, not any variable
            parent = src.parent(node)
            return parent is not None and parent.type == "template_type"
        return True


L2_NAMES = frozenset({
    "cudaAccessPolicyWindow", "cudaStreamAttributeAccessPolicyWindow", "cudaKernelNodeAttributeAccessPolicyWindow",
    "cudaLaunchAttributeAccessPolicyWindow", "cudaLimitPersistingL2CacheSize", "cudaCtxResetPersistingL2Cache",
    "cudaAccessPropertyPersisting", "cudaAccessPropertyStreaming", "cudaDevAttrMaxPersistingL2CacheSize",
    "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW", "CUaccessPolicyWindow",
})


@register
class L2Persistence(SymbolRule):
    code = "XL042"
    covers = L2_NAMES
    concepts = ("l2-cache",)
    references = (CUDA_GUIDE,)
    summary = "L2 persistence controls: access policy windows and the persisting-L2 carve-out."
    why = (
        "Since Ampere, CUDA lets a stream or kernel mark a memory window as persisting in L2 "
        "(`cudaAccessPolicyWindow`, `cudaLimitPersistingL2CacheSize`). Metal exposes no control over "
        "GPU cache residency, so these hints have nothing to map to; they are performance hints, so the "
        "port still runs without them."
    )
    example = (
        "cudaAccessPolicyWindow window = {};\n"
        "window.hitProp = cudaAccessPropertyPersisting;\n"
        "cudaCtxResetPersistingL2Cache();\n"
    )
    fix = "Drop the hint on Metal (and measure); improve locality by tiling or by reusing data within a dispatch instead."
    fixed_example = "// no cache-residency hint: rely on tiling for reuse\n"

    symbols = L2_NAMES
    after_name = " is an L2 persistence hint; Metal has no cache-residency control: drop it there"
