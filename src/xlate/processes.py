"""Every process xlate starts besides itself, and the settings of a process that does bulk work.

One place for:

- forked copies (`start_copy`, `split`): work handed to a copy of this process, made with the standard
  library's `multiprocessing` in its fork start method, so a copy starts with everything this process
  has loaded (the symbol map, the rules, a docs build's pages) and sends back only its result;
- the end of a copy: it ends when this process ends, however it ends (SIGKILL included), by watching
  its parent's sentinel (`multiprocessing.parent_process().sentinel`: the kernel closes it when the
  parent is gone); it ignores Ctrl-C, which is this process's to answer; on any exception here, Ctrl-C
  included, every copy still running is killed at once (see `Copy.kill`);
- the per-file time budget (`time_budget`, `BudgetExceeded`);
- the cyclic garbage collector's settings for bulk work (`quiet_gc`, `pause_gc`, `resume_gc`);
- interruption: `interruptible` turns Ctrl-C into the documented one line and exit code 130.

Where the fork start method is missing (Windows) or other threads run (forking copies none of them),
`can_fork()` says no and callers do the work in this process: the results are the same.
"""

from __future__ import annotations

import os
import sys
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

__all__ = [
    "BudgetExceeded",
    "Copy",
    "can_fork",
    "interruptible",
    "pack",
    "pause_gc",
    "quiet_gc",
    "resume_gc",
    "shares",
    "source_bytes",
    "split",
    "start_copy",
    "time_budget",
    "unpack",
]

T = TypeVar("T")
R = TypeVar("R")


# --- forked copies --------------------------------------------------------------------------------


def can_fork(threads_ok: bool = False) -> bool:
    """Whether this process can hand work to forked copies: the fork start method exists and no other
    thread is running (a fork copies only the calling thread; a lock another thread holds would stay
    locked in the copy forever). threads_ok: the caller knows its copies take no lock another thread
    may hold (a progress bar's thread that only draws on stderr)."""
    import threading

    if not hasattr(os, "fork") or (threading.active_count() > 1 and not threads_ok):
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def pack(value: Any) -> bytes:
    """A result as bytes: marshal (fast, and it keeps shared dicts shared), or pickle for a value marshal
    cannot write (a str subclass, a dataclass). The first byte says which."""
    import marshal

    try:
        return b"m" + marshal.dumps(value)
    except ValueError:
        import pickle

        return b"p" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data: bytes) -> Any:
    """The value `pack` wrote; raises on a truncated or garbled message."""
    if data[:1] == b"m":
        import marshal

        return marshal.loads(data[1:])
    if data[:1] == b"p":
        import pickle

        return pickle.loads(data[1:])
    raise ValueError("not a packed result")


_FAILED = object()  # what Copy.result gives for a copy that died or sent nothing usable


def _watch_parent() -> None:
    """In a copy: end this process as soon as its parent is gone, whatever it is doing then."""
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="xlate-parent-watch", daemon=True).start()


def _copy_main(work: Callable[[], Any], conn: Any) -> None:
    """A copy's whole life: run `work`, send its packed result, exit without the parent's exit handlers."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent answers it
    _watch_parent()
    code = 1
    try:
        conn.send_bytes(packer(work()))
        conn.close()
        code = 0
    except BaseException:  # noqa: BLE001 - the parent does this work itself
        code = 1
    finally:
        os._exit(code)


# How a copy turns its result into bytes; a module attribute so that a test can break it in the copies.
packer: Callable[[Any], bytes] = pack


class Copy(Generic[T]):
    """A forked copy of this process computing one value. `result()` waits for it and reaps the copy."""

    def __init__(self, process: Any, conn: Any) -> None:
        self.process = process
        self.conn = conn

    def result(self, default: Callable[[], T]) -> T:
        """The copy's value; `default()` computed here when the copy failed or sent something unreadable."""
        got: Any = _FAILED
        try:
            data = self.conn.recv_bytes()
        except (EOFError, OSError):  # the copy died before it sent anything
            data = b""
        # (On any other exception, Ctrl-C included, the caller kills the copy rather than wait for it.)
        if data:
            try:
                got = unpack(data)
            except Exception:  # noqa: BLE001 - a truncated or garbled message is not believed
                got = _FAILED
        self._close()
        self.process.join()
        if got is _FAILED or self.process.exitcode != 0:
            return default()
        return got  # type: ignore[no-any-return]

    def kill(self) -> None:
        """End the copy now (used on an exception here, Ctrl-C included) and reap it."""
        try:
            self.process.kill()
        except (OSError, ValueError, AttributeError):
            pass
        self._close()
        try:
            self.process.join()
        except (OSError, ValueError, AssertionError):
            pass

    def _close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass


def start_copy(work: Callable[[], T], threads_ok: bool = False) -> Copy[T] | None:
    """Run `work()` in a forked copy of this process; None where that cannot be done (see can_fork)."""
    if not can_fork(threads_ok):
        return None
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    sys.stdout.flush()  # the copy must not write this process's buffered output a second time
    sys.stderr.flush()
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_copy_main, args=(work, send), name="xlate-copy", daemon=False)
    try:
        process.start()
    except OSError:  # out of processes or memory: the caller does the work here
        receive.close()
        send.close()
        return None
    send.close()  # the copy holds the only write end: end of file once it is gone
    return Copy(process, receive)


def split(items: Sequence[T], shares: list[list[int]], one: Callable[[T], R], here: bool = True,
          each: Callable[[int, R], None] | None = None, threads_ok: bool = False) -> list[R]:
    """[one(item) for item in items], in order, spread over forked copies.

    shares: the indices of items for each process. With `here`, share 0 is done by this process while
    the copies do the others; without, every share goes to a copy and this process waits. `each(i, r)` is
    called for every result as it is taken, in share order. A copy that dies or sends something unreadable
    has its items done here instead, so the results are those of one process. On any exception here,
    Ctrl-C included, every copy is killed at once.
    """
    results: list[Any] = [None] * len(items)
    mine = shares[0] if here else []
    theirs = shares[1:] if here else shares
    copies: list[tuple[Copy[list[R]] | None, list[int]]] = []
    try:
        for share in theirs:
            if share:
                work = functools.partial(_map_share, one, [items[i] for i in share])
                copies.append((start_copy(work, threads_ok), share))
        for i in mine:
            results[i] = one(items[i])
            if each:
                each(i, results[i])
        while copies:
            copy, share = copies[0]

            def here_instead(share: list[int] = share) -> list[R]:
                return [one(items[i]) for i in share]

            got = copy.result(here_instead) if copy is not None else here_instead()
            if not isinstance(got, list) or len(got) != len(share):
                got = here_instead()
            copies.pop(0)
            for k, i in enumerate(share):
                results[i] = got[k]
                if each:
                    each(i, results[i])
    finally:
        for copy, _ in copies:  # only on an exception: end the copies now
            if copy is not None:
                copy.kill()
    return results


def _map_share(one: Callable[[T], R], items: list[T]) -> list[R]:
    return [one(item) for item in items]


def shares(sizes: list[int], jobs: int, head_start: int = 0) -> list[list[int]]:
    """Indices of items for each of `jobs` processes, largest item first to the least loaded (longest
    processing time first: the shares' totals end within one item of each other). Share 0 is this
    process's; every other starts `head_start` behind (what starting a copy costs, in the same unit as
    the sizes). Shares left empty are dropped, share 0 excepted; each share is in the items' order."""
    import heapq

    loads = [(0 if k == 0 else head_start, k) for k in range(jobs)]
    heapq.heapify(loads)
    out: list[list[int]] = [[] for _ in range(jobs)]
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        load, k = heapq.heappop(loads)
        out[k].append(i)
        heapq.heappush(loads, (load + sizes[i] + 1, k))
    for share in out:
        share.sort()
    return [share for k, share in enumerate(out) if share or k == 0]


def source_bytes(paths: Iterable[Any], limit: int) -> int:
    """Bytes in these files, counted up to `limit` (unreadable ones count nothing): whether a run has
    enough work to pay for copies."""
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except (OSError, ValueError, TypeError):
            pass  # the work reports the file's own error
        if total >= limit:
            break
    return total


# --- the time budget of one file ------------------------------------------------------------------


class BudgetExceeded(BaseException):
    """Work ran past its time budget. A BaseException, so that `except Exception` guards around parts of
    the work (one hazard rule, say) let it through and the whole unit of work stops."""


class time_budget:  # noqa: N801 - used as a function: `with time_budget(seconds) as deadline`
    """Context manager: yields the deadline `seconds` from now (a time.monotonic() value; None without a
    budget) and, on the main thread of a POSIX process, arms a one-shot timer whose signal raises
    BudgetExceeded in whatever Python code is running then. Off the main thread only the work's own
    checks of the deadline stop it."""

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
            self.previous = signal.signal(signal.SIGALRM, _raise_budget)
            signal.setitimer(signal.ITIMER_REAL, self.seconds + 0.05)  # the work's own checks usually win
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


def _raise_budget(signum: int, frame: Any) -> None:
    raise BudgetExceeded


# --- the garbage collector ------------------------------------------------------------------------


def quiet_gc() -> None:
    """Collect reference cycles rarely, for a command that explains or translates many files. They
    allocate hundreds of thousands of short-lived, acyclic objects (nodes, occurrences, result dicts)
    that reference counting frees; the default thresholds would run the cycle collector hundreds of
    times per large file for nothing. What is loaded so far (modules, a symbol map already loaded) is
    moved out of the collector's sight: it is never garbage."""
    import gc

    gc.freeze()
    gc.set_threshold(100_000, 50, 50)


def pause_gc() -> bool:
    """Stop automatic collection (a docs build: millions of objects that live until it ends, almost no
    cycles worth reclaiming). Returns whether it was on, for `resume_gc`."""
    import gc

    was = gc.isenabled()
    gc.disable()
    return was


def resume_gc(was_enabled: bool | None, keep: bool) -> None:
    """Collection back as it was before `pause_gc` (no-op for None: nothing was paused). keep: first move
    every live object out of the collector's sight (a finished build's objects, alive until exit, need
    not be walked once more on the way out)."""
    import gc

    if was_enabled is None:
        return
    if keep:
        gc.freeze()
    if was_enabled:
        gc.enable()


# --- interruption ---------------------------------------------------------------------------------


def interruptible(command: str, what_is_left: str, run: Callable[[], int]) -> int:
    """run(), with Ctrl-C answered as every command documents it: one line on stderr saying what the
    interrupted run leaves behind, and exit code 130. Copies are killed where they were started (split)."""
    from xlate.errors import EXIT_INTERRUPTED

    try:
        return run()
    except KeyboardInterrupt:
        print(f"{command}: interrupted; {what_is_left}", file=sys.stderr)
        return EXIT_INTERRUPTED
