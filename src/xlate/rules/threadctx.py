"""Which expressions carry a thread or lane index, so that warp-width rules only fire in that context.

A literal 32 is a warp width only when it meets a thread index: `threadIdx.x & 31` is, `n % 32` is not.
An expression counts as a thread index when it mentions `threadIdx`, a lane or thread id builtin, a
variable whose name says so (`lane`, `tid`, `thread_id`, ...), or a local variable initialised from one
of those (followed through the function, so `int t = threadIdx.x; int l = t & 31;` is caught).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import NAME_TYPES
from xlate.rules.syntax import declarator_name, names_in, text

THREAD_BUILTINS = frozenset({"threadIdx", "__lane_id", "laneid", "thread_rank"})
_THREAD_NAME = re.compile(r"(?i)^(.*_)?(tid|tidx|lane|lane_?id|laneidx|lane_?idx|thread_?id|thread_?idx|ltid|gtid)(_.*)?$")
LANE_NAME = re.compile(r"(?i)(lane|warp_?id|^wid$|warp_?idx|^warp$)")


@lru_cache(maxsize=4096)
def is_thread_name(name: str) -> bool:
    return name in THREAD_BUILTINS or bool(_THREAD_NAME.match(name))


def thread_variables(src: SourceView, fn: Node | None) -> frozenset[str]:
    """Local names in a function whose value derives from a thread index (fixed point over declarations)."""
    if fn is None:
        return frozenset()
    cache: dict[tuple[int, int], frozenset[str]] = getattr(src, "_xl_thread_vars", None) or {}
    key = (fn.start_byte, fn.end_byte)
    if key in cache:
        return cache[key]
    result = _thread_variables(fn)
    cache[key] = result
    object.__setattr__(src, "_xl_thread_vars", cache)
    return result


def _thread_variables(fn: Node) -> frozenset[str]:
    # One walk of the function lists the (name, value) pairs that can pass a thread index on and
    # every identifier-like node. Names are leaves, so the names a value reads are those that start
    # inside its bytes: a slice of the sorted list, not a second walk of every value.
    pairs: list[tuple[str, Node]] = []
    names: list[tuple[int, int, Node]] = []
    stack = [fn]
    pop, push, add_pair, add_name = stack.pop, stack.extend, pairs.append, names.append
    name_types = NAME_TYPES
    while stack:
        cur = pop()
        t = cur.type
        if t in name_types:
            add_name((cur.start_byte, cur.end_byte, cur))
        elif t == "init_declarator":
            ident = declarator_name(cur)
            value = cur.child_by_field_name("value")
            if ident is not None and value is not None:
                add_pair((text(ident), value))
        elif t == "assignment_expression":
            left = cur.child_by_field_name("left")
            right = cur.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                add_pair((text(left), right))
        push(cur.named_children)
    if not pairs:
        return frozenset()
    names.sort(key=_first_two)
    spelled = [text(n) for _, _, n in names]
    if not any(is_thread_name(name) for name in spelled):
        return frozenset()  # nothing to start from: no name of the function is a thread index
    starts = [s for s, _, _ in names]
    # The names each value reads, listed once: the fixed point below may take several passes.
    reads = [(name, _names_within(value, names, starts, spelled)) for name, value in pairs]
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, used in reads:
            if name in tainted:
                continue
            if any(_is_thread_ref(u, tainted) for u in used):
                tainted.add(name)
                changed = True
    return frozenset(tainted)


def _first_two(item: tuple[int, int, Node]) -> tuple[int, int]:
    return item[0], item[1]


def _names_within(value: Node, names: list[tuple[int, int, Node]], starts: list[int], spelled: list[str]) -> set[str]:
    """The spellings of the name nodes inside `value` (as names_in would list them)."""
    start, end = value.start_byte, value.end_byte
    i, j = bisect_left(starts, start), bisect_left(starts, end)
    used = set(spelled[i:j])
    # A zero-width name (one the parser inserted) at the value's very end may or may not be inside it.
    while j < len(names) and names[j][0] == end and names[j][1] == end:
        if value.child_with_descendant(names[j][2]) is not None or names[j][2] == value:
            used.add(spelled[j])
        j += 1
    return used


def _is_thread_ref(name: str, tainted: set[str] | frozenset[str]) -> bool:
    return is_thread_name(name) or name in tainted


def is_thread_expr(src: SourceView, node: Node) -> bool:
    """Whether an expression involves a thread/lane index (directly or through a derived local)."""
    # `.x` of threadIdx.x is judged by its object, not by the field name.
    used = [text(ident) for ident in names_in(node) if ident.type != "field_identifier"]
    if any(is_thread_name(name) for name in used):
        return True  # decided without the function's derived locals
    tainted = thread_variables(src, src.function_of(node))
    return any(name in tainted for name in used)


def is_lane_expr(node: Node) -> bool:
    """Whether an expression names a lane or warp index (`lane`, `lane_id`, `warp_id`, `wid`)."""
    return any(LANE_NAME.search(text(n)) for n in names_in(node) if n.type == "identifier")
