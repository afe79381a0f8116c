"""Whether code sits in a preprocessor branch that HIP-Clang never compiles, as the translator leaves it.

A project may define its own `__ldcs` for an old nvcc inside
`#if ... !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))`. Under HIP that condition is false in
both compilation passes, so the definition does not exist there and the calls reach CUDA's function,
not the project's. Deciding that needs the condition's value *after* translation:

- a CUDA macro of glossary/translate/macros.yaml whose value the condition (or its #if/#elif chain)
  compares is left as written, and HIP-Clang never defines it: `defined(X)` is false, `X` is 0;
- any other test of such a macro is rewritten to its HIP macro: defined in every pass (`pass: both`)
  is true; defined in the device pass only (`pass: device`) depends on the pass, so unknown;
- every other macro is unknown (a -D flag may define it), a number is its value.

Unknown values propagate (three-valued logic: `unknown && false` is false), so only a branch that
is dead whatever the unknowns are is reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from xlate.translate import macros

_IF_TYPES = frozenset({"preproc_if", "preproc_elif"})
_IFDEF_TYPES = frozenset({"preproc_ifdef", "preproc_elifdef"})
_NUMBER = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")

Value = int | None  # None: unknown


def _compared(directive: Node) -> set[str]:
    """CUDA macros whose value is compared anywhere in the directive's #if/#elif chain."""
    root = directive
    while root.type in ("preproc_elif", "preproc_elifdef") and root.parent is not None \
            and root.parent.type in (_IF_TYPES | _IFDEF_TYPES):
        root = root.parent
    out: set[str] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in _IF_TYPES:
            cond = n.child_by_field_name("condition")
            if cond is not None:
                out |= {name for name, in_defined, node in _identifiers(cond)
                        if not in_defined and not _truth_only(node)}
        for child in n.children:
            if child.type in ("preproc_elif", "preproc_elifdef", "preproc_else"):
                stack.append(child)
    return out


def _truth_only(node: Node) -> bool:
    return bool(macros._truth_only(node))


def _identifiers(node: Node) -> list[tuple[str, bool, Node]]:
    return [((n.text or b"").decode("utf-8", "replace"), d, n) for n, d in macros._identifiers(node)]


def _macro_defined(name: str, compared: set[str]) -> bool | None:
    entry = macros.table().get(name)
    if entry is None:
        return None
    if name in compared:
        return False  # left as written: HIP-Clang never defines a CUDA macro
    return True if entry.get("pass") == "both" else None


def _and(a: Value, b: Value) -> Value:
    if a == 0 or b == 0:
        return 0
    return 1 if a is not None and b is not None else None


def _or(a: Value, b: Value) -> Value:
    if (a is not None and a != 0) or (b is not None and b != 0):
        return 1
    return 0 if a == 0 and b == 0 else None


_BINARY: dict[str, Callable[[int, int], int]] = {
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}


def evaluate(node: Node, compared: set[str]) -> Value:
    """The value of a condition expression under HIP after translation; None where unknown."""
    t = node.type
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return evaluate(inner[0], compared) if len(inner) == 1 else None
    if t == "number_literal":
        m = _NUMBER.match((node.text or b"").decode("ascii", "replace"))
        return int(m.group(1), 0) if m else None
    if t == "identifier":
        name = (node.text or b"").decode("utf-8", "replace")
        defined = _macro_defined(name, compared)
        if defined is False:
            return 0
        if defined is True and _truth_only(node):
            return 1
        return None
    if t == "preproc_defined":
        names = [c for c in node.named_children if c.type == "identifier"]
        if len(names) != 1:
            return None
        defined = _macro_defined((names[0].text or b"").decode("utf-8", "replace"), compared)
        return None if defined is None else int(defined)
    if t == "unary_expression":
        op, arg = node.child(0), node.child_by_field_name("argument")
        if op is None or arg is None:
            return None
        v = evaluate(arg, compared)
        if v is None:
            return None
        return {"!": int(not v), "-": -v, "~": ~v, "+": v}.get(op.type)
    if t == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or left is None or right is None:
            return None
        a, b = evaluate(left, compared), evaluate(right, compared)
        if operator.type == "&&":
            return _and(a, b)
        if operator.type == "||":
            return _or(a, b)
        fn: Callable[[int, int], int] | None = _BINARY.get(operator.type)
        return fn(a, b) if fn is not None and a is not None and b is not None else None
    return None


def _truth(directive: Node) -> Value:
    """Whether the directive's own test holds under HIP (1, 0, or None for unknown)."""
    compared = _compared(directive)
    if directive.type in _IFDEF_TYPES:
        name = directive.child_by_field_name("name")
        if name is None:
            return None
        defined = _macro_defined((name.text or b"").decode("utf-8", "replace"), compared)
        if defined is None:
            return None
        first = directive.child(0)
        negated = first is not None and b"ndef" in (first.text or b"")
        return int(defined != negated)
    cond = directive.child_by_field_name("condition")
    return evaluate(cond, compared) if cond is not None else None


def compiled_out(node: Node) -> bool:
    """Whether `node` lies in a branch HIP-Clang provably never compiles, in either pass."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in (_IF_TYPES | _IFDEF_TYPES):
            alternative = parent.child_by_field_name("alternative")
            if alternative is not None and child == alternative:
                if _truth(parent) == 1:  # the #else/#elif after a test that always holds
                    return True
            elif child.type != "comment" and parent.child_by_field_name("condition") != child \
                    and parent.child_by_field_name("name") != child and _truth(parent) == 0:
                return True
        child, parent = parent, parent.parent
    return False
