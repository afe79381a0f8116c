"""Portability hazard rules. Importing this package registers every rule module."""

from xlate.rules.base import REGISTRY, Hazard, Occurrence, Rule, Severity, SourceView, register

__all__ = ["REGISTRY", "Hazard", "Occurrence", "Rule", "Severity", "SourceView", "register", "all_rules"]


def all_rules() -> list[Rule]:
    """Every registered rule, sorted by code (rule modules are imported here, on first use)."""
    from xlate.rules import catalog  # noqa: F401  (imports the rule modules)

    return [REGISTRY[code] for code in sorted(REGISTRY)]
