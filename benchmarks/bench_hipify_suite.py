"""Score xlate and hipify-perl on HIPIFY's own unit tests (`tests/unit_tests/**`), in the same run.

Each test file of that suite is CUDA source with FileCheck directives: `// RUN:` names the
hipify-clang options, `// CHECK:` lines give the HIP text expected after translation. HIPIFY's test
harness translates the file, replaces everything from `//` to the end of each output line by `// `
(so the directives and every comment drop out of the output), then runs FileCheck over it. This
script does the same for each tool, with FileCheck's matching done here (no LLVM tools needed):

- whitespace: as FileCheck does by default, a run of spaces and tabs matches any run of them, in the
  pattern and in the output; leading and trailing blanks of a pattern do not count. A second, looser
  figure also ignores where whitespace stands at all (`a(b, c)` matches `a(b,c)`).
- `{{regex}}` parts of a pattern are regular expressions, `[[NAME:regex]]` captures and `[[NAME]]`
  reuses a capture; the rest is literal and may match anywhere inside a line.
- CHECK: found when a match exists after the previous match (FileCheck's order). Unlike FileCheck,
  a CHECK that is not found does not end the file: the position stays where it was and the next
  CHECK is tried, so every expected line is scored.
- CHECK-NEXT / CHECK-SAME / CHECK-EMPTY: the first match after the previous one must lie on the next
  line / on the same line / the next line must be empty; otherwise not found (position kept). When
  the directive before was not found there is nothing to anchor to: CHECK-NEXT and CHECK-SAME are
  then scored as CHECK, CHECK-EMPTY as not found.
- CHECK-LABEL is scored as CHECK; CHECK-DAG lines of one group are searched from the group's start
  in any order, and the position moves past the furthest of them.
- CHECK-NOT: the pattern must not occur between the previous match and the next positive match (or
  the end of the output). A violation is listed and makes the file inexact; NOT lines are counted
  apart from the expected lines.

A file is exact when every positive directive is found and no CHECK-NOT is violated. A tool that
exits non-zero, times out or prints nothing for a file scores none of its lines: the file counts as
failed and the error is listed; no test file is skipped. A file with directives but no `// RUN:`
line, and a file without directives (a header that tests include), is not a test.

RUN-line options that have a counterpart are passed on: `-roc` (xlate `--roc`, hipify-perl `-roc`),
`-hip-kernel-execution-syntax` (xlate `--launch-syntax ggl`), `-experimental` and `-miopen`
(hipify-perl only; xlate has no such switch). The others are hipify-clang or clang options
(`--amap`, `-D...`, `--skip-excluded-preprocessor-conditional-blocks`, ...) and are listed per file.

Both tools run once per test file, one process per call, alternating which goes first; the times
are wall times of those calls, summed and as medians, in the same run.

    python benchmarks/bench_hipify_suite.py --suite DIR [--hipify-perl PATH] [--json OUT.json]
        [--failures xlate] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PERL = Path("/opt/xlate/rocm-6.4/usr/bin/hipify-perl")
TEST_SUFFIXES = (".cu", ".cpp", ".cuh", ".c", ".hpp", ".h")
TIMEOUT_S = 300

_DIRECTIVE = re.compile(r"(?<![\w-])CHECK(-NEXT|-SAME|-NOT|-DAG|-LABEL|-EMPTY)?:(.*)$")  # as FileCheck: no blank before the colon
_RUN = re.compile(r"(?<![\w-])RUN:(.*)$")
_BLANKS = re.compile(r"[ \t]+")
_COMMENT = re.compile(r"//.+")  # the harness: sed -Ee 's|//.+|// |g'

POSITIVE = ("CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-LABEL", "CHECK-DAG", "CHECK-EMPTY")


@dataclasses.dataclass
class Check:
    kind: str  # CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT, CHECK-DAG, CHECK-LABEL, CHECK-EMPTY
    line: int  # 1-based line of the directive in the test file
    pattern: str  # the text after the colon, blanks at both ends removed
    source: str = ""  # the next code line of the test file (what the directive is about)


@dataclasses.dataclass
class Outcome:
    check: Check
    found: bool
    at: int | None = None  # 0-based output line of the match
    nearest: str | None = None  # for a miss: the most similar output line near the position


@dataclasses.dataclass
class Options:
    xlate: list[str]
    perl: list[str]
    unmapped: list[str]


def parse_checks(text: str) -> list[Check]:
    """The FileCheck directives of a test file, in order, each with the code line it precedes."""
    lines = text.splitlines()
    checks: list[Check] = []
    for i, line in enumerate(lines):
        m = _DIRECTIVE.search(line)
        if m is None:
            continue
        kind = "CHECK" + (m.group(1) or "")
        checks.append(Check(kind, i + 1, m.group(2).strip(), _next_code_line(lines, i + 1)))
    return checks


def _next_code_line(lines: list[str], start: int) -> str:
    for line in lines[start:start + 12]:
        code = line.split("//", 1)[0].strip()
        if code:
            return code
    return ""


def run_line(text: str) -> str | None:
    """The RUN command of a test file (continued lines joined), or None when it has none."""
    parts: list[str] = []
    for line in text.splitlines():
        m = _RUN.search(line)
        if m:
            body = m.group(1).strip()
            parts.append(body.rstrip("\\").strip())
            if not body.endswith("\\"):
                break
    return " ".join(parts) if parts else None


def options(run: str) -> Options:
    """Map the hipify options of a RUN line to each tool's switches; list the rest."""
    xl: list[str] = []
    perl: list[str] = []
    unmapped: list[str] = []
    words = run.split()
    # `%run_test hipify "%s" "%t" %hipify_args N opt1 .. optN %clang_args clang-options...`
    for word in words:
        if word in ("%run_test", "hipify", '"%s"', '"%t"', "%s", "%t", "%hipify_args", "%clang_args") or word.isdigit():
            continue
        flag = word.lstrip("-")
        if flag == "roc":
            xl.append("--roc")
            perl.append("-roc")
        elif flag == "hip-kernel-execution-syntax":
            xl += ["--launch-syntax", "ggl"]
            perl.append("-hip-kernel-execution-syntax")
        elif flag in ("experimental", "miopen"):
            perl.append("-" + flag)
            unmapped.append(f"{word} (xlate: no such switch)")
        else:
            unmapped.append(word)
    return Options(xl, perl, unmapped)


def _literal(text: str, loose: bool) -> str:
    if loose:
        return "".join(re.escape(c) + r"\s*" for c in text if not c.isspace())
    return r"[ \t]+".join(re.escape(part) for part in _BLANKS.split(text))


def compile_pattern(pattern: str, captures: dict[str, str], loose: bool = False) -> re.Pattern[str]:
    """A FileCheck pattern as a regular expression: literal text, {{regex}}, [[NAME:regex]], [[NAME]]."""
    out: list[str] = []
    pos = 0
    token = re.compile(r"\{\{(.*?)\}\}|\[\[(\w+)(?::(.*?))?\]\]")
    for m in token.finditer(pattern):
        out.append(_literal(pattern[pos:m.start()], loose))
        if m.group(1) is not None:
            out.append(f"(?:{m.group(1)})")
        elif m.group(3) is not None:
            out.append(f"(?P<{m.group(2)}>{m.group(3)})")
        else:
            out.append(_literal(captures.get(m.group(2), ""), loose))
        pos = m.end()
    out.append(_literal(pattern[pos:], loose))
    return re.compile("".join(out))


def harness_output(text: str) -> list[str]:
    """Translated text as FileCheck sees it in HIPIFY's harness: `//...` cut to `// `, blanks folded."""
    return [_BLANKS.sub(" ", _COMMENT.sub("// ", line)).strip() for line in text.splitlines()]


def _search(rx: re.Pattern[str], lines: list[str], line: int, col: int) -> tuple[int, int, int, re.Match[str]] | None:
    """First match at or after (line, col): (line, start col, end col, match)."""
    for i in range(line, len(lines)):
        m = rx.search(lines[i], col if i == line else 0)
        if m is not None:
            return i, m.start(), m.end(), m
    return None


def score(checks: list[Check], output: list[str], loose: bool = False) -> tuple[list[Outcome], list[Outcome]]:
    """(outcomes of the positive directives, CHECK-NOT violations) over harness output lines."""
    results: list[Outcome] = []
    violations: list[Outcome] = []
    captures: dict[str, str] = {}
    line, col = 0, 0  # the position: just after the previous match
    prev_line: int | None = None  # line of the previous match (None before the first)
    anchored = True  # the previous positive directive was found
    pending_not: list[Check] = []
    dag_start: tuple[int, int] | None = None
    dag_end: tuple[int, int] = (0, 0)

    def settle_nots(until: tuple[int, int] | None) -> None:
        for nc in pending_not:
            rx = compile_pattern(nc.pattern, captures, loose)
            hit = _search(rx, output, line, col)
            if hit is not None and (until is None or (hit[0], hit[1]) < until):
                violations.append(Outcome(nc, False, hit[0], output[hit[0]]))
        pending_not.clear()

    for check in checks:
        if check.kind == "CHECK-NOT":
            pending_not.append(check)
            continue
        if check.kind != "CHECK-DAG" and dag_start is not None:
            line, col = dag_end  # a DAG group ends: move past its furthest match
            dag_start = None
        if check.kind == "CHECK-EMPTY":
            nxt = (prev_line + 1) if prev_line is not None else 0
            ok = anchored and nxt < len(output) and output[nxt] == ""
            anchored = ok
            settle_nots((nxt, 0) if ok else None)
            results.append(Outcome(check, ok, nxt if ok else None))
            if ok:
                line, col, prev_line = nxt + 1, 0, nxt
            continue
        rx = compile_pattern(check.pattern, captures, loose)
        if check.kind == "CHECK-DAG":
            if dag_start is None:
                dag_start, dag_end = (line, col), (line, col)
            hit = _search(rx, output, *dag_start)
        else:
            hit = _search(rx, output, line, col)
        if hit is not None and anchored and check.kind == "CHECK-NEXT" and hit[0] != (prev_line + 1 if prev_line is not None else 0):
            hit = None
        if hit is not None and anchored and check.kind == "CHECK-SAME" and hit[0] != (prev_line if prev_line is not None else 0):
            hit = None
        settle_nots((hit[0], hit[1]) if hit else None)
        anchored = hit is not None
        if hit is None:
            results.append(Outcome(check, False, None, _nearest(check, output, line)))
            continue
        at, _start, end, m = hit
        captures.update({k: v for k, v in m.groupdict().items() if v is not None})
        results.append(Outcome(check, True, at))
        prev_line = at
        if check.kind == "CHECK-DAG":
            dag_end = max(dag_end, (at, end))
        else:
            line, col = at, end
    settle_nots(None)
    return results, violations


def _nearest(check: Check, output: list[str], line: int, window: int = 60) -> str | None:
    """What the tool wrote for a missed line: the output line near the position most like both the
    expected text and the CUDA line the directive describes (so an untouched line is found too)."""
    want = _BLANKS.sub(" ", re.sub(r"\{\{.*?\}\}|\[\[.*?\]\]", "", check.pattern)).strip()
    source = _BLANKS.sub(" ", check.source).strip()
    best, best_score = None, 0.0
    for cand in output[max(0, line - 3):line + window]:
        if not cand or cand == "//":
            continue
        score = difflib.SequenceMatcher(a=want, b=cand, autojunk=False).ratio()
        if source:
            score += difflib.SequenceMatcher(a=source, b=cand, autojunk=False).ratio()
        if score > best_score:
            best, best_score = cand, score
    return best


@dataclasses.dataclass
class ToolRun:
    ok: bool
    text: str
    error: str
    seconds: float


def run_tool(cmd: list[str]) -> ToolRun:
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    except subprocess.TimeoutExpired:
        return ToolRun(False, "", f"timed out after {TIMEOUT_S} s", time.perf_counter() - start)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        return ToolRun(False, proc.stdout, f"exit {proc.returncode}: {last[:300]}", took)
    if not proc.stdout.strip():
        return ToolRun(False, "", "no output", took)
    return ToolRun(True, proc.stdout, "", took)


def tests_in(suite: Path) -> list[Path]:
    found = []
    for path in sorted(suite.rglob("*")):
        if path.suffix not in TEST_SUFFIXES or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if run_line(text) is not None and any(c.kind in POSITIVE for c in parse_checks(text)):
            found.append(path)
    return found


def commands(path: Path, opts: Options, perl: Path) -> dict[str, list[str]]:
    return {
        "xlate": [sys.executable, "-m", "xlate", "translate", str(path), "--to", "hip", "--summary", "none", *opts.xlate],
        "hipify-perl": ["perl", str(perl), "-quiet-warnings", *opts.perl, str(path)],
    }


def evaluate(path: Path, suite: Path, perl: Path, first: int) -> dict:
    text = path.read_text(encoding="utf-8", errors="replace")
    checks = parse_checks(text)
    opts = options(run_line(text) or "")
    cmds = commands(path, opts, perl)
    order = list(cmds) if first == 0 else list(cmds)[::-1]
    runs = {tool: run_tool(cmds[tool]) for tool in order}
    entry: dict = {"file": str(path.relative_to(suite)), "options": {"xlate": opts.xlate, "hipify-perl": opts.perl},
                   "unmapped": opts.unmapped, "tools": {}}
    positive = [c for c in checks if c.kind in POSITIVE]
    nots = [c for c in checks if c.kind == "CHECK-NOT"]
    for tool, tr in runs.items():
        if tr.ok:
            out = harness_output(tr.text)
            results, violations = score(checks, out)
            loose_results, loose_violations = score(checks, out, loose=True)
        else:
            results = [Outcome(c, False) for c in positive]
            violations, loose_results, loose_violations = [], results, []
        found = sum(r.found for r in results)
        entry["tools"][tool] = {
            "ok": tr.ok, "error": tr.error, "seconds": tr.seconds,
            "found": found, "expected": len(positive), "nots": len(nots), "not_violated": len(violations),
            "exact": tr.ok and found == len(positive) and not violations,
            "loose_found": sum(r.found for r in loose_results),
            "loose_exact": tr.ok and all(r.found for r in loose_results) and not loose_violations,
            "misses": [{"line": r.check.line, "kind": r.check.kind, "expected": r.check.pattern, "source": r.check.source,
                        "nearest": r.nearest} for r in results if not r.found],
            "violations": [{"line": v.check.line, "kind": "CHECK-NOT", "expected": v.check.pattern, "source": v.check.source,
                            "nearest": v.nearest} for v in violations],
        }
    return entry


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", type=Path, required=True, help="folder holding HIPIFY's tests/unit_tests (or part of it)")
    p.add_argument("--hipify-perl", type=Path, default=Path(os.environ.get("HIPIFY_PERL", DEFAULT_PERL)))
    p.add_argument("--json", type=Path, help="write every file's outcome, misses included, to this file")
    p.add_argument("--failures", choices=("xlate", "hipify-perl"), help="print each missed line of this tool")
    p.add_argument("--only", help="only test files whose path contains this text")
    args = p.parse_args(argv)
    if not args.suite.is_dir():
        print(f"error: --suite {args.suite} is not a folder", file=sys.stderr)
        return 2
    if not args.hipify_perl.is_file():
        print(f"error: hipify-perl not found at {args.hipify_perl} (give --hipify-perl PATH)", file=sys.stderr)
        return 2
    suite = args.suite.resolve()
    tests = [t for t in tests_in(suite) if not args.only or args.only in str(t.relative_to(suite))]
    if not tests:
        print(f"error: no test files (with a RUN line and CHECK lines) under {suite}", file=sys.stderr)
        return 2
    entries = []
    for i, path in enumerate(tests):
        entries.append(evaluate(path, suite, args.hipify_perl, i % 2))
    tools = ("xlate", "hipify-perl")
    print(f"## HIPIFY unit tests: {len(tests)} test files under {suite}")
    print(f"   (hipify-perl: {args.hipify_perl}; both tools run once per file, same run)")
    for tool in tools:
        rows = [e["tools"][tool] for e in entries]
        found, expected = sum(r["found"] for r in rows), sum(r["expected"] for r in rows)
        loose = sum(r["loose_found"] for r in rows)
        exact, loose_exact = sum(r["exact"] for r in rows), sum(r["loose_exact"] for r in rows)
        errors = sum(not r["ok"] for r in rows)
        nots, violated = sum(r["nots"] for r in rows), sum(r["not_violated"] for r in rows)
        secs = [r["seconds"] for r in rows]
        print(f"  {tool:12} {found}/{expected} expected lines = {100 * found / max(expected, 1):.2f}%, "
              f"{exact} of {len(rows)} files exact; ignoring all whitespace {100 * loose / max(expected, 1):.2f}%, "
              f"{loose_exact} exact; CHECK-NOT violated {violated}/{nots}; tool errors {errors}")
        print(f"  {'':12} time {sum(secs):.2f} s in all, median {1000 * statistics.median(secs):.0f} ms per file")
    xs = sum(e["tools"]["xlate"]["seconds"] for e in entries)
    hs = sum(e["tools"]["hipify-perl"]["seconds"] for e in entries)
    print(f"  time ratio (hipify-perl / xlate, summed wall time of the per-file calls): {hs / max(xs, 1e-9):.2f}")
    for e in entries:
        for tool in tools:
            if not e["tools"][tool]["ok"]:
                print(f"  ERROR {tool} {e['file']}: {e['tools'][tool]['error']}")
    if args.failures:
        for e in entries:
            r = e["tools"][args.failures]
            for miss in r["misses"] + r["violations"]:
                print(f"{e['file']}:{miss['line']}: {miss['kind']} {miss['expected']!r} nearest {miss['nearest']!r}")
    if args.json:
        args.json.write_text(json.dumps({"suite": str(suite), "files": entries}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
