"""The translator's data files under glossary/translate/ (macros.yaml, calls.yaml), read through the
knowledge base: kb validates them with their models and caches the checked data by content, so a
malformed file is a one-line GlossaryError naming the file and the entry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlate import kb
from xlate.errors import GlossaryError


def data_path(name: str) -> Path:
    return kb.translate_data_path(name)


def load_parts(path: Path, parts: Mapping[str, Mapping[str, type]], what: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The file's top-level mappings, exactly `parts`, each mapping a `what` (a CUDA name) to an entry
    with exactly the part's keys, as the file's model in kb checked them."""
    data = kb.load_translate_data(path)
    if set(data) != set(parts):  # the caller reads parts its file's model does not have
        raise GlossaryError(f"{path}: expected the mappings {', '.join(parts)}")
    return data
