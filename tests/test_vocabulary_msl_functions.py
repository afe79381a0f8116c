"""The Metal Shading Language standard library lists (glossary/vocabulary/names-msl-functions.yaml and
names-msl-function-sections.yaml) against the stored transcription of chapter 6's tables
(glossary/symbols/specs/msl-spec-functions.yaml).

No Metal compiler is at hand, so the proof is the stored table: every listed name and title is an entry
of it; every entry is listed, answered by a card's or row's own spelling on its section's card (or a
card related to it), or left out for a reason stated here; no card or row already spells a listed name;
each card follows from its rule (a quad-group function beside its SIMD-group form, a title with the card
most of its section's names reach); and lookup answers a sample with its card."""

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
FUNCTIONS = "Metal Shading Language standard library function"
SECTIONS = "Metal Shading Language specification section (standard library)"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}
SPELLED = ("symbol", "name", "alias", "package")  # a card's or row's own spelling, or a list's entry

# The card of each section's topic (a subsection takes its nearest numbered ancestor's). Where the
# section's title already answers from a card's names or another list, the test below checks that this
# agrees; 6.4's title sits on no card in names-msl-sections.yaml, so its names' rows decide (the test
# checks that too).
SECTION_CARDS: dict[str, str | None] = {
    "6.2": "device-math-functions",
    "6.3": "integer-intrinsics",
    "6.4": "device-math-functions",
    "6.5": "device-math-functions",
    "6.6": None,
    "6.7": "matrix-fragment-api",
    "6.7.1": "matrix-fragment-load",
    "6.7.2": "warp-mma",
    "6.8": "device-math-functions",
    "6.9": "warp-level-primitives",
    "6.9.1": "block-barrier",
    "6.9.2": "warp-level-primitives",
    "6.9.3": "quad",
    "6.10": None,
    "6.11": None,
    "6.12": "texture-memory",
    "6.13": None,
    "6.14": "type-conversions",
    "6.15.1": "scoped-atomics",  # the other titles of 6.15 are in names-msl-sections.yaml
    "6.15.2": "scoped-atomics",
    "6.16": "dynamic-parallelism",
    "6.17": None,
    "6.18": None,
    "6.19": "device-printf",
}

_PLAIN = "a plain English word: as a one-word query it would capture unrelated questions"
_CURVE = "the curve's general name, not Metal's alone: as a one-word query it would capture questions about the curve"
LEFT_OUT_NAMES = {
    **dict.fromkeys(
        [
            "clamp",
            "mix",
            "sign",
            "step",
            "rotate",
            "all",
            "any",
            "not",
            "select",
            "determinant",
            "transpose",
            "cross",
            "distance",
            "dot",
            "normalize",
            "reflect",
            "refract",
            "reset",
            "next",
            "abort",
            "intersect",
        ],
        _PLAIN,
    ),
    **dict.fromkeys(["bezier", "bspline", "hermite", "catmull_rom"], _CURVE),
}
LEFT_OUT_TITLES = {
    "Metal Standard Library": "the chapter's title; lookup answers it from the math card's name for Metal's standard library",
    "Namespace and Header Files": "declares no function",
    "Matrix Functions": "a generic phrase that would capture unrelated questions",
    "Matrix Operations": "a generic phrase that would capture unrelated questions",
    "Examples": "one generic word",
    "Fragment Functions \u2014 Flow Control": "its dash is no character a listed title may hold; its function is listed",
}


@cache
def _table() -> dict:
    return yaml.safe_load((SPECS / "msl-spec-functions.yaml").read_text(encoding="utf-8"))


def _sections() -> list[dict]:
    return _table()["sections"]


def _where() -> dict[str, list[str]]:
    """Each transcribed name -> the numbers of the sections whose tables list it."""
    out: dict[str, list[str]] = {}
    for s in _sections():
        for n in s["names"]:
            out.setdefault(n, []).append(s["number"])
    return out


def _titles() -> dict[str, str]:
    """Each transcribed title -> its number; a title two sections share keeps the first (6.15 before 6.15.4)."""
    out: dict[str, str] = {}
    for s in _sections():
        out.setdefault(s["title"], s["number"])
    return out


def _listed(names_of: str) -> dict[str, str | None]:
    assert names_of in NAMES, f"no {names_of!r} list"
    return {n: g.card for g in NAMES[names_of].groups for n in g.names}


def _group_text(names_of: str) -> dict[str, str]:
    return {n: g.section for g in NAMES[names_of].groups for n in g.names}


def _elsewhere() -> dict[str, str | None]:
    """Each name or title (case aside) another name list holds -> its card there."""
    return {
        n.casefold(): g.card
        for names in NAMES.values()
        if names.names_of not in (FUNCTIONS, SECTIONS)
        for g in names.groups
        for n in g.names
    }


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _top(query: str, backend: str | None = None) -> kb.Match | None:
    found = kb.search(_index(), query, backend=backend, limit=1)
    return found[0] if found else None


def _section_card(number: str) -> str | None:
    parts = number.split(".")
    for end in range(len(parts), 1, -1):
        key = ".".join(parts[:end])
        if key in SECTION_CARDS:
            return SECTION_CARDS[key]
    raise AssertionError(f"no topic card for section {number}")


def _related(card: str) -> set[str]:
    return {r[1] for r in _index()["concepts"][card].get("related") or []}


def _near(card: str | None, topic: str | None) -> bool:
    """The section's card, or a card that names it among its relations (or that it names)."""
    if card == topic:
        return True
    return card is not None and topic is not None and (topic in _related(card) or card in _related(topic))


# --- the stored table ------------------------------------------------------------------------------------------


def test_the_stored_table_is_from_the_edition_the_msl_tables_name_and_agrees_with_their_titles() -> None:
    msl = yaml.safe_load((SPECS / "msl.yaml").read_text(encoding="utf-8"))
    names = yaml.safe_load((SPECS / "msl-spec-names.yaml").read_text(encoding="utf-8"))
    assert _table()["edition"] == msl["edition"] == names["edition"] and _table()["source"] == msl["source"]
    ours = {s["number"]: s["title"] for s in _sections()}
    shared = {h["number"]: h["title"] for h in names["headings"] if h["number"].split(".")[0] == "6"}
    assert set(shared) <= set(ours) and all(ours[n] == t for n, t in shared.items()), set(shared) - set(ours)


def test_the_stored_table_is_whole_and_ordered() -> None:
    numbers = [s["number"] for s in _sections()]
    assert len(numbers) == len(set(numbers)) and numbers[0] == "6"
    keys = [tuple(int(p) for p in n.split(".")) for n in numbers]
    assert keys == sorted(keys)
    for n in numbers[1:]:  # every section's parent is transcribed too
        assert n.rsplit(".", 1)[0] in numbers, n
    for s in _sections():  # a section lists names exactly when it has function tables, each name once
        assert bool(s["tables"]) == bool(s["names"]), s["number"]
        assert len(s["names"]) == len(set(s["names"])), s["number"]
    # 6.9.3's three tables: the ballot, the permutes and the reductions, one quad_ name per SIMD-group one
    where = _where()
    simd = {n.removeprefix("simd_") for n in where if n.startswith("simd_")}
    quad = {n.removeprefix("quad_") for n in where if n.startswith("quad_")}
    assert simd == quad, simd ^ quad
    packs = [n for n in where if n.startswith(("pack_", "unpack_"))]
    assert len(packs) == 32 and all(where[n][0].startswith("6.14.") for n in packs)


# --- the lists -----------------------------------------------------------------------------------------------------


def test_the_lists_load_without_problems() -> None:
    problems = [p for p in glossary_without_rows().problems if "names-msl-function" in str(p)]
    assert not problems, problems
    assert _listed(FUNCTIONS) and _listed(SECTIONS)


def _cites(text: str, number: str) -> bool:
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None


def test_every_listed_name_and_title_is_an_entry_of_the_stored_table_in_the_section_its_group_names() -> None:
    where, titles = _where(), _titles()
    text = _group_text(FUNCTIONS)
    wrong = [n for n in _listed(FUNCTIONS) if n not in where or not any(_cites(text[n], s) for s in where[n])]
    assert not wrong, wrong
    text = _group_text(SECTIONS)
    wrong = [t for t in _listed(SECTIONS) if t not in titles or not _cites(text[t], titles[t])]
    assert not wrong, wrong


def test_no_listed_name_is_spelled_by_a_card_or_a_row_or_held_by_another_list() -> None:
    labels = {label.casefold() for label, _, _, _ in _index()["labels"]}
    listed = [*_listed(FUNCTIONS), *_listed(SECTIONS)]
    spelled = [n for n in listed if n.casefold() in labels or kb.find_rows(_index(), n, None)]
    assert not spelled, spelled
    elsewhere = _elsewhere()
    assert not [n for n in listed if n.casefold() in elsewhere]


def test_every_transcribed_name_is_listed_answered_on_its_section_s_card_or_left_out_for_a_reason() -> None:
    listed = _listed(FUNCTIONS)
    assert not set(LEFT_OUT_NAMES) & set(listed)
    assert set(LEFT_OUT_NAMES) <= set(_where())
    unaccounted = {}
    for name, numbers in _where().items():
        if name in listed or name in LEFT_OUT_NAMES:
            continue
        top = _top(name)
        if top is None or top.kind not in SPELLED or not any(_near(top.concept, _section_card(n)) for n in numbers):
            unaccounted[name] = (numbers, (top.concept, top.kind) if top else None)
    assert not unaccounted, unaccounted


def test_every_transcribed_title_is_listed_answered_on_its_section_s_card_or_left_out_for_a_reason() -> None:
    listed, elsewhere = _listed(SECTIONS), _elsewhere()
    assert not set(LEFT_OUT_TITLES) & set(listed)
    assert set(LEFT_OUT_TITLES) <= set(_titles())
    unaccounted = {}
    for title, number in _titles().items():
        if title in listed or title in LEFT_OUT_TITLES or title.casefold() in elsewhere:
            continue
        top = _top(title)
        if top is None or not _near(top.concept, _section_card(number)):
            unaccounted[title] = (number, (top.concept, top.kind) if top else None)
    assert not unaccounted, unaccounted


# --- the cards' rules ------------------------------------------------------------------------------------------


def test_each_quad_group_function_sits_beside_its_simd_group_form() -> None:
    """quad_X on the card simd_X's row reaches; where no row spells simd_X, on the card of 6.9.3's title."""
    wrong = {}
    for name, card in _listed(FUNCTIONS).items():
        if not name.startswith("quad_"):
            continue
        simd = _top("simd_" + name.removeprefix("quad_"))
        expected = simd.concept if simd and simd.kind == "symbol" else _top("Quad-Group Functions").concept
        if card != expected:
            wrong[name] = (card, expected)
    assert not wrong, wrong


def test_every_other_listed_name_sits_on_its_section_s_card() -> None:
    """A name two sections list (max3: integer and math) sits on the card of one of them."""
    where = _where()
    wrong = {
        n: (c, where[n])
        for n, c in _listed(FUNCTIONS).items()
        if not n.startswith("quad_") and c not in {_section_card(s) for s in where[n]}
    }
    assert not wrong, wrong


def test_the_section_cards_agree_with_what_lookup_and_the_rows_say() -> None:
    """A title answered from a card's own names or another list has the card SECTION_CARDS gives; 6.4's
    card is the one most of its row-spelled names reach."""
    titles = {s["number"]: s["title"] for s in _sections()}
    elsewhere = _elsewhere()
    wrong = {}
    for number, card in SECTION_CARDS.items():
        title = titles[number]
        held = elsewhere.get(title.casefold(), "absent")
        top = _top(title)
        if held not in ("absent", None) and held != card:
            wrong[number] = (card, held)
        elif held == "absent" and top and top.kind in ("name", "alias") and top.concept != card:
            wrong[number] = (card, top.concept)
    assert not wrong, wrong
    rows = [
        t.concept
        for n in next(s for s in _sections() if s["number"] == "6.4")["names"]
        if (t := _top(n)) and t.kind == "symbol" and n not in LEFT_OUT_NAMES
    ]
    assert rows and Counter(rows).most_common(1)[0] == (SECTION_CARDS["6.4"], len(rows))


def _heading_card(number: str) -> tuple[str | None, set[str | None]]:
    """The card a title's rule gives, and the cards tied for most: the card most of the names of the section
    and its subsections reach (a listed name counts its card, an unlisted one its row's); with none, the
    parent's card; a chapter-level section with none, no card."""
    listed, where = _listed(FUNCTIONS), _where()
    names = [n for s in _sections() if s["number"] == number or s["number"].startswith(number + ".") for n in s["names"]]
    cards: list[str | None] = []
    for n in names:
        if n in listed:
            cards.append(listed[n])
        elif n not in LEFT_OUT_NAMES and (top := _top(n)) and top.kind in SPELLED:
            cards.append(top.concept)
    assert all(n in where for n in names)
    if not cards:
        parent = number.rsplit(".", 1)[0]
        if parent == "6":
            return None, {None}
        title = next(s["title"] for s in _sections() if s["number"] == parent)
        held = {**_elsewhere(), **{t.casefold(): c for t, c in _listed(SECTIONS).items()}}
        if title.casefold() in held:
            return held[title.casefold()], {held[title.casefold()]}
        top = _top(title)
        return (top.concept if top else None), {top.concept if top else None}
    counts = Counter(cards)
    most = max(counts.values())
    tied = {c for c, k in counts.items() if k == most}
    return (next(iter(tied)) if len(tied) == 1 else None), tied


def test_each_listed_title_has_the_card_its_rule_gives() -> None:
    titles, text = _titles(), _group_text(SECTIONS)
    wrong = {}
    for title, card in _listed(SECTIONS).items():
        majority, tied = _heading_card(titles[title])
        ok = card in tied and "chosen" in text[title] if len(tied) > 1 else card == majority
        if not ok or card != _section_card(titles[title]):
            wrong[title] = (card, majority, tied)
    assert not wrong, wrong


def test_every_listed_title_has_several_words() -> None:
    assert all(" " in t for t in _listed(SECTIONS))


# --- lookup ----------------------------------------------------------------------------------------------------


def _answer(query: str) -> dict:
    out = io.StringIO()
    lookup.run(query, fmt="json", out=out)
    return json.loads(out.getvalue())


SAMPLE = [
    (FUNCTIONS, "extract_bits", "extract_bits"),
    (FUNCTIONS, "insert_bits(base, bits, 4u, 8u)", "insert_bits"),
    (FUNCTIONS, "pack_float_to_unorm4x8", "pack_float_to_unorm4x8"),
    (FUNCTIONS, "unpack_unorm4x8_to_float", "unpack_unorm4x8_to_float"),
    (FUNCTIONS, "metal::quad_shuffle", "quad_shuffle"),
    (FUNCTIONS, "quad_sum", "quad_sum"),
    (FUNCTIONS, "quad_ballot", "quad_ballot"),
    (FUNCTIONS, "quad_broadcast", "quad_broadcast"),
    (FUNCTIONS, "quad_is_helper_thread", "quad_is_helper_thread"),
    (FUNCTIONS, "fmedian3", "fmedian3"),
    (FUNCTIONS, "smoothstep", "smoothstep"),
    (SECTIONS, "Common Functions", "Common Functions"),
    (SECTIONS, "pack and unpack functions", "Pack and Unpack Functions"),
    (SECTIONS, "CUBE DEPTH TEXTURE", "Cube Depth Texture"),
]


@pytest.mark.parametrize(("names_of", "query", "name"), SAMPLE, ids=[q for _, q, _ in SAMPLE])
def test_lookup_answers_a_listed_name_with_its_card(names_of: str, query: str, name: str) -> None:
    card = _listed(names_of)[name]
    payload = _answer(query)
    top = payload["matches"][0] if payload["matches"] else {}
    assert top.get("concept") == card and top.get("matched_kind") == "package", top


@pytest.mark.parametrize("query", ["dfdx", "get_candidate_primitive_id", "Ray-Tracing Functions"])
def test_a_name_no_card_covers_is_named_and_exits_1(query: str) -> None:
    assert _listed(FUNCTIONS).get(query, _listed(SECTIONS).get(query, "absent")) is None
    assert lookup.run(query, out=io.StringIO()) == 1
