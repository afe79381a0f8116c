"""Where the glossary and the on-disk caches live (no heavy imports: every command's start-up reads these)."""

from __future__ import annotations

import os
from pathlib import Path


def glossary_root() -> Path:
    env = os.environ.get("XLATE_GLOSSARY")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "glossary"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xlate"


def write_cache(path: Path, text: str) -> None:
    """Write a cache file atomically (readers never see half a file); a read-only cache only costs speed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
