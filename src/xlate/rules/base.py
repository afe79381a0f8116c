"""The hazard-rule interface: what a rule sees, what it reports, and the registry of rules.

A rule is a class with documentation fields (rendered as one docs page per rule, like a linter's
rule pages) and a `check` method that yields hazards for one parsed source file. Explain parses each
file once, resolves symbol occurrences against the glossary, then runs every registered rule.
"""

from __future__ import annotations

from bisect import bisect_right
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
    # How sure the map is (same, renamed, approximate, none, unknown); None when not supplied.
    # Lets the equivalents rules tell "no equivalent" from "not yet mapped".
    hip_relation: str | None = None
    metal_relation: str | None = None


@dataclass
class SourceView:
    """One parsed file as rules see it."""

    path: str
    source: bytes
    tree: Tree
    occurrences: list[Occurrence] = field(default_factory=list)
    # Caches shared by all rules: one walk of the tree, one qualifier lookup per function.
    _by_type: dict[str, list[Node]] | None = field(default=None, init=False, repr=False, compare=False)
    _by_name: dict[str, list[Node]] | None = field(default=None, init=False, repr=False, compare=False)
    _by_call: dict[str, list[Node]] | None = field(default=None, init=False, repr=False, compare=False)
    _functions: list[tuple[int, int, Node, bool]] | None = field(default=None, init=False, repr=False, compare=False)
    _nested: bool = field(default=False, init=False, repr=False, compare=False)

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def position(self, node: Node) -> tuple[int, int]:
        """1-based (line, column in characters) of a node's start."""
        row, col_bytes = node.start_point
        line_start = node.start_byte - col_bytes
        col = len(self.source[line_start : node.start_byte].decode("utf-8", errors="replace"))
        return row + 1, col + 1

    def end_position(self, node: Node) -> tuple[int, int]:
        """1-based (line, column in characters) just past a node's last character."""
        row, col_bytes = node.end_point
        line_start = node.end_byte - col_bytes
        col = len(self.source[line_start : node.end_byte].decode("utf-8", errors="replace"))
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

    def nodes(self, *types: str) -> list[Node]:
        """Named nodes of the given types in document order, from one shared walk of the tree.

        Rules ask for the few node types they inspect instead of each walking the whole tree.
        """
        if self._by_type is None:
            index: dict[str, list[Node]] = {}
            for node in self.walk():
                if node.is_named:
                    index.setdefault(node.type, []).append(node)
            self._by_type = index
        if len(types) == 1:
            return self._by_type.get(types[0], [])
        found = [n for t in types for n in self._by_type.get(t, [])]
        found.sort(key=lambda n: n.start_byte)
        return found

    def named(self, names: Iterable[str]) -> list[Node]:
        """Identifier-like nodes (identifier, type, field and namespace names) spelling one of `names`."""
        if self._by_name is None:
            index: dict[str, list[Node]] = {}
            for kind in ("identifier", "type_identifier", "field_identifier", "namespace_identifier"):
                for node in self.nodes(kind):
                    index.setdefault(self.text(node), []).append(node)
            self._by_name = index
        found = [n for name in set(names) for n in self._by_name.get(name, [])]
        found.sort(key=lambda n: n.start_byte)
        return found

    def calls(self, names: Iterable[str]) -> list[Node]:
        """call_expression nodes whose called name (see call_name) is one of `names`, in document order."""
        if self._by_call is None:
            index: dict[str, list[Node]] = {}
            for node in self.nodes("call_expression"):
                index.setdefault(call_name(node), []).append(node)
            self._by_call = index
        found = [n for name in set(names) for n in self._by_call.get(name, [])]
        found.sort(key=lambda n: n.start_byte)
        return found

    def function_of(self, node: Node) -> Node | None:
        """The innermost function_definition containing a node (by byte range; no parent walks)."""
        hit = self._function_entry(node.start_byte, node.end_byte)
        return hit[2] if hit else None

    def in_device_code(self, node: Node) -> bool:
        """True inside the body or signature of a __global__ or __device__ function."""
        entry = self._function_entry(node.start_byte, node.end_byte)
        if entry is None:
            return False
        if entry[3] or not self._nested:
            return entry[3]
        # A local class or nested definition inside a kernel is device code too.
        return any(f[3] and f[0] <= node.start_byte and node.end_byte <= f[1] for f in self._function_table())

    def _function_table(self) -> list[tuple[int, int, Node, bool]]:
        if self._functions is None:
            table = []
            for fn in self.nodes("function_definition"):
                device = bool(function_qualifiers(fn) & {"__global__", "__device__"})
                table.append((fn.start_byte, fn.end_byte, fn, device))
            table.sort(key=lambda f: f[0])
            self._nested = any(table[i][1] > table[i + 1][0] for i in range(len(table) - 1))
            self._functions = table
        return self._functions

    def _function_entry(self, start: int, end: int) -> tuple[int, int, Node, bool] | None:
        functions = self._function_table()
        i = bisect_right(functions, start, key=lambda f: f[0]) - 1
        while i >= 0:
            entry = functions[i]
            if entry[0] <= start and end <= entry[1]:
                return entry
            if not self._nested:
                return None
            i -= 1
        return None


def ancestors(node: Node) -> Iterator[Node]:
    """Parents of a node, nearest first."""
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def enclosing_function(node: Node) -> Node | None:
    """The nearest function_definition that contains the node, or None at file scope."""
    for parent in ancestors(node):
        if parent.type == "function_definition":
            return parent
    return None


def function_qualifiers(fn: Node) -> set[str]:
    """CUDA execution-space qualifiers of a function_definition (__global__, __device__, __host__)."""
    found: set[str] = set()
    for child in fn.children:
        if child.type in ("__global__", "__device__", "__host__"):
            found.add(child.type)
        elif child.type == "function_declarator" or child.type == "compound_statement":
            break
    return found


def is_kernel(fn: Node) -> bool:
    return "__global__" in function_qualifiers(fn)


def call_name(call: Node) -> str:
    """The called name of a call_expression without namespaces or template arguments.

    `cuda::memcpy_async(...)` gives "memcpy_async", `grid.sync()` gives "sync", `f<T>(x)` gives "f".
    """
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    return _last_name(fn)


def call_qualified_name(call: Node) -> str:
    """The called name with its namespace path, e.g. "cuda::memcpy_async" or "cg::this_grid"."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    if fn.type == "qualified_identifier":
        return (fn.text or b"").decode("utf-8", errors="replace").split("<", 1)[0].replace(" ", "")
    return _last_name(fn)


def call_arguments(call: Node) -> list[Node]:
    """The argument expressions of a call_expression (comments excluded)."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def _last_name(node: Node) -> str:
    while True:
        if node.type in ("identifier", "field_identifier", "type_identifier", "namespace_identifier"):
            return (node.text or b"").decode("utf-8", errors="replace")
        if node.type == "qualified_identifier":
            nxt = node.child_by_field_name("name")
        elif node.type == "field_expression":
            nxt = node.child_by_field_name("field")
        elif node.type in ("template_function", "template_method"):
            nxt = node.child_by_field_name("name")
        elif node.type == "parenthesized_expression":
            nxt = node.named_children[0] if node.named_children else None
        else:
            return ""
        if nxt is None:
            return ""
        node = nxt


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
