"""Warp-width rules: code that assumes a 32-lane warp or a compile-time warp size."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import AMD_GPU_SPECS, HIP_EXT
from xlate.rules.syntax import (
    evaluate,
    file_constants,
    int_literal,
    names_in,
    operator,
    strip_parens,
    subscripts,
    text,
)
from xlate.rules.threadctx import is_lane_expr, is_thread_expr


SHUFFLE_DELTA = {
    "__shfl_down_sync": 2, "__shfl_up_sync": 2, "__shfl_xor_sync": 2,
    "__shfl_down": 1, "__shfl_up": 1, "__shfl_xor": 1,
}
SHUFFLE_WIDTH = {
    "__shfl_sync": 3, "__shfl_down_sync": 3, "__shfl_up_sync": 3, "__shfl_xor_sync": 3,
    "__shfl": 2, "__shfl_down": 2, "__shfl_up": 2, "__shfl_xor": 2,
}

# (operator, literal) pairs that read as "lane within a 32-wide warp" or "warp index" next to a thread index.
WARP_ARITH = {("&", 31): "lane index", ("%", 32): "lane index", ("/", 32): "warp index", (">>", 5): "warp index"}


@register
class HardcodedWarpSize(Rule):
    code = "XL001"
    concepts = ("warp-size", "lane-id", "warp-shuffle")
    references = (HIP_EXT, AMD_GPU_SPECS)
    summary = "A literal 32 (or 31, 5, 16) used as the warp width next to a thread or lane index."
    why = (
        "CUDA warps always have 32 threads, so lane and warp indices are often written as `tid & 31`, "
        "`tid % 32`, `tid >> 5` or `tid / 32`, shuffle reductions start at offset 16, and per-warp scratch "
        "arrays get 32 slots. AMD CDNA GPUs (MI200, MI300) run 64-lane wavefronts, and RDNA runs 32. With "
        "a fixed 32, lanes 32-63 compute the wrong lane and warp index, a reduction that starts at 16 "
        "combines only half a wavefront, and a 32-slot per-lane array is indexed out of bounds. Apple GPUs "
        "use 32-wide SIMD-groups, so Metal ports survive, but the code stays tied to one vendor."
    )
    example = (
        "__global__ void regroup(const float* x, float* out) {\n"
        "  int lane = threadIdx.x & 31;\n"
        "  int warp = threadIdx.x >> 5;\n"
        "  out[warp * 32 + lane] = x[threadIdx.x];\n"
        "}\n"
    )
    fix = (
        "Derive lane and warp indices from the run-time `warpSize` (`threadIdx.x % warpSize`, "
        "`threadIdx.x / warpSize`) and start shuffle loops at `warpSize / 2`. Where a compile-time width "
        "is needed, make it a template parameter chosen on the host from the device's warp size."
    )
    fixed_example = (
        "__global__ void regroup(const float* x, float* out) {\n"
        "  int lane = threadIdx.x % warpSize;\n"
        "  int warp = threadIdx.x / warpSize;\n"
        "  out[warp * warpSize + lane] = x[threadIdx.x];\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        seen: set[tuple[int, int]] = set()

        def emit(node: Node, message: str) -> Iterable[Hazard]:
            key = (node.start_byte, node.end_byte)
            if key not in seen:
                seen.add(key)
                yield self.hazard(src, node, message)

        consts = file_constants(src)
        for node, lit in _warp_operands(src, consts):
            left = node.child_by_field_name("left")
            if left is None:
                continue
            op = operator(node)
            value = _warp_value(lit, consts)
            if op == "==" and value == 31 and is_lane_expr(left) and src.in_device_code(node):
                yield from emit(lit, "lane 31 is the last lane only in a 32-lane warp; use warpSize - 1")
                continue
            what = WARP_ARITH.get((op, value if value is not None else -1))
            if what is None or not src.in_device_code(node):
                continue
            if what == "warp index" and _is_block_dim(left):
                what = "warp count"
            elif not is_thread_expr(src, left):
                continue
            expr = " ".join(text(node).split())
            expr = expr if len(expr) <= 40 else expr[:37] + "..."
            shown = "" if lit.type == "number_literal" else f" ({text(lit)} = {value})"
            yield from emit(
                lit,
                f"{what} '{expr}'{shown} assumes 32-lane warps; AMD wavefronts have 64 lanes: "
                "use warpSize (threadIdx.x % warpSize, threadIdx.x / warpSize) instead",
            )

        for call in src.calls(SHUFFLE_WIDTH):
            name = call_name(call)
            args = call_arguments(call)
            d = SHUFFLE_DELTA.get(name)
            if d is not None and d < len(args) and int_literal(strip_parens(args[d])) == 16:
                yield from emit(
                    args[d],
                    f"{name} offset 16 starts a 32-lane reduction; on 64-lane wavefronts start at warpSize / 2",
                )
            w = SHUFFLE_WIDTH[name]
            if w < len(args) and int_literal(strip_parens(args[w])) == 32:
                yield from emit(args[w], f"{name} width 32 is a fixed warp width; pass warpSize or omit it")

        # Only loops whose body shuffles by the loop variable can be reduction loops: start from
        # the shuffles (few) rather than inspecting every loop of the file.
        shuffle_starts = [c.start_byte for c in src.calls(SHUFFLE_DELTA)]
        if shuffle_starts:
            for loop in src.nodes("for_statement"):
                body = loop.child_by_field_name("body")
                if body is None:
                    continue
                i = bisect_left(shuffle_starts, body.start_byte)
                if i < len(shuffle_starts) and shuffle_starts[i] < body.end_byte:
                    yield from self._shuffle_loop(src, loop, consts)

        yield from self._per_lane_arrays(src)

    def _shuffle_loop(self, src: SourceView, loop: Node, consts: dict[str, int]) -> Iterable[Hazard]:
        init = loop.child_by_field_name("initializer")
        body = loop.child_by_field_name("body")
        if init is None or body is None:
            return
        var, start = None, None
        for cur in [init, *init.named_children]:
            if cur.type == "init_declarator":
                ident, value = cur.child_by_field_name("declarator"), cur.child_by_field_name("value")
                if ident is not None and value is not None:
                    var, start = text(ident), strip_parens(value)
            elif cur.type == "assignment_expression":
                ident, value = cur.child_by_field_name("left"), cur.child_by_field_name("right")
                if ident is not None and value is not None:
                    var, start = text(ident), strip_parens(value)
        if var is None or start is None:
            return
        bound = _upper_bound(loop.child_by_field_name("condition"), var)
        if _fixed_width(start, consts) == 16:
            flagged, message = start, (f"shuffle loop starting at {var} = {text(start)} reduces over 32 lanes only; "
                                       "start at warpSize / 2 so 64-lane wavefronts are fully reduced")
        elif bound is not None and _fixed_width(bound, consts) == 32:
            flagged, message = bound, (f"shuffle loop bounded by {var} < {text(bound)} covers 32 lanes only; "
                                       "bound it by warpSize so 64-lane wavefronts are covered")
        else:
            return
        stack = [body]
        while stack:
            cur = stack.pop()
            if cur.type == "call_expression" and call_name(cur) in SHUFFLE_DELTA:
                args = call_arguments(cur)
                d = SHUFFLE_DELTA[call_name(cur)]
                if d < len(args) and text(strip_parens(args[d])) == var:
                    yield self.hazard(src, flagged, message)
                    return
            stack.extend(cur.named_children)

    def _per_lane_arrays(self, src: SourceView) -> Iterable[Hazard]:
        for decl in src.qualified("__shared__"):
            if not src.in_device_code(decl):
                continue
            for d in decl.children_by_field_name("declarator"):
                if d.type != "array_declarator":
                    continue
                size = d.child_by_field_name("size")
                inner = d.child_by_field_name("declarator")
                if size is None or inner is None or int_literal(strip_parens(size)) != 32:
                    continue
                if inner.type != "identifier":
                    continue  # multi-dimensional tiles (e.g. [32][33]) are tile widths, not warp widths
                if self._indexed_per_lane(src, text(inner), src.function_of(decl)):
                    yield self.hazard(
                        src,
                        size,
                        f"'{text(inner)}[32]' holds one slot per lane or warp of a 32-wide warp; "
                        "64-lane wavefronts index past it: size it from the wavefront width",
                    )

    @staticmethod
    def _indexed_per_lane(src: SourceView, array: str, fn: Node | None) -> bool:
        if fn is None:
            return False
        lane_vars = _lane_variables(fn)
        for idx in subscripts(fn, array):
            if is_lane_expr(idx) or any(text(n) in lane_vars for n in names_in(idx)):
                return True
            if any(_is_fixed_lane_index(strip_parens(b)) for b in [idx, *idx.named_children]):
                return True
        return False


WARP_CONSTANT = re.compile(r"(?i)warp|lane|wave|simd")


WARP_NUMBERS = frozenset({5, 31, 32})


def _warp_operands(src: SourceView, consts: dict[str, int]) -> list[tuple[Node, Node]]:
    """(binary_expression, right operand) pairs whose right operand is 5, 31 or 32, written as a
    literal or as a warp-named constant. Starting from the few such operands is much cheaper than
    visiting every binary expression of a large file."""
    names = [n for n, v in consts.items() if v in WARP_NUMBERS and WARP_CONSTANT.search(n)]
    candidates = list(src.int_literals(WARP_NUMBERS, max_length=8))
    candidates += [n for n in src.named(names) if n.type == "identifier"] if names else []
    found: dict[int, tuple[Node, Node]] = {}
    for operand in candidates:
        outer, parent = operand, src.parent(operand)
        while parent is not None and parent.type == "parenthesized_expression":
            outer, parent = parent, src.parent(parent)
        if parent is not None and parent.type == "binary_expression" and parent.child_by_field_name("right") == outer:
            found[parent.start_byte * 1_000_003 + operand.start_byte] = (parent, operand)
    return [found[k] for k in sorted(found)]


def _is_block_dim(node: Node) -> bool:
    """`blockDim.x` (or .y/.z), possibly in parentheses: dividing it by 32 counts warps."""
    node = strip_parens(node)
    if node.type != "field_expression":
        return False
    arg = node.child_by_field_name("argument")
    return arg is not None and text(arg) == "blockDim"


def _warp_value(node: Node, consts: dict[str, int]) -> int | None:
    """A literal, or a named constant whose name says warp/lane (`WARP`, `kWarpSize`) and whose value is known."""
    if node.type == "number_literal":
        return int_literal(node)
    if node.type == "identifier" and WARP_CONSTANT.search(text(node)):
        return consts.get(text(node))
    return None


def _fixed_width(node: Node, consts: dict[str, int]) -> int | None:
    """Value of an expression built only from literals and warp-named constants (`16`, `WARP / 2`)."""
    node = strip_parens(node)
    if any(n.type == "identifier" and not WARP_CONSTANT.search(text(n)) for n in names_in(node)):
        return None
    if any(n.type == "identifier" and text(n) == "warpSize" for n in names_in(node)):
        return None
    return evaluate(node, consts)


def _upper_bound(cond: Node | None, var: str) -> Node | None:
    """`N` in a loop condition `var < N` (or `var <= N - 1`, taken as given)."""
    if cond is None:
        return None
    cond = strip_parens(cond)
    if cond.type != "binary_expression" or operator(cond) not in ("<", "<="):
        return None
    left = cond.child_by_field_name("left")
    right = cond.child_by_field_name("right")
    if left is None or right is None or text(strip_parens(left)) != var:
        return None
    return strip_parens(right)


# Lane index within a fixed 32-wide warp: `x & 31`, `x % 32`.
_LANE_INDEX_OPS = (("&", 31), ("%", 32))


def _is_fixed_lane_index(expr: Node) -> bool:
    """Whether an expression (parentheses already stripped) is `x & 31` or `x % 32`."""
    if expr.type != "binary_expression":
        return False
    right = expr.child_by_field_name("right")
    return right is not None and (operator(expr), int_literal(strip_parens(right)) or -1) in _LANE_INDEX_OPS


def _lane_variables(fn: Node) -> set[str]:
    """Locals initialised as a lane index with a fixed width (`x & 31`, `x % 32`)."""
    found: set[str] = set()
    stack = [fn]
    while stack:
        cur = stack.pop()
        if cur.type == "init_declarator":
            ident = cur.child_by_field_name("declarator")
            value = cur.child_by_field_name("value")
            if ident is not None and value is not None and _is_fixed_lane_index(strip_parens(value)):
                found.add(text(ident))
        stack.extend(cur.named_children)
    return found


@register
class WarpSizeNotConstexpr(Rule):
    code = "XL002"
    concepts = ("warp-size",)
    references = (HIP_EXT,)
    summary = "`warpSize` used where C++ needs a compile-time constant."
    why = (
        "Since ROCm 7.0, HIP's `warpSize` is no longer a `constexpr`: one binary can target GPUs with "
        "32- and 64-lane wavefronts, so the value is only known on the device at run time (the compiler "
        "still folds it for loop bounds and unrolling). Array bounds, template arguments, `static_assert`, "
        "`constexpr` variables, `case` labels and `__launch_bounds__` arguments that use it stop compiling."
    )
    example = (
        "__global__ void k(float* out) {\n"
        "  __shared__ float partial[warpSize];\n"
        "  static_assert(warpSize == 32, \"one warp\");\n"
        "}\n"
    )
    fix = (
        "Keep `warpSize` for run-time arithmetic. For a compile-time width, add a template parameter "
        "(`template <int WarpSize>`) and pick the instantiation on the host from "
        "`hipDeviceAttributeWarpSize`, or define a macro per target (64 for gfx9 `__GFX9__`, 32 otherwise)."
    )
    fixed_example = (
        "template <int WarpSize>\n"
        "__global__ void k(float* out) {\n"
        "  __shared__ float partial[WarpSize];\n"
        "}\n"
        "// host: query the warp size, then launch k<32> or k<64>\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for node in src.named(("warpSize",)):
            if node.type not in ("identifier", "type_identifier"):
                continue
            context = _constant_context(src, node)
            if context:
                yield self.hazard(
                    src,
                    node,
                    f"warpSize used as {context} needs a compile-time constant, and warpSize is not constexpr "
                    "on ROCm 7+: use a WarpSize template parameter chosen on the host",
                )


# Expression nodes between a name and the construct that decides whether it must be a constant:
# none of them decides anything, so the walk passes them without further tests.
_EXPRESSION_TYPES = frozenset({
    "binary_expression", "parenthesized_expression", "unary_expression", "field_expression", "call_expression",
    "argument_list", "subscript_expression", "subscript_argument_list", "conditional_expression",
    "cast_expression", "update_expression", "pointer_expression", "sizeof_expression", "comma_expression",
    "assignment_expression",
})


# Constructs whose every part must be a compile-time constant, and how a finding names them.
_CONSTANT_CONSTRUCTS = {
    "template_argument_list": "a template argument",
    "static_assert_declaration": "a static_assert condition",
    "launch_bounds": "a __launch_bounds__ argument",
    "enumerator": "an enumerator value",
    "bitfield_clause": "a bit-field width",
}


def _constant_context(src: SourceView, node: Node) -> str | None:
    """The construct that needs `node` to be a compile-time constant, or None.

    The answer for a node is the answer for its parent when the step between them decides nothing,
    so every node passed on the way is remembered with the final answer: many uses of warpSize in
    one long expression then cost one walk up, not one each.
    """
    memo = src.scratch("constant-context")
    child = node
    passed: list[int] = []
    result: str | None = None
    while True:
        if child.id in memo:
            result = memo[child.id]
            break
        parent = src.parent(child)
        if parent is None:
            break
        passed.append(child.id)
        t = parent.type
        if t in _EXPRESSION_TYPES:
            child = parent
            continue
        construct = _CONSTANT_CONSTRUCTS.get(t)
        if construct is not None:
            result = construct
            break
        if t == "array_declarator" and parent.child_by_field_name("size") == child:
            result = "an array size"
            break
        if t == "case_statement" and parent.child_by_field_name("value") == child:
            result = "a case label"
            break
        grand = src.parent(parent) if t in ("optional_parameter_declaration", "condition_clause", "init_declarator") else None
        if t == "optional_parameter_declaration" and grand is not None and grand.type == "template_parameter_list":
            result = "a template parameter default"
            break
        if t == "condition_clause" and grand is not None and grand.type == "if_statement":
            if any(c.type == "constexpr" for c in grand.children):
                result = "an if constexpr condition"
            break
        if t == "init_declarator" and parent.child_by_field_name("value") == child:
            if grand is not None and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in grand.children):
                result = "a constexpr initialiser"
            break
        if t.endswith("statement") or t in ("function_definition", "compound_statement", "translation_unit"):
            break
        child = parent
    for key in passed:
        memo[key] = result
    return result


@register
class ImplicitWarpSynchronous(Rule):
    code = "XL003"
    concepts = ("warp", "warp-barrier", "warp-reduce")
    references = (HIP_EXT,)
    summary = "A `volatile` shared-memory warp reduction that relies on lanes running in lockstep."
    why = (
        "The classic last-warp reduction (`vs[tid] += vs[tid + 16]; vs[tid] += vs[tid + 8]; ...` through a "
        "`volatile` pointer, with no barrier) assumes the 32 lanes of a warp execute each line together. "
        "Since Volta's independent thread scheduling CUDA no longer guarantees that, and the pattern "
        "hard-wires a 32-lane width: on 64-lane AMD wavefronts the unrolled steps cover only half the "
        "wavefront. Metal does not document lockstep execution of SIMD-group threads either."
    )
    example = (
        "__device__ void warp_reduce(volatile float* vs, int tid) {\n"
        "  vs[tid] += vs[tid + 16];\n"
        "  vs[tid] += vs[tid + 8];\n"
        "  vs[tid] += vs[tid + 4];\n"
        "}\n"
    )
    fix = (
        "Reduce in registers with shuffles over `warpSize` (HIP `__shfl_down`, Metal `simd_sum` or "
        "`simd_shuffle_down`), or keep the shared-memory form and put a warp barrier between steps "
        "(`__syncwarp()` in CUDA, `simdgroup_barrier` in Metal)."
    )
    fixed_example = (
        "__device__ float warp_reduce(float v) {\n"
        "  for (int off = warpSize / 2; off > 0; off >>= 1)\n"
        "    v += __shfl_down(v, off);\n"
        "  return v;\n"
        "}\n"
    )

    STEPS = frozenset({1, 2, 4, 8, 16, 32})

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for node in src.qualified("volatile", ("parameter_declaration", "declaration")):
            if not src.in_device_code(node):
                continue
            for d in node.children_by_field_name("declarator"):
                target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                if target is None or target.type not in ("pointer_declarator", "array_declarator"):
                    continue
                ident = target.child_by_field_name("declarator")
                while ident is not None and ident.type != "identifier":
                    ident = ident.child_by_field_name("declarator")
                if ident is None:
                    continue
                steps = self._lockstep_steps(src, text(ident), src.function_of(node))
                if len(steps) >= 2:
                    yield self.hazard(
                        src,
                        node,
                        f"'{text(ident)}' is a volatile warp reduction (offsets {', '.join(map(str, sorted(steps, reverse=True)))}) "
                        "that assumes 32 lanes in lockstep: use shuffles over warpSize or a warp barrier per step",
                    )

    def _lockstep_steps(self, src: SourceView, name: str, fn: Node | None) -> set[int]:
        found: set[int] = set()
        if fn is None:
            return found
        for idx in subscripts(fn, name):
            for b in [idx, *idx.named_children]:
                b = strip_parens(b)
                if b.type == "binary_expression" and operator(b) == "+":
                    right = b.child_by_field_name("right")
                    left = b.child_by_field_name("left")
                    value = int_literal(strip_parens(right)) if right is not None else None
                    if value in self.STEPS and left is not None and is_thread_expr(src, left):
                        found.add(value)
        return found
