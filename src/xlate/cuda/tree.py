"""Finding nodes and their parents in a tree-sitter tree in time that does not grow with its depth.

tree-sitter nodes do not store their parent: `Node.parent` and `Node.descendant_for_byte_range`
both descend from the root, so each costs the depth of the node. In ordinary code the depth is a
few dozen, but `1 + 1 + ... + 1` with 80,000 terms is a left-leaning chain 80,000 deep, and one
root-down look-up per literal made the whole file quadratic.

A `Locator` answers both questions in time bounded per question whatever the shape. On its first
question it walks the tree's large nodes (SMALL bytes or more: a handful per function in ordinary
code) to learn whether any lies _SHALLOW or more levels down. If none does, the whole tree is
shallow (a small subtree is at most a few hundred levels deep), and tree-sitter's own calls are
both the fastest and cheap enough. Otherwise one tree cursor, which stands on a node and keeps the
path to it, moves from one question to the next: up to the nearest node spanning the next range,
then down, but only through large nodes; inside a small node tree-sitter's search finishes in one
call. Questions asked in document order move the cursor over each large node about twice in all,
so their total cost is linear in the size of the file.

The small tree helpers that rules share (called names, arguments, qualifiers) live here too; none
of them walks parents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node, Tree, TreeCursor

__all__ = [
    "NAME_TYPES",
    "SMALL",
    "Locator",
    "call_arguments",
    "call_name",
    "call_qualified_name",
    "function_qualifiers",
    "is_kernel",
    "last_name",
]

# Identifier-like node types.
NAME_TYPES = frozenset({"identifier", "type_identifier", "field_identifier", "namespace_identifier"})

# Nodes shorter than this many bytes are searched by tree-sitter itself: a subtree this small is at
# most a few hundred nodes deep, whatever it holds.
SMALL = 512
# Where the cursor stands less deep than this, tree-sitter's own parent search (from the root) is
# cheap enough; deeper, a parent is found going down from the cursor.
_SHALLOW = 128


class Locator:
    """Node look-ups by byte range and parent look-ups for one tree (see the module's notes)."""

    __slots__ = ("_cursor", "_deep", "_depth", "_node", "_parents", "root", "tree")

    def __init__(self, tree: Tree, deep: bool | None = None) -> None:
        """`deep` forces one way of answering (tests compare both); None learns it from the tree."""
        self.tree = tree
        self.root = tree.root_node
        self._deep = deep  # learnt on the first question when None
        self._cursor: TreeCursor | None = tree.walk() if deep else None
        self._node = self.root  # where the cursor stands
        self._depth = 0  # and how deep (TreeCursor.depth counts the path each time it is read)
        # node id -> parent, for nodes whose parent was asked once (rules ask the same ones again)
        self._parents: dict[int, Node | None] = {}

    @property
    def deep(self) -> bool:
        """Whether some large node lies _SHALLOW or more levels down (then the cursor is used)."""
        if self._deep is None:
            self._deep = _has_deep_large_node(self.tree)
            if self._deep:
                self._cursor = self.tree.walk()
        return self._deep

    def at(self, start: int, end: int) -> Node:
        """The smallest node (named or not) spanning bytes [start, end), as the root's
        descendant_for_byte_range answers: the root itself when no node spans them (blanks before
        the first token, for instance, lie outside the root's own range)."""
        if not self.deep:
            return self.root.descendant_for_byte_range(start, end) or self.root
        if not self._move(start, end):
            return self.root
        return self._node.descendant_for_byte_range(start, end) or self._node

    def finder(self) -> Callable[[int, int], Node]:
        """`at` as the fastest callable for this tree: tree-sitter's own bound method when the tree is
        shallow (callers in hot loops take it once)."""
        if not self.deep:
            return self.root.descendant_for_byte_range  # type: ignore[return-value]  # the root answers when nothing spans: never None
        return self.at

    def _move(self, start: int, end: int) -> bool:
        """Put the cursor on the deepest large node spanning [start, end), or the small node just
        below it; False (cursor at the root) when no node spans the range."""
        c = self._cursor
        assert c is not None
        n = self._node
        depth = self._depth
        # Up to the nearest node that spans the range. No stepping across siblings: a parent finds
        # the child for a byte in C (long runs of children are balanced trees inside tree-sitter).
        while n.start_byte > start or n.end_byte < end:
            if not c.goto_parent():
                self._node, self._depth = n, 0
                return False
            n = c.node  # type: ignore[assignment]  # the stub allows None; a cursor on a tree always stands on a node
            depth -= 1
        first_child_for = c.goto_first_child_for_byte
        while n.end_byte - n.start_byte >= SMALL and first_child_for(start) is not None:
            k: Node = c.node  # type: ignore[assignment]  # the stub allows None; a cursor on a tree always stands on a node
            if k.start_byte <= start and end <= k.end_byte:
                n = k
                depth += 1
            else:
                c.goto_parent()
                break
        self._node, self._depth = n, depth
        return True

    def parent(self, node: Node) -> Node | None:
        """The node's parent (None for the root)."""
        if self._deep is False or not self.deep:  # the first test spares hot loops the property call
            return node.parent
        key = node.id
        parents = self._parents
        if key in parents:
            return parents[key]
        found = self._parent(node)
        if len(parents) > 200_000:  # bound the memory of a long editor session on one tree
            parents.clear()
        parents[key] = found
        return found

    def _parent(self, node: Node) -> Node | None:
        key = node.id
        if self._node.id != key and not self._move(node.start_byte, node.end_byte):
            return node.parent  # outside the root's range (a node of another tree?): ask tree-sitter
        c = self._cursor
        assert c is not None
        n = self._node
        if n.id != key and n.start_byte == node.start_byte and n.end_byte == node.end_byte:
            # The cursor may stand below `node` on a node with the same range: climb to it.
            while n.id != key and n.start_byte == node.start_byte and n.end_byte == node.end_byte and c.goto_parent():
                n = c.node  # type: ignore[assignment]  # the stub allows None; a cursor on a tree always stands on a node
                self._depth -= 1
            self._node = n
        if n.id == key:  # on the cursor's path: its parent is one step up
            if not c.goto_parent():
                return None
            self._node = c.node  # type: ignore[assignment]  # never None on a tree; the next question is often this parent's parent
            self._depth -= 1
            return self._node
        # `node` lies below the node the cursor stands on, within a small subtree of it.
        if self._depth < _SHALLOW:
            return node.parent
        cur = n
        while True:
            child = cur.child_with_descendant(node)
            if child is None:
                return node.parent
            if child.id == key:
                return cur
            cur = child

    def ancestors(self, node: Node) -> Iterator[Node]:
        """Parents of a node, nearest first."""
        parent = self.parent(node)
        while parent is not None:
            yield parent
            parent = self.parent(parent)


def _has_deep_large_node(tree: Tree) -> bool:
    """Whether a node of SMALL bytes or more lies _SHALLOW or more levels down. Only large nodes
    are entered (their children are looked at), and the walk stops at the first deep one."""
    c = tree.walk()
    depth = 0
    while True:
        n: Node = c.node  # type: ignore[assignment]  # the stub allows None; a cursor on a tree always stands on a node
        if n.end_byte - n.start_byte >= SMALL and c.goto_first_child():
            depth += 1
            if depth >= _SHALLOW:
                return True
            continue
        while not c.goto_next_sibling():
            if not c.goto_parent():
                return False
            depth -= 1


def function_qualifiers(fn: Node) -> set[str]:
    """CUDA execution-space qualifiers of a function_definition (__global__, __device__, __host__)."""
    found: set[str] = set()
    for child in fn.children:
        if child.type in ("__global__", "__device__", "__host__"):
            found.add(child.type)
        elif child.type == "function_declarator" or child.type == "compound_statement":
            break
    return found


def is_kernel(fn: Node) -> bool:
    return "__global__" in function_qualifiers(fn)


def call_name(call: Node) -> str:
    """The called name of a call_expression without namespaces or template arguments.

    `cuda::memcpy_async(...)` gives "memcpy_async", `grid.sync()` gives "sync", `f<T>(x)` gives "f".
    """
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    return last_name(fn)


def call_qualified_name(call: Node) -> str:
    """The called name with its namespace path, e.g. "cuda::memcpy_async" or "cg::this_grid"."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    if fn.type == "qualified_identifier":
        return (fn.text or b"").decode("utf-8", errors="replace").split("<", 1)[0].replace(" ", "")
    return last_name(fn)


def call_arguments(call: Node) -> list[Node]:
    """The argument expressions of a call_expression (comments excluded)."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def last_name(node: Node) -> str:
    """The last plain name of a (qualified, templated, member, parenthesised) name expression."""
    while True:
        if node.type in NAME_TYPES:
            return (node.text or b"").decode("utf-8", errors="replace")
        if node.type == "qualified_identifier":
            nxt = node.child_by_field_name("name")
        elif node.type == "field_expression":
            nxt = node.child_by_field_name("field")
        elif node.type in ("template_function", "template_method"):
            nxt = node.child_by_field_name("name")
        elif node.type == "parenthesized_expression":
            nxt = node.named_children[0] if node.named_children else None
        else:
            return ""
        if nxt is None:
            return ""
        node = nxt
