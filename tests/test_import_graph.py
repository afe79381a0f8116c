"""The package's import graph has no cycle, counting imports made inside functions too.

A cycle hidden behind a function-level import still couples two modules both ways: a change to either
can break the other at run time, where no import-time error shows it. Imports under
`if TYPE_CHECKING:` are left out (they never run).
"""

from __future__ import annotations

import pytest

import ast
from pathlib import Path

import networkx as nx

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of the nodes inside `if TYPE_CHECKING:` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                inside.update(id(n) for n in ast.walk(stmt))
    return inside


def import_graph() -> nx.DiGraph:
    modules = _modules()
    graph: nx.DiGraph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_blocks(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                # `from pkg import submodule` depends on the submodule; `from pkg import name` on pkg
                subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target)
    return graph


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert graph.number_of_nodes() > 50
    assert graph.has_edge("xlate.explain", "xlate.kb"), "the walk must see explain's imports"


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_no_import_cycle() -> None:
    cycles = sorted(nx.simple_cycles(import_graph(), length_bound=6), key=len)
    shown = "\n".join(" -> ".join([*c, c[0]]) for c in cycles[:20])
    assert not cycles, f"{len(cycles)} import cycles, the shortest first:\n{shown}"
