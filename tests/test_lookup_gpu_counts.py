"""How many GPUs, written into the name ("8xH100", "H100*2", "2*MI300X"), and a series word after its
model number ("5090 RTX") still name the GPU: the count is read as a count, never as part of the name, and
the suffix letter of a model ("MI300X") is never read as "times"."""

from __future__ import annotations

import io
import json

import pytest

from xlate import kb, lookup


def _lead(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, None, "json", 3, out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize(("query", "sheet"), [
    ("8xH100", "h100-sxm"), ("H100*2", "h100-sxm"), ("H100x8", "h100-sxm"), ("4×H100", "h100-sxm"),
    ("2*MI300X", "mi300x"), ("8x MI300X", "mi300x"), ("2xM3 Ultra", "m3-ultra"),
])
def test_a_count_glued_to_a_gpu_name_lands_on_its_sheet(query: str, sheet: str) -> None:
    code, payload = _lead(query)
    assert code == 0 and payload["gpu"] and payload["gpu"]["id"] == sheet, payload


@pytest.mark.parametrize("query", ["x86", "8x", "x8", "2*", "sm_100x2"])
def test_a_count_alone_or_around_no_gpu_name_is_no_gpu(query: str) -> None:
    assert kb.resolve_gpu(query, within=True) is None


def test_a_suffix_letter_is_not_a_count() -> None:
    assert kb.resolve_gpu("MI300X", within=True).id == "mi300x"
    assert kb.resolve_gpu("MI300A", within=True) is None or kb.resolve_gpu("MI300A", within=True).id != "mi300x"


@pytest.mark.parametrize(("query", "card"), [("5090 RTX", "blackwell"), ("9070 RX", "rdna4"), ("RTX 5090", "blackwell")])
def test_a_series_word_after_its_number_names_the_same_model(query: str, card: str) -> None:
    code, payload = _lead(query)
    assert code == 0 and payload["matches"] and payload["matches"][0]["concept"] == card, payload


@pytest.mark.parametrize(("query", "sheet", "card"), [("M4 Max (128GB)", "m4-max", None), ("H100 (80GB)", "h100-sxm", None),
                                                      ("M5 Max (128GB)", None, "apple-gpu-family")])
def test_a_memory_size_in_parentheses_is_a_spec_not_part_of_the_name(query: str, sheet: str | None, card: str | None) -> None:
    code, payload = _lead(query)
    assert code == 0, payload
    if sheet:
        assert payload["gpu"] and payload["gpu"]["id"] == sheet, payload
    else:
        assert payload["matches"][0]["concept"] == card, payload


@pytest.mark.parametrize(("query", "card"), [
    ("M1 Macbook Air", "apple-gpu-family"), ("MacBook Air M1", "apple-gpu-family"),
    ("M2 Ultra Mac Studio", "apple-gpu-family"), ("Mac mini M4", "apple-gpu-family"),
])
def test_a_computer_s_name_around_its_chip_is_the_chip(query: str, card: str) -> None:
    # "Air", "Mac Studio" are words of the computer, not terms ("Macbook" had been read as MMA), and an
    # Ultra inside a computer's name is the chip, as "M2 Ultra" alone is, not the die-to-die link card.
    code, payload = _lead(query)
    assert code == 0 and payload["matches"][0]["concept"] == card, payload


@pytest.mark.parametrize("query", ["M3 Ultra Mac Studio", "M4 Max MacBook Pro"])
def test_a_computer_s_name_around_a_chip_with_a_sheet_is_the_sheet(query: str) -> None:
    code, payload = _lead(query)
    assert code == 0 and payload["gpu"] is not None, payload
