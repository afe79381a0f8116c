"""Parse CUDA/C++ source with tree-sitter-cuda. One parser per process, created on first use."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_cuda
from tree_sitter import Language, Parser, Tree


@lru_cache(maxsize=1)
def language() -> Language:
    return Language(tree_sitter_cuda.language())


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(language())


class ParseCancelled(Exception):
    """The parse ran past its deadline and was abandoned."""


_CHUNK = 1 << 16
# Below this size a file is parsed in one call: tree-sitter parses such a file in well under a
# second, and only a tree parsed from bytes answers Node.text quickly (see parse).
WATCHED_FROM = 1 << 20


def parse(source: bytes, old_tree: Tree | None = None, deadline: float | None = None) -> Tree:
    """Parse bytes into a syntax tree; pass the previous tree after an edit for incremental parsing.

    With a `deadline` (a time.monotonic() value), a file of WATCHED_FROM bytes or more is parsed in
    chunks so that the clock can be checked as the parser goes (tree-sitter only reports progress
    for chunked input), raising ParseCancelled once the deadline passes. A tree parsed from chunks
    reads every Node.text back through them, so the finished tree is handed to one more parse of
    the bytes, which reuses it whole and keeps the bytes.
    """
    parser = _parser()
    if deadline is None or len(source) < WATCHED_FROM:
        return parser.parse(source) if old_tree is None else parser.parse(source, old_tree)
    from time import monotonic

    def read(offset: int, _point: object) -> bytes:
        return source[offset : offset + _CHUNK]

    def late(*_state: object) -> bool:
        return monotonic() > deadline

    try:
        if old_tree is None:
            watched = parser.parse(read, progress_callback=late)
        else:
            watched = parser.parse(read, old_tree, progress_callback=late)
    except ValueError as exc:  # tree-sitter's "Parsing failed": cancelled by `late`
        parser.reset()  # otherwise the next parse would resume this one
        raise ParseCancelled(str(exc)) from None
    return parser.parse(source, watched)
