"""Section headings of AMD's HIP documentation as a name list (glossary/vocabulary/names-hip-guide-sections.yaml):
the file is well formed (headings of several words, none a card's label, none in another name list, each
group citing a page of the HIP docs), it loads with no problem and every card it names exists, every
heading is one that scripts/list_hip_doc_headings.py extracted from the docs (its output is kept in
tests/data/hip_doc_headings.txt, repository and commit on the first line), lookup answers one heading of
every group, in any case, with the group's card (or names it and answers no card when the group has
none), and, rebuilt without the file, lookup answers none of the carded headings with its listed card."""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import yaml

import heading_lists
from conftest import GLOSSARY, REPO, glossary_without_rows
from xlate import kb, lookup
from scripts_loader import load_script

GUIDE = "HIP documentation section heading"
FILE = "names-hip-guide-sections.yaml"
EXTRACTED = REPO / "tests" / "data" / "hip_doc_headings.txt"
DOCS = "https://rocm.docs.amd.com/projects/HIP/en/latest/"
# The first line of the extracted list: `# OWNER/NAME COMMIT (REF): N headings ...`.
PROVENANCE = re.compile(r"^# (?P<repo>[\w.-]+/[\w.-]+) (?P<commit>[0-9a-f]{40})\b.*: (?P<count>\d+) headings\b")


def _list() -> kb.NameList:
    return heading_lists.name_list(GUIDE)


def _headings() -> dict[str, str | None]:
    return heading_lists.headings(GUIDE)


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
    heading_lists.check_several_words_and_no_card_label(GUIDE)


def test_every_group_cites_a_docs_page() -> None:
    """Each group's section names the page (or pages) of the HIP docs its headings were read from."""
    pages = re.compile(re.escape(DOCS) + r"[\w/.-]+\.html")
    uncited = [g.section[:60] for g in _list().groups if not pages.search(g.section)]
    assert not uncited, uncited


def test_no_heading_is_in_another_name_list() -> None:
    heading_lists.check_in_no_other_list(GUIDE)


# --- the script reads headings as Sphinx does ------------------------------------------------------------

def _script() -> ModuleType:
    return load_script("list_hip_doc_headings")


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

def test_lookup_answers_one_heading_of_every_group_in_any_case_with_its_card() -> None:
    heading_lists.check_lookup_answers_one_heading_per_group(GUIDE)


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
    heading_lists.check_each_carded_heading_needs_the_list(GUIDE, FILE, tmp_path)
