"""Find the syntax node at a byte range quickly, and the distinct names a file uses.

tree-sitter's `descendant_for_byte_range` walks each level's children one by one from the first,
so on a file with hundreds of top-level declarations every lookup pays for the ones before it.
`Locator` bisects the children of wide nodes (the file, a namespace, a long function body) by
start byte and hands the last, narrow levels to tree-sitter; the node it returns is the one
tree-sitter would return from the root.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from tree_sitter import Node, Tree

WIDE = 24  # below this many children, tree-sitter's own scan is as fast as a bisect from Python
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class Locator:
    """`at(start, end)`: the smallest node spanning the byte range, as descendant_for_byte_range."""

    __slots__ = ("root", "_levels")

    def __init__(self, tree: Tree) -> None:
        self.root: Node = tree.root_node
        self._levels: dict[int, tuple[list[Node], list[int]]] = {}

    def _children(self, node: Node) -> tuple[list[Node], list[int]]:
        level = self._levels.get(node.id)
        if level is None:
            kids = node.children
            level = self._levels[node.id] = (kids, [k.start_byte for k in kids])
        return level

    def at(self, start: int, end: int) -> Node | None:
        node = self.root
        while node.child_count > WIDE:
            kids, starts = self._children(node)
            i = bisect_right(starts, start) - 1
            if i < 0:
                break
            kid = kids[i]
            if kid.end_byte < end or kid.end_byte <= start:
                break  # the range is between children or spans several: the answer is at this level
            node = kid
        return node.descendant_for_byte_range(start, end)


_LAST: tuple[bytes, frozenset[bytes]] | None = None


def identifiers(source: bytes) -> frozenset[bytes]:
    """The distinct identifier spellings of a file (remembered for the last file asked about)."""
    global _LAST
    if _LAST is not None and _LAST[0] is source:
        return _LAST[1]
    words = frozenset(_IDENT.findall(source))
    _LAST = (source, words)
    return words


_LAST_LOCATOR: Locator | None = None
_LAST_TREE: Tree | None = None


def locator(tree: Tree) -> Locator:
    """A Locator for a tree (remembered for the last tree asked about, which the scanner and the rules share)."""
    global _LAST_LOCATOR, _LAST_TREE
    if _LAST_TREE is not tree or _LAST_LOCATOR is None:
        _LAST_LOCATOR, _LAST_TREE = Locator(tree), tree
    return _LAST_LOCATOR
