"""The project's own glossary, loaded and validated once per test session.

A full load (every file validated, rows merged, cross-checks) takes seconds; tests that only read the
real glossary share this one. Tests that change a glossary build their own in a temporary folder.
"""

from __future__ import annotations

from functools import cache

from xlate import kb


@cache
def real_glossary() -> kb.Glossary:
    return kb.load_glossary(kb.glossary_root())
