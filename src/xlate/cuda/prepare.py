"""Blank out the few CUDA spellings tree-sitter-cuda cannot parse, keeping every byte offset.

`#pragma unroll` as the body of an unbraced loop makes the grammar close the outer loop early (the
inner loop then parses as a sibling), and `__align__(n)` in a declaration becomes an ERROR node.
Both are common in kernels. Replacing them with spaces of the same length gives a tree whose nodes
sit at the same offsets in the original source, so everything downstream reads the original bytes.
"""

from __future__ import annotations

import re

_PRAGMA_UNROLL = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+(?:unroll|nounroll)\b[^\n]*", re.MULTILINE)
_ALIGN = re.compile(rb"\b__align__[ \t]*\([ \t]*\w+[ \t]*\)")


def _blank(match: re.Match[bytes]) -> bytes:
    return b" " * (match.end() - match.start())


def for_parsing(source: bytes) -> bytes:
    """The source with unparseable-but-harmless spellings turned into spaces (same length)."""
    if b"pragma" in source:
        source = _PRAGMA_UNROLL.sub(_blank, source)
    if b"__align__" in source:
        source = _ALIGN.sub(_blank, source)
    return source
