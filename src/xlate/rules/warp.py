"""Warp-width rules: code that assumes a 32-lane warp or a compile-time warp size."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name, last_name
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
    summary = ("A 32 (literal or a macro from any included header) used as the warp width in warp code: "
               "next to a warp primitive, a lane mask, warpSize, or at the launch of such code.")
    why = (
        "CUDA warps always have 32 threads, so lane and warp indices are often written as `tid & 31`, "
        "`tid % 32`, `tid >> 5` or `tid / WARP_SIZE`, shuffle reductions start at offset 16, per-warp scratch "
        "arrays get 32 slots and kernels are launched with 32 threads per row. AMD CDNA GPUs (MI200, MI300) "
        "run 64-lane wavefronts, and RDNA runs 32. What matters is consistency: a logical 32-lane warp kept "
        "everywhere is correct on a 64-lane wavefront (it holds two logical warps), while a mix is not. A block "
        "reduction whose lane index follows `warpSize` while its shuffle loop still starts at 16 drops the "
        "partial sums of lanes 32-63, and one whose shuffle loop starts at `warpSize / 2` while its lane index "
        "stays `% 32` adds them twice. A 32 is a warp width only in warp code: a function that calls a shuffle, "
        "vote, ballot, `__activemask` or `__syncwarp`, reads `warpSize`, or calls such a function (in any file "
        "of the project). Where `tid / 32` and `tid % 32` only lay out data (a GEMM's register tile) nothing "
        "is flagged: changing them to `warpSize` would corrupt the result. Explaining a folder or a "
        "`compile_commands.json` reads `#define WARP_SIZE 32` from the headers a file includes, and gives one "
        "decision for the whole project. Apple GPUs use 32-wide SIMD-groups, so Metal ports survive."
    )
    example = (
        "__global__ void regroup(const float* x, float* out) {\n"
        "  int lane = threadIdx.x & 31;\n"
        "  int warp = threadIdx.x >> 5;\n"
        "  int warps = blockDim.x / warpSize;\n"
        "  out[warp * 32 + lane] = x[threadIdx.x] * warps;\n"
        "}\n"
    )
    fix = (
        "Decide once for the project, then change every flagged place of its warp code in one go. Either keep a "
        "logical 32-lane warp everywhere (hold lane masks in 64 bits, pass width 32 to shuffles that read a "
        "fixed lane), or derive every lane and warp index from the run-time `warpSize` (`threadIdx.x % "
        "warpSize`, `threadIdx.x / warpSize`), start shuffle loops at `warpSize / 2`, size per-warp arrays for "
        "64 lanes and launch `warpSize` threads per row. Where a compile-time width is needed, make it a "
        "template parameter chosen on the host from the device's warp size."
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

        counting: set[int] = set()  # functions with a finding: they count 32 lanes

        def note(node: Node) -> None:
            fn = src.function_of(node)
            if fn is not None:
                counting.add(fn.id)

        def emit(node: Node, message: str) -> Iterable[Hazard]:
            key = (node.start_byte, node.end_byte)
            if key not in seen:
                seen.add(key)
                note(node)
                yield self.hazard(src, node, message)

        consts = file_constants(src)
        warp_fns = warp_functions(src)
        for node, lit in _warp_operands(src, consts):
            left = node.child_by_field_name("left")
            if left is None:
                continue
            op = operator(node)
            value = _warp_value(lit, consts)
            shown = "" if lit.type == "number_literal" else f" ({text(lit)} = {value})"
            if op == "==" and value == 31 and is_lane_expr(left) and in_warp_code(src, node, warp_fns):
                yield from emit(lit, f"lane 31{shown} is the last lane only in a 32-lane warp: use warpSize - 1. {PARTIAL}")
                continue
            if op in ("==", "!=") and value == 32 and _is_block_dim(left) and in_warp_code(src, node, warp_fns):
                yield from emit(lit, f"'{_short(node)}'{shown} holds only while every launch gives one 32-thread warp per "
                                     "row; on a 64-lane wavefront the warp code below sees half a wavefront: change "
                                     f"it with the launch shapes and the warp code it guards. {PARTIAL}")
                continue
            what = WARP_ARITH.get((op, value if value is not None else -1))
            if what is None or not src.in_device_code(node):
                continue
            if what == "warp index" and _is_block_dim(left):
                what = "warp count"
            elif not is_thread_expr(src, left):
                continue
            # A 32 that only lays out data (a GEMM's register tile from tid / 32, tid % 32) is no
            # warp width: only code that also uses a warp primitive (or calls such code) is flagged.
            if not in_warp_code(src, node, warp_fns):
                continue
            yield from emit(lit, f"{what} '{_short(node)}'{shown} assumes 32-lane warps next to warp primitives; on "
                                 f"64-lane wavefronts {_WHAT_BREAKS[what]}: use {_INSTEAD[what]}. {PARTIAL}")

        for call in src.calls(SHUFFLE_WIDTH):
            name = call_name(call)
            args = call_arguments(call)
            d = SHUFFLE_DELTA.get(name)
            if d is not None and d < len(args) and _fixed_width(args[d], consts) == 16:
                yield from emit(
                    args[d],
                    f"{name} offset {text(args[d])} starts a 32-lane reduction; on 64-lane wavefronts lanes 32-63 are "
                    f"never combined with lanes 0-31: start at warpSize / 2. {PARTIAL}",
                )
            w = SHUFFLE_WIDTH[name]
            if w < len(args) and _fixed_width(args[w], consts) == 32:
                yield from emit(args[w], f"{name} width {text(args[w])} splits a 64-lane wavefront into two 32-lane "
                                         "halves: correct only if all of this warp code keeps a logical 32-lane warp; "
                                         f"otherwise pass warpSize or omit it. {PARTIAL}")

        positions: set[tuple[int, int]] = set()  # (line, column) of the shuffle-loop findings
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
                    for h in self._shuffle_loop(src, loop, consts):
                        key = (h.line, h.column)
                        if key not in positions:
                            positions.add(key)
                            note(loop)
                            yield h

        for h in self._per_lane_arrays(src, consts, warp_fns, note):
            yield h
        yield from self._launch_shapes(src, consts, warp_fns)
        yield from self._fixed_lane_reads(src, consts, seen, counting)

    def _fixed_lane_reads(self, src: SourceView, consts: dict[str, int], seen: set[tuple[int, int]],
                          flagged_functions: set[int]) -> Iterable[Hazard]:
        """`__shfl_sync(m, v, 31)` without a width, in a function whose other findings show it counts
        32 lanes: on a 64-lane wavefront the source lane is taken from the whole wavefront, so the
        upper logical warp reads the lower one's lane."""
        if not flagged_functions:
            return
        for call in src.calls(("__shfl_sync", "__shfl")):
            name = call_name(call)
            args = call_arguments(call)
            lane_at = 2 if name == "__shfl_sync" else 1
            if len(args) != lane_at + 1:  # a width is given: the read stays within its segment
                continue
            fn = src.function_of(call)
            lane = _fixed_width(args[lane_at], consts)
            if fn is None or fn.id not in flagged_functions or lane is None or not 0 <= lane < 32:
                continue
            key = (args[lane_at].start_byte, args[lane_at].end_byte)
            if key in seen:
                continue
            seen.add(key)
            yield self.hazard(
                src, args[lane_at],
                f"{name} from lane {text(args[lane_at])} with no width reads lane {lane} of the whole wavefront: with "
                "this function's 32-lane warp kept on a 64-lane wavefront the upper half reads the lower half's lane; "
                f"pass width 32, or move the function to warpSize (source lane warpSize - 1 for the last). {PARTIAL}",
            )

    def _launch_shapes(self, src: SourceView, consts: dict[str, int], warp_fns: frozenset[str]) -> Iterable[Hazard]:
        """Host launches of warp code with a block of 32 threads (`<<<g, 32>>>`, `dim3 b(32, 8)`); the
        kernel may be defined in this file or, as the project knows, in another."""
        warp_fns = warp_fns | src.context.warp_functions
        for config in src.nodes("kernel_call_syntax"):
            call = src.parent(config)
            fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
            if fn is None or last_name(fn) not in warp_fns:
                continue
            args = [c for c in config.named_children if c.type != "comment"]
            if len(args) < 2:
                continue
            block = strip_parens(args[1])
            width = _block_width(src, block, consts)
            if width is None:
                continue
            flagged, value = width
            if value != 32:
                continue
            yield self.hazard(
                src, flagged,
                f"launch of {last_name(fn)} with blockDim.x = {text(flagged)}"
                f"{'' if flagged.type == 'number_literal' else ' (32)'}: one CUDA warp per row, half a "
                "64-lane wavefront. Keep 32 only if the kernel keeps a logical 32-lane warp everywhere; if its "
                "warp code moves to warpSize, launch warpSize threads per row (hipDeviceAttributeWarpSize) in the "
                f"same change, or the upper half of each wavefront is idle and per-row results are wrong. {PARTIAL}",
            )

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
                                       f"start at warpSize / 2 so 64-lane wavefronts are fully reduced. {PARTIAL}")
        elif bound is not None and _fixed_width(bound, consts) == 32:
            flagged, message = bound, (f"shuffle loop bounded by {var} < {text(bound)} covers 32 lanes only; "
                                       f"bound it by warpSize so 64-lane wavefronts are covered. {PARTIAL}")
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

    def _per_lane_arrays(self, src: SourceView, consts: dict[str, int], warp_fns: frozenset[str],
                         note: Callable[[Node], None]) -> Iterable[Hazard]:
        for decl in src.qualified("__shared__"):
            if not src.in_device_code(decl) or not in_warp_code(src, decl, warp_fns):
                continue
            for d in decl.children_by_field_name("declarator"):
                if d.type != "array_declarator":
                    continue
                size = d.child_by_field_name("size")
                inner = d.child_by_field_name("declarator")
                if size is None or inner is None or _warp_value(strip_parens(size), consts) != 32:
                    continue
                if inner.type != "identifier":
                    continue  # multi-dimensional tiles (e.g. [32][33]) are tile widths, not warp widths
                if self._indexed_per_lane(src, text(inner), src.function_of(decl), consts):
                    note(decl)
                    yield self.hazard(
                        src,
                        size,
                        f"'{text(inner)}[{text(size)}]' holds one slot per lane or warp of a 32-wide warp; once the "
                        "lane index follows warpSize, lanes 32-63 index past it: size it 64 (the widest wavefront). "
                        f"{PARTIAL}",
                    )

    @staticmethod
    def _indexed_per_lane(src: SourceView, array: str, fn: Node | None, consts: dict[str, int]) -> bool:
        if fn is None:
            return False
        lane_vars = _lane_variables(fn, consts)
        for idx in subscripts(fn, array):
            if is_lane_expr(idx) or any(text(n) in lane_vars for n in names_in(idx)):
                return True
            if any(_is_fixed_lane_index(strip_parens(b), consts) for b in [idx, *idx.named_children]):
                return True
        return False


WARP_CONSTANT = re.compile(r"(?i)warp|lane|wave|simd")


WARP_NUMBERS = frozenset({5, 31, 32})

# What a porting engineer must know about any one warp-width site: the sites of one piece of warp
# code stand or fall together.
PARTIAL = ("Change every 32 of this warp code together or none: a lane index on warpSize with a shuffle loop "
           "still from 16 drops the sums of lanes 32-63; a shuffle loop from warpSize / 2 with a lane index "
           "still % 32 adds them twice")
_WHAT_BREAKS = {
    "lane index": "lanes 32-63 get lane numbers 0-31 again",
    "warp index": "two wavefront halves get different warp numbers",
    "warp count": "the count is twice the number of wavefronts",
}
_INSTEAD = {
    "lane index": "threadIdx.x % warpSize",
    "warp index": "threadIdx.x / warpSize",
    "warp count": "(blockDim.x + warpSize - 1) / warpSize",
}

# Calls that make a function warp code: shuffles, votes, lane masks, warp barriers and matches.
WARP_PRIMITIVES = frozenset({
    *SHUFFLE_WIDTH, "__shfl_sync",
    "__ballot", "__ballot_sync", "__any", "__all", "__any_sync", "__all_sync", "__uni_sync", "__activemask",
    "__syncwarp", "__match_any_sync", "__match_all_sync", "__match_any", "__match_all", "__lane_id",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",
    "__reduce_xor_sync",
    # Warp-collective matrix operations: each warp of 32 lanes owns a fragment.
    "load_matrix_sync", "store_matrix_sync", "mma_sync",
})
# Inline PTX whose instructions act on a whole warp (or a warpgroup of four).
_WARP_PTX = re.compile(r"\b(?:w?gmma|mma|ldmatrix|stmatrix|shfl|vote|redux|match|bar\.warp|activemask)\b")


def _short(node: Node) -> str:
    expr = " ".join(text(node).split())
    return expr if len(expr) <= 40 else expr[:37] + "..."


def _function_name(fn: Node) -> str:
    """The plain name a function_definition defines (`ns::f<T>` gives "f"), or ""."""
    cur: Node | None = fn.child_by_field_name("declarator")
    while cur is not None and cur.type != "function_declarator":
        cur = cur.child_by_field_name("declarator")
    if cur is None:
        return ""
    name = cur.child_by_field_name("declarator")
    return last_name(name) if name is not None else ""


def warp_functions(src: SourceView) -> frozenset[str]:
    """Names of the functions that this file shows to be warp code: they call a warp primitive,
    read warpSize, call a function that is warp code (here or, from the project context, in another
    file), or receive one as an argument or template argument (`blockReduce<warpReduceSum>(v)`:
    blockReduce calls whatever it is given). To a fixed point; computed once per file. A receiver
    defined in another file is among the names, so that file's definition is marked too."""
    memo = src.scratch("warp-functions")
    if "names" in memo:
        cached: frozenset[str] = memo["names"]
        return cached
    known = set(src.context.warp_functions)
    marked: set[int] = set()
    names: set[str] = set()

    def add(fn: Node) -> bool:
        if fn.id in marked:
            return False
        marked.add(fn.id)
        name = _function_name(fn)
        if name and name not in names:
            names.add(name)
            return True
        return False

    def mark(nodes: Iterable[Node]) -> bool:
        grew = False
        for node in nodes:
            fn = src.function_of(node)
            if fn is not None:
                grew = add(fn) or grew
        return grew

    def mark_defined(wanted: set[str]) -> bool:
        grew = False
        for fn in src.nodes("function_definition"):
            if fn.id not in marked and _function_name(fn) in wanted:
                grew = add(fn) or grew
        return grew

    mark(src.calls(WARP_PRIMITIVES))
    mark(n for n in src.named(("warpSize",)) if n.type == "identifier")
    if src.spells(("asm", "__asm__", "__asm")):
        mark(a for a in src.nodes("gnu_asm_expression") if _WARP_PTX.search(text(a)))
    if known:
        mark_defined(known)  # the project already knows these are warp code
    while True:
        callees = frozenset(known | names)
        if not callees:
            break
        # A kernel launch (`k<<<g, b>>>(...)`) runs warp code on the device; the host function that
        # launches it is not warp code itself.
        grew = mark(c for c in src.calls(callees) if not any(k.type == "kernel_call_syntax" for k in c.children))
        receivers = _receivers(src, callees) - names - known
        if receivers:
            names |= receivers
            mark_defined(receivers)
            grew = True
        if not grew:
            break
    memo["functions"] = marked
    found = memo["names"] = frozenset(names)
    return found


def _receivers(src: SourceView, warp: frozenset[str]) -> set[str]:
    """Functions handed a warp function as a template argument or an argument: `f<warpSum>(...)`,
    `f(warpSum, ...)`."""
    found: set[str] = set()
    for name in src.named(warp):
        parent = src.parent(name)
        if parent is not None and parent.type == "type_descriptor":  # a template argument read as a type
            parent = src.parent(parent)
        if parent is None:
            continue
        if parent.type == "template_argument_list":
            template = src.parent(parent)
            if template is not None and template.type in ("template_function", "template_method"):
                callee = template.child_by_field_name("name")
                if callee is not None:
                    found.add(last_name(callee))
        elif parent.type == "argument_list":
            call = src.parent(parent)
            fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
            if fn is not None:
                found.add(last_name(fn))
    return found - warp


def in_warp_code(src: SourceView, node: Node, warp_fns: frozenset[str] | None = None) -> bool:
    """Whether a node lies in a function that is warp code (see warp_functions)."""
    warp_functions(src)  # fills the memo of marked definitions
    fn = src.function_of(node)
    return fn is not None and fn.id in src.scratch("warp-functions").get("functions", ())


def _block_width(src: SourceView, block: Node, consts: dict[str, int]) -> tuple[Node, int] | None:
    """(node holding blockDim.x, its value) of a launch's block argument: a constant, `dim3(32, ...)`,
    or a dim3 variable declared in the same function as `dim3 b(32, ...)` / `dim3 b = dim3(32, ...)`."""
    if block.type in ("number_literal", "identifier"):
        value = _fixed_width(block, consts)
        if value is not None:
            return block, value
    if block.type == "call_expression" and last_name(block.child_by_field_name("function") or block) == "dim3":
        args = call_arguments(block)
        value = _fixed_width(args[0], consts) if args else None
        return (args[0], value) if value is not None else None
    if block.type == "identifier":
        fn = src.function_of(block)
        if fn is None:
            return None
        for first in _dim3_first_arguments(fn, text(block)):
            value = _fixed_width(first, consts)
            if value is not None:
                return first, value
    return None


def _dim3_first_arguments(fn: Node, name: str) -> Iterable[Node]:
    """The first constructor argument of each `dim3 name(...)`, `dim3 name = dim3(...)` or
    `dim3 name{...}` inside a function. `dim3 b(WARP_SIZE, ROWS)` with only names for arguments
    reads, to the parser, as a function declaration whose parameter types are those names."""
    for decl in _declarations_named(fn, name):
        if decl.type == "function_declarator":
            params = decl.child_by_field_name("parameters")
            kids = [c for c in params.named_children if c.type == "parameter_declaration"] if params is not None else []
            if kids and kids[0].child_by_field_name("declarator") is None:
                first_type = kids[0].child_by_field_name("type")
                if first_type is not None:
                    yield first_type
            continue
        value_node = decl.child_by_field_name("value")
        if value_node is None:
            continue
        if value_node.type in ("argument_list", "initializer_list"):
            args = [c for c in value_node.named_children if c.type != "comment"]
        elif value_node.type == "call_expression":
            args = call_arguments(value_node)
        else:
            continue
        if args:
            yield args[0]


def _declarations_named(fn: Node, name: str) -> Iterable[Node]:
    """Declarators (initialised, or read as function declarators) of `name` of type dim3 in a function."""
    stack = [fn]
    while stack:
        cur = stack.pop()
        if cur.type == "declaration":
            t = cur.child_by_field_name("type")
            if t is not None and text(t) == "dim3":
                for d in cur.children_by_field_name("declarator"):
                    ident = d.child_by_field_name("declarator") if d.type in ("init_declarator", "function_declarator") else None
                    if ident is not None and text(ident) == name:
                        yield d
        stack.extend(cur.named_children)


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
    if any(n.type in ("identifier", "type_identifier") and not WARP_CONSTANT.search(text(n)) for n in names_in(node)):
        return None
    if any(n.type in ("identifier", "type_identifier") and text(n) == "warpSize" for n in names_in(node)):
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


def _is_fixed_lane_index(expr: Node, consts: dict[str, int] | None = None) -> bool:
    """Whether an expression (parentheses already stripped) is `x & 31` or `x % 32` (or `x % WARP_SIZE`)."""
    if expr.type != "binary_expression":
        return False
    right = expr.child_by_field_name("right")
    if right is None:
        return False
    value = _warp_value(strip_parens(right), consts or {})
    return (operator(expr), value if value is not None else -1) in _LANE_INDEX_OPS


def _lane_variables(fn: Node, consts: dict[str, int] | None = None) -> set[str]:
    """Locals initialised as a lane index with a fixed width (`x & 31`, `x % 32`)."""
    found: set[str] = set()
    stack = [fn]
    while stack:
        cur = stack.pop()
        if cur.type == "init_declarator":
            ident = cur.child_by_field_name("declarator")
            value = cur.child_by_field_name("value")
            if ident is not None and value is not None and _is_fixed_lane_index(strip_parens(value), consts):
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
                    "on ROCm 7+: use a WarpSize template parameter chosen on the host, and give the same parameter "
                    "to every array, shuffle loop and launch of this warp code, or a 64-lane instantiation meets "
                    "code still sized for 32",
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
                        "that assumes 32 lanes in lockstep: use shuffles over warpSize or a warp barrier per step, "
                        "for every step at once: a step left without its barrier reads a value its neighbour has "
                        "not written yet",
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
