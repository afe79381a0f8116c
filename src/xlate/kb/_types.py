"""The objects the store hands out: symbol rows and their sides, concepts and their edges.

Typed, frozen and slotted: one decoded row is shared by every reader (the symbol map caches it), so
nobody may change it under another. They are NamedTuples rather than frozen dataclasses because a cold
`lookup` or `explain` imports this module: `dataclasses` pulls in `inspect`, about 6 ms of a 30 ms
lookup, where a NamedTuple costs nothing beyond `typing`. Change one with `_replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = ["BACKENDS", "EMPTY", "ROW_SIDES", "SIDE_BACKEND", "Edge", "RocmFact", "Row", "Side", "side_json"]

# The backends a concept names its terms for (lookup's --backend filter).
BACKENDS = ("cuda", "hip", "metal", "triton", "mlx")
# The sides of a symbol row, in display order: every reader of rows lists them from here.
ROW_SIDES = ("hip", "roc", "miopen", "metal", "mlx", "triton")
# Which backend filter a row side answers to (the ROC and MIOpen answers are HIP/ROCm vocabulary).
SIDE_BACKEND: Mapping[str, str] = MappingProxyType({"cuda": "cuda", "hip": "hip", "roc": "hip", "miopen": "hip",
                                                   "metal": "metal", "mlx": "mlx", "triton": "triton"})
# Version facts a side may carry, in the order messages list them.
VERSION_WORDS = ("since", "deprecated", "removed", "changed", "experimental")

EMPTY: Mapping[str, Any] = MappingProxyType({})


class RocmFact(NamedTuple):
    """What one ROCm release's headers say of a HIP side: the spelling to write for it, or a note
    (what a person must do where that release declares nothing by the name)."""

    version: str  # major.minor
    symbol: str | None = None
    note: str | None = None
    source: str | None = None

    def json(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}


class Side(NamedTuple):
    """One backend's counterpart of a CUDA spelling."""

    symbol: str | None
    relation: str  # same, renamed, approximate, none
    origin: str = "curated"  # hipify, family, override, curated, concept, derived
    caveat: str | None = None
    source: str | None = None
    also: tuple[str, ...] = ()  # other spellings of the very same thing
    shared: bool = False  # the spelling answers several CUDA spellings on purpose
    since: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    changed: str | None = None
    experimental: str | None = None
    derived: bool = False  # made by a family's naming rule: in no table
    rocm: tuple[RocmFact, ...] = ()  # per-release facts of a HIP side (translate --rocm)

    def rocm_fact(self, version: str | None) -> RocmFact | None:
        """The fact for ROCm `version` (major.minor), or None."""
        return next((f for f in self.rocm if f.version == version), None)

    def versions(self) -> list[tuple[str, str]]:
        """The version facts it carries, as (word, value)."""
        return [(w, v) for w in VERSION_WORDS if (v := getattr(self, w))]

    def json(self) -> dict[str, Any]:
        """As every output format carries a side (lookup, explain, SARIF)."""
        out: dict[str, Any] = {"symbol": self.symbol, "relation": self.relation, "derived": self.derived,
                               "origin": self.origin, "caveat": self.caveat, "source": self.source}
        if self.also:
            out["also"] = list(self.also)
        if self.shared:
            out["shared"] = True
        out.update(self.versions())
        if self.rocm:
            out["rocm"] = [f.json() for f in self.rocm]
        return out


def side_json(side: Side | None) -> dict[str, Any]:
    """One side as JSON; a side no row gives says it is unknown."""
    return side.json() if side is not None else {"symbol": None, "relation": "unknown", "derived": False}


class Row(NamedTuple):
    """A CUDA spelling and its counterpart on each backend that a table, a family or a curated file gives."""

    cuda: str
    concept: str | None = None
    kind: str | None = None
    family: str | None = None
    section: str | None = None
    cuda_versions: Mapping[str, str] = EMPTY
    sides: Mapping[str, Side] = EMPTY
    derived: bool = False  # the whole row comes from a naming rule

    def side(self, name: str) -> Side | None:
        return self.sides.get(name)

    def json(self, matched_side: str = "cuda") -> dict[str, Any]:
        """As lookup's JSON gives a row: the HIP and Metal sides always (unknown when no row gives them)."""
        return {"cuda": self.cuda, "matched_side": matched_side, "concept": self.concept, "kind": self.kind,
                "family": self.family, "section": self.section or None, "cuda_versions": dict(self.cuda_versions),
                "derived": self.derived, "sides": sides_json(self.sides)}


def sides_json(sides: Mapping[str, Side]) -> dict[str, Any]:
    """Each side of a row in display order; HIP and Metal always, unknown when no row gives them."""
    return {s: side_json(sides.get(s)) for s in ROW_SIDES if s in sides or s in ("hip", "metal")}


class Edge(NamedTuple):
    """A relation between two concepts as a reader meets it from `source`: declared there, or the
    reverse of one declared on the other end (`incoming`)."""

    type: str  # the relation as read from source: part-of, has-part, see-also ...
    target: str
    incoming: bool = False


class TermCard(NamedTuple):
    """What one backend calls a concept."""

    relation: str  # same, renamed, approximate, none
    names: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    caveat: str | None = None
    since: str | None = None
    docs: tuple[str, ...] = ()

    def spellings(self) -> list[str]:
        """Names, then the symbols not already named."""
        return list(dict.fromkeys(self.names + self.symbols))


class ConceptCard(NamedTuple):
    """A concept as the compiled store gives it: what lookup, hover and `path` read."""

    id: str
    title: str
    category: str
    summary: str
    terms: Mapping[str, TermCard]
    related: tuple[Edge, ...] = ()
    examples: tuple[str, ...] = ()  # kernel examples that demonstrate it

    @classmethod
    def decode(cls, cid: str, data: Mapping[str, Any]) -> ConceptCard:
        terms = {b: TermCard(t["relation"], tuple(t.get("names") or ()), tuple(t.get("symbols") or ()), t.get("caveat"),
                             t.get("since"), tuple(t.get("docs") or ()))
                 for b, t in (data.get("terms") or {}).items()}
        related = tuple(Edge(e[0], e[1], len(e) > 2 and bool(e[2])) for e in data.get("related") or ())
        examples = tuple(e["example"] for e in data.get("examples") or ())
        return cls(cid, data["title"], data["category"], data["summary"], MappingProxyType(terms), related, examples)
