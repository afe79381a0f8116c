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
from collections.abc import Callable, Iterable
from typing import Any

MAX_BYTES = 8 * 1024 * 1024  # larger files are reported and skipped: sources this big are generated
# Seconds one file may take (parse, scan, rules) before it is reported as a per-file error. Every
# stage is meant to be linear; this is the second line of defence against a shape nobody foresaw.
FILE_TIMEOUT = 10.0
BINARY_SNIFF = 8192
EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
# Per-file error kinds that make the run fail (exit 2): the file could not be explained at all.
FATAL_KINDS = frozenset({"read", "too-large", "binary", "missing", "internal", "timeout"})


class FileTimeout(BaseException):
    """A file ran past its time budget. A BaseException, so that the per-rule `except Exception`
    guards let it through and the whole file stops, not just the rule it happened in."""


def _error(kind: str, message: str, line: int | None = None, column: int | None = None, **extra: Any) -> dict[str, Any]:
    err: dict[str, Any] = {"kind": kind, "message": message}
    if line is not None:
        err["line"] = line
        err["column"] = column or 1
    err.update(extra)
    return err


def empty_result(shown: str) -> dict[str, Any]:
    return {"path": shown, "lines": 0, "annotations": [], "hazards": [], "errors": [], "symbols": {}}


def read_source(path: Path, result: dict[str, Any]) -> bytes | None:
    """The file's bytes, or None with a per-file error saying why not."""
    from xlate.cuda.files import describe_os_error

    import stat

    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            result["errors"].append(_error("read", "is a directory"))
            return None
        if not stat.S_ISREG(st.st_mode):  # a pipe or device would block or never end
            result["errors"].append(_error("read", "not a regular file (pipe, socket or device); skipped"))
            return None
        size = st.st_size
        if size > MAX_BYTES:
            result["errors"].append(_error("too-large", f"file is {size / 1e6:.1f} MB, over the {MAX_BYTES / 1e6:.1f} MB limit; skipped"))
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        result["errors"].append(_error("read", f"cannot read: {describe_os_error(exc)}"))
        return None
    if len(data) > MAX_BYTES:  # grew while we looked
        result["errors"].append(_error("too-large", f"file is over the {MAX_BYTES / 1e6:.1f} MB limit; skipped"))
        return None
    if not data.strip():
        result["errors"].append(_error("empty", "empty file: nothing to explain"))
        return None
    if b"\0" in data[:BINARY_SNIFF]:
        result["errors"].append(_error("binary", "binary file (NUL bytes): not source code; skipped"))
        return None
    return data


def _check_utf8(source: bytes, result: dict[str, Any]) -> None:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        from xlate.cuda.occurrences import LineIndex

        line, col = LineIndex(source).position(exc.start)
        result["errors"].append(_error("encoding", f"not UTF-8 text ({exc.reason} at byte {exc.start}); "
                                       "explained anyway, columns on lines with such bytes are approximate", line, col))


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
    from xlate.lookup import side_json

    sides = (entry.row or {}).get("sides", {})
    return {b: side_json(sides.get(b)) for b in ("hip", "roc", "miopen", "metal", "mlx", "triton") if b in sides or b in ("hip", "metal")}


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
        with _time_budget(timeout) as deadline:
            return explain_source(shown, source, smap, deadline=deadline)
    except FileTimeout:
        result["errors"].append(_error("timeout", f"took longer than the {timeout:g} s budget for one file "
                                       "(--file-timeout); skipped, the other files are explained"))
    except RecursionError:
        result["errors"].append(_error("internal", "code nested too deeply to explain"))
    except Exception as exc:  # last line of defence: a per-file error, never a traceback
        result["errors"].append(_error("internal", f"could not explain this file: {type(exc).__name__}: {exc}"))
    return result


class _time_budget:
    """Context manager: yields the deadline for `seconds` from now (None without a budget) and, on
    the main thread of a POSIX process, arms a one-shot timer whose signal raises FileTimeout in
    whatever Python code is running then (the scanner, a rule). Off the main thread only the
    parse and the rule loop check the deadline."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds if seconds and seconds > 0 else None
        self.armed = False
        self.previous: Any = None

    def __enter__(self) -> float | None:
        if self.seconds is None:
            return None
        import threading
        from time import monotonic

        signal = _signals()
        deadline = monotonic() + self.seconds
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGALRM, _raise_timeout)
            signal.setitimer(signal.ITIMER_REAL, self.seconds + 0.05)  # the cooperative checks usually win
            self.armed = True
        return deadline

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal = _signals()
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


def _signals() -> Any:
    """The signal functions. CPython's `_signal` is the module `signal` wraps, loaded with the
    interpreter; `signal` itself builds its enum classes on import (about 1 ms of a cold run), and
    the budget needs none of them."""
    try:
        import _signal

        return _signal
    except ImportError:  # another interpreter
        import signal

        return signal


def _raise_timeout(signum: int, frame: Any) -> None:
    raise FileTimeout


# --- many files ----------------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Make this worker end when the process that started it ends, however it ends (SIGKILL
    included): Linux delivers SIGKILL to the worker on its parent's death (prctl's death signal);
    elsewhere a thread watches for the parent to go away. A parent that died before the signal was
    set is caught by comparing parent ids."""
    import signal

    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)  # the parent is already gone
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="xlate-parent-watch", daemon=True).start()


# Unless --jobs says otherwise, below this much source a pool costs more than it saves: forking, a second start-up and sending the
# results back take about as long as explaining ~300 KB in one process (benchmarks/bench_explain.py). Used by the translator's
# pool (map_in_workers); explain itself splits a tree from SPLIT_MIN_BYTES on (see split_targets).
POOL_MIN_BYTES = 256 * 1024
# Explain spreads a tree over this process and forked copies of it only onto CPUs that are idle and from this much source
# on. Measured on a shared 2-core machine (bench_explain.py, sections split and tree-profile): a copy costs 20-50 ms of
# CPU in all (fork, copy-on-write faults, sending its results back, exiting), and explaining takes about 1.2 ms of CPU per
# KB; with a busy second CPU the split made the run slower at every size up to 262 KB, hence the load test. The 48 KB
# floor is an estimate for an idle second CPU (half of 48 KB of work is about the cost of a copy), not a measurement.
SPLIT_MIN_BYTES = 48 * 1024
# Up to this many processes for a tree, each with at least SPLIT_MIN_BYTES of source to explain.
SPLIT_MAX_JOBS = 4


def source_bytes(paths: Iterable[Any], limit: int = POOL_MIN_BYTES) -> int:
    """Bytes in these files, counted up to `limit` (unreadable ones count nothing)."""
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except (OSError, ValueError, TypeError):
            pass  # explain_path reports the file's own error
        if total >= limit:
            break
    return total


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
    return max(1, min(cpus, source_bytes(paths, cpus * SPLIT_MIN_BYTES) // SPLIT_MIN_BYTES))


def explain_targets(targets: list[Any], smap: Any, jobs: int = 1, root: Path | None = None, progress: bool = False,
                    timeout: float | None = FILE_TIMEOUT) -> list[dict[str, Any]]:
    """Explain files in order, spread over `jobs` processes (this one included) when there are
    enough files (see split_targets).

    Forked processes end with this process: on SIGTERM or SIGKILL of the parent through their death
    signal, on Ctrl-C (KeyboardInterrupt here) because they are killed before it propagates."""
    bar = _progress(len(targets)) if progress and len(targets) > 1 else None

    def done(i: int, r: dict[str, Any]) -> None:
        if bar:
            bar[0].advance(bar[1])

    try:
        load_rules()  # imported once here: forked processes inherit the modules
        if jobs > 1 and len(targets) >= 2 and hasattr(os, "fork"):
            return split_targets(targets, smap, jobs, timeout, done)
        results: list[dict[str, Any]] = []
        for i, t in enumerate(targets):
            results.append(explain_path(t.shown, t.path, smap, timeout))
            done(i, results[-1])
        return results
    finally:
        if bar:
            bar[0].stop()


# A forked process starts its share later than this one (fork, its death signal, sending its
# results back): its share starts this many bytes behind, so the shares end together.
_CHILD_HEAD_START = 4096


def _shares(sizes: list[int], jobs: int) -> list[list[int]]:
    """Indices of the files for each process, largest file first to the least loaded (longest
    processing time first: the shares' byte totals end within one file of each other). Share 0 is
    this process's."""
    import heapq

    loads = [(0 if k == 0 else _CHILD_HEAD_START, k) for k in range(jobs)]
    heapq.heapify(loads)
    shares: list[list[int]] = [[] for _ in range(jobs)]
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        load, k = heapq.heappop(loads)
        shares[k].append(i)
        heapq.heappush(loads, (load + sizes[i] + 1, k))
    for share in shares:
        share.sort()
    return [share for k, share in enumerate(shares) if share or k == 0]


def split_targets(targets: list[Any], smap: Any, jobs: int, timeout: float | None,
                  each: Callable[[int, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Results for `targets`, in order, computed by this process and jobs - 1 forked copies of it.

    Each copy explains its share of the files (by size, see _shares) and sends its results back
    through a pipe once done, in marshal's format (plain dicts, lists and strings; pickle if a
    value is something else); this process explains its own share meanwhile. A copy that dies
    or sends something unreadable has its files explained here instead, so the results are the
    same as in one process. On any exception here, Ctrl-C included, the copies are killed at once;
    each also ends as soon as this process ends, however it ends (see the lifeline below)."""
    sizes = []
    for t in targets:
        try:
            sizes.append(os.stat(t.path).st_size)
        except (OSError, ValueError, TypeError):
            sizes.append(0)
    shares = _shares(sizes, jobs)
    results: list[dict[str, Any] | None] = [None] * len(targets)
    children: list[tuple[int, int, list[int]]] = []  # (pid, read end, share)
    # The copies' lifeline: only this process holds its write end, so the kernel closes it when
    # this process ends, however it ends (SIGKILL included), and each copy's watcher then sees
    # end-of-file and ends its copy. Cheaper than a death signal through ctypes (a few ms a copy).
    life_r, life_w = os.pipe()
    try:
        for share in shares[1:]:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the copy: never returns
                os.close(life_w)
                os.close(r)
                for _, other, _ in children:
                    os.close(other)
                _child(life_r, w, [targets[i] for i in share], smap, timeout)
            os.close(w)
            children.append((pid, r, share))
        for i in shares[0]:
            results[i] = explain_path(targets[i].shown, targets[i].path, smap, timeout)
            if each:
                each(i, results[i])
        for pid, r, share in children:
            got = _receive(pid, r, len(share))
            for k, i in enumerate(share):
                results[i] = got[k] if got is not None else explain_path(targets[i].shown, targets[i].path, smap, timeout)
                if each:
                    each(i, results[i])
        children.clear()
    finally:
        for pid, r, _ in children:  # only on an exception: end the copies now
            _end(pid, r)
        os.close(life_r)
        os.close(life_w)
    return results  # type: ignore[return-value]


def _child(life: int, w: int, targets: list[Any], smap: Any, timeout: float | None) -> None:
    """A forked copy's whole life: explain its files, write the results to `w`, exit. It never
    returns to the caller's code and never runs the parent's exit handlers or flushes its output.
    A thread blocked on the lifeline `life` ends the copy at once when the parent is gone."""
    code = 1
    try:
        import signal
        import threading

        def watch() -> None:
            try:
                while os.read(life, 1):
                    pass
            except OSError:
                pass
            os._exit(1)  # the parent is gone: so is this copy, whatever it is doing

        threading.Thread(target=watch, name="xlate-lifeline", daemon=True).start()
        # Ctrl-C reaches the whole process group; the parent alone answers it (and ends the copies).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        results = [explain_path(t.shown, t.path, smap, timeout) for t in targets]
        data = _pack(results)
        view = memoryview(data)
        while view:
            view = view[os.write(w, view):]
        code = 0
    except BaseException:  # noqa: BLE001 - anything here means: the parent explains these files itself
        code = 1
    finally:
        os._exit(code)


def _pack(results: list[dict[str, Any]]) -> bytes:
    """Results as bytes: marshal (fast, and it keeps the shared symbol dicts shared), or pickle
    for a value marshal cannot write. The first byte says which."""
    import marshal

    try:
        return b"m" + marshal.dumps(results)
    except ValueError:
        import pickle

        return b"p" + pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)


def _receive(pid: int, r: int, count: int) -> list[dict[str, Any]] | None:
    """A copy's results (None when it failed), after reading its pipe to the end and reaping it."""
    chunks = []
    try:
        while True:
            chunk = os.read(r, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if status != 0 or not data:
        return None
    try:
        if data[:1] == b"m":
            import marshal

            got = marshal.loads(data[1:])
        else:
            import pickle

            got = pickle.loads(data[1:])
    except Exception:  # a truncated or garbled message: explained here instead
        return None
    return got if isinstance(got, list) and len(got) == count else None


def _end(pid: int, r: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.close(r)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass


def map_in_workers(func: Callable[[Any], Any], items: list[Any], workers: int, initializer: Callable[..., None],
                   initargs: tuple[Any, ...], each: Callable[[Any], None]) -> None:
    """Call `each` with func(item) for every item, in order, computed in `workers` forked processes
    that `initializer(*initargs)` prepares. On any exception, Ctrl-C included, the workers are killed
    at once rather than left to finish their current items."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=initializer, initargs=initargs)
    try:
        chunk = max(1, min(32, len(items) // (workers * 4)))
        for r in pool.map(func, items, chunksize=chunk):
            each(r)
    except BaseException:
        for child in (ctx or mp).active_children():
            child.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


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


def quiet_gc() -> None:
    """Collect reference cycles rarely. Explaining allocates hundreds of thousands of short-lived,
    acyclic objects (nodes, occurrences, result dicts) that reference counting frees; the default
    thresholds would run the cycle collector hundreds of times per large file for nothing."""
    import gc

    gc.freeze()  # what is loaded so far (modules, the symbol map once loaded by the caller) is never garbage
    gc.set_threshold(100_000, 50, 50)


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
    quiet_gc()
    try:
        return run(args.paths, args.backend, args.fmt, args.fail_on, args.include, args.exclude, args.jobs,
                   glossary=args.glossary, file_timeout=args.file_timeout or None, show_all=args.show_all)
    except KeyboardInterrupt:
        print("xlate explain: interrupted; no output written for the files not yet explained", file=sys.stderr)
        return EXIT_INTERRUPTED


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
