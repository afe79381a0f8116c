"""Matrix-core rules: warp-level matrix fragments and their layouts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from xlate.rules.asm import asm_template
from xlate.cuda.source import SourceView
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import HIP_EXT, MSL_SPEC
from xlate.rules.syntax import text

if TYPE_CHECKING:
    from tree_sitter import Node

ROCWMMA = "https://rocm.docs.amd.com/projects/rocWMMA/en/latest/"

WMMA_FUNCS = frozenset({"load_matrix_sync", "store_matrix_sync", "mma_sync", "fill_fragment", "bmma_sync"})
MMA_ASM = ("mma.sync", "wgmma.", "ldmatrix", "stmatrix", "tcgen05.", "mma.sp")


@register
class TensorCoreFragment(Rule):
    code = "XL060"
    covers = WMMA_FUNCS | {"wmma", "nvcuda::wmma", "mma.h"}
    concepts = ("matrix-fragment-api", "warp-mma", "tensor-core")
    references = (HIP_EXT, ROCWMMA, MSL_SPEC)
    summary = "Warp matrix fragments (`nvcuda::wmma`) and inline `mma`/`wgmma`/`ldmatrix` tensor-core code."
    why = (
        "WMMA fragments are opaque per-warp tiles (16x16x16 and friends) whose element-to-lane layout is "
        "NVIDIA's and is sized for 32 lanes. HIP itself has no warp matrix functions; AMD's equivalents "
        "are rocWMMA (a similar fragment API) or MFMA intrinsics, which run on 64-lane wavefronts with "
        "their own shapes and register layouts. Metal's `simdgroup_matrix` works on 8x8 tiles per "
        "32-thread SIMD-group (larger shapes only on the newest Apple GPUs with Metal 4). Code that indexes fragment elements (`frag.x[i]`) or hand-writes "
        "`mma.sync` / `wgmma` PTX assumes NVIDIA's layout and does not port."
    )
    example = (
        "#include <mma.h>\n"
        "using namespace nvcuda;\n"
        "__global__ void tile(const half* a, const half* b, float* c) {\n"
        "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;\n"
        "  wmma::load_matrix_sync(fa, a, 16);\n"
        "}\n"
    )
    fix = (
        "On AMD, port to rocWMMA (`rocwmma::fragment`, `rocwmma::mma_sync`) or to a library GEMM "
        "(hipBLASLt, Composable Kernel); on Apple, use `simdgroup_matrix<half, 8, 8>` with "
        "`simdgroup_multiply_accumulate`, or MLX/MPS matrix multiplication. Never depend on which lane "
        "holds which fragment element."
    )
    fixed_example = (
        "#include <rocwmma/rocwmma.hpp>\n"
        "__global__ void tile(const half* a, const half* b, float* c) {\n"
        "  rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, half, rocwmma::row_major> fa;\n"
        "  rocwmma::load_matrix_sync(fa, a, 16);\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        lines: set[int] = set()

        def once(row: int) -> bool:
            if row in lines:
                return False
            lines.add(row)
            return True

        for inc in src.nodes("preproc_include"):
            path = inc.child_by_field_name("path")
            if path is not None and text(path).strip('<>"') == "mma.h" and once(inc.start_point[0]):
                yield self.hazard(src, inc, "<mma.h> is NVIDIA's warp matrix API: use rocWMMA on AMD, "
                                            "simdgroup_matrix (8x8) on Metal")
        for node in src.named(WMMA_FUNCS | {"wmma"}):
            if node.type not in ("namespace_identifier", "identifier", "type_identifier"):
                continue
            name = text(node)
            hit = name == "wmma" and (node.type == "namespace_identifier" or (
                _parent_type(src, node) in ("qualified_identifier", "nested_namespace_specifier")))
            hit = hit or (name in WMMA_FUNCS and node.type == "identifier" and not _in_namespace(src, node, "rocwmma"))
            if hit and once(node.start_point[0]):
                yield self.hazard(
                    src, node,
                    f"{'wmma fragment API' if name == 'wmma' else name}: NVIDIA fragment shapes and lane layouts; "
                    "port to rocWMMA/MFMA (64-lane) on AMD and simdgroup_matrix 8x8 on Metal",
                )
        for asm in src.nodes("gnu_asm_expression"):
            tmpl = asm_template(asm)
            if any(m in tmpl for m in MMA_ASM) and once(asm.start_point[0]):
                yield self.hazard(src, asm, "inline tensor-core PTX (mma/wgmma/ldmatrix) assumes NVIDIA register "
                                            "layouts: use rocWMMA/MFMA on AMD and simdgroup_matrix on Metal")


def _in_namespace(src: SourceView, node: Node, namespace: str) -> bool:
    """Whether a name is written `namespace::name` (rocWMMA's functions share NVIDIA's names: a
    call through rocwmma:: is the port, not the hazard)."""
    parent = src.parent(node)
    if parent is None or parent.type != "qualified_identifier":
        return False
    scope = parent.child_by_field_name("scope")
    return scope is not None and text(scope) == namespace


def _parent_type(src: SourceView, node: Node) -> str | None:
    parent = src.parent(node)
    return parent.type if parent is not None else None
