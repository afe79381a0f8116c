"""A model number typed without its suffix letter ("MI355") lands on the one sheet spelt with one more
letter, but only where nothing else knows the name: MI300 is the CDNA3 card's alias (MI300A and MI300X
are both CDNA3 parts), and a bare model number is never stretched by more than one letter."""

from __future__ import annotations

import io
import json

import pytest

from xlate import kb, lookup


def _lead(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, None, "json", 3, out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize(("query", "sheet"), [("MI355", "mi355x"), ("MI325", "mi325x"), ("AMD MI355", "mi355x")])
def test_a_model_number_without_its_letter_lands_on_its_sheet(query: str, sheet: str) -> None:
    code, payload = _lead(query)
    assert code == 0 and payload["gpu"] and payload["gpu"]["id"] == sheet, payload


def test_a_name_a_card_knows_keeps_its_card() -> None:
    code, payload = _lead("MI300")
    assert code == 0 and payload["gpu"] is None and payload["matches"][0]["concept"] == "cdna3", payload


@pytest.mark.parametrize("query", ["MI35", "MI3", "RX 90"])
def test_a_shorter_stem_is_no_gpu(query: str) -> None:
    assert kb.resolve_gpu(query, suffixless=True, within=True) is None


def test_strict_resolution_is_unchanged() -> None:
    assert kb.resolve_gpu("MI355") is None
    assert kb.resolve_gpu("MI355X").id == "mi355x"
