"""Imported once by the pass workers' fork server: the glossary and the rules, loaded before any
worker is forked, so that a worker started to replace one that was ended (cancelled, over budget)
is ready at once instead of after a fresh interpreter's imports."""

from __future__ import annotations

try:
    import xlate.incremental  # noqa: F401
    from xlate import kb
    from xlate.explain import load_rules
    from xlate.lsp import worker

    worker.PRELOADED.update(map=kb.load_symbols(), rules=load_rules())
except Exception:  # a broken glossary: each worker reports it when it loads
    pass
