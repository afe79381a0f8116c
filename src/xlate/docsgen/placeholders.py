"""Placeholders in hand-written pages (`<!-- xlate:rosetta id id ... -->`), filled from the glossary.

Both ways of building read it: the mkdocs hook fills each page as mkdocs reads it, and the staged copy
for engines that run no hooks (zensical) fills the files it copies.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["fill_placeholders"]

_PLACEHOLDER = re.compile(r"<!--\s*xlate:(?P<what>[a-z-]+)(?P<args>[^>]*?)\s*-->")


def fill_placeholders(markdown: str, g: Any) -> str:
    """Replace `<!-- xlate:rosetta id id ... -->` with a table of those concepts drawn from the glossary."""
    from xlate.docsgen import concepts

    def sub(m: re.Match[str]) -> str:
        if m.group("what") == "rosetta":
            return concepts.mini_rosetta(g, m.group("args").split())
        return m.group(0)

    return _PLACEHOLDER.sub(sub, markdown)
