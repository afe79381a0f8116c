"""The registry of hazard rules: one instance per code of the code table, added as rule modules
are imported (`catalog.py` imports them all)."""

from __future__ import annotations

from functools import lru_cache

from xlate.rules.codes import by_code
from xlate.rules.model import Rule

__all__ = ["REGISTRY", "register", "silenced_symbols"]

REGISTRY: dict[str, Rule] = {}


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: give the rule its row of the code table and add one instance to the registry."""
    row = by_code(cls.code)
    if row is None:
        raise ValueError(f"rule {cls.__name__} has code {cls.code}, which the code table lacks")
    if cls.code in REGISTRY:
        raise ValueError(f"duplicate rule code {cls.code}")
    if cls.__module__.rsplit(".", 1)[-1] != row.family:
        raise ValueError(f"rule {cls.code} is in {cls.__module__}, the code table says {row.family}")
    cls.name, cls.severity, cls.backends = row.name, row.severity, row.backends
    REGISTRY[cls.code] = cls()
    return cls


@lru_cache(maxsize=None)
def silenced_symbols(code: str) -> frozenset[str]:
    """Symbols on which findings of rule `code` are left out: the `covers` of every registered rule
    whose row in the code table says it silences `code`."""
    from xlate.rules import catalog  # noqa: F401  (every rule registered)
    from xlate.rules.codes import CODES

    found: set[str] = set()
    for row in CODES:
        if code in row.silences and row.code in REGISTRY:
            found |= REGISTRY[row.code].covers
    return frozenset(found)
