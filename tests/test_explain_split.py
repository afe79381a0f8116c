"""A tree spread over this process and forked copies of it (explain.split_targets): the same results
as one process, in order, whatever happens to a copy."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from xlate import explain, processes
from xlate import kb
from xlate.cuda.files import collect
from xlate.kb import glossary_root as default_root

FIXTURES = Path(__file__).parent / "fixtures"
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forked copies need os.fork")


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols(default_root())


@pytest.fixture(scope="module")
def targets() -> list:
    found, _ = collect([str(FIXTURES / "explain"), str(FIXTURES / "translate")])
    assert len(found) >= 8
    return found


def _same(a: list[dict], b: list[dict]) -> None:
    assert [r["path"] for r in a] == [r["path"] for r in b]
    assert a == b


def test_shares_cover_every_file_once_and_balance_bytes() -> None:
    sizes = [900, 10, 500, 400, 300, 7, 7, 0, 120_000, 3]
    for jobs in (2, 3, 4):
        shares = explain._shares(sizes, jobs)
        assert sorted(i for share in shares for i in share) == list(range(len(sizes)))
        assert all(share == sorted(share) for share in shares)
    even = [100_000] * 9
    loads = [sum(even[i] for i in share) for share in explain._shares(even, 2)]
    assert max(loads) - min(loads) <= 100_000 + explain._CHILD_HEAD_START  # within one file (and the copy's start)
    assert explain._shares([5], 3) == [[0]]  # no copy without a file to explain


@pytest.mark.parametrize("jobs", [2, 3])
def test_split_gives_the_serial_results_in_order(smap: kb.SymbolMap, targets: list, jobs: int) -> None:
    serial = explain.explain_targets(targets, smap, jobs=1)
    _same(explain.explain_targets(targets, smap, jobs=jobs), serial)


def test_a_copy_that_fails_has_its_files_explained_here(smap: kb.SymbolMap, targets: list,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    serial = explain.explain_targets(targets, smap, jobs=1)

    def broken(results: list) -> bytes:  # runs in the copies only: this process never packs
        raise RuntimeError("a copy that cannot send its results")

    monkeypatch.setattr(processes, "packer", broken)
    seen: list[int] = []
    got = explain.split_targets(targets, smap, 3, explain.FILE_TIMEOUT, lambda i, r: seen.append(i))
    _same(got, serial)
    assert sorted(seen) == list(range(len(targets)))


def test_a_copy_that_sends_garbage_is_not_believed(smap: kb.SymbolMap, targets: list,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    serial = explain.explain_targets(targets, smap, jobs=1)
    monkeypatch.setattr(processes, "packer", lambda results: b"m" + b"\x00not marshal")
    _same(explain.split_targets(targets, smap, 2, explain.FILE_TIMEOUT), serial)


class Label(str):
    """A str subclass: marshal writes only exact built-in types."""


def test_values_marshal_cannot_write_go_by_pickle() -> None:
    import marshal
    import pickle

    plain = [{"path": "a.cu", "hazards": [], "lines": 3}]
    assert processes.pack(plain)[:1] == b"m" and marshal.loads(processes.pack(plain)[1:]) == plain
    odd = [{"path": Label("a.cu")}]
    packed = processes.pack(odd)
    assert packed[:1] == b"p" and pickle.loads(packed[1:]) == odd


def test_no_copy_is_left_after_a_run(smap: kb.SymbolMap, targets: list) -> None:
    explain.explain_targets(targets, smap, jobs=3)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every copy was reaped


def test_auto_jobs_needs_idle_cpus_and_enough_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = [tmp_path / f"s{i}.cu" for i in range(4)]
    for p in small:
        p.write_bytes(b"x" * 1000)
    big = [tmp_path / f"b{i}.cu" for i in range(4)]
    for p in big:
        p.write_bytes(b"x" * explain.SPLIT_MIN_BYTES)

    def machine(cpus: int, load: float) -> None:
        monkeypatch.setattr(explain, "usable_cpus", lambda: cpus)
        monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))

    machine(2, 0.0)
    assert explain.auto_jobs(small) == 1
    assert explain.auto_jobs(big) == 2
    assert explain.auto_jobs(big[:1]) == 1  # one file: nothing to spread
    machine(2, 1.0)  # one CPU busy (another run, this benchmark): the other is idle
    assert explain.auto_jobs(big) == 2
    machine(2, 1.7)  # both mostly busy: a copy would only wait for a CPU
    assert explain.auto_jobs(big) == 1
    machine(2, 5.0)
    assert explain.auto_jobs(big) == 1
    machine(8, 0.2)
    assert explain.auto_jobs(big) == 4
    machine(8, 6.0)
    assert explain.auto_jobs(big) == 3
    machine(1, 0.0)
    assert explain.auto_jobs(big) == 1


def test_the_command_splits_a_big_tree_with_the_same_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explain, "usable_cpus", lambda: 2)
    monkeypatch.setattr(explain, "idle_cpus", lambda: 2.0)
    monkeypatch.setattr(explain, "SPLIT_MIN_BYTES", 1024)
    calls: list[int] = []
    inner = explain.split_targets
    monkeypatch.setattr(explain, "split_targets", lambda *a, **k: calls.append(a[2]) or inner(*a, **k))
    tree = str(FIXTURES / "translate")
    split, serial = io.StringIO(), io.StringIO()
    assert explain.run([tree], fmt="json", out=split) == explain.run([tree], fmt="json", out=serial, jobs=1)
    assert calls == [2]
    assert split.getvalue() == serial.getvalue()
