"""The scorer of benchmarks/bench_hipify_suite.py, on small synthetic files of this project's own
(tests/fixtures/hipify_suite): directives, RUN options, FileCheck-style matching. HIPIFY's suite
itself is not in the repository, so nothing here runs a translator."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "hipify_suite"


def _load():
    spec = importlib.util.spec_from_file_location("bench_hipify_suite", REPO / "benchmarks" / "bench_hipify_suite.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _load()
LAUNCH = (FIXTURES / "sub" / "launch.cu").read_text(encoding="utf-8")

# What a translator that gets everything right prints for sub/launch.cu (comments kept, as the
# harness then cuts them).
GOOD = """\
// RUN: ...
#include <hip/hip_runtime.h>
__global__ void scale(float *v) { v[threadIdx.x] *= 2.0f; }
int main() {
  float *v;
  // CHECK: hipMalloc(&v, 64 * sizeof(float));
  hipMalloc(&v,   64 * sizeof(float));
  hipMemset(v, 0, 64 * sizeof(float));
  hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, v);
  hipFree(v); // done
}
"""


def _outcome(output: str, loose: bool = False):
    return bench.score(bench.parse_checks(LAUNCH), bench.harness_output(output), loose=loose)


def test_directives_are_parsed_in_order_with_the_line_they_describe() -> None:
    checks = bench.parse_checks(LAUNCH)
    assert [c.kind for c in checks] == ["CHECK", "CHECK", "CHECK-NEXT", "CHECK-NOT", "CHECK", "CHECK", "CHECK-SAME"]
    assert checks[1].line == 10 and checks[1].pattern == "hipMalloc(&v, 64 * sizeof(float));"
    assert checks[1].source == "cudaMalloc(&v, 64 * sizeof(float));"


def test_a_blank_before_the_colon_is_not_a_directive() -> None:
    assert bench.parse_checks("// CHECK-NEXT : hipFree(p);\n// CHECK: hipFree(q);\n") == [
        bench.Check("CHECK", 2, "hipFree(q);", "")]


def test_run_options_map_to_each_tool() -> None:
    opts = bench.options(bench.run_line(LAUNCH))
    assert opts.xlate == ["--roc", "--launch-syntax", "ggl"]
    assert opts.perl == ["-roc", "-hip-kernel-execution-syntax"]
    other = bench.options('%run_test hipify "%s" "%t" %hipify_args 3 --amap --experimental -miopen %clang_args -D__X=1')
    assert other.xlate == [] and other.perl == ["-experimental", "-miopen"]
    assert "--amap" in other.unmapped and "-D__X=1" in other.unmapped


def test_harness_cuts_comments_and_folds_blanks() -> None:
    assert bench.harness_output("a  =\tb; // note\n// CHECK: x\n") == ["a = b; //", "//"]


def test_correct_output_finds_every_line_except_a_comment_the_harness_cut() -> None:
    results, violations = _outcome(GOOD)
    missed = [r.check.kind for r in results if not r.found]
    # CHECK-SAME wants the text of a comment, which the harness replaces by `// `: HIPIFY's own
    # harness could not match it either.
    assert missed == ["CHECK-SAME"]
    assert violations == []


def test_a_comment_line_between_check_and_check_next_breaks_the_next_line() -> None:
    hazard = GOOD.replace("  hipMemset(", "  // xlate: XL001 something to look at\n  hipMemset(")
    results, _ = _outcome(hazard)
    assert [r.check.line for r in results if not r.found] == [11, 18]  # the CHECK-NEXT, and the CHECK-SAME


def test_check_not_between_two_matches_is_reported() -> None:
    bad = GOOD.replace("  hipLaunchKernelGGL(", "  cudaDeviceSynchronize();\n  hipLaunchKernelGGL(")
    results, violations = _outcome(bad)
    assert [v.check.pattern for v in violations] == ["cudaDeviceSynchronize"]
    assert all(r.found for r in results if r.check.kind == "CHECK")


def test_a_miss_keeps_the_position_so_later_lines_still_count() -> None:
    wrong = GOOD.replace("hipMalloc(&v,", "cudaMalloc(&v,")
    results, _ = _outcome(wrong)
    found = {r.check.line: r.found for r in results}
    # the CHECK-NEXT after the miss has no anchor left and is scored as a CHECK
    assert found[10] is False and found[11] is True and found[15] is True and found[17] is True
    miss = next(r for r in results if r.check.line == 10)
    assert miss.nearest == "cudaMalloc(&v, 64 * sizeof(float));"


def test_regex_blocks_and_captures() -> None:
    capture = bench.compile_pattern("hipFree([[PTR:[a-z]+]]);", {})
    m = capture.search("hipFree(v);")
    assert m is not None and m.group("PTR") == "v"
    reuse = bench.compile_pattern("use([[PTR]])", {"PTR": "v"})
    assert reuse.search("use(v)") and not reuse.search("use(w)")
    assert bench.compile_pattern("dim3({{[0-9]+}})", {}).search("dim3(12)")


def test_whitespace_runs_match_any_run_and_loose_mode_ignores_placement() -> None:
    assert bench.compile_pattern("f(a, b)", {}).search("f(a,    b)")
    assert not bench.compile_pattern("f(a, b)", {}).search("f(a,b)")
    assert bench.compile_pattern("f(a, b)", {}, loose=True).search("f(a,b)")


def test_check_empty_wants_an_empty_next_line() -> None:
    checks = bench.parse_checks("// CHECK: a\n// CHECK-EMPTY:\n// CHECK: b\n")
    ok, _ = bench.score(checks, ["a", "", "b"])
    assert all(r.found for r in ok)
    bad, _ = bench.score(checks, ["a", "x", "b"])
    assert [r.found for r in bad] == [True, False, True]


def test_only_files_with_a_run_line_are_tests() -> None:
    assert [p.relative_to(FIXTURES).as_posix() for p in bench.tests_in(FIXTURES)] == ["sub/launch.cu"]


def test_bad_arguments_get_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--suite", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err
    assert bench.main(["--suite", str(tmp_path), "--hipify-perl", str(tmp_path / "no-perl")]) == 2
    assert "hipify-perl not found" in capsys.readouterr().err
