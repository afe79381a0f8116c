"""Portability hazard rules.

Layers, each importing only those before it: the source view and tree helpers (`xlate.cuda.source`,
`xlate.cuda.tree`), the rule model (`model.py`), the code table (`codes.py`), the registry
(`registry.py`), then one module per family of rules (`catalog.py` imports them all).
"""

from xlate.cuda.source import Occurrence, SourceView
from xlate.rules.model import Hazard, Rule, Severity
from xlate.rules.registry import REGISTRY, register

__all__ = ["REGISTRY", "Hazard", "Occurrence", "Rule", "Severity", "SourceView", "all_rules", "register"]


def all_rules() -> list[Rule]:
    """Every registered rule, sorted by code (rule modules are imported here, on first use)."""
    from xlate.rules import catalog  # noqa: F401  (imports the rule modules)

    return [REGISTRY[code] for code in sorted(REGISTRY)]
