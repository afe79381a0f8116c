"""Mending one-sided edges (how two concepts relate is `_graph.relation_path`)."""

from __future__ import annotations

from pathlib import Path

from xlate.errors import GlossaryError
from xlate.kb._glossary import Glossary
from xlate.kb._model import SYMMETRIC_EDGES, EdgeType
from xlate.kb._paths import display_path, require_glossary

__all__ = ["Mirror", "add_edge_to_file", "fix_edges", "missing_mirrors"]

Mirror = tuple[str, EdgeType, str]  # (concept that lacks the edge, edge type, target)


def missing_mirrors(glossary: Glossary) -> list[Mirror]:
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


def fix_edges(root: Path) -> list[Mirror]:
    """Write every missing mirror into its concept file and return them.

    Refused when a concept file could not be read or validated: its edges are unknown, so the mirrors
    found without it would be an incomplete answer reported as a complete one.
    """
    from xlate.kb import _glossary as gl

    g = gl.load(require_glossary(root))
    loaded = {src.path for src in g.sources.values()}
    unread = [p for p in gl.concept_files(root) if p not in loaded]
    if unread:
        shown = display_path(unread[0], root)
        first = next((str(p) for p in g.problems if p.path == shown), shown)
        raise GlossaryError(f"{len(unread)} concept file(s) could not be read or validated, the first {first}")
    fixes = missing_mirrors(g)
    for cid, edge_type, target in fixes:
        add_edge_to_file(g.sources[cid].path, edge_type, target)
    return fixes
