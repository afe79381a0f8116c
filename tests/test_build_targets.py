"""A build target spelled alone (gfx942, sm_90a) answers the architecture card that names it, not a card
that lists it as an example value of an option (the offload-target card's --offload-arch examples)."""

from __future__ import annotations

import re

from xlate import kb

TARGET = re.compile(r"^(?:gfx\d+[a-z]?|sm_\d+[af]?)$")


def test_no_card_spells_as_a_symbol_a_target_that_an_architecture_card_names() -> None:
    index = kb.load_index()
    named_by_architecture: dict[str, str] = {}
    symbols: dict[str, set[str]] = {}
    for label, cid, kind, _ in index["labels"]:
        if not TARGET.match(label):
            continue
        if kind in ("name", "alias") and index["concepts"][cid].get("category") == "hardware":
            named_by_architecture[label] = cid
        elif kind == "symbol":
            symbols.setdefault(label, set()).add(cid)
    clashes = {t: (named_by_architecture[t], sorted(cards)) for t, cards in symbols.items()
               if t in named_by_architecture and cards - {named_by_architecture[t]}}
    assert not clashes, clashes


def test_each_target_an_architecture_card_names_answers_that_card() -> None:
    index = kb.load_index()
    for label, cid, kind, _ in index["labels"]:
        if TARGET.match(label) and kind in ("name", "alias") and index["concepts"][cid].get("category") == "hardware":
            top = kb.search(index, label, limit=1)
            assert top and top[0].concept == cid, (label, cid, top)
