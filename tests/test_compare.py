"""`xlate compare`: derived figures checked by hand against the spec sheets, name resolution, errors, JSON."""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from xlate import compare
from xlate.cli import app

REPO = Path(__file__).resolve().parents[1]
GLOSSARY = REPO / "glossary"
REQUIRED = ["h100-sxm", "h200", "b200", "mi300x", "mi325x", "mi355x", "rx-9070-xt", "m4-max", "m3-ultra"]


def sheet(gid: str) -> dict:
    """The raw YAML of one spec sheet: the test's own reading, independent of the models."""
    return yaml.safe_load((GLOSSARY / "gpus" / f"{gid}.yaml").read_text(encoding="utf-8"))


def fig(gid: str, name: str) -> float | None:
    return sheet(gid)[name]["value"]


def run_json(*args: str) -> dict:
    out = io.StringIO()
    code = compare.run(list(args[0].split()), *args[1:], fmt="json", root=GLOSSARY, out=out)
    assert code == 0
    return json.loads(out.getvalue())


# --- the data ------------------------------------------------------------------------------------


@pytest.mark.parametrize("gid", REQUIRED)
def test_required_sheets_load_and_every_value_has_a_source(gid: str) -> None:
    specs = compare.load_gpus(GLOSSARY)
    assert gid in specs and specs[gid].path == f"glossary/gpus/{gid}.yaml"
    raw = sheet(gid)
    for name, _, _ in compare.FIGURE_ROWS:
        entry = raw[name]
        if entry["value"] is None:
            assert entry.get("note"), f"{gid}.{name}: null needs a note"
        else:
            assert entry["source"].startswith("https://"), f"{gid}.{name}: value without a source"


def test_apple_sheets_carry_no_unpublished_throughput() -> None:
    # Apple publishes no TFLOP/s for these parts; a number here would be a third-party figure.
    for gid in ("m4-max", "m3-ultra"):
        for name in ("bf16_dense_tflops", "fp16_dense_tflops", "fp8_dense_tflops"):
            assert fig(gid, name) is None


# --- derived arithmetic --------------------------------------------------------------------------


@pytest.mark.parametrize("gid", ["h100-sxm", "mi300x", "b200", "rx-9070-xt"])
def test_ridge_points_match_hand_computation(gid: str) -> None:
    data = run_json(gid)
    ridge = data["gpus"][0]["derived"]["ridge_flop_per_byte"]
    tbs = fig(gid, "memory_bandwidth_tbs")
    for precision, field in (("bf16", "bf16_dense_tflops"), ("fp16", "fp16_dense_tflops"), ("fp8", "fp8_dense_tflops")):
        expected = fig(gid, field) * 1e12 / (tbs * 1e12)
        assert ridge[precision] == pytest.approx(expected, rel=1e-12)


def test_h100_ridge_point_is_about_295_flop_per_byte() -> None:
    # 989.5 TFLOP/s / 3.35 TB/s, worked by hand: 295.37...
    ridge = run_json("h100")["gpus"][0]["derived"]["ridge_flop_per_byte"]["bf16"]
    assert ridge == pytest.approx(295.37, abs=0.01)


def test_405b_fp8_needs_fewer_mi300x_than_h100() -> None:
    data = run_json("mi300x h100", "405B", "fp8")
    by_id = {g["id"]: g["derived"] for g in data["gpus"]}
    weights_gb = 405e9 * 1 / 1e9
    assert by_id["mi300x"]["weights_gb"] == pytest.approx(weights_gb)
    assert by_id["mi300x"]["gpus_to_hold_weights"] == math.ceil(weights_gb / fig("mi300x", "memory_gb")) == 3
    assert by_id["h100-sxm"]["gpus_to_hold_weights"] == math.ceil(weights_gb / fig("h100-sxm", "memory_gb")) == 6


def test_decode_bound_is_bandwidth_over_weight_bytes() -> None:
    data = run_json("h200 mi355x m3-ultra", "70b", "bf16")
    for g in data["gpus"]:
        tbs = fig(g["id"], "memory_bandwidth_tbs")
        one = tbs * 1e12 / (70e9 * 2)
        d = g["derived"]
        assert d["decode_tokens_per_s_bound_one_gpu"] == pytest.approx(one)
        assert d["decode_tokens_per_s_bound_across_gpus"] == pytest.approx(one * d["gpus_to_hold_weights"])
    # 70B at BF16 is 140 GB: it fits one H200 (141 GB) and one MI355X, so no split is needed.
    assert [g["derived"]["gpus_to_hold_weights"] for g in data["gpus"]] == [1, 1, 1]


def test_exact_fit_does_not_round_up() -> None:
    # 80 GB of FP8 weights on an 80 GB H100 is one GPU, not two.
    assert compare.gpus_to_hold(80, 80e9, "fp8") == 1
    assert compare.gpus_to_hold(80, 80.1e9, "fp8") == 2


def test_missing_figures_give_no_derived_value() -> None:
    # Apple publishes no TFLOP/s, so there is no ridge point, but bandwidth still bounds decode.
    d = run_json("m4-max", "8B", "fp16")["gpus"][0]["derived"]
    assert d["ridge_flop_per_byte"] == {"bf16": None, "fp16": None, "fp8": None}
    assert d["decode_tokens_per_s_bound_one_gpu"] == pytest.approx(fig("m4-max", "memory_bandwidth_tbs") * 1e12 / 16e9)


@pytest.mark.parametrize(
    ("text", "count"),
    [("405B", 405e9), ("70b", 70e9), ("8e9", 8e9), ("1.5T", 1.5e12), ("7000000000", 7e9), ("7_000M", 7e9)],
)
def test_params_parsing(text: str, count: float) -> None:
    assert compare.parse_params(text) == pytest.approx(count)


@pytest.mark.parametrize("text", ["abc", "-5B", "0", "12 parsecs", "", "nanB"])
def test_bad_params_are_rejected(text: str) -> None:
    with pytest.raises(compare.CompareError):
        compare.parse_params(text)


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "gid"),
    [("h100", "h100-sxm"), ("H100 SXM5", "h100-sxm"), ("MI300X", "mi300x"), ("m3-ultra", "m3-ultra"),
     ("M3 Ultra", "m3-ultra"), ("rx 9070 xt", "rx-9070-xt"), ("AMD Instinct MI355X", "mi355x"),
     ("B200 (HGX)", "b200"), ("M3 Ultra (80-core GPU)", "m3-ultra"), ("M4 Max (40-core GPU)", "m4-max")],
)
def test_names_resolve(query: str, gid: str) -> None:
    assert [s.id for s in compare.resolve([query], GLOSSARY)] == [gid]


def test_unknown_gpu_exits_1_with_suggestions_and_no_traceback() -> None:
    result = CliRunner().invoke(app, ["compare", "h1000", "mi300x"])
    assert result.exit_code == 1
    assert "unknown GPU 'h1000'" in result.output
    assert "did you mean" in result.output and "h100-sxm" in result.output
    assert "Traceback" not in result.output


def test_bad_options_exit_2() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["compare", "h100", "--precision", "int3"]).exit_code == 2
    assert runner.invoke(app, ["compare", "h100", "--params", "lots"]).exit_code == 2
    assert runner.invoke(app, ["compare", "h100", "--format", "xml"]).exit_code == 2


def test_broken_sheet_refuses_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sheet that does not load is an error naming file and line (exit 2), not a part left out."""
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY / "gpus", root / "gpus")
    (root / "gpus" / "h200.yaml").write_text("id: h200\nname: [unclosed\n", encoding="utf-8")
    for names in (["mi300x"], ["h200"]):
        out = io.StringIO()
        assert compare.run(names, fmt="json", root=root, out=out) == 2
        assert out.getvalue() == ""
        err = capsys.readouterr().err
        assert err.startswith("error: the glossary has 1 problem(s), the first glossary/gpus/h200.yaml:3: malformed YAML")
        assert err.count("\n") == 1


def test_missing_glossary_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert compare.run(["h100"], root=tmp_path / "nonexistent", out=out) == 2
    assert out.getvalue() == ""
    assert capsys.readouterr().err == f"error: glossary folder not found: {tmp_path / 'nonexistent'}; pass --glossary DIR or set XLATE_GLOSSARY\n"


# --- output --------------------------------------------------------------------------------------


def test_json_shape() -> None:
    data = run_json("mi300x h100 m3-ultra", "405B", "fp8")
    assert set(data) == {"params", "precision", "gpus", "assumptions", "sources"}
    assert data["params"] == 405e9 and data["precision"] == "fp8"
    assert [g["id"] for g in data["gpus"]] == ["mi300x", "h100-sxm", "m3-ultra"]
    g = data["gpus"][0]
    assert set(g) == {"id", "name", "vendor", "architecture", "compute_unit_name", "figures", "derived", "notes"}
    assert set(g["figures"]) == {name for name, _, _ in compare.FIGURE_ROWS}
    assert set(g["figures"]["memory_gb"]) == {"value", "unit", "source", "note"}
    assert set(g["derived"]) == {
        "ridge_flop_per_byte", "weights_gb", "gpus_to_hold_weights",
        "decode_tokens_per_s_bound_one_gpu", "decode_tokens_per_s_bound_across_gpus",
    }
    cited = {f["source"] for gg in data["gpus"] for f in gg["figures"].values() if f["source"]}
    assert cited == set(data["sources"])


def test_json_without_params_has_only_ridge_points() -> None:
    data = run_json("b200")
    assert data["params"] is None
    assert set(data["gpus"][0]["derived"]) == {"ridge_flop_per_byte"}


def test_text_table_lists_numbered_sources() -> None:
    out = io.StringIO()
    assert compare.run(["mi300x", "h100", "m3-ultra"], "405B", "fp8", root=GLOSSARY, out=out) == 0
    text = out.getvalue()
    for name in ("AMD Instinct MI300X", "NVIDIA H100 SXM", "Apple M3 Ultra"):
        assert name in text
    assert "GPUs to hold the weights" in text and "ridge point FP8" in text
    assert "Sources:" in text
    assert f"[1] {sheet('mi300x')['compute_units']['source']}" in text
    # Shader attribute spellings in notes must survive (no markup interpretation).
    assert "[[threads_per_simdgroup]]" in text


@pytest.mark.slow
def test_cli_subprocess_round_trip() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "xlate", "compare", "mi300x", "h100", "--params", "405B", "--precision", "fp8", "-f", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert [g["derived"]["gpus_to_hold_weights"] for g in json.loads(proc.stdout)["gpus"]] == [3, 6]
    bad = subprocess.run([sys.executable, "-m", "xlate", "compare", "nope-9000"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and "unknown GPU" in bad.stderr
