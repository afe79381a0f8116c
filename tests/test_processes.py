"""The one module that starts processes (xlate.processes): forked copies, the time budget, the collector."""

from __future__ import annotations

import ast
import gc
import os
import threading
import time
from pathlib import Path

import pytest

from xlate import processes

SRC = Path(__file__).resolve().parents[1] / "src" / "xlate"
needs_fork = pytest.mark.skipif(not processes.can_fork(), reason="no fork start method here")


def _forks(tree: ast.AST) -> list[int]:
    """Lines that fork: os.fork / os.forkpty called or referenced, or imported from os by name."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("fork", "forkpty") and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and \
                any(a.name in ("fork", "forkpty") for a in node.names):
            lines.append(node.lineno)
    return lines


def test_the_walk_finds_a_fork() -> None:
    assert _forks(ast.parse("import os\npid = os.fork()\n")) == [2]
    assert _forks(ast.parse("from os import fork\n")) == [1]
    assert _forks(ast.parse("import os\nos.getpid()\n")) == []


def test_no_fork_outside_the_process_module() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "processes.py":
            continue
        for line in _forks(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            found.append(f"{path.relative_to(SRC)}:{line}")
    assert not found, f"os.fork outside xlate/processes.py: {found}"


def _pid_and_square(x: int) -> tuple[int, int]:
    return os.getpid(), x * x


@needs_fork
@pytest.mark.parametrize("here", [True, False])
def test_split_gives_the_results_in_order_from_other_processes(here: bool) -> None:
    items = list(range(10))
    shares = processes.shares([1] * 10, 3)
    seen: list[int] = []
    got = processes.split(items, shares, _pid_and_square, here=here, each=lambda i, r: seen.append(i))
    assert [sq for _, sq in got] == [x * x for x in items]
    pids = {pid for pid, _ in got}
    assert len(pids) == 3 if not here else len(pids) == 3 and os.getpid() in pids
    assert sorted(seen) == items
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every copy was reaped


@needs_fork
def test_a_failing_copy_has_its_share_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(value: object) -> bytes:
        raise RuntimeError("cannot send")

    monkeypatch.setattr(processes, "packer", broken)
    got = processes.split(list(range(6)), processes.shares([1] * 6, 2), _pid_and_square)
    assert [sq for _, sq in got] == [x * x for x in range(6)]
    assert {pid for pid, _ in got} == {os.getpid()}


@needs_fork
def test_an_exception_here_kills_the_copies_at_once() -> None:
    def slow_or_fail(x: int) -> int:
        if os.getpid() == parent and x == 0:
            raise KeyboardInterrupt  # as Ctrl-C would, while the copies are busy
        time.sleep(30)
        return x

    parent = os.getpid()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        processes.split([0, 1, 2], [[0], [1], [2]], slow_or_fail)
    assert time.monotonic() - t0 < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_no_copy_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not processes.can_fork()
        assert processes.start_copy(lambda: 1) is None
        assert processes.split([1, 2], [[0], [1]], lambda x: x + 1) == [2, 3]  # done here instead
    finally:
        stop.set()
        thread.join()


def test_shares_balance_sizes_and_keep_order() -> None:
    sizes = [900, 10, 500, 400, 300, 7, 7, 0, 120_000, 3]
    for jobs in (2, 3, 4):
        shares = processes.shares(sizes, jobs, head_start=4096)
        assert sorted(i for share in shares for i in share) == list(range(len(sizes)))
        assert all(share == sorted(share) for share in shares)
    assert processes.shares([5], 3) == [[0]]


class Label(str):
    """A str subclass: marshal writes only exact built-in types."""


def test_pack_round_trips_marshal_and_pickle() -> None:
    plain = [{"a": [1, None, b"x"]}]
    assert processes.pack(plain)[:1] == b"m" and processes.unpack(processes.pack(plain)) == plain
    assert processes.pack([Label("x")])[:1] == b"p"
    with pytest.raises(ValueError):
        processes.unpack(b"?junk")


@pytest.mark.skipif(not hasattr(os, "setitimer") and os.name != "posix", reason="no interval timer")
def test_the_time_budget_stops_pure_python_work() -> None:
    t0 = time.monotonic()
    with pytest.raises(processes.BudgetExceeded):
        with processes.time_budget(0.2) as deadline:
            assert deadline is not None
            while True:
                pass
    assert time.monotonic() - t0 < 5
    with processes.time_budget(None) as deadline:  # no budget: no deadline, no timer
        assert deadline is None


def test_gc_pause_and_resume() -> None:
    was = gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        state = processes.pause_gc()
        assert not gc.isenabled()
        kept = [[i] for i in range(100)]
        processes.resume_gc(state, keep=True)
        assert gc.isenabled() == was and gc.get_freeze_count() >= frozen + len(kept)
        processes.resume_gc(None, keep=True)  # nothing paused: nothing changes
        assert gc.isenabled() == was
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_interruptible_says_what_is_left_and_exits_130(capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    assert processes.interruptible("xlate x", "nothing written", interrupted) == 130
    assert capsys.readouterr().err == "xlate x: interrupted; nothing written\n"
    assert processes.interruptible("xlate x", "", lambda: 0) == 0
