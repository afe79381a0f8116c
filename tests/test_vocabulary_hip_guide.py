"""Section headings of AMD's HIP documentation as a name list (glossary/vocabulary/names-hip-guide-sections.yaml):
the file is well formed (headings of several words, none a card's label, none in another name list, each
group citing a page of the HIP docs), it loads with no problem and every card it names exists, every
heading is one that scripts/list_hip_doc_headings.py extracted from the docs (its output is kept in
tests/data/hip_doc_headings.txt, repository and commit on the first line), lookup answers one heading of
every group, in any case, with the group's card (or names it and answers no card when the group has
none), and, rebuilt without the file, lookup answers none of the carded headings with its listed card."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shutil
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from conftest import GLOSSARY, REPO, glossary_without_rows
from xlate import kb, lookup

GUIDE = "HIP documentation section heading"
FILE = "names-hip-guide-sections.yaml"
EXTRACTED = REPO / "tests" / "data" / "hip_doc_headings.txt"
DOCS = "https://rocm.docs.amd.com/projects/HIP/en/latest/"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}
# The first line of the extracted list: `# OWNER/NAME COMMIT (REF): N headings ...`.
PROVENANCE = re.compile(r"^# (?P<repo>[\w.-]+/[\w.-]+) (?P<commit>[0-9a-f]{40})\b.*: (?P<count>\d+) headings\b")


def _list() -> kb.NameList:
    if GUIDE not in NAMES:
        pytest.skip(f"no {GUIDE} list")
    return NAMES[GUIDE]


def _headings() -> dict[str, str | None]:
    return {n: g.card for g in _list().groups for n in g.names}


@cache
def _index() -> kb.Index:
    return kb.load_index()


@cache
def _extracted() -> tuple[re.Match[str], list[tuple[str, str, str]]]:
    first, *lines = EXTRACTED.read_text(encoding="utf-8").splitlines()
    provenance = PROVENANCE.match(first)
    assert provenance, f"{EXTRACTED.name}'s first line names no repository and commit: {first!r}"
    rows = [tuple(line.split("\t")) for line in lines]
    assert all(len(r) == 3 for r in rows), [r for r in rows if len(r) != 3][:3]
    return provenance, rows  # type: ignore[return-value]


# --- well formed ----------------------------------------------------------------------------------------

def test_the_file_loads_and_every_card_exists() -> None:
    glossary = glossary_without_rows()
    mine = [p for p in glossary.problems if FILE in p.path]
    assert not mine, mine
    raw = yaml.safe_load((GLOSSARY / "vocabulary" / FILE).read_text(encoding="utf-8"))
    assert raw["names_of"] == GUIDE
    cards = {g["card"] for g in raw["groups"]} - {None}
    assert cards and cards <= set(glossary.concepts), sorted(cards - set(glossary.concepts))


def test_every_heading_has_several_words_and_no_card_carries_it() -> None:
    headings = _headings()
    assert headings and all(" " in h for h in headings), [h for h in headings if " " not in h]
    labels = {label.casefold(): cid for label, cid, kind, _ in _index()["labels"]}
    carried = {h: labels[h.casefold()] for h in headings if h.casefold() in labels}
    assert not carried, f"headings a card or row already spells (lookup answers them from there): {carried}"


def test_every_group_cites_a_docs_page() -> None:
    """Each group's section names the page (or pages) of the HIP docs its headings were read from."""
    pages = re.compile(re.escape(DOCS) + r"[\w/.-]+\.html")
    uncited = [g.section[:60] for g in _list().groups if not pages.search(g.section)]
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


# --- the script reads headings as Sphinx does ------------------------------------------------------------

def _script() -> ModuleType:
    name = "list_hip_doc_headings"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_script_finds_titles_and_skips_literal_blocks_and_fences() -> None:
    script = _script()
    rst = """.. _top:

*********************
Call stack
*********************

Text, then a literal block whose lines look like a title:

.. code-block:: cpp

  Not a title
  ===========

Handling ``hipDeviceSetLimit`` calls
------------------------------------

See :ref:`the model <model>`.

+-------+-------+
| a     | b     |
+-------+-------+
"""
    assert script.rst_headings(rst) == ["Call stack", "Handling hipDeviceSetLimit calls"]
    md = "# HIP documentation\n\n```cpp\n# not a heading\n```\n\n## [Guide](./guide) *part*\n"
    assert script.md_headings(md) == ["HIP documentation", "Guide part"]
    toc = "subtrees:\n- caption: Reference\n  entries:\n  - file: a\n    title: List of deprecated APIs\n"
    assert script.toc_headings(toc) == [("toc-caption", "Reference"), ("toc-title", "List of deprecated APIs")]


# --- every heading is one the docs have -----------------------------------------------------------------

def test_the_extracted_list_names_its_source_and_holds_what_it_counts() -> None:
    provenance, rows = _extracted()
    assert int(provenance["count"]) == len(rows)
    assert all(path.startswith("docs/") for path, _, _ in rows)
    assert {kind for _, kind, _ in rows} <= {"rst", "md", "toc-caption", "toc-title"}
    # The file records the commit the list's version field names.
    assert provenance["commit"] in _list().version


def test_every_listed_heading_was_extracted_from_the_docs() -> None:
    _, rows = _extracted()
    extracted = {text for _, _, text in rows}
    missing = sorted(h for h in _headings() if h not in extracted)
    assert not missing, f"headings the HIP docs at the recorded commit do not have: {missing}"


def test_every_group_cites_a_page_whose_source_holds_one_of_its_headings() -> None:
    """A group's cited pages are the docs files its headings came from (docs/PATH.rst is DOCS + PATH.html)."""
    _, rows = _extracted()
    where: dict[str, set[str]] = {}
    for path, _, text in rows:
        page = re.sub(r"\.(rst|md)$", ".html", path.removeprefix("docs/"))
        where.setdefault(text, set()).add(DOCS + page)
    wrong = {}
    for g in _list().groups:
        for name in g.names:
            if not any(url in g.section for url in where.get(name, ())):
                wrong[name] = sorted(where.get(name, ()))
    assert not wrong, f"headings whose group cites none of the pages they are on: {wrong}"


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


@pytest.mark.parametrize(("heading", "card"), [
    ("Performance guidelines", None),
    ("multi-device management", "device-selection"),
    ("DEBUGGING WITH HIP", "debugger"),
    ("Call stack", "local-memory"),
    ("hardware implementation", "streaming-multiprocessor"),
    ("Kernel language C++ support", None),
])
def test_lookup_answers_the_headings_engineers_asked_for(heading: str, card: str | None) -> None:
    out = io.StringIO()
    code = lookup.run(heading, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    if card is None:
        assert code == 1 and not payload["matches"] and GUIDE in json.dumps(payload["package"]), payload
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert (code, top.get("concept"), top.get("matched_kind")) == (0, card, "package"), payload


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
