"""A concept card's side may not claim more than its own symbol rows do.

An audit found the matrix-fragment-load card's Metal side `renamed` while every symbol row mapping
wmma::load_matrix_sync and store_matrix_sync to simdgroup_load and simdgroup_store said `approximate` (8x8
matrices only, a transpose flag instead of a layout, an unspecified element mapping): two places of the
glossary, one mapping, two labels. The lint: where a card's side (HIP, Metal, MLX or Triton) is `same` or
`renamed`, and every symbol row of that concept that maps a CUDA spelling to one of the side's listed
symbols is `approximate`, the card says more than its rows; make it `approximate` with the rows' reason,
or correct the rows. A card whose rows disagree among themselves is left to the row-label lints."""

from __future__ import annotations

from typing import Any

from xlate import kb

BACKENDS = ("hip", "metal", "mlx", "triton")


def _value(relation: Any) -> str:
    return str(getattr(relation, "value", relation))


def stronger_than_rows(concepts: dict[str, Any], rows: list[Any]) -> list[str]:
    """`concept backend: card label, N rows approximate` for each card side its rows all contradict."""
    by_concept: dict[str, list[Any]] = {}
    for row in rows:
        if row.concept:
            by_concept.setdefault(row.concept, []).append(row)
    out = []
    for cid, concept in concepts.items():
        for backend in BACKENDS:
            term = getattr(concept.terms, backend, None)
            if term is None or _value(term.relation) not in ("same", "renamed"):
                continue
            listed = set(term.symbols or [])
            labels = [_value(row.sides[backend].relation) for row in by_concept.get(cid, [])
                      if backend in row.sides and row.sides[backend].symbol in listed]
            if labels and all(label == "approximate" for label in labels):
                out.append(f"{cid} {backend}: the card says {_value(term.relation)}, its {len(labels)} rows say approximate")
    return out


def test_no_card_side_claims_more_than_all_its_rows() -> None:
    glossary = kb.load_glossary()
    symbols = kb.load_symbols()
    rows = [entry.row for name in symbols.names() if (entry := symbols.get(name)) is not None and entry.row]
    hits = stronger_than_rows(glossary.concepts, rows)
    assert not hits, "\n".join(hits)


class _Term:
    def __init__(self, relation: str, symbols: list[str]) -> None:
        self.relation, self.symbols = relation, symbols


class _Terms:
    def __init__(self, **sides: _Term) -> None:
        for backend in BACKENDS:
            setattr(self, backend, sides.get(backend))


class _Concept:
    def __init__(self, terms: _Terms) -> None:
        self.terms = terms


class _Side:
    def __init__(self, symbol: str, relation: str) -> None:
        self.symbol, self.relation = symbol, relation


class _Row:
    def __init__(self, concept: str, **sides: _Side) -> None:
        self.concept, self.sides = concept, sides


def test_the_lint_catches_a_made_up_card() -> None:
    card = {"load": _Concept(_Terms(metal=_Term("renamed", ["simdgroup_load"])))}
    approximate = [_Row("load", metal=_Side("simdgroup_load", "approximate"))]
    assert stronger_than_rows(card, approximate)
    assert not stronger_than_rows(card, approximate + [_Row("load", metal=_Side("simdgroup_load", "renamed"))])
    assert not stronger_than_rows({"load": _Concept(_Terms(metal=_Term("approximate", ["simdgroup_load"])))}, approximate)
