"""`xlate explain`: annotate CUDA source with HIP and Metal equivalents and flag portability hazards.

Pipeline per file: read -> parse once (tree-sitter-cuda) -> find CUDA symbols in code -> resolve them
against the SymbolMap -> run every hazard rule on the same tree -> a plain-dict result that the
renderers (text, markdown, json, sarif) turn into output. Bad input never raises: each file carries
its own list of errors and the run goes on.

Kept free of typer, rich and pydantic on the hot path; `main(argv)` is the command-line front end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

from xlate import processes
from xlate.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
# Part of explain's surface (moved to source_files.py, shared with translate).
from xlate.source_files import BINARY_SNIFF as BINARY_SNIFF
from xlate.source_files import MAX_BYTES as MAX_BYTES
from xlate.source_files import empty_result as empty_result
from xlate.source_files import read_source as read_source
from xlate.source_files import check_utf8 as _check_utf8
from xlate.source_files import error as _error

# Seconds one file may take (parse, scan, rules) before it is reported as a per-file error. Every
# stage is meant to be linear; this is the second line of defence against a shape nobody foresaw.
FILE_TIMEOUT = 10.0
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
# Per-file error kinds that make the run fail (exit 2): the file could not be explained at all.
FATAL_KINDS = frozenset({"read", "too-large", "binary", "missing", "internal", "timeout"})


# A file ran past its time budget (--file-timeout). A BaseException, so that the per-rule `except
# Exception` guards let it through and the whole file stops, not just the rule it happened in.
FileTimeout = processes.BudgetExceeded


def explain_source(shown: str, source: bytes, smap: Any, rules: list[Any] | None = None,
                   deadline: float | None = None) -> dict[str, Any]:
    """Annotations, hazards and errors for one file's bytes.

    With a `deadline` (a time.monotonic() value) the parse and the rule loop check the clock and
    raise FileTimeout once it has passed (explain_path also arms a timer for the stages between).
    """
    from xlate.cuda import occurrences as oc
    from xlate.cuda import prepare
    from xlate.cuda.parser import ParseCancelled, parse
    from xlate.cuda.tree import Locator

    from xlate.project import context as project_context

    result = empty_result(shown)
    _check_utf8(source, result)
    try:
        prepared = prepare.for_parsing(source)
        tree = project_context.parsed(prepared) or parse(prepared, deadline=deadline)  # parsed once per tree
    except ParseCancelled:
        raise FileTimeout from None
    except Exception as exc:  # tree-sitter raises on resource exhaustion; the run goes on
        result["errors"].append(_error("parse", f"parser failed: {exc}"))
        return result
    lines = oc.LineIndex(source)
    result["lines"] = source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    for region in oc.error_regions(tree, lines):
        what = f"missing {region.missing!r}" if region.missing else "syntax the parser could not read"
        result["errors"].append(_error("syntax", f"{what}; no annotations in this region", region.line, region.column,
                                       end_line=region.end_line, end_column=region.end_column))
    locator = Locator(tree)  # one cursor for the scanner and the rules (see cuda/tree.py)
    from xlate.project.names import filter_found

    context = project_context.for_file(shown)
    # Names found only through a library prefix that the user defines (`cudnn_handle`) are no API use.
    found = filter_found(oc.find_entries(tree, source, smap, lines, locator), source, smap, locator,
                         context.user_names if context is not None else frozenset())
    occurrences = [o for o, _ in found]
    symbols: dict[str, Any] = {}
    # One equivalents dict per symbol, shared by its annotations (read-only downstream): a large
    # file has thousands of annotations of a few dozen symbols.
    equivalents: dict[str, dict[str, str | None]] = {}
    annotate = result["annotations"].append
    for o, e in found:
        symbol = o[2]
        eq = equivalents.get(symbol)
        if eq is None:
            eq, symbols[symbol] = symbol_json(e)
            equivalents[symbol] = eq
        annotate({"line": o[0], "column": o[1], "symbol": symbol, "concept": o[3], "equivalents": eq})
    result["symbols"] = symbols
    result["hazards"] = run_rules(shown, source, tree, occurrences, result, rules, locator, deadline, context)
    return result


# Map entry -> (entry, its annotations' equivalents, its entry in a result's "symbols"), by the entry's
# identity (the SymbolMap keeps one Entry per spelling). The files of a tree use the same few
# hundred symbols: each one's dicts are built once per run, and being the same objects in every
# file, the JSON writer encodes each once (render/json_.py). Read-only downstream.
_SYMBOL_JSON: dict[int, tuple[Any, dict[str, Any], dict[str, Any]]] = {}


def symbol_json(e: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(equivalents, symbol info) of a map entry, shared by every file that uses it."""
    hit = _SYMBOL_JSON.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1], hit[2]
    eq = {"hip": e.hip, "metal": e.metal}
    info = {"family": e.family, "kind": e.kind, "resolved": e.symbol,
            "relations": {"hip": e.hip_relation, "metal": e.metal_relation},
            "caveats": {"hip": e.hip_caveat, "metal": e.metal_caveat},
            "derived": e.derived, "sides": row_sides(e)}
    if len(_SYMBOL_JSON) > 50_000:  # an editor session that reloads its map many times
        _SYMBOL_JSON.clear()
    _SYMBOL_JSON[id(e)] = (e, eq, info)
    return eq, info


def row_sides(entry: Any) -> dict[str, Any]:
    """Each backend's side of the symbol's row, as lookup's JSON gives it (unknown sides say so)."""
    from xlate import kb

    return kb.sides_json(entry.sides)


def run_rules(shown: str, source: bytes, tree: Any, occurrences: list[Any], result: dict[str, Any], rules: list[Any] | None,
              locator: Any = None, deadline: float | None = None, context: Any = None) -> list[dict[str, Any]]:
    from time import monotonic

    from xlate.cuda.source import SourceView

    if rules is None:
        rules = load_rules(result)
    view = SourceView(shown, source, tree, list(occurrences), locator, context)
    hazards: list[dict[str, Any]] = []
    for rule in rules:
        if deadline is not None and monotonic() > deadline:
            raise FileTimeout
        try:
            found = list(rule.check(view))
        except RecursionError:
            result["errors"].append(_error("rule", f"rule {rule.code} {rule.name} gave up: code nested too deeply"))
            continue
        except Exception as exc:  # one broken rule must not cost the file its other findings
            result["errors"].append(_error("rule", f"rule {rule.code} {rule.name} failed: {type(exc).__name__}: {exc}"))
            continue
        for h in found:
            hazards.append({"line": h.line, "column": h.column, "rule": h.rule, "name": h.name,
                            "severity": _severity_text(h.severity), "backends": list(h.backends),
                            "message": h.message, "end_line": h.end_line})
    hazards.sort(key=lambda h: (h["line"], h["column"], h["rule"]))
    return hazards


# A Severity is a str enum equal to its value: one dictionary look-up gives the plain string, where
# str() of an enum member runs Enum.__str__ in Python for every hazard.
_SEVERITY_TEXT = {"info": "info", "warning": "warning", "error": "error"}


def _severity_text(severity: Any) -> str:
    text = _SEVERITY_TEXT.get(severity) if isinstance(severity, str) else None
    return text if text is not None else getattr(severity, "value", str(severity))


_RULES: list[Any] | None = None


def load_rules(result: dict[str, Any] | None = None) -> list[Any]:
    """Every registered hazard rule; a rule module that fails to import is reported, not fatal."""
    global _RULES
    if _RULES is None:
        try:
            from xlate.rules import all_rules

            _RULES = all_rules()
        except Exception as exc:
            _RULES = []
            if result is not None:
                result["errors"].append(_error("rule", f"hazard rules unavailable: {type(exc).__name__}: {exc}"))
    return _RULES


def explain_path(shown: str, path: Path, smap: Any, timeout: float | None = FILE_TIMEOUT) -> dict[str, Any]:
    """One file's result; a file that takes longer than `timeout` seconds gets a per-file error."""
    result = empty_result(shown)
    source = read_source(path, result)
    if source is None:
        return result
    try:
        with processes.time_budget(timeout) as deadline:
            return explain_source(shown, source, smap, deadline=deadline)
    except FileTimeout:
        result["errors"].append(_error("timeout", f"took longer than the {timeout:g} s budget for one file "
                                       "(--file-timeout); skipped, the other files are explained"))
    except RecursionError:
        result["errors"].append(_error("internal", "code nested too deeply to explain"))
    except Exception as exc:  # last line of defence: a per-file error, never a traceback
        result["errors"].append(_error("internal", f"could not explain this file: {type(exc).__name__}: {exc}"))
    return result


# --- many files ----------------------------------------------------------------------------------

# Explain spreads a tree over this process and forked copies of it only onto CPUs that are idle and from this much source
# on. Measured on a shared 2-core machine (bench_explain.py, sections split and tree-profile): a copy costs 20-50 ms of
# CPU in all (fork, copy-on-write faults, sending its results back, exiting), and explaining takes about 1.2 ms of CPU per
# KB; with a busy second CPU the split made the run slower at every size up to 262 KB, hence the load test. The 48 KB
# floor is an estimate for an idle second CPU (half of 48 KB of work is about the cost of a copy), not a measurement.
SPLIT_MIN_BYTES = 48 * 1024
# Up to this many processes for a tree, each with at least SPLIT_MIN_BYTES of source to explain.
SPLIT_MAX_JOBS = 4


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def idle_cpus() -> float:
    """Usable CPUs minus the 1-minute load average: how many more processes could run now without
    waiting for a CPU (all of them where the system gives no load average)."""
    cpus = usable_cpus()
    try:
        return cpus - os.getloadavg()[0]
    except (AttributeError, OSError):
        return float(cpus)


def auto_jobs(paths: list[Any]) -> int:
    """Processes for explaining these files: this one plus one copy per CPU that is idle (at most
    SPLIT_MAX_JOBS in all), each with SPLIT_MIN_BYTES of source or more; else 1."""
    import math

    cpus = min(usable_cpus(), SPLIT_MAX_JOBS, len(paths))
    if cpus < 2:
        return 1
    # A copy per CPU that is at least half idle by the load average; this process needs none for itself.
    cpus = min(cpus, 1 + max(0, math.floor(idle_cpus() + 0.5)))
    if cpus < 2:
        return 1
    return max(1, min(cpus, processes.source_bytes(paths, cpus * SPLIT_MIN_BYTES) // SPLIT_MIN_BYTES))


def explain_targets(targets: list[Any], smap: Any, jobs: int = 1, root: Path | None = None, progress: bool = False,
                    timeout: float | None = FILE_TIMEOUT) -> list[dict[str, Any]]:
    """Explain files in order, spread over `jobs` processes (this one included) when there are
    enough files (see split_targets).

    Forked processes end with this process: on SIGTERM or SIGKILL of the parent because they watch
    for it (processes.py), on Ctrl-C (KeyboardInterrupt here) because they are killed before it
    propagates."""
    bar = _progress(len(targets)) if progress and len(targets) > 1 else None

    def done(i: int, r: dict[str, Any]) -> None:
        if bar:
            bar[0].advance(bar[1])

    try:
        load_rules()  # imported once here: forked processes inherit the modules
        # (The progress bar's thread may be running: the copies only explain files and never draw.)
        if jobs > 1 and len(targets) >= 2 and processes.can_fork(threads_ok=True):
            return split_targets(targets, smap, jobs, timeout, done)
        results: list[dict[str, Any]] = []
        for i, t in enumerate(targets):
            results.append(explain_path(t.shown, t.path, smap, timeout))
            done(i, results[-1])
        return results
    finally:
        if bar:
            bar[0].stop()


# A forked process starts its share later than this one (fork, sending its results back): its share
# starts this many bytes behind, so the shares end together.
_CHILD_HEAD_START = 4096


def _shares(sizes: list[int], jobs: int) -> list[list[int]]:
    """Indices of the files for each process, share 0 this process's (see processes.shares)."""
    return processes.shares(sizes, jobs, head_start=_CHILD_HEAD_START)


def split_targets(targets: list[Any], smap: Any, jobs: int, timeout: float | None,
                  each: Callable[[int, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Results for `targets`, in order, computed by this process and jobs - 1 forked copies of it.

    Each copy explains its share of the files (by size, see _shares) and sends its results back once
    done; this process explains its own share meanwhile. A copy that dies or sends something
    unreadable has its files explained here instead, so the results are the same as in one process.
    On any exception here, Ctrl-C included, the copies are killed at once; each also ends as soon as
    this process ends, however it ends (processes.split)."""
    sizes = []
    for t in targets:
        try:
            sizes.append(os.stat(t.path).st_size)
        except (OSError, ValueError, TypeError):
            sizes.append(0)

    def one(t: Any) -> dict[str, Any]:
        return explain_path(t.shown, t.path, smap, timeout)

    return processes.split(targets, _shares(sizes, jobs), one, here=True, each=each, threads_ok=True)


def _progress(total: int) -> Any:
    from rich.console import Console
    from rich.progress import Progress

    prog = Progress(console=Console(stderr=True), transient=True)
    task = prog.add_task("explaining", total=total)
    prog.start()
    return prog, task


def exit_code(results: list[dict[str, Any]], fail_on: str | None) -> int:
    if any(e["kind"] in FATAL_KINDS for r in results for e in r["errors"]):
        return EXIT_ERROR
    if fail_on:
        floor = SEVERITY_RANK[fail_on]
        if any(SEVERITY_RANK.get(h["severity"], 0) >= floor for r in results for h in r["hazards"]):
            return EXIT_FINDINGS
    return EXIT_OK


def filter_backend(results: list[dict[str, Any]], backend: str) -> None:
    """Keep hazards that concern the chosen backend (`all` keeps everything)."""
    if backend == "all":
        return
    for r in results:
        r["hazards"] = [h for h in r["hazards"] if backend in h["backends"] or not h["backends"]]


def run(paths: list[str], backend: str = "all", fmt: str = "text", fail_on: str | None = None,
        include: list[str] | None = None, exclude: list[str] | None = None, jobs: int | None = None,
        out: Any = None, glossary: Path | None = None, file_timeout: float | None = FILE_TIMEOUT,
        show_all: bool = False) -> int:
    """The whole command: collect files, explain them, render, and return the exit status."""
    from xlate import kb

    out = out or sys.stdout
    if backend not in ("hip", "metal", "all"):
        print(f"error: --backend must be hip, metal or all, not {backend!r}", file=sys.stderr)
        return EXIT_ERROR
    if fmt not in ("text", "markdown", "json", "sarif"):
        print(f"error: --format must be text, markdown, json or sarif, not {fmt!r}", file=sys.stderr)
        return EXIT_ERROR
    if fail_on not in (None, "warning", "error"):
        print(f"error: --fail-on must be warning or error, not {fail_on!r}", file=sys.stderr)
        return EXIT_ERROR
    try:
        smap = kb.load_symbols(glossary)
    except Exception as exc:  # a glossary with defects (IndexError_) or an unreadable folder
        from xlate import kb

        if not isinstance(exc, (kb.IndexBuildError, OSError)):
            raise
        from xlate.errors import report

        return report(exc)
    from xlate.project import session

    # A folder or a compile_commands.json is a project: its files know each other's headers.
    targets, path_errors, project = session.plan(paths, include, exclude)
    if not jobs or jobs <= 0:
        jobs = auto_jobs([t.path for t in targets])
    interactive = fmt == "text" and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    results = [{**empty_result(e.shown), "errors": [_error("missing" if "no such" in e.message else "read", e.message)]}
               for e in path_errors]
    try:
        results += explain_targets(targets, smap, jobs=jobs, root=glossary, progress=interactive, timeout=file_timeout)
    finally:
        summary = session.finish(project, results)
    filter_backend(results, backend)
    if fmt == "json":
        from xlate.render import json_ as renderer
    elif fmt == "sarif":
        from xlate.render import sarif as renderer  # type: ignore[no-redef]
    elif fmt == "markdown":
        from xlate.render import markdown as renderer  # type: ignore[no-redef]
    else:
        from xlate.render import text as renderer  # type: ignore[no-redef]
    renderer.write(results, out, backend=backend, project=summary, show_all=show_all)
    return exit_code(results, fail_on)


def main(argv: list[str]) -> int:
    """Front end without the CLI framework (fast start); `xlate explain --help` lists the options."""
    from xlate.errors import argument_parser

    p = argument_parser("xlate explain", "Annotate CUDA source with HIP and Metal equivalents and flag portability hazards.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="CUDA files or folders to walk")
    p.add_argument("--backend", "-b", default="all", choices=["hip", "metal", "all"])
    p.add_argument("--format", "-f", dest="fmt", default="text", choices=["text", "markdown", "json", "sarif"])
    p.add_argument("--fail-on", choices=["warning", "error"], default=None, help="exit 1 when a hazard this severe or worse is found")
    p.add_argument("--include", action="append", default=[], metavar="GLOB", help="only walk files matching GLOB (repeatable)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip files matching GLOB (repeatable)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="processes to spread files over, this one included (default: one per idle CPU, up to 4, each with at least 48 KB of source)")
    p.add_argument("--glossary", type=Path, default=None, help="glossary folder (default: the project's glossary/)")
    p.add_argument("--all", dest="show_all", action="store_true",
                   help="text and markdown: show every annotation under its source line (default: hazards first, "
                        "then only what differs, same-name mappings on one line per file)")
    p.add_argument("--file-timeout", type=_seconds, default=FILE_TIMEOUT, metavar="SECONDS",
                   help=f"report a file that takes longer than this as an error and go on (default {FILE_TIMEOUT:g}; 0: no limit)")
    args = p.parse_args(argv)
    processes.quiet_gc()
    return processes.interruptible(
        "xlate explain", "no output written for the files not yet explained",
        lambda: run(args.paths, args.backend, args.fmt, args.fail_on, args.include, args.exclude, args.jobs,
                    glossary=args.glossary, file_timeout=args.file_timeout or None, show_all=args.show_all))


def _seconds(raw: str) -> float:
    """argparse type of --file-timeout: a number of seconds, 0 or more."""
    import argparse
    import math

    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {raw!r}") from None
    if value < 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or a positive number of seconds, not {raw!r}")
    return value
