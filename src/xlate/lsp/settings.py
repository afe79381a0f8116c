"""The server's settings: which backends to warn about, rule selection like ruff's, the pass budget.

Read from `initializationOptions` and from `workspace/didChangeConfiguration` (`settings.xlate`):

    {"backends": ["hip"], "select": ["XL0"], "ignore": ["XL091", "no-metal-equivalent"],
     "passBudgetSeconds": 10}

`select` and `ignore` take rule codes, code prefixes ("XL0" is every XL0xx rule), rule names, or
"ALL". As in ruff, the most specific entry decides (a full code or a name beats a prefix, a longer
prefix beats a shorter one; on a tie `ignore` wins); a rule no entry matches is off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BACKENDS = ("hip", "metal")
DEFAULT_BUDGET_S = 10.0


@dataclass(frozen=True)
class Settings:
    backends: frozenset[str] = frozenset(BACKENDS)
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    budget_s: float = DEFAULT_BUDGET_S
    problems: tuple[str, ...] = field(default=(), compare=False)

    def keeps(self, code: str, name: str, backends: list[str] | tuple[str, ...]) -> bool:
        """Whether a finding of this rule, about these backends, is shown."""
        if backends and not self.backends.intersection(backends):
            return False
        return _specificity(code, name, self.select) > _specificity(code, name, self.ignore)


def _specificity(code: str, name: str, entries: tuple[str, ...]) -> float:
    """How closely the best entry matches the rule (-1: none; ties go to ignore by the caller's `>`)."""
    best = -1.0
    for entry in entries:
        if entry == "ALL":
            best = max(best, 0)
        elif entry == name or entry == code:
            best = max(best, 100)
        elif code.startswith(entry):
            best = max(best, len(entry))
    return best


def _strings(value: Any, key: str, problems: list[str]) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"xlate setting {key!r} must be a list of strings; ignored")
        return None
    return tuple(v.strip() for v in value if v.strip())


def parse(raw: Any, base: Settings | None = None) -> Settings:
    """Settings from a client's JSON (its `xlate` section or the whole object); bad values are
    reported in `problems` and leave the value before them in place."""
    base = base or Settings()
    if isinstance(raw, dict) and isinstance(raw.get("xlate"), dict):
        raw = raw["xlate"]
    if not isinstance(raw, dict):
        return base
    problems: list[str] = []
    backends = _strings(raw.get("backends"), "backends", problems)
    if backends is not None:
        unknown = sorted(set(backends) - set(BACKENDS))
        if unknown:
            problems.append(f"xlate setting 'backends': unknown {', '.join(unknown)} (known: {', '.join(BACKENDS)})")
    select = _strings(raw.get("select"), "select", problems)
    ignore = _strings(raw.get("ignore"), "ignore", problems)
    budget = raw.get("passBudgetSeconds")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0.1 <= budget <= 600):
        problems.append("xlate setting 'passBudgetSeconds' must be a number from 0.1 to 600; ignored")
        budget = None
    return Settings(
        backends=frozenset(b for b in backends if b in BACKENDS) if backends is not None else base.backends,
        select=select if select is not None else base.select,
        ignore=ignore if ignore is not None else base.ignore,
        budget_s=float(budget) if budget is not None else base.budget_s,
        problems=tuple(problems),
    )
