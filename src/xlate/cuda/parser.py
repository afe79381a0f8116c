"""Parse CUDA/C++ source with tree-sitter-cuda. One parser per process, created on first use."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Tree


@lru_cache(maxsize=1)
def language() -> Language:
    return Language(tree_sitter_cuda.language())


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(language())


def parse(source: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse bytes into a syntax tree; pass the previous tree after an edit for incremental parsing."""
    if old_tree is None:
        return _parser().parse(source)
    return _parser().parse(source, old_tree)


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
