"""Graph questions over the glossary: how two concepts relate, and mending one-sided edges."""

from __future__ import annotations

from pathlib import Path

from xlate.glossary import Glossary
from xlate.model import REVERSE_LABEL, SYMMETRIC_EDGES, EdgeType


def relation_path(glossary: Glossary, source: str, target: str) -> list[tuple[str, str, str]] | None:
    """Shortest chain of relations between two concepts, each step read in its own direction.

    Returns [(from, label, to), ...], or None when the two are not connected.
    """
    import networkx as nx

    g = glossary.graph()
    undirected = nx.Graph()
    undirected.add_nodes_from(g.nodes)
    for u, v, data in g.edges(data=True):
        undirected.add_edge(u, v)
    try:
        nodes = nx.shortest_path(undirected, source, target)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None
    steps = []
    for a, b in zip(nodes, nodes[1:]):
        if g.has_edge(a, b):
            kind = next(iter(g.get_edge_data(a, b).values()))["type"]
            steps.append((a, kind, b))
        else:
            kind = next(iter(g.get_edge_data(b, a).values()))["type"]
            steps.append((a, REVERSE_LABEL[EdgeType(kind)], b))
    return steps


def missing_mirrors(glossary: Glossary) -> list[tuple[str, EdgeType, str]]:
    """Symmetric edges written on one concept only: (concept that lacks it, type, target)."""
    declared = {(cid, e.type, e.target) for cid, c in glossary.concepts.items() for e in c.relations}
    out = []
    for cid, concept in glossary.concepts.items():
        for e in concept.relations:
            if e.type in SYMMETRIC_EDGES and e.target in glossary.concepts and (e.target, e.type, cid) not in declared:
                out.append((e.target, e.type, cid))
    return sorted(set(out))


def add_edge_to_file(path: Path, edge_type: EdgeType, target: str) -> None:
    """Append a flow-style relation to a concept file, keeping everything else byte for byte."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    entry = f"  - {{type: {edge_type.value}, target: {target}}}\n"
    start = next((i for i, line in enumerate(lines) if line.startswith("relations:")), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += ["relations:\n", entry]
    elif lines[start].strip() == "relations: []":
        lines[start : start + 1] = ["relations:\n", entry]
    else:
        end = start + 1
        while end < len(lines) and (lines[end].startswith((" ", "\t", "-")) or not lines[end].strip()):
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        if not lines[end - 1].endswith("\n"):
            lines[end - 1] += "\n"
        lines.insert(end, entry)
    path.write_text("".join(lines), encoding="utf-8")
