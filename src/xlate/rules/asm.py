"""Inline PTX: NVIDIA's virtual ISA written directly into CUDA source."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_qualified_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import HIP_PORTING
from xlate.rules.syntax import text

PTX_ISA = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"

# Fragments that only occur in PTX templates (host inline assembly for x86 or Arm uses none of them).
PTX_MARKERS = (".u32", ".s32", ".b32", ".u64", ".b64", ".f32", ".f16", ".pred", ".sync", ".global", ".shared",
               "%laneid", "%%laneid", "%warpid", "%smid", "%clock", "%globaltimer", "cvta", "ld.", "st.",
               "mov.", "bar.", "membar", "prmt", "lop3", "shfl.", "vote.", "cp.async", "mma.")


def asm_template(asm: Node) -> str:
    """The assembly template of a gnu_asm_expression (all string literal pieces joined)."""
    tmpl = asm.child_by_field_name("assembly_code")
    if tmpl is None:
        return ""
    parts = [text(c) for c in tmpl.named_children if c.type == "string_literal"] or [text(tmpl)]
    return "".join(p.strip('"') for p in parts)


def is_ptx(src: SourceView, asm: Node) -> bool:
    return src.in_device_code(asm) or any(m in asm_template(asm) for m in PTX_MARKERS)


def ptx_wrapper_calls(src: SourceView) -> Iterable[Node]:
    """Calls into libcu++'s `cuda::ptx::` namespace, which are inline PTX behind a C++ name."""
    for ns in src.named(("ptx",)):
        scope = src.parent(ns)
        call = src.parent(scope) if scope is not None and scope.type == "qualified_identifier" else None
        if call is not None and call.type == "call_expression" and call_qualified_name(call).startswith(
                ("cuda::ptx::", "ptx::")):
            yield call


@register
class InlinePtx(Rule):
    code = "XL020"
    covers = frozenset({"asm"})
    concepts = ("inline-assembly", "virtual-isa")
    references = (PTX_ISA, HIP_PORTING)
    summary = "Inline PTX assembly (`asm(\"...\")` in device code, or `cuda::ptx::` wrappers)."
    why = (
        "PTX is NVIDIA's virtual instruction set; only NVIDIA's toolchain understands it. HIP-Clang compiles "
        "for AMD's GCN/CDNA ISA and accepts inline assembly in that ISA only, so every PTX `asm` block "
        "fails to compile for AMD GPUs. Metal has no inline assembly at all."
    )
    example = (
        "__device__ unsigned lane_id() {\n"
        "  unsigned id;\n"
        "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(id));\n"
        "  return id;\n"
        "}\n"
    )
    fix = (
        "Replace the assembly with the portable intrinsic or C++ it stands for (lane id: "
        "`threadIdx.x % warpSize` or `__lane_id()` in HIP; special registers: HIP built-ins such as "
        "`wall_clock64()`; Metal: `[[thread_index_in_simdgroup]]` and the MSL standard library). Keep "
        "any PTX behind `#if defined(__CUDA_ARCH__)` with a portable `#else` branch."
    )
    fixed_example = (
        "__device__ unsigned lane_id() {\n"
        "  return threadIdx.x % warpSize;\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for asm in src.nodes("gnu_asm_expression"):
            if is_ptx(src, asm):
                snippet = " ".join(asm_template(asm).split())
                snippet = snippet if len(snippet) <= 40 else snippet[:37] + "..."
                yield self.hazard(
                    src, asm,
                    f"inline PTX '{snippet}' compiles only for NVIDIA GPUs: replace it with a portable "
                    "intrinsic or guard it with a HIP/Metal fallback",
                )
        for call in ptx_wrapper_calls(src):
            yield self.hazard(
                src, call,
                f"{call_qualified_name(call)} emits inline PTX: use a portable intrinsic or guard it per vendor",
            )
