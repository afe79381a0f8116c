"""Finding nodes and their parents in a tree-sitter tree in time that does not grow with its depth.

tree-sitter nodes do not store their parent: `Node.parent` and `Node.descendant_for_byte_range`
both descend from the root, so each costs the depth of the node. In ordinary code the depth is a
few dozen, but `1 + 1 + ... + 1` with 80,000 terms is a left-leaning chain 80,000 deep, and one
root-down look-up per literal makes the whole file quadratic. A `Locator` keeps one tree cursor (a
stack of the nodes from the root to where it stands) and moves it from one question to the next:
up to the nearest common ancestor, across siblings, down to the answer. Questions asked in document
order cost, all together, about the size of the part of the tree they touch; a parent is one step
up from a cursor standing on the node.

The small tree helpers that rules share (called names, arguments, qualifiers) live here too; none
of them walks parents.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node, Tree

__all__ = [
    "NAME_TYPES",
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


class Locator:
    """Node look-ups by byte range and parent look-ups for one tree, through one moving cursor."""

    __slots__ = ("_cursor", "_node", "_parents", "root")

    def __init__(self, tree: Tree) -> None:
        self.root = tree.root_node
        self._cursor = tree.walk()
        self._node = self.root  # where the cursor stands
        # node id -> parent, for nodes whose parent was asked once (rules ask the same ones again)
        self._parents: dict[int, Node | None] = {}

    def at(self, start: int, end: int) -> Node | None:
        """The smallest node (named or not) spanning bytes [start, end), like the root's
        descendant_for_byte_range; None when no node spans them."""
        if not self._move(start, end):
            return None
        return self._node

    def _move(self, start: int, end: int) -> bool:
        """Put the cursor on the deepest node spanning [start, end); False (cursor at the root) when
        none does."""
        c = self._cursor
        n = self._node
        while True:
            if n.end_byte <= start:  # wholly before the range: the next sibling, or further up
                if c.goto_next_sibling():
                    n = c.node
                    continue
            elif n.start_byte <= start and end <= n.end_byte:
                break
            if not c.goto_parent():
                self._node = n
                return n.start_byte <= start and end <= n.end_byte
            n = c.node
        first_child_for = c.goto_first_child_for_byte
        while first_child_for(start) is not None:
            k = c.node
            if k.start_byte <= start and end <= k.end_byte:
                n = k
            else:
                c.goto_parent()
                break
        self._node = n
        return True

    def parent(self, node: Node) -> Node | None:
        """The node's parent (None for the root)."""
        key = node.id
        parents = self._parents
        if key in parents:
            return parents[key]
        found = self._parent_by_cursor(node)
        if len(parents) > 200_000:  # bound the memory of a long editor session on one tree
            parents.clear()
        parents[key] = found
        return found

    def _parent_by_cursor(self, node: Node) -> Node | None:
        if self._node.id != node.id and not self._move(node.start_byte, node.end_byte):
            return node.parent  # not a node of this tree's current span: ask tree-sitter
        c = self._cursor
        key = node.id
        # The cursor stands on the deepest node with this range; climb to `node` itself.
        n = self._node
        while n.id != key:
            if n.start_byte != node.start_byte or n.end_byte != node.end_byte or not c.goto_parent():
                return node.parent  # e.g. a zero-width (missing) node: let tree-sitter find it
            n = c.node
        self._node = n
        if not c.goto_parent():
            return None
        self._node = c.node  # the cursor moves up too: the next question is often this parent's parent
        return self._node

    def ancestors(self, node: Node) -> Iterator[Node]:
        """Parents of a node, nearest first."""
        parent = self.parent(node)
        while parent is not None:
            yield parent
            parent = self.parent(parent)


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
