"""Lane-mask rules: 32-bit masks and the member-mask semantics of the *_sync warp intrinsics."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import HIP_EXT, HIP_PORTING, MSL_SPEC
from xlate.rules.syntax import (
    declarator_name,
    file_constants,
    int_literal,
    literal_suffix,
    macro_expression,
    operator,
    strip_parens,
    text,
)
from xlate.rules.threadctx import is_thread_expr


# Warp intrinsics whose first argument is a member mask.
MASKED = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__all_sync", "__any_sync", "__uni_sync",
    "__match_any_sync", "__match_all_sync", "__syncwarp",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
})
# Intrinsics that return a lane mask (32-bit in CUDA, 64-bit in HIP).
MASK_RESULT = frozenset({
    "__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync", "__match_any", "__match_all",
})
BIT32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll"}
INT32_TYPES = frozenset({"int", "unsigned", "unsigned int", "uint32_t", "int32_t", "uint", "signed", "signed int"})

FULL32 = 0xFFFFFFFF
FULL64 = 0xFFFFFFFFFFFFFFFF
# What a partial fix breaks: a mask is built, stored, shifted and counted in different places.
PARTIAL = "Widen its stores, shifts and bit counts with it, or lanes 32-63 drop out again"


def _mask_calls(src: SourceView) -> Iterable[tuple[Node, str, Node | None]]:
    for call in src.calls(MASKED):
        args = call_arguments(call)
        yield call, call_name(call), (args[0] if args else None)


def _is_full32(node: Node) -> bool:
    """`0xffffffff` written without a 64-bit suffix: a full mask of a 32-lane warp only."""
    return int_literal(node) == FULL32 and "ll" not in literal_suffix(node)


def _contains_mask_result(node: Node) -> bool:
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "call_expression" and call_name(cur) in MASK_RESULT:
            return True
        stack.extend(cur.named_children)
    return False


_DECLARATION_BOUNDS = frozenset({"declaration", "compound_statement", "function_definition"})


def _declarations_around(src: SourceView, calls: list[Node]) -> list[Node]:
    """The declarations (if any) that each mask-returning call sits in, without duplicates."""
    found: dict[int, Node] = {}
    for call in calls:
        cur = src.enclosing(call, _DECLARATION_BOUNDS)
        if cur is not None and cur.type == "declaration":
            found[cur.start_byte] = cur
    return [found[k] for k in sorted(found)]


@register
class LaneMaskWidth(Rule):
    code = "XL010"
    covers = MASK_RESULT
    concepts = ("warp-ballot", "warp-active-mask", "lane-id")
    references = (HIP_EXT, HIP_PORTING)
    summary = "Lane masks held in 32 bits: 0xffffffff masks, ballot results in `unsigned`, `1 << lane`."
    why = (
        "A CUDA lane mask has one bit per lane of a 32-lane warp, so it fits an `unsigned`. HIP's "
        "cross-lane built-ins take and return 64-bit masks (`unsigned long long`) because CDNA wavefronts "
        "have 64 lanes: `__ballot_sync` stored in an `unsigned` drops lanes 32-63, `__popc` of it counts "
        "half the wavefront, `0xffffffff` names only the lower half, and `1 << lane` is undefined once "
        "the lane reaches 32. HIP's `*_sync` built-ins also check the mask type at compile time."
    )
    example = (
        "__global__ void count(const int* flags, int* out) {\n"
        "  unsigned votes = __ballot_sync(0xffffffff, flags[threadIdx.x] != 0);\n"
        "  if (threadIdx.x % warpSize == 0) atomicAdd(out, __popc(votes));\n"
        "}\n"
    )
    fix = (
        "Hold masks in a 64-bit type (`unsigned long long` or `uint64_t`), build the full mask as `~0ull` "
        "(or from `__activemask()`), shift `1ull << lane`, and count with the 64-bit bit functions "
        "(`__popcll`, `__ffsll`)."
    )
    fixed_example = (
        "__global__ void count(const int* flags, int* out) {\n"
        "  unsigned long long votes = __ballot_sync(~0ull, flags[threadIdx.x] != 0);\n"
        "  if (threadIdx.x % warpSize == 0) atomicAdd(out, __popcll(votes));\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        mask_names: set[str] = set()
        for _call, name, mask in _mask_calls(src):
            if mask is None:
                continue
            mask = strip_parens(mask)
            if _is_full32(mask):
                yield self.hazard(
                    src, mask,
                    f"{name} mask 0xffffffff names 32 lanes; HIP masks are 64-bit (wavefronts of 64): use ~0ull. {PARTIAL}",
                )
            elif mask.type == "identifier":
                mask_names.add(text(mask))

        if mask_names:
            yield from self._full_mask_definitions(src, mask_names)
            yield from self._header_masks(src, mask_names)

        ballot_vars: set[str] = set()
        mask_calls = src.calls(MASK_RESULT)
        for decl in _declarations_around(src, mask_calls):
            type_node = decl.child_by_field_name("type")
            if type_node is None:
                continue
            type_text = " ".join(text(type_node).split())
            for d in decl.children_by_field_name("declarator"):
                value = d.child_by_field_name("value") if d.type == "init_declarator" else None
                if value is None or not _contains_mask_result(value):
                    continue
                ident = declarator_name(d)
                if ident is not None:
                    ballot_vars.add(text(ident))
                if type_text in INT32_TYPES and not any(c.type == "pointer_declarator" for c in d.children):
                    yield self.hazard(
                        src, decl,
                        f"a lane mask stored in 32-bit '{type_text}' loses lanes 32-63 of a 64-lane wavefront; "
                        f"use unsigned long long (uint64_t). {PARTIAL}",
                    )

        for call in src.calls(BIT32):
            name = call_name(call)
            args = call_arguments(call)
            if not args:
                continue
            arg = strip_parens(args[0])
            if _contains_mask_result(arg) or (arg.type == "identifier" and text(arg) in ballot_vars):
                yield self.hazard(
                    src, call,
                    f"{name} reads 32 bits of a lane mask; HIP masks are 64-bit: use {BIT32[name]}. {PARTIAL}",
                )

        for left in src.int_literals((1,), max_length=4):
            if "ll" in literal_suffix(left):
                continue
            shift = src.parent(left)
            if shift is None or shift.type != "binary_expression" or shift.child_by_field_name("left") != left:
                continue
            right = shift.child_by_field_name("right")
            if right is None or operator(shift) != "<<":
                continue
            if src.in_device_code(shift) and is_thread_expr(src, right):
                yield self.hazard(
                    src, shift,
                    f"'{text(shift)}' builds a lane bit in 32 bits; lanes 32-63 of a wavefront overflow it: "
                    f"shift 1ull instead. {PARTIAL}",
                )

    def _header_masks(self, src: SourceView, names: set[str]) -> Iterable[Hazard]:
        """Masks named by a macro that an included header defines as 0xffffffff: flagged where the
        file uses them (the header's own finding is at its #define, when the header is explained)."""
        inherited = src.context.macros
        own = {text(n) for d in src.nodes("preproc_def") if (n := d.child_by_field_name("name")) is not None}
        header_full = {n for n in names if inherited.get(n) == FULL32 and n not in own}
        if not header_full:
            return
        for _call, name, mask in _mask_calls(src):
            if mask is None:
                continue
            mask = strip_parens(mask)
            if mask.type == "identifier" and text(mask) in header_full:
                yield self.hazard(
                    src, mask,
                    f"{name} mask {text(mask)} is 0xffffffff in an included header: 32 lanes; HIP masks are 64-bit: "
                    f"define it as ~0ull in that header (every file that includes it changes with it). {PARTIAL}",
                )

    def _full_mask_definitions(self, src: SourceView, names: set[str]) -> Iterable[Hazard]:
        for node in src.nodes("preproc_def"):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is None or value is None or text(name) not in names:
                continue
            expr = macro_expression(text(value).strip())
            expr = strip_parens(expr) if expr is not None else None
            if expr is not None and _is_full32(expr):
                yield self.hazard(
                    src, name,
                    f"lane mask {text(name)} = 0xffffffff names 32 lanes; HIP masks are 64-bit: define it as ~0ull. {PARTIAL}",
                )
        for ident in src.named(names):
            decl = src.parent(ident)
            if ident.type != "identifier" or decl is None or decl.type != "init_declarator":
                continue
            value = decl.child_by_field_name("value")
            if value is None or decl.child_by_field_name("declarator") != ident:
                continue
            value = strip_parens(value)
            if _is_full32(value):
                yield self.hazard(
                    src, value,
                    f"lane mask {text(ident)} = 0xffffffff names 32 lanes; HIP masks are 64-bit: use ~0ull. {PARTIAL}",
                )


@register
class WarpSyncMask(Rule):
    code = "XL011"
    covers = MASKED
    concepts = ("warp-level-primitives", "warp-barrier", "warp-shuffle")
    references = (HIP_EXT, MSL_SPEC)
    summary = "A `*_sync` warp intrinsic or `__syncwarp` called with a partial or computed member mask."
    why = (
        "In CUDA the mask of a `*_sync` intrinsic names which lanes take part, and partial masks are used "
        "to run warp collectives inside divergent branches. HIP takes 64-bit masks and leaves the result "
        "undefined unless every lane named in any mask reaches the same call with the same mask; the "
        "`*_sync` forms only appeared in ROCm 6.2 behind `HIP_ENABLE_WARP_SYNC_BUILTINS`. Metal's "
        "SIMD-group functions (`simd_shuffle`, `simd_ballot`, `simd_sum`) take no mask at all and act on "
        "the threads that are active, so partial-mask logic has to be restructured."
    )
    example = (
        "__global__ void k(float* x) {\n"
        "  unsigned long long active = __ballot_sync(~0ull, x[threadIdx.x] > 0);\n"
        "  if (x[threadIdx.x] > 0)\n"
        "    x[threadIdx.x] = __shfl_sync(active, x[threadIdx.x], 0);\n"
        "}\n"
    )
    fix = (
        "Call warp collectives from converged code with the full mask and select results with a "
        "predicate afterwards; on HIP pass a 64-bit mask that all named lanes share; on Metal drop the "
        "mask and make sure only the intended threads are active."
    )
    fixed_example = (
        "__global__ void k(float* x) {\n"
        "  float v = x[threadIdx.x];\n"
        "  float first = __shfl(v, 0);  // HIP: all lanes take part\n"
        "  if (v > 0) x[threadIdx.x] = first;\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        consts = None
        for _call, name, mask in _mask_calls(src):
            if mask is None:
                continue
            mask = strip_parens(mask)
            value = int_literal(mask)
            if value in (FULL32, FULL64):
                continue
            if mask.type == "unary_expression" and text(mask).replace(" ", "") in ("~0", "~0u", "~0ull", "~0ULL", "~0U"):
                continue
            if mask.type == "identifier":
                consts = consts if consts is not None else file_constants(src)
                if consts.get(text(mask)) in (FULL32, FULL64):
                    continue
            shown = text(mask) if len(text(mask)) <= 40 else text(mask)[:37] + "..."
            yield self.hazard(
                src, mask,
                f"{name} with member mask '{shown}': HIP needs a 64-bit mask shared by every named lane, "
                "Metal SIMD-group functions take no mask; call it from converged code with the full mask "
                "(every collective of the branch at once: one left behind waits for lanes that never come)",
            )
