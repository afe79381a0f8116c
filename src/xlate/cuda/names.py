"""The distinct names a file uses, computed once per file for the symbol scanner and the rules.

Both search the bytes for a few known names and confirm each hit in the syntax tree; a name that
the file never spells needs no search at all.
"""

from __future__ import annotations

import re

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

_LAST: tuple[bytes, frozenset[bytes]] | None = None


def identifiers(source: bytes) -> frozenset[bytes]:
    """The distinct identifier spellings of a file (remembered for the last file asked about)."""
    global _LAST
    if _LAST is not None and _LAST[0] is source:
        return _LAST[1]
    words = frozenset(_IDENT.findall(source))
    _LAST = (source, words)
    return words

