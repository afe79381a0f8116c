"""The translator's data files under glossary/translate/ (macros.yaml, calls.yaml): read and checked
the same way, so that a malformed file is a one-line GlossaryError naming the file and the entry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def data_path(name: str) -> Path:
    from xlate.kb import glossary_root

    return glossary_root() / "translate" / name


def load_parts(path: Path, parts: Mapping[str, Mapping[str, type]], what: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The file's top-level mappings, exactly `parts`; each maps a `what` (a CUDA name) to an entry with
    exactly the part's keys, each of its type. Checks particular to one file stay with its reader."""
    import yaml

    from xlate.errors import GlossaryError

    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise GlossaryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise GlossaryError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or set(data) != set(parts):
        raise GlossaryError(f"{path}: expected the mappings {', '.join(parts)}")
    for part, keys in parts.items():
        entries = data[part]
        if not isinstance(entries, dict):
            raise GlossaryError(f"{path}: `{part}` must map {what} to entries")
        for name, entry in entries.items():
            if not isinstance(entry, dict) or set(entry) != set(keys) or not all(isinstance(entry[k], t) for k, t in keys.items()):
                raise GlossaryError(f"{path}: {part}.{name}: expected exactly {', '.join(keys)}")
    return data
