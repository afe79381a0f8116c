"""The registry of hazard rules: one instance per code of the code table, added as rule modules
are imported (`catalog.py` imports them all)."""

from __future__ import annotations

from functools import cache

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


@cache
def silenced_symbols(code: str) -> frozenset[str]:
    """Symbols on which findings of rule `code` are left out: the `covers` of every registered rule
    whose row in the code table says it silences `code`.

    Only meaningful once every rule is registered (`xlate.rules.all_rules()` imports the catalog):
    asked earlier, the answer would be cached without the rules still to come, so it refuses.
    """
    from xlate.rules.codes import CODES

    missing = [row.code for row in CODES if row.code not in REGISTRY]
    if missing:
        raise RuntimeError(f"rules {', '.join(missing)} are not registered yet: call xlate.rules.all_rules() first")
    found: set[str] = set()
    for row in CODES:
        if code in row.silences and row.code in REGISTRY:
            found |= REGISTRY[row.code].covers
    return frozenset(found)
