"""The conversion facts the rows and the bf16 card state for NaN and out-of-range inputs agree with the
stored H100 run of kernels/probes/conversion_edges.cu (kernels/probes/conversion_edges--nvidia-h100.json):
a stale sentence, or a re-run that shows otherwise, fails here."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RUN = json.loads((ROOT / "kernels" / "probes" / "conversion_edges--nvidia-h100.json").read_text(encoding="utf-8"))
FLOAT_NANS = range(4)  # the first four float inputs are NaNs (quiet, negative quiet, payload, signalling)
DOUBLE_NANS = range(3)


def _bits(function: str, where: str = "device") -> list[int]:
    [row] = [r for r in RUN["results"] if r["function"] == function and r["where"] == where]
    return [int(b, 16) for b in row["bits"]]


def test_the_run_is_an_h100_with_the_inputs_the_probe_writes() -> None:
    assert RUN["device"].startswith("NVIDIA H100") and RUN["compute_capability"] == "9.0"
    assert [int(b, 16) for b in RUN["float_inputs"][:4]] == [0x7FC00000, 0xFFC00000, 0x7FA12345, 0x7F800001]
    source = (ROOT / "kernels" / "probes" / "conversion_edges.cu").read_text(encoding="utf-8")
    assert all(b in source for b in ("0x7fc00000u", "0xffc00000u", "0x7fa12345u", "0x7f800001u"))


def test_float_nan_to_integer_is_zero_for_32_bits_and_the_top_bit_for_64() -> None:
    for mode in ("rn", "rz", "rd", "ru"):
        for kind, nan in (("int", 0), ("uint", 0), ("ll", 1 << 63), ("ull", 1 << 63)):
            assert {_bits(f"__float2{kind}_{mode}")[i] for i in FLOAT_NANS} == {nan}, (kind, mode)


def test_float_nan_to_bf16_is_canonical_on_both_sides_and_double_nan_keeps_its_sign_on_the_device() -> None:
    for f in ("__float2bfloat16", "__float2bfloat16_rn", "__float2bfloat16_rz"):
        for where in ("device", "host"):
            assert {_bits(f, where)[i] for i in FLOAT_NANS} == {0x7FFF}, (f, where)
    assert [_bits("__double2bfloat16")[i] for i in DOUBLE_NANS] == [0x7FC0, 0xFFC0, 0x7FE0]
    assert {_bits("__double2bfloat16", "host")[i] for i in DOUBLE_NANS} == {0x7FFF}
    # 1 + 2^-8 + 2^-36 rounds once, to the nearest bf16 above the halfway point, on both sides.
    assert _bits("__double2bfloat16")[7] == _bits("__double2bfloat16", "host")[7] == 0x3F81
    for f in ("__float2half", "__float2half_rn", "__float2half_rz"):
        for where in ("device", "host"):
            assert {_bits(f, where)[i] for i in FLOAT_NANS} == {0x7FFF}, (f, where)
    assert [_bits("__double2half")[i] for i in DOUBLE_NANS] == [0x7E00, 0xFE00, 0x7F00]
    assert {_bits("__double2half", "host")[i] for i in DOUBLE_NANS} == {0x7FFF}


def test_the_sentences_that_cite_the_run_state_what_it_shows() -> None:
    rows = yaml.safe_load((ROOT / "glossary" / "symbols" / "overrides.yaml").read_text(encoding="utf-8"))["rows"]
    [bf16] = [r for r in rows if r["cuda"] == "__float2bfloat16"]
    assert "0x7fff" in bf16["hip"]["caveat"] and "conversion_edges--nvidia-h100.json" in bf16["hip"]["caveat"]
    card = (ROOT / "glossary" / "matrix" / "bf16-format.yaml").read_text(encoding="utf-8")
    assert "0xffc0" in card and "0x7fff" in card
    conversions = yaml.safe_load((ROOT / "glossary" / "symbols" / "device-conversions.yaml").read_text(encoding="utf-8"))
    for row in conversions["rows"]:
        if row["cuda"].startswith(("__float2ll_", "__float2ull_")):
            side = row["metal"]
            assert "0x8000000000000000" in " ".join(side["caveat"].split()), row["cuda"]
            assert "conversion_edges--nvidia-h100.json" in side["source"], row["cuda"]
