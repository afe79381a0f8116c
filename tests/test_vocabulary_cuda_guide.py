"""Section headings of NVIDIA's CUDA Programming Guide and Best Practices Guide as a name list
(glossary/vocabulary/names-cuda-guide-sections.yaml): the file is well formed (headings of several words,
none a card's label, none in another name list), lookup answers one heading of every group, in any case,
with the group's card (or names it and answers no card when the group has none), and, rebuilt without the
file, lookup answers none of the carded headings with its listed card: a heading is listed only where lookup
missed it or answered a wrong card."""

from __future__ import annotations

import io
import json
import shutil
from functools import cache
from pathlib import Path

import pytest

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup

GUIDE = "CUDA guide section heading"
FILE = "names-cuda-guide-sections.yaml"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}


def _list() -> kb.NameList:
    if GUIDE not in NAMES:
        pytest.skip(f"no {GUIDE} list")
    return NAMES[GUIDE]


def _headings() -> dict[str, str | None]:
    return {n: g.card for g in _list().groups for n in g.names}


@cache
def _index() -> kb.Index:
    return kb.load_index()


# --- well formed ----------------------------------------------------------------------------------------

def test_every_heading_has_several_words_and_no_card_carries_it() -> None:
    headings = _headings()
    assert headings and all(" " in h for h in headings), [h for h in headings if " " not in h]
    labels = {label.casefold(): cid for label, cid, kind, _ in _index()["labels"]}
    carried = {h: labels[h.casefold()] for h in headings if h.casefold() in labels}
    assert not carried, f"headings a card or row already spells (lookup answers them from there): {carried}"


def test_every_group_cites_a_guide_page() -> None:
    """Each group's section names the page (or guide) its headings were read from."""
    uncited = [g.section[:60] for g in _list().groups if "https://docs.nvidia.com/cuda/" not in g.section]
    assert not uncited, uncited


def test_no_heading_is_in_another_name_list() -> None:
    """The loader keeps the first list's entry, so a heading in two lists (with any card) would answer from
    whichever file sorts first; case aside, as lookup matches headings."""
    mine = {h.casefold() for h in _headings()}
    elsewhere = {
        n.casefold(): names.names_of
        for names in NAMES.values() if names.names_of != GUIDE
        for g in names.groups for n in g.names
    }
    twice = {h: elsewhere[h] for h in mine if h in elsewhere}
    assert not twice, twice


# --- lookup answers the list ------------------------------------------------------------------------------

def _sample() -> list[tuple[str, str | None]]:
    """One heading of every group, its case changed in turn (as printed, lower, upper)."""
    out = []
    for i, g in enumerate(_list().groups):
        heading = g.names[i % len(g.names)]
        out.append(((heading, heading.lower(), heading.upper())[i % 3], g.card))
    return out


def test_lookup_answers_one_heading_of_every_group_in_any_case_with_its_card() -> None:
    wrong = {}
    for query, card in _sample():
        out = io.StringIO()
        code = lookup.run(query, fmt="json", out=out)
        payload = json.loads(out.getvalue())
        if card is None:
            # Named for what it is (the heading and its list), and no card guessed from its words.
            ok = code == 1 and not payload["matches"] and payload["package"]["card"] is None \
                and GUIDE in json.dumps(payload["package"])
        else:
            top = payload["matches"][0] if payload["matches"] else {}
            ok = code == 0 and top.get("concept") == card and top.get("matched_kind") == "package"
        if not ok:
            wrong[query] = (card, code, payload["matches"][:1], payload.get("package"))
    assert not wrong, wrong


# --- listed only where lookup missed ----------------------------------------------------------------------

@pytest.mark.slow
def test_without_the_list_lookup_answers_no_carded_heading_with_its_card(tmp_path: Path) -> None:
    """Rebuilt from a copy of the glossary without this file, lookup's first answer for each carded
    heading is another card or none, so every listed heading adds an answer lookup did not give."""
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    (root / "vocabulary" / FILE).unlink()
    index = kb.load_index(root)
    already = {}
    for heading, card in _headings().items():
        if card is None:
            continue
        top = kb.search(index, heading, limit=1)
        if top and top[0].concept == card:
            already[heading] = card
    assert not already, f"lookup already answers these with their card: {already}"
