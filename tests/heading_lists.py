"""Checks every name list of a guide's section headings shares (names-cuda-guide-sections.yaml,
names-hip-guide-sections.yaml): headings of several words that no card spells, each in one list only;
lookup answers one heading of every group, in any case, with the group's card (or names the heading and
answers no card); and, rebuilt without the file, lookup answers none of the carded headings with its
listed card, so each listed heading adds an answer."""

from __future__ import annotations

import io
import json
import shutil
from functools import cache
from pathlib import Path

import pytest

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup


def _lists() -> dict[str, kb.NameList]:
    return {n.names_of: n for n in glossary_without_rows().name_lists}


def name_list(names_of: str) -> kb.NameList:
    lists = _lists()
    if names_of not in lists:
        pytest.skip(f"no {names_of} list")
    return lists[names_of]


def headings(names_of: str) -> dict[str, str | None]:
    return {n: g.card for g in name_list(names_of).groups for n in g.names}


@cache
def _index() -> kb.Index:
    return kb.load_index()


def check_several_words_and_no_card_label(names_of: str) -> None:
    listed = headings(names_of)
    assert listed and all(" " in h for h in listed), [h for h in listed if " " not in h]
    labels = {label.casefold(): cid for label, cid, kind, _ in _index()["labels"]}
    carried = {h: labels[h.casefold()] for h in listed if h.casefold() in labels}
    assert not carried, f"headings a card or row already spells (lookup answers them from there): {carried}"


def check_in_no_other_list(names_of: str) -> None:
    """The loader keeps the first list's entry, so a heading in two lists (with any card) would answer from
    whichever file sorts first; case aside, as lookup matches headings."""
    mine = {h.casefold() for h in headings(names_of)}
    elsewhere = {
        n.casefold(): names.names_of
        for names in _lists().values() if names.names_of != names_of
        for g in names.groups for n in g.names
    }
    twice = {h: elsewhere[h] for h in mine if h in elsewhere}
    assert not twice, twice


def _sample(names_of: str) -> list[tuple[str, str | None]]:
    """One heading of every group, its case changed in turn (as printed, lower, upper)."""
    out = []
    for i, g in enumerate(name_list(names_of).groups):
        heading = g.names[i % len(g.names)]
        out.append(((heading, heading.lower(), heading.upper())[i % 3], g.card))
    return out


def check_lookup_answers_one_heading_per_group(names_of: str) -> None:
    wrong = {}
    for query, card in _sample(names_of):
        out = io.StringIO()
        code = lookup.run(query, fmt="json", out=out)
        payload = json.loads(out.getvalue())
        if card is None:
            # Named for what it is (the heading and its list), and no card guessed from its words.
            ok = code == 1 and not payload["matches"] and payload["package"]["card"] is None \
                and names_of in json.dumps(payload["package"])
        else:
            top = payload["matches"][0] if payload["matches"] else {}
            ok = code == 0 and top.get("concept") == card and top.get("matched_kind") == "package"
        if not ok:
            wrong[query] = (card, code, payload["matches"][:1], payload.get("package"))
    assert not wrong, wrong


def check_each_carded_heading_needs_the_list(names_of: str, file: str, tmp_path: Path) -> None:
    """Rebuilt from a copy of the glossary without `file`, lookup's first answer for each carded heading
    is another card or none, so every listed heading adds an answer lookup did not give."""
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    (root / "vocabulary" / file).unlink()
    index = kb.load_index(root)
    already = {}
    for heading, card in headings(names_of).items():
        if card is None:
            continue
        top = kb.search(index, heading, limit=1)
        if top and top[0].concept == card:
            already[heading] = card
    assert not already, f"lookup already answers these with their card: {already}"
