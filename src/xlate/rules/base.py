"""The hazard-rule interface: what a rule sees, what it reports, and the registry of rules.

A rule is a class with documentation fields (rendered as one docs page per rule, like a linter's
rule pages) and a `check` method that yields hazards for one parsed source file. Explain parses each
file once, resolves symbol occurrences against the glossary, then runs every registered rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar

from tree_sitter import Node, Tree


class Severity(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True)
class Hazard:
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


@dataclass(frozen=True)
class Occurrence:
    """A CUDA symbol found in code (never in comments or strings) and what it maps to."""

    line: int
    column: int
    symbol: str
    concept: str | None
    hip: str | None
    metal: str | None
    node: Node | None = field(default=None, compare=False, repr=False)


@dataclass
class SourceView:
    """One parsed file as rules see it."""

    path: str
    source: bytes
    tree: Tree
    occurrences: list[Occurrence] = field(default_factory=list)

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def position(self, node: Node) -> tuple[int, int]:
        """1-based (line, column in characters) of a node's start."""
        row, col_bytes = node.start_point
        line_start = node.start_byte - col_bytes
        col = len(self.source[line_start : node.start_byte].decode("utf-8", errors="replace"))
        return row + 1, col + 1

    def walk(self, types: set[str] | None = None) -> Iterator[Node]:
        """Every node in document order (optionally only some types), without recursion limits."""
        cursor = self.tree.walk()
        visited_children = False
        while True:
            if not visited_children:
                node = cursor.node
                if node is not None and (types is None or node.type in types):
                    yield node
                if cursor.goto_first_child():
                    continue
            if cursor.goto_next_sibling():
                visited_children = False
            elif cursor.goto_parent():
                visited_children = True
            else:
                return


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

    def check(self, src: SourceView) -> Iterable[Hazard]:
        raise NotImplementedError

    def hazard(self, src: SourceView, node: Node, message: str) -> Hazard:
        line, column = src.position(node)
        end_row, _ = node.end_point
        return Hazard(line, column, self.code, self.name, self.severity, self.backends, message, end_line=end_row + 1)


REGISTRY: dict[str, Rule] = {}


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: add one instance of the rule to the registry (codes and names unique)."""
    rule = cls()
    if rule.code in REGISTRY:
        raise ValueError(f"duplicate rule code {rule.code}")
    if any(r.name == rule.name for r in REGISTRY.values()):
        raise ValueError(f"duplicate rule name {rule.name}")
    REGISTRY[rule.code] = rule
    return cls
