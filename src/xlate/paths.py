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
