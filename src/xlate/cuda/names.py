"""The distinct names a file uses, computed once per file for the symbol scanner and the rules.

Both search the bytes for a few known names and confirm each hit in the syntax tree; a name that
the file never spells needs no search at all.
"""

from __future__ import annotations

_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
# Every byte that cannot be part of a name becomes a space, so bytes.split() yields the words.
_SPACES = bytes(c if c in _WORD_BYTES else 32 for c in range(256))

_LAST: tuple[bytes, frozenset[bytes]] | None = None


def identifiers(source: bytes) -> frozenset[bytes]:
    """The distinct words of a file (runs of letters, digits and underscores), remembered for the
    last file asked about. Every whole-word occurrence of a name is one of these words."""
    global _LAST
    if _LAST is not None and _LAST[0] is source:
        return _LAST[1]
    words = frozenset(source.translate(_SPACES).split())
    _LAST = (source, words)
    return words
