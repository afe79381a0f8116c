"""Imported once by the pass workers' fork server: the glossary and the rules, loaded before any
worker is forked, so that a worker started to replace one that was ended (cancelled, over budget)
is ready at once instead of after a fresh interpreter's imports."""

from __future__ import annotations

from typing import Any

LOADED: dict[str, Any] = {}

try:
    from xlate import kb
    from xlate.explain import load_rules

    LOADED["map"] = kb.load_symbols()
    LOADED["rules"] = load_rules()
    import xlate.incremental  # noqa: F401
    import xlate.lsp.worker  # noqa: F401
except Exception:  # a broken glossary: each worker reports it when it loads
    LOADED.clear()
