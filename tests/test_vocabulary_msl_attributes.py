"""The Metal Shading Language name lists built on the stored spec tables (glossary/symbols/specs/msl-spec-names.yaml):
the kernel input attributes (glossary/vocabulary/names-msl-attributes.yaml), the atomic functions and
constants (names-msl-atomics.yaml) and the section titles outside chapters 5 and 6 (names-msl-sections-cited.yaml).

No Metal compiler is at hand, so the proof is the stored table: every listed name is an entry of it, it
agrees with the hand-made MSL table (msl.yaml) where both hold a name, no card or row already spells a
listed name, every entry left out still reaches a card through a card's or row's own spelling, each
section title's card is recomputed from its rule, and lookup answers a sample (a name as code spells it,
a title in any case, and a one-letter slip) with its card."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from functools import cache

import pytest
import yaml

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup

SPECS = GLOSSARY / "symbols" / "specs"
ATTRIBUTES, ATOMICS = "Metal Shading Language kernel function input attribute", "Metal Shading Language atomic function or constant"
CITED = "Metal Shading Language specification section (compiler options, memory coherency)"
OURS = (ATTRIBUTES, ATOMICS, CITED)
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}


@cache
def _tables() -> dict:
    return yaml.safe_load((SPECS / "msl-spec-names.yaml").read_text(encoding="utf-8"))


def _table_attributes() -> list[str]:
    return [e["name"] for e in _tables()["kernel_input_attributes"]["entries"]]


def _table_atomics() -> dict[str, str]:
    """Each name section 6.15 declares -> its subsection's number."""
    return {e["name"]: e["section"].split()[0] for e in _tables()["atomics"]["entries"]}


def _headings() -> dict[str, str]:
    """Each stored section title -> its number; a title two sections share keeps the first (6.15 before 6.15.4)."""
    out: dict[str, str] = {}
    for h in _tables()["headings"]:
        out.setdefault(h["title"], h["number"])
    return out


def _listed(names_of: str) -> dict[str, str | None]:
    """Each name of one list -> its card."""
    assert names_of in NAMES, f"no {names_of!r} list"
    return {n: g.card for g in NAMES[names_of].groups for n in g.names}


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _top(query: str, backend: str | None = None) -> kb.Match | None:
    found = kb.search(_index(), query, backend=backend, limit=1)
    return found[0] if found else None


# --- the stored table ----------------------------------------------------------------------------------------

def test_the_stored_table_is_whole_and_from_the_edition_the_msl_table_names() -> None:
    tables = _tables()
    msl = yaml.safe_load((SPECS / "msl.yaml").read_text(encoding="utf-8"))
    assert tables["edition"] == msl["edition"] and tables["source"] == msl["source"]
    attributes = _table_attributes()
    assert len(attributes) == 20 and attributes == sorted(attributes)  # Table 5.8 lists its 20 rows by name
    atomics = _table_atomics()
    assert {n for n in atomics if n.startswith("atomic_fetch_")} == {f"atomic_fetch_{k}_explicit" for k in
                                                                    ("add", "and", "max", "min", "or", "sub", "xor")}
    assert not [n for n in atomics if n.startswith("memory_scope")]  # MSL's scopes are thread_scope_ values
    numbers = {h["number"] for h in tables["headings"]}
    assert set(atomics.values()) <= numbers, set(atomics.values()) - numbers


def test_the_stored_table_agrees_with_the_msl_table_where_both_hold_a_name() -> None:
    """Table 5.8's section and first version (the lower of macOS and iOS, msl.yaml's convention), and
    6.15's subsection numbers."""
    msl = {e["name"]: e for e in yaml.safe_load((SPECS / "msl.yaml").read_text(encoding="utf-8"))["entries"]}
    table = _tables()["kernel_input_attributes"]
    wrong = []
    for e in table["entries"]:
        held = msl.get(e["name"])
        first = min((e["macos"], e["ios"]), key=lambda v: tuple(int(p) for p in v.split(".")))
        if held and (held["section"] != table["section"] or held["msl"] != first):
            wrong.append((e["name"], held["section"], held["msl"], first))
    for name, number in _table_atomics().items():
        if name in msl and msl[name]["section"].split()[0] != number:
            wrong.append((name, msl[name]["section"], number))
    assert not wrong, wrong
    held_attributes = {n for n, e in msl.items() if "Table 5.8" in e["section"]}
    assert held_attributes <= set(_table_attributes()), held_attributes - set(_table_attributes())


# --- the lists --------------------------------------------------------------------------------------------------

def test_the_lists_load_without_problems() -> None:
    problems = [p for p in glossary_without_rows().problems if "names-msl-" in str(p)]
    assert not problems, problems
    for names_of in OURS:
        assert _listed(names_of)


def test_every_listed_name_is_an_entry_of_the_stored_table() -> None:
    assert set(_listed(ATTRIBUTES)) <= set(_table_attributes())
    assert set(_listed(ATOMICS)) <= set(_table_atomics())
    titles = _headings()
    missing = [h for h in _listed(CITED) if h not in titles]
    assert not missing, missing
    assert not [h for h in _listed(CITED) if re.match(r"[56]\b", titles[h])]  # chapters 5 and 6 have their own list


def test_no_listed_name_is_spelled_by_a_card_or_a_row() -> None:
    """A card's or row's spelling answers before a list does (symbols in any case), so listing it again says nothing."""
    labels = {label.casefold() for label, _, _, _ in _index()["labels"]}
    listed = [n for names_of in OURS for n in _listed(names_of)]
    spelled = [n for n in listed if n.casefold() in labels or kb.find_rows(_index(), n, None)]
    assert not spelled, spelled


def test_no_heading_is_in_another_name_list() -> None:
    owners: dict[str, list[str]] = {}
    for names in NAMES.values():
        for g in names.groups:
            for n in g.names:
                owners.setdefault(n.casefold(), []).append(names.names_of)
    twice = {n: owners[n.casefold()] for names_of in OURS for n in _listed(names_of) if len(owners[n.casefold()]) > 1}
    assert not twice, twice


@pytest.mark.parametrize("backend", [None, "metal"])
def test_every_entry_left_out_reaches_a_card_through_a_spelling(backend: str | None) -> None:
    """What the lists leave out is answered from a card's or row's own spelling, with or without the Metal
    filter: not from prose, a prefix or a guess."""
    listed = set(_listed(ATTRIBUTES)) | set(_listed(ATOMICS))
    weak = {}
    for name in [*_table_attributes(), *_table_atomics()]:
        if name in listed:
            continue
        top = _top(name, backend)
        if top is None or top.kind not in ("symbol", "name", "alias"):
            weak[name] = (top.concept, top.kind) if top else None
    assert not weak, weak


# --- each card, against what the glossary says elsewhere -------------------------------------------------------

@pytest.mark.parametrize(("dispatch", "plain"), [
    ("dispatch_threads_per_threadgroup", "threads_per_threadgroup"),
    ("dispatch_simdgroups_per_threadgroup", "simdgroups_per_threadgroup"),
    ("dispatch_quadgroups_per_threadgroup", "quadgroups_per_threadgroup"),
])
def test_a_dispatch_attribute_sits_on_the_card_of_the_count_it_gives_at_dispatch(dispatch: str, plain: str) -> None:
    """The dispatch_ forms give the same count as the plain ones, for the threadgroup size at dispatch."""
    top = _top(plain, "metal")
    assert top is not None and top.kind == "symbol" and _listed(ATTRIBUTES)[dispatch] == top.concept


@pytest.mark.parametrize(("name", "triton"), [("atomic_load_explicit", "tl.atomic_load"),
                                              ("atomic_store_explicit", "tl.atomic_store")])
def test_an_atomic_load_or_store_sits_where_triton_s_does(name: str, triton: str) -> None:
    """Not on the bitwise card: a load or store is no bitwise operation."""
    top = _top(triton)
    assert top is not None and _listed(ATOMICS)[name] == top.concept != "atomic-bitwise"


def test_memory_order_and_thread_scope_values_sit_with_their_enumerations() -> None:
    for value, enumeration in (("memory_order_seq_cst", "memory_order"), *(
            (n, "thread_scope") for n in _listed(ATOMICS) if n.startswith("thread_scope_"))):
        top = _top(enumeration, "metal")
        assert top is not None and _listed(ATOMICS)[value] == top.concept, (value, enumeration)


def test_the_64_bit_modify_functions_sit_with_the_fetch_forms_of_their_key() -> None:
    for key in ("min", "max"):
        top = _top(f"atomic_fetch_{key}_explicit", "metal")
        assert top is not None and _listed(ATOMICS)[f"atomic_{key}_explicit"] == top.concept


# --- the section titles' rule ------------------------------------------------------------------------------------

def _majority(cards: list[str | None]) -> tuple[str | None, set[str | None]]:
    """The card more than half of the entries give (None when none does), and the cards tied for most."""
    counts = Counter(cards)
    most = max(counts.values())
    tied = {c for c, n in counts.items() if n == most}
    card = next(iter(tied)) if len(tied) == 1 and most * 2 > len(cards) else None
    return card, tied


def _option_cards(number: str) -> list[str | None]:
    metal = next(t for t in glossary_without_rows().tool_options if t.tool == "metal")
    return [g.card for g in metal.groups if g.section.split()[0] == number for _ in g.options]


def _citing_rows(number: str) -> list[str]:
    """The concept of each symbol row one of whose sides gives §number in its source."""
    cites = re.compile(r"§" + re.escape(number) + r"(?![\d.])")
    out = []
    for path in sorted((GLOSSARY / "symbols").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for row in data.get("rows") or []:
            sides = [v for v in row.values() if isinstance(v, dict)]
            if any(cites.search(str(side.get("source", ""))) for side in sides):
                out.append(row.get("concept", data.get("concept")))
    return out


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_each_cited_section_title_has_the_card_its_rule_gives() -> None:
    titles = _headings()
    sections = {n: g.section for g in NAMES[CITED].groups for n in g.names}
    wrong = {}
    for heading, card in _listed(CITED).items():
        number = titles[heading]
        assert re.search(r"(?<![\d.])" + re.escape(number) + r"(?!\d)", sections[heading]), (heading, sections[heading])
        cards = _option_cards(number) if number.startswith("1.6.") else _citing_rows(number)
        assert cards, f"nothing in the glossary is filed under {number} {heading}"
        majority, tied = _majority(cards)
        if number.startswith("1.6.") and cards.count(None) * 2 > len(cards):
            ok = card == "compiler-driver"  # options about nothing GPU-specific: the compiler itself
        elif len(tied) > 1 and None not in tied:
            ok = card in tied and "chosen" in sections[heading]  # an even split, decided in the group's words
        else:
            ok = card == majority
        if not ok:
            wrong[heading] = (card, Counter(cards).most_common())
    assert not wrong, wrong


def test_every_cited_section_title_has_several_words_and_is_no_card_label() -> None:
    labels = {label.casefold(): cid for label, cid, _, _ in _index()["labels"]}
    headings = _listed(CITED)
    assert all(" " in h for h in headings)
    assert not {h: labels[h.casefold()] for h in headings if h.casefold() in labels}


# --- lookup ----------------------------------------------------------------------------------------------------

def _answer(query: str) -> dict:
    out = io.StringIO()
    lookup.run(query, fmt="json", out=out)
    return json.loads(out.getvalue())


SAMPLE = [
    (ATTRIBUTES, "grid_origin", "grid_origin"),
    (ATTRIBUTES, "dispatch_simdgroups_per_threadgroup", "dispatch_simdgroups_per_threadgroup"),
    (ATTRIBUTES, "dispatch_quadgroups_per_threadgroup", "dispatch_quadgroups_per_threadgroup"),
    (ATTRIBUTES, "dispatch_threads_per_threadgroup", "dispatch_threads_per_threadgroup"),
    (ATOMICS, "atomic_load_explicit", "atomic_load_explicit"),
    (ATOMICS, "atomic_store_explicit(&flag, 1u, memory_order_relaxed)", "atomic_store_explicit"),
    (ATOMICS, "thread_scope_simdgroup", "thread_scope_simdgroup"),
    (ATOMICS, "atomic_max_explicit", "atomic_max_explicit"),
    (CITED, "Compiler Options to Enable Logging", "Compiler Options to Enable Logging"),
    (CITED, "memory coherency", "Memory Coherency"),
    (CITED, "MAXIMUM TOTAL THREADGROUP SIZE OPTION", "Maximum Total Threadgroup Size Option"),
    (CITED, "texture write rounding mode", "Texture Write Rounding Mode"),
    (CITED, "Optimization Compiler Options", "Optimization Compiler Options"),
]


@pytest.mark.parametrize(("names_of", "query", "name"), SAMPLE, ids=[q for _, q, _ in SAMPLE])
def test_lookup_answers_a_listed_name_with_its_card(names_of: str, query: str, name: str) -> None:
    """Identifiers as code spells them (lookup matches a list's identifier in its own case), titles in any case."""
    card = _listed(names_of)[name]
    payload = _answer(query)
    top = payload["matches"][0] if payload["matches"] else {}
    assert top.get("concept") == card and top.get("matched_kind") == "package", top


@pytest.mark.parametrize(("slip", "meant"), [("atomic_load_explict", "atomic_load_explicit"),
                                             ("atomic_store_explict", "atomic_store_explicit"),
                                             ("atomic_min_expicit", "atomic_min_explicit")])
def test_a_one_letter_slip_lands_on_the_card_of_the_name_meant(slip: str, meant: str) -> None:
    payload = _answer(slip)
    top = payload["matches"][0] if payload["matches"] else {}
    assert top.get("concept") == _listed(ATOMICS)[meant] and top.get("matched") == meant, top
