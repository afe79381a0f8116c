"""The project context of the files being explained: what each file knows from the rest of its tree.

`activate` installs one FileContext per file (by the path shown for it) before the files are
explained; explain's pipeline reads it with `for_file`. A module-level table rather than an argument
so that the processes a large tree is spread over (forked copies of this one) inherit it unchanged.
"""

from __future__ import annotations

from typing import Any

from xlate.cuda.source import FileContext

__all__ = ["activate", "clear", "for_file", "keep_tree", "parsed"]

_ACTIVE: dict[str, FileContext] = {}
# Trees the project pass already parsed (files with warp code), by their bytes: explain reuses them
# instead of parsing the same file twice. Emptied with the contexts.
_TREES: dict[bytes, Any] = {}


def activate(contexts: dict[str, FileContext]) -> None:
    _ACTIVE.clear()
    _ACTIVE.update(contexts)


def clear() -> None:
    _ACTIVE.clear()
    _TREES.clear()


def keep_tree(source: bytes, tree: Any) -> None:
    """Remember the tree of a file's bytes (as prepared for parsing) for explain to reuse."""
    _TREES[source] = tree


def parsed(source: bytes) -> Any:
    """The tree the project pass parsed for these bytes, or None."""
    return _TREES.get(source) if _TREES else None


def for_file(shown: str) -> FileContext | None:
    """The context of a file, or None when it is explained on its own."""
    return _ACTIVE.get(shown) if _ACTIVE else None
