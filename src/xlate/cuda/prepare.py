"""Blank out the few CUDA spellings tree-sitter-cuda cannot parse, keeping every byte offset.

`#pragma unroll` as the body of an unbraced loop makes the grammar close the outer loop early (the
inner loop then parses as a sibling), and `__align__(n)` in a declaration becomes an ERROR node.
Both are common in kernels. Replacing them with spaces of the same length gives a tree whose nodes
sit at the same offsets in the original source, so everything downstream reads the original bytes.

A launch written with spaced chevrons (`kernel << <grid, block >> >(args)`, the layout some editors'
formatters give it) is read by nvcc and not by clang or the grammar; for parsing, the chevrons are
joined and the spaces moved after them (`<<< ` keeps the length), so the launch is a launch.
"""

from __future__ import annotations

import re

_PRAGMA_UNROLL = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+(?:unroll|nounroll)\b[^\n]*", re.MULTILINE)
_ALIGN = re.compile(rb"\b__align__[ \t]*\([ \t]*\w+[ \t]*\)")


# `<< <` ... `>> >` followed by the argument list: a launch's configuration in spaced chevrons. The
# configuration holds no `;`, `{` or `}` and stays on one statement; at least one chevron is spaced.
SPACED_LAUNCH = re.compile(rb"(?<![<\w])(<<[ \t]*<)(?!<)([^;{}\n]*?)(>>[ \t]*>)(?=[ \t]*\()")
# A spaced chevron anywhere: a search with a literal start, where SPACED_LAUNCH's look-behind makes the
# regex engine try every byte of the file.
_SPACED_CHEVRON = re.compile(rb"<<[ \t]+<|>>[ \t]+>")


def spaced_launches(source: bytes) -> list[tuple[int, int, int, int]]:
    """(open start, open end, close start, close end) of each launch whose chevrons are spaced,
    outside `//` comments and string literals of its line."""
    out: list[tuple[int, int, int, int]] = []
    if _SPACED_CHEVRON.search(source) is None:
        return out
    for m in SPACED_LAUNCH.finditer(source):
        if m.group(1) == b"<<<" and m.group(3) == b">>>":
            continue
        line_start = source.rfind(b"\n", 0, m.start()) + 1
        before = source[line_start:m.start()]
        if b"//" in before or before.count(b'"') % 2:
            continue
        out.append((m.start(1), m.end(1), m.start(3), m.end(3)))
    return out


def _joined(chevron: bytes, text: bytes) -> bytes:
    return chevron * 3 + b" " * (len(text) - 3)


def join_spaced_launches(source: bytes) -> bytes:
    """The source with each spaced launch's chevrons joined, spaces after them (same length)."""
    if b"<< " not in source and b"<<\t" not in source and b"> >" not in source:
        return source
    found = spaced_launches(source)
    if not found:
        return source
    out = bytearray(source)
    for a, b, c, d in found:
        out[a:b] = _joined(b"<", source[a:b])
        out[c:d] = _joined(b">", source[c:d])
    return bytes(out)


def _blank(match: re.Match[bytes]) -> bytes:
    return b" " * (match.end() - match.start())


def for_parsing(source: bytes) -> bytes:
    """The source with unparseable-but-harmless spellings turned into spaces (same length)."""
    if b"pragma" in source:
        source = _PRAGMA_UNROLL.sub(_blank, source)
    if b"__align__" in source:
        source = _ALIGN.sub(_blank, source)
    return join_spaced_launches(source)
