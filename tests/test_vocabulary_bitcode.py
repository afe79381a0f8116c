"""Function lists read from the LLVM bitcode math libraries the triton 3.9.0 wheel bundles, libdevice
(glossary/vocabulary/names-libdevice.yaml) and OCML (names-ocml.yaml), by scripts/list_bitcode_functions.py:
the extract kept in tests/data names its source and count; every extracted function is listed once, on
the card the script's rule gives, unless a card or row spells it; lookup answers them with that card; and
the script keeps what llvm-nm lists as defined public code. Nothing downloads and llvm-nm is not needed:
the proof is the stored extract."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import glossary_without_rows
from scripts_loader import load_script
from xlate import kb, lookup

DATA = Path(__file__).parent / "data"
SCRIPT = load_script("list_bitcode_functions")


class BitcodeList(NamedTuple):
    names_of: str
    extract: Path
    head: str


LISTS = {
    "libdevice": BitcodeList("libdevice function", DATA / "libdevice_functions.txt",
                             "# triton 3.9.0 wheel, backends/nvidia/lib: {n} functions defined in libdevice.10.bc"),
    "ocml": BitcodeList("OCML function", DATA / "ocml_functions.txt",
                        "# triton 3.9.0 wheel, backends/amd/lib: {n} functions defined in ocml.bc"),
}


def _extract(which: str) -> list[tuple[str, str]]:
    lines = LISTS[which].extract.read_text().splitlines()
    return [(card, name) for card, name in (line.split("\t") for line in lines[1:])]


def _groups(which: str) -> list[tuple[str | None, list[str]]]:
    names = {n.names_of: n for n in glossary_without_rows().name_lists}[LISTS[which].names_of]
    return [(g.card, list(g.names)) for g in names.groups]


def _spelled(name: str) -> bool:
    index = kb.load_index()
    return name.casefold() in {label.casefold() for label, _, _, _ in index["labels"]} or bool(kb.find_rows(index, name, None))


@pytest.mark.parametrize("which", sorted(LISTS))
def test_the_extract_names_its_source_and_count(which: str) -> None:
    first = LISTS[which].extract.read_text().splitlines()[0]
    assert first == LISTS[which].head.format(n=len(_extract(which)))


@pytest.mark.parametrize("which", sorted(LISTS))
def test_every_function_is_listed_once_on_the_card_its_name_gives(which: str) -> None:
    extracted = _extract(which)
    assert all(card == SCRIPT.card_for(name) for card, name in extracted)
    listed = {name: card for card, names in _groups(which) for name in names}
    assert sum(len(names) for _, names in _groups(which)) == len(listed)
    unlisted = [name for _, name in extracted if name not in listed and not _spelled(name)]
    assert not unlisted, unlisted
    assert all(listed[name] == card for card, name in extracted if name in listed)
    assert set(listed) <= {name for _, name in extracted}


@pytest.mark.parametrize("which", sorted(LISTS))
def test_lookup_answers_a_sample_of_each_list_with_its_card(which: str) -> None:
    pairs = [(name, card) for card, names in _groups(which) for name in names]
    wrong = {}
    for name, card in random.Random(which).sample(pairs, 25):
        out = io.StringIO()
        code = lookup.run(name, fmt="json", out=out)
        top = (json.loads(out.getvalue())["matches"] or [{}])[0].get("concept")
        if code != 0 or top != card:
            wrong[name] = (card, top)
    assert not wrong, wrong


def test_the_rule_puts_names_on_their_cards() -> None:
    assert SCRIPT.card_for("__nv_fast_expf") == SCRIPT.card_for("__ocml_native_cos_f32") == "fast-math-intrinsics"
    assert SCRIPT.card_for("__nv_popcll") == SCRIPT.card_for("__nv_umulhi") == "integer-intrinsics"
    assert SCRIPT.card_for("__nv_float2int_rn") == SCRIPT.card_for("__ocml_cvtrtz_f32_f64") == "type-conversions"
    assert SCRIPT.card_for("__nv_expf") == SCRIPT.card_for("__ocml_sin_f32") == "device-math-functions"


def test_the_script_keeps_defined_public_functions_only() -> None:
    nm = ("---------------- T __nv_expf\n---------------- t __nv_internal\n---------------- d __cudart_table\n"
          "---------------- W __ocml_sin_f32\n---------------- W __ocmlpriv_red_f32\n                 U llvm.fma.f32\n")
    assert SCRIPT.defined_functions(nm, "__nv_") == ["__nv_expf"]
    assert SCRIPT.defined_functions(nm, "__ocml_") == ["__ocml_sin_f32"]
