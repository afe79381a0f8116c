"""The rule model: what a rule reports (Hazard), how severe (Severity), and what a rule is (Rule).

A rule is a class with documentation fields (rendered as one docs page per rule, like a linter's
rule pages) and a `check` method that yields hazards for one parsed source file. Its code, name,
severity and backends come from the code table (`codes.py`) when it registers (`registry.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import ClassVar, NamedTuple

from tree_sitter import Node

from xlate.cuda.source import SourceView

__all__ = ["Hazard", "Rule", "Severity", "SymbolRule"]


class Severity(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Hazard(NamedTuple):
    """One finding. Lines and columns are 1-based; columns count characters (not bytes)."""

    line: int
    column: int
    rule: str  # stable code, e.g. "XL001"
    name: str  # kebab-case, e.g. "hardcoded-warp-size"
    severity: Severity
    backends: tuple[str, ...]
    message: str
    end_line: int | None = None
    end_column: int | None = None


class Rule:
    """Base class for hazard rules. Subclasses set the documentation fields and implement check()."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    backends: ClassVar[tuple[str, ...]]
    summary: ClassVar[str]  # one line: what it detects
    why: ClassVar[str]  # why it breaks on HIP and/or Metal
    example: ClassVar[str]  # CUDA code that triggers it
    fix: ClassVar[str]  # what to write instead (prose, optionally with code)
    fixed_example: ClassVar[str] = ""
    concepts: ClassVar[tuple[str, ...]] = ()  # glossary concept ids the docs page links to
    references: ClassVar[tuple[str, ...]] = ()  # official documentation the rule is based on
    # Symbols this rule explains in context: the rules its code-table row silences say nothing on them.
    covers: ClassVar[frozenset[str]] = frozenset()

    def check(self, src: SourceView) -> Iterable[Hazard]:
        raise NotImplementedError

    def hazard(
        self, src: SourceView, node: Node, message: str, backends: tuple[str, ...] | None = None
    ) -> Hazard:
        """A finding at a node; `backends` narrows the rule's backends for this one finding."""
        line, column = src.position(node)
        end_line, end_column = src.end_position(node)
        return Hazard(
            line,
            column,
            self.code,
            self.name,
            self.severity,
            backends or self.backends,
            message,
            end_line=end_line,
            end_column=end_column,
        )


class SymbolRule(Rule):
    """A rule whose every finding is a use of one of `symbols` (the first on its line, kept when
    `applies` says so): the message is the symbol followed by `after_name`, the same advice wherever
    it appears."""

    symbols: ClassVar[frozenset[str]]
    after_name: ClassVar[str]

    def applies(self, src: SourceView, node: Node) -> bool:
        """Whether this use is a finding (subclasses narrow it, e.g. to preprocessor conditions)."""
        return True

    def check(self, src: SourceView) -> Iterable[Hazard]:
        from xlate.rules.syntax import name_nodes, text

        for node in name_nodes(src, self.symbols):
            if self.applies(src, node):
                yield self.hazard(src, node, text(node) + self.after_name)
