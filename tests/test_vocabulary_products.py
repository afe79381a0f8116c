"""GPU and system product names as a name list (glossary/vocabulary/names-gpu-products.yaml): the file
loads through the glossary loader and every group's card exists; each group's section opens with the
product's architecture, which agrees with its card (a carded group's architecture is that card's
generation; a null group's is no architecture card's) and with the architecture a card's summary gives
the same chip where the summary names one; no name is a card's label, another list's name or a spec
sheet's spelling; every carded name changes what lookup answers; and lookup answers a sample of names,
in any case and with or without the vendor's name in front, with their card or with none."""

from __future__ import annotations

import io
import json
import re
import shutil
from functools import cache
from pathlib import Path

import pytest

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup

NAMES_OF = "GPU or system product name"
FILE = GLOSSARY / "vocabulary" / "names-gpu-products.yaml"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}

# How a vendor page names an architecture: a CUDA compute capability (9.0), an LLVM target (gfx90a), an
# Apple GPU family (Apple8), an AMD generation (CDNA2, RDNA3.5).
_LABEL = re.compile(r"\bApple\d+\b|\bgfx\d+[a-z]?\b|\b(?:CDNA|RDNA) ?\d(?:\.\d)?\b|(?<![\w.])\d{1,2}\.\d(?![\w.])")
# Words in front of a chip's model name that say whose it is, not which chip.
_BRANDS = frozenset({"nvidia", "amd", "apple", "instinct", "radeon", "geforce", "tesla"})
_MODEL = re.compile(r"\b[A-Z]{1,3}\d{1,4}[A-Z]{0,2}\b")
_RTX_SERIES = re.compile(r"\bRTX (\d\d)\d\d\b")


def _products() -> kb.NameList:
    assert NAMES_OF in NAMES, f"{FILE.name} is missing or did not load"
    return NAMES[NAMES_OF]


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _architecture(section: str) -> tuple[str, set[str]]:
    """A group's architecture as its section opens (the words before the first comma or semicolon) and
    the labels named before the first semicolon (compute capability, LLVM target, Apple family)."""
    head = section.split(";", 1)[0]
    name = re.split(r"[,;(]", head, maxsplit=1)[0].strip()
    return name, {_norm(m) for m in _LABEL.findall(head)}


def _norm(label: str) -> str:
    return label.replace(" ", "").casefold()


def _architecture_cards() -> dict[str, kb.ConceptCard]:
    """The hardware cards that are a GPU generation or family (titles ending in architecture or family)."""
    out = {}
    for cid in _index()["concepts"]:
        card = _index().concept(cid)
        if card is not None and card.category == "hardware" and card.title.casefold().endswith(("architecture", "family")):
            out[cid] = card
    return out


def _generation_names(card: kb.ConceptCard) -> set[str]:
    """What a card's generation is called: its title without vendor and 'architecture', and its aliases."""
    core = re.sub(r"^(?:NVIDIA|AMD|Apple)\s+|\s+architecture$", "", card.title)
    aliases = {label.casefold() for label, cid, kind, _ in _index()["labels"] if cid == card.id and kind == "alias"}
    return {core.casefold(), card.title.casefold(), *aliases}


def _chips(name: str) -> set[str]:
    """The parts of a product name a card's summary may name: model numbers (A15, GB200, MI250X), the
    name without its brand words (Jetson Thor, DGX Spark), and a consumer series (RTX 50, RTX PRO)."""
    out = set(_MODEL.findall(name))
    words = [w for w in name.split() if w.casefold() not in _BRANDS]
    if len(words) > 1 or (words and not _MODEL.fullmatch(words[0])):
        out.add(" ".join(words))
    out.update(f"RTX {m}" for m in _RTX_SERIES.findall(name))
    if "RTX PRO" in name:
        out.add("RTX PRO")
    return out


def summary_architecture(summary: str, chip: str) -> set[str]:
    """The labels a summary gives a chip: in each clause (a sentence, or a part of one between
    semicolons) that names the chip, the last label before it, else the first label after it."""
    found = set()
    for clause in re.split(r"(?<=[.;])\s+", summary):
        for hit in re.finditer(rf"(?<![\w-]){re.escape(chip)}(?![\w-])", clause):
            before = [m.group(0) for m in _LABEL.finditer(clause, 0, hit.start())]
            after = [m.group(0) for m in _LABEL.finditer(clause, hit.end())]
            if before or after:
                found.add(_norm(before[-1] if before else after[0]))
    return found


Group = tuple[str, str | None, list[str]]  # section, card, names


def _groups() -> list[Group]:
    return [(g.section, g.card, list(g.names)) for g in _products().groups]


def disagreements(groups: list[Group], cards: dict[str, kb.ConceptCard]) -> list[tuple[str, str, str, set[str]]]:
    """(name, chip, card, the summary's labels) for each listed chip whose card's summary gives it an
    architecture label that its group's section does not."""
    wrong = []
    for section, card, names in groups:
        if card is None:
            continue
        _, labels = _architecture(section)
        summary = cards[card].summary
        for name in names:
            for chip in _chips(name):
                said = summary_architecture(summary, chip)
                if said and not said & labels:
                    wrong.append((name, chip, card, said))
    return wrong


# --- well formed ----------------------------------------------------------------------------------------

def test_the_file_loads_through_the_glossary_loader_and_every_card_exists() -> None:
    problems = [p for p in glossary_without_rows().problems if FILE.name in str(p)]
    assert not problems, problems
    names = _products()
    assert names.groups and all(g.names for g in names.groups)
    concepts = set(_index()["concepts"])
    assert all(g.card is None or g.card in concepts for g in names.groups), [g.card for g in names.groups]


def test_no_name_is_listed_twice_here_or_in_another_list() -> None:
    """The loader keeps the first list's entry; a name of several words is matched case aside."""
    def key(n: str) -> str:
        return n.casefold() if " " in n else n

    ours = [key(n) for g in _products().groups for n in g.names]
    assert len(ours) == len(set(ours)), sorted({n for n in ours if ours.count(n) > 1})
    elsewhere = {key(n) for names in NAMES.values() if names.names_of != NAMES_OF for g in names.groups for n in g.names}
    assert not set(ours) & elsewhere, sorted(set(ours) & elsewhere)


def test_no_name_is_a_card_label_or_a_spec_sheet_spelling() -> None:
    """A card's label answers before the list, and a sheet leads lookup's answer: listing either is noise."""
    labels = {label.casefold(): cid for label, cid, kind, _ in _index()["labels"]}
    names = [n for g in _products().groups for n in g.names]
    carried = {n: labels[n.casefold()] for n in names if n.casefold() in labels}
    assert not carried, carried
    sheets = {n: s.id for n in names if (s := kb.resolve_gpu(n, index=_index(), within=True)) is not None}
    assert not sheets, sheets


# --- architectures -------------------------------------------------------------------------------------

def test_each_section_opens_with_an_architecture_that_agrees_with_its_card() -> None:
    """A carded group's architecture is its card's generation (Hopper on the Hopper card, Apple8 on the
    Apple GPU family card); a null group's architecture is no architecture card's (else that card covers
    it), and it names a compute capability, LLVM target or family unless the vendor page gives none."""
    cards = _architecture_cards()
    covered = set().union(*(_generation_names(c) for c in cards.values()))
    wrong = []
    for g in _products().groups:
        name, labels = _architecture(g.section)
        if g.card is not None and (g.card not in cards or name.casefold() not in _generation_names(cards[g.card])):
            wrong.append((name, g.card))
        if g.card is None and (name.casefold() in covered or _norm(name) in {_norm(c) for c in covered}):
            wrong.append((name, "null, but a card is this generation"))
        if not labels and "does not list" not in g.section:
            wrong.append((name, "no compute capability, target or family named"))
    assert not wrong, wrong


def test_a_products_architecture_agrees_with_what_its_cards_summary_says() -> None:
    wrong = disagreements(_groups(), _architecture_cards())
    assert not wrong, wrong


def test_the_summary_check_reads_the_cards_and_catches_a_wrong_family() -> None:
    """The check above compares something: the summaries name many of the listed chips, and an M2 Ultra
    or a DGX Spark placed in the wrong family or compute capability is reported."""
    cards = _architecture_cards()
    checked = [(g.card, n, c) for g in _products().groups if g.card for n in g.names for c in _chips(n)
               if summary_architecture(cards[g.card].summary, c)]
    assert len(checked) >= 10 and {card for card, _, _ in checked} >= {"apple-gpu-family", "blackwell"}, checked
    wrong: list[Group] = [("Apple9; moved on purpose", "apple-gpu-family", ["M2 Ultra"]),
                          ("Blackwell, compute capability 10.0; moved on purpose", "blackwell", ["DGX Spark"])]
    assert [w[0] for w in disagreements(wrong, cards)] == ["M2 Ultra", "DGX Spark"]


def _vendor(text: str) -> str | None:
    """Whose a group or card is: the host of a section's first address, else the first word of a title."""
    address = re.search(r"https://([\w.-]+)/", text)
    if address:
        host = address.group(1)
        return next((v for v in ("nvidia", "amd", "apple") if host == f"{v}.com" or host.endswith(f".{v}.com")), None)
    first = text.split(" ", 1)[0].casefold()
    return first if first in ("nvidia", "amd", "apple") else None


def test_a_product_with_no_card_is_named_by_no_architecture_card_of_its_vendor() -> None:
    """Where a card of the same vendor names the chip in its summary, that card covers it and the group
    should point there (NVIDIA's A16 card is not Apple's A16 chip)."""
    cards = _architecture_cards()
    assert all(_vendor(g.section) for g in _products().groups), [g.section[:40] for g in _products().groups if not _vendor(g.section)]
    named = [(n, chip, cid) for g in _products().groups if g.card is None for n in g.names for chip in _chips(n)
             for cid, card in cards.items() if _vendor(card.title) == _vendor(g.section)
             and re.search(rf"(?<![\w-]){re.escape(chip)}(?![\w-])", card.summary)]
    assert not named, named


# --- lookup ---------------------------------------------------------------------------------------------

def _index_without_products(tmp_path: Path) -> kb.Index:
    """The index of a copy of the glossary without this list: what lookup answered before it."""
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    (root / "vocabulary" / FILE.name).unlink()
    return kb.load_index(root)


@pytest.mark.slow
def test_every_carded_name_changes_what_lookup_answers(tmp_path: Path) -> None:
    """A name is listed only where lookup answered nothing or another card without it."""
    carded = [(n, g.card) for g in _products().groups if g.card for n in g.names]
    before = _index_without_products(tmp_path)
    already = [(n, card) for n, card in carded if [m.concept for m in kb.search(before, n, limit=1)] == [card]]
    after = [(n, card, [m.concept for m in kb.search(_index(), n, limit=1)]) for n, card in carded]
    assert not already, f"lookup already answered these with their card: {already}"
    assert all(got == [card] for _, card, got in after), [a for a in after if a[2] != [a[1]]]


SAMPLE = [
    ("Apple M2 Ultra", "apple-gpu-family"),
    ("apple m2 ultra", "apple-gpu-family"),
    ("M1 Ultra", "apple-gpu-family"),
    ("a15 bionic", "apple-gpu-family"),
    ("A18 Pro", "apple-gpu-family"),
    ("A19", "apple-gpu-family"),
    ("DGX Spark", "blackwell"),
    ("nvidia dgx spark", "blackwell"),
    ("JETSON THOR", "blackwell"),
    ("GB200 NVL72", "blackwell"),
    ("RTX PRO 6000", "blackwell"),
    ("H20", "hopper"),
    ("NVIDIA H20", "hopper"),
    ("Instinct MI350P", "cdna4"),
    ("MI250X", None),
    ("amd instinct mi250x", None),
    ("RTX 4090", None),
    ("GeForce RTX 4090", None),
    ("NVIDIA A16", None),
    ("A100", None),
    ("jetson agx orin", None),
    ("Ryzen AI Max+ 395", None),
    ("Strix Halo", None),
    ("Radeon PRO W7900", None),
]


def _listed(query: str) -> str | None:
    for g in _products().groups:
        for n in g.names:
            if n == query or (" " in n and n.casefold() == query.casefold()):
                return g.card
    return "unlisted"


@pytest.mark.parametrize(("query", "card"), SAMPLE, ids=[q for q, _ in SAMPLE])
def test_lookup_answers_a_product_name_with_its_card_or_names_it(query: str, card: str | None) -> None:
    assert _listed(query) == card, f"{query!r} is not listed with {card!r}"
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    assert payload["gpu"] is None and not payload["rows"]
    if card is None:
        # Named for what it is (its architecture in the section), and no card guessed from its words.
        assert code == 1 and not payload["matches"], payload["matches"][:1]
        assert payload["package"]["card"] is None and NAMES_OF in payload["package"]["section"]
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert code == 0 and top.get("concept") == card and top.get("matched_kind") == "package", top
