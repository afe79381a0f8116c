"""Preprocessor conditions that test CUDA macros, mapped to what HIP defines.

A CUDA helper header often guards code with the macros of CUDA's own headers (`#ifdef
__DRIVER_TYPES_H__`) or compilers (`#ifdef __CUDACC__`); after the includes become HIP includes
those macros are never defined and the guarded code (checkCudaErrors and friends) silently
vanishes. Each macro of glossary/translate/macros.yaml (`conditions`) is replaced where the
condition asks whether it is defined
or tests its truth; a comparison of its value is left as written and counted, since the HIP macro's
value means something else. Every identifier of a condition is claimed here, so the symbol rows
never rename inside one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from tree_sitter import Node, Tree

from xlate.translate import datafile
from xlate.translate.edits import Edits, line_starts
from xlate.translate.notes import Notes
from xlate.translate.report import Report

_IFDEF = ("preproc_ifdef", "preproc_elifdef")


_CONDITION_KEYS = {"hip": str, "test": str, "pass": str, "source": str}
_OPT_IN_KEYS = {"declares": list, "note": str, "source": str}
_MACRO = re.compile(r"[A-Za-z_]\w*")


def data_path() -> Path:
    return datafile.data_path("macros.yaml")


@lru_cache(maxsize=1)
def _data() -> dict[str, dict[str, dict[str, Any]]]:
    """glossary/translate/macros.yaml, checked: a malformed file is a GlossaryError naming the entry."""
    from xlate.errors import GlossaryError

    path = data_path()
    data = datafile.load_parts(path, {"conditions": _CONDITION_KEYS, "opt_in": _OPT_IN_KEYS}, "macro names")
    for part in ("conditions", "opt_in"):
        for name, entry in data[part].items():
            targets = [entry["hip"]] if part == "conditions" else entry["declares"]
            if not _MACRO.fullmatch(str(name)) or not all(isinstance(t, str) and _MACRO.fullmatch(t) for t in targets):
                raise GlossaryError(f"{path}: {part}.{name}: names must be C identifiers")
            if part == "conditions" and entry["test"] != "truth":
                raise GlossaryError(f"{path}: conditions.{name}: test must be `truth`")
            if part == "conditions" and entry["pass"] not in ("both", "device"):
                raise GlossaryError(f"{path}: conditions.{name}: pass must be `both` or `device`")
    return data


def table() -> dict[str, dict[str, str]]:
    """CUDA macro -> {hip, test, source}: the conditions part of the data."""
    return _data()["conditions"]


def opt_in() -> dict[str, dict[str, Any]]:
    """HIP macro -> {declares, note, source}: macros some ROCm releases need before declaring names."""
    return _data()["opt_in"]


_DIRECTIVE = re.compile(rb"^[ \t]*(#[ \t]*(?:ifdef|ifndef|if|elifdef|elifndef|elif))\b", re.MULTILINE)
_NODE_TYPES = frozenset({"preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"})


def _directive_nodes(tree: Tree, source: bytes) -> list[Node]:
    """Conditional directives, found from the `#if` lines of the bytes and confirmed in the tree."""
    out: list[Node] = []
    at = tree.root_node.descendant_for_byte_range
    for m in _DIRECTIVE.finditer(source):
        start, end = m.span(1)
        token = at(start, end)
        node = token.parent if token is not None and not token.is_named else token
        if node is not None and node.type in _NODE_TYPES and node.start_byte == start:
            out.append(node)
    return out


def _truth_only(node: Node) -> bool:
    """The identifier's value is used only as true/false: the whole condition, or under !, && or ||."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("preproc_if", "preproc_elif"):
            return True
        if parent.type == "parenthesized_expression":
            parent = parent.parent
            continue
        if parent.type == "unary_expression" and parent.child(0) is not None and parent.child(0).type == "!":
            parent = parent.parent
            continue
        if parent.type == "binary_expression":
            op = parent.child_by_field_name("operator")
            if op is not None and op.type in ("&&", "||"):
                parent = parent.parent
                continue
        return False
    return False


def rewrite(tree: Tree, source: bytes, edits: Edits, report: Report, claimed: set[int], notes: Notes | None = None,
            starts: list[int] | None = None) -> set[tuple[int, int]]:
    """Map the macros; returns the 1-based (line, column) of each one mapped (its hazard is settled).

    A condition keeps its meaning or is kept whole: where a macro's value is compared anywhere in a
    condition (`__CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)`), none of its tests in that
    condition is rewritten, since mapping the defined() test alone while the comparison reads an
    undefined macro (0) turns the condition around in one compilation pass. A test of a macro that
    is defined in the device pass only (`pass: device`) gets a note saying which pass it selects."""
    macros = table()
    settled: set[tuple[int, int]] = set()
    if b"#" not in source:
        return settled
    notes = notes if notes is not None else Notes()
    starts = starts if starts is not None else line_starts(source)
    planned = []
    compared_in_chain: dict[int, set[str]] = {}
    for directive in _directive_nodes(tree, source):
        if directive.type in _IFDEF:
            name = directive.child_by_field_name("name")
            targets = [(name, True)] if name is not None else []
        else:
            cond = directive.child_by_field_name("condition")
            targets = list(_identifiers(cond)) if cond is not None else []
        chain = _chain_root(directive)
        compared_in_chain.setdefault(chain, set()).update(
            (n.text or b"").decode("utf-8", errors="replace") for n, d in targets if not d and not _truth_only(n))
        planned.append((directive, targets, chain))
    for directive, targets, chain in planned:
        # An #elif reads the same macros as its #if: a comparison anywhere in the chain keeps them all.
        compared = compared_in_chain[chain]
        noted: set[str] = set()
        for node, _defined in targets:
            claimed.add(node.start_byte)
            text = (node.text or b"").decode("utf-8", errors="replace")
            entry = macros.get(text)
            if entry is None:
                continue
            if text not in compared:
                if edits.add(node.start_byte, node.end_byte, entry["hip"].encode()):
                    report.rewritten["macro-condition"] += 1
                    row, col = node.start_point
                    settled.add((row + 1, len(source[node.start_byte - col:node.start_byte].decode("utf-8", "replace")) + 1))
                    if entry["pass"] == "device" and text not in noted:
                        noted.add(text)
                        which = "host" if _negated(node, directive) else "device"
                        notes.add(starts, directive.start_byte,
                                  f"{text} -> {entry['hip']}: this test selects the {which} compilation pass, as it did "
                                  f"under nvcc ({entry['hip']} is defined in HIP's device pass only)", report,
                                  "pass test mapped, meaning kept")
            elif text not in noted:
                noted.add(text)
                report.unknown[f"{text} (value test)"] += 1
                if all(not d and not _truth_only(n) for n, d in targets if n.text == node.text):
                    continue  # compared only: explain's hazard comment (XL080/XL081) says what to do
                message = (f"kept {text}: its value is compared in this condition (or its #if/#elif chain), so none of its tests here is "
                           f"rewritten (mapping only its defined() test to {entry['hip']} would change what the "
                           f"condition selects); HIP defines no {text}: decide by hand what it should select")
                notes.add(starts, directive.start_byte, message, report, "value test of a CUDA macro")
                report.notes.append(message)
    return settled


def _chain_root(directive: Node) -> int:
    """The byte offset of the `#if`/`#ifdef` that starts the directive's #if/#elif/#else chain."""
    node = directive
    while node.type in ("preproc_elif", "preproc_elifdef") and node.parent is not None \
            and node.parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"):
        node = node.parent
    return node.start_byte


def _negated(node: Node, directive: Node) -> bool:
    """Whether the test of `node` is true when the macro is absent: under an odd number of `!`, or
    in an `#ifndef`/`#elifndef`."""
    if directive.type in _IFDEF:
        first = directive.child(0)
        return first is not None and b"ndef" in (first.text or b"")
    flips = 0
    n = node.parent
    while n is not None and n != directive:
        if n.type == "unary_expression" and n.child(0) is not None and n.child(0).type == "!":
            flips += 1
        n = n.parent
    return flips % 2 == 1


def _identifiers(node: Node) -> Any:
    """(identifier, inside defined()) for every identifier of a condition expression."""
    stack = [(node, False)]
    while stack:
        n, in_defined = stack.pop()
        if n.type == "identifier":
            yield n, in_defined
            continue
        if n.type == "call_expression":  # a function-like macro call: its name is not a test
            args = n.child_by_field_name("arguments")
            if args is not None:
                stack.append((args, in_defined))
            continue
        for c in n.children:
            stack.append((c, in_defined or n.type == "preproc_defined"))
