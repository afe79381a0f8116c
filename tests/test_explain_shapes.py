"""Generated shapes that once made explain superlinear: doubling the input at most ~2.5x the work.

The work is counted, not timed: every Python and C function call made while explaining (a
profiler hook counts them), which is the same on every run of the same code and input. Wall-time
scaling, which also covers what tree-sitter does inside one call, is measured by
`benchmarks/bench_explain.py --shapes`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from shapes import expand, load_shapes
from xlate import explain
from xlate import kb
from xlate.cuda.parser import ParseCancelled, parse

SHAPES = load_shapes()


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    explain.load_rules()
    return kb.load_symbols()


def calls_made(source: bytes, smap: kb.SymbolMap) -> tuple[int, dict]:
    count = 0

    def hook(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    sys.setprofile(hook)
    try:
        result = explain.explain_source("shape.cu", source, smap)
    finally:
        sys.setprofile(None)
    return count, result


def test_the_corpus_holds_the_shapes_of_the_issue() -> None:
    assert {"literal-sum", "literal-sum-one-line", "deep-parens", "initializer-table", "many-kernels",
            "long-identifier", "macro-table", "nested-blocks"} <= set(SHAPES)
    for name, shape in SHAPES.items():
        assert shape["unit"] and shape["why"], name


# The quick loop runs three cheap shapes; the whole corpus runs with the slow tests.
QUICK = {"literal-sum", "warpsize-sum", "initializer-table"}


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow) for n in sorted(SHAPES)])
def test_doubling_a_shape_at_most_two_and_a_half_times_the_calls(name: str, smap: kb.SymbolMap) -> None:
    shape = SHAPES[name]
    # Sizes past the depth at which the tree locator switches to its cursor (tree._SHALLOW levels),
    # so that both runs use the same strategy; a first run fills first-use caches.
    calls_made(expand(shape, 20), smap)
    small, _ = calls_made(expand(shape, 400), smap)
    large, r2 = calls_made(expand(shape, 800), smap)
    assert not [e for e in r2["errors"] if e["kind"] in ("internal", "rule", "timeout")], r2["errors"]
    assert large <= 2.5 * small, f"{name}: {small} calls at n=400, {large} at n=800 ({large / small:.2f}x)"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_doubling_a_large_shape_at_most_two_and_a_half_times_the_calls(name: str, smap: kb.SymbolMap) -> None:
    shape = SHAPES[name]
    calls_made(expand(shape, 20), smap)
    small, _ = calls_made(expand(shape, 2000), smap)
    large, _ = calls_made(expand(shape, 4000), smap)
    assert large <= 2.5 * small, f"{name}: {small} calls at n=2000, {large} at n=4000 ({large / small:.2f}x)"


def test_a_parse_past_its_deadline_is_cancelled_and_the_parser_recovers(monkeypatch: pytest.MonkeyPatch) -> None:
    from xlate.cuda import parser

    monkeypatch.setattr(parser, "WATCHED_FROM", 4096)  # watch files from 4 KB, not 1 MB
    source = expand(SHAPES["literal-sum"], 2000)
    with pytest.raises(ParseCancelled):
        parse(source, deadline=time.monotonic() - 1)
    tree = parse(b"int x = 1;\n")  # not the rest of the cancelled parse
    assert tree.root_node.end_byte == 11 and not tree.root_node.has_error
    watched = parse(source, deadline=time.monotonic() + 60)
    assert watched.root_node.end_byte == len(source)
    assert watched.root_node.children[0].text.startswith(b"__device__")


class _Hangs:
    """A rule that never returns on a file that spells HANG (a stand-in for a superlinear rule)."""

    code, name, severity, backends = "XL999", "hangs", "warning", ("hip",)

    def check(self, src: object) -> list:
        while b"HANG" in src.source:  # type: ignore[attr-defined]
            pass
        return []


def test_a_file_over_its_budget_is_a_per_file_error_and_the_run_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         smap: kb.SymbolMap) -> None:
    monkeypatch.setattr(explain, "_RULES", [*explain.load_rules(), _Hangs()])
    slow, good = tmp_path / "slow.cu", tmp_path / "good.cu"
    slow.write_text("// HANG\n__global__ void k() { __syncthreads(); }\n")
    good.write_text("__global__ void k() { __syncthreads(); }\n")
    from xlate.cuda.files import collect

    targets, _ = collect([str(slow), str(good)])
    t0 = time.monotonic()
    results = explain.explain_targets(targets, smap, jobs=1, timeout=0.3)
    assert time.monotonic() - t0 < 5  # a guard against the hang itself, not a speed measurement
    by_name = {Path(r["path"]).name: r for r in results}
    assert [e["kind"] for e in by_name["slow.cu"]["errors"]] == ["timeout"]
    assert "--file-timeout" in by_name["slow.cu"]["errors"][0]["message"]
    assert {a["symbol"] for a in by_name["good.cu"]["annotations"]} >= {"__global__", "__syncthreads"}
    assert not by_name["good.cu"]["errors"]
    assert explain.exit_code(results, None) == explain.EXIT_ERROR


def test_file_timeout_option_is_checked() -> None:
    with pytest.raises(SystemExit) as exc:
        explain.main(["x.cu", "--file-timeout", "soon"])
    assert exc.value.code == 2
