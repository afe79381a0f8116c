"""A second mechanical lane-mask fix: a 32-bit variable that holds a lane mask, read only by bit counts.

HIP's mask-returning warp functions (__ballot, __match_any_sync, __activemask ...) return 64 bits;
`unsigned m = __ballot_sync(...)` keeps lanes 0-31 of a 64-lane wavefront, and `__popc(m)` counts
half of it (explain's XL010). When the variable is declared alone from such a call and every other
use of its name in the function is the single argument of __popc or __ffs, widening it is provably
safe: the type becomes `unsigned long long` and those calls the 64-bit functions the rows of CUDA's
__popcll and __ffsll name (same meaning over 64 lanes: the count, the first lane + 1). Any other use
(arithmetic, a store, a call, a second declaration) leaves it for a human, flagged.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name
from xlate.rules.masks import MASK_RESULT
from xlate.rules.syntax import strip_parens, text
from xlate.translate.edits import Edits
from xlate.translate.names import writable_name
from xlate.translate.options import Options
from xlate.translate.report import Report

UNSIGNED32 = frozenset({"unsigned", "unsigned int", "uint32_t", "uint"})
# 32-bit bit function -> the CUDA 64-bit one whose row names the HIP spelling to write.
READERS = {"__popc": "__popcll", "__ffs": "__ffsll"}
WIDE = b"unsigned long long"
_SCOPE = frozenset({"function_definition"})


def rewrite(src: SourceView, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> set[tuple[int, int]]:
    """Widen the mask variables that qualify; returns the (line, column) of each XL010 finding settled."""
    settled: set[tuple[int, int]] = set()
    if not any(name.encode() in src.source for name in MASK_RESULT):
        return settled
    targets = {}
    for cuda, wide in READERS.items():
        target = writable_name(smap, wide, options)
        if target is None:
            return settled
        targets[cuda] = target
    candidates = []
    for call in src.calls(MASK_RESULT):
        found = _candidate(call)
        if found is None:
            continue
        function = src.enclosing(found[0], _SCOPE)
        if function is not None:
            candidates.append((*found, function))
    if not candidates:
        return settled
    # One pass over the file for every candidate name (not one per variable), grouped by spelling.
    uses: dict[str, list[Node]] = {}
    for use in sorted(src.named({text(c[2]) for c in candidates}), key=lambda n: n.start_byte):
        uses.setdefault(text(use), []).append(use)
    starts = {name: [n.start_byte for n in nodes] for name, nodes in uses.items()}
    for decl, type_node, ident, function in candidates:
        name = text(ident)
        first = bisect_left(starts.get(name, []), function.start_byte)
        readers = _readers(uses.get(name, []), first, function, ident)
        if readers is None:
            continue
        plan = [(type_node.start_byte, type_node.end_byte, WIDE)]
        plan += [(callee.start_byte, callee.end_byte, targets[call_name(c)].encode())
                 for c in readers if (callee := c.child_by_field_name("function")) is not None]
        if any(edits.covers(s, e) for s, e, _ in plan):
            continue
        for s, e, new in plan:
            edits.add(s, e, new)
        claimed.update(s for s, _, _ in plan[1:])
        settled.add(src.position(decl))
        settled.update(src.position(c) for c in readers)
        report.fixed["XL010 lane-mask-width (32-bit lane-mask variable widened to unsigned long long, "
                     "its __popc/__ffs to the 64-bit forms)"] += 1
    return settled


def _candidate(call: Node) -> tuple[Node, Node, Node] | None:
    """(declaration, its type node, the declared identifier) for `unsigned m = CALL(...);` alone."""
    init = call.parent
    while init is not None and init.type == "parenthesized_expression":
        init = init.parent
    value = init.child_by_field_name("value") if init is not None and init.type == "init_declarator" else None
    if init is None or value is None or strip_parens(value) != call:
        return None
    decl = init.parent
    if decl is None or decl.type != "declaration" or len(decl.children_by_field_name("declarator")) != 1:
        return None
    type_node = decl.child_by_field_name("type")
    ident = init.child_by_field_name("declarator")
    if type_node is None or ident is None or ident.type != "identifier":
        return None
    if " ".join(text(type_node).split()) not in UNSIGNED32:
        return None
    return decl, type_node, ident


def _readers(uses: list[Node], first: int, function: Node, ident: Node) -> list[Node] | None:
    """The __popc/__ffs calls that are the only other uses of the name in the function, or None.
    `uses` are the name's uses in document order; uses[first] is the first one in the function."""
    readers = []
    for i in range(first, len(uses)):
        use = uses[i]
        if use == ident:
            continue
        if use.end_byte > function.end_byte:
            break
        if use.type != "identifier":
            return None
        args = use.parent
        call = args.parent if args is not None and args.type == "argument_list" else None
        if call is None or call.type != "call_expression" or call_name(call) not in READERS:
            return None
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "identifier" or list(call_arguments(call)) != [use]:
            return None
        readers.append(call)
    return readers or None
