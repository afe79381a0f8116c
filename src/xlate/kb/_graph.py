"""How two concepts relate: the shortest chain of typed edges, read in the direction it is walked.

Walks the edges the compile step made once (declared and incoming, kb.Glossary.edges, the index's
`related`), so `xlate path` needs neither pydantic nor networkx.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xlate.kb._glossary import Glossary
    from xlate.kb._index import Index

__all__ = ["Step", "relation_path"]

Step = tuple[str, str, str]  # (from concept, edge label read in this direction, to concept)


def _neighbours(source: Glossary | Index) -> tuple[set[str], Callable[[str], Iterable[tuple[str, str]]]]:
    """The concept ids and, per concept, (label, neighbour) in reading order, from either store."""
    from xlate.kb._index import (
        Index,  # the light one: a Glossary is only ever passed by one who loaded it
    )

    if not isinstance(source, Index):
        glossary = source
        return set(glossary.concepts), lambda cid: ((e.type, e.target) for e in glossary.edges(cid))
    concepts = source["concepts"]
    return set(concepts), lambda cid: ((edge[0], edge[1]) for edge in concepts[cid].get("related", ()))


def relation_path(source: Glossary | Index, start: str, goal: str) -> list[Step] | None:
    """Shortest chain of relations between two concepts, each step read in its own direction
    ([(from, label, to), ...]; [] when they are the same concept), or None when they are not connected."""
    ids, neighbours = _neighbours(source)
    if start not in ids or goal not in ids:
        return None
    came: dict[str, tuple[str, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            break
        for label, there in neighbours(here):
            if there in ids and there not in came:
                came[there] = (here, label)
                queue.append(there)
    if goal not in came:
        return None
    steps: list[Step] = []
    node = goal
    while (prev := came[node]) is not None:
        steps.append((prev[0], prev[1], node))
        node = prev[0]
    return steps[::-1]
