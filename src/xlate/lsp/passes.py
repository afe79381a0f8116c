"""Passes off the thread that answers requests: a worker process, a queue, cancellation, a budget.

One worker process runs one job at a time; a second, forked ahead from a fork server that has the
glossary loaded, waits warm to take over. The
server's event loop only sends a job and reads its answer (a reader thread blocks on the pipe), so
hover and completion are answered while a pathological file is being checked.

- A newer version of a document replaces its queued job. A job already running for an older version
  is let finish when it is young (its answer is dropped); one that has run CANCEL_AFTER_S or more is
  cancelled by ending the worker, and the warm one takes over.
- A job that runs past the per-pass budget is ended the same way, and its document is told so.
- Long jobs are reported: `on_slow` is called once a job has run PROGRESS_AFTER_S, `on_done` when it
  ends, so the server can send `$/progress`.
The worker runs at a slightly lower priority (nice 3): the server's own process wins the CPU when both want it, without starving the worker on a machine busy with other work.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

CANCEL_AFTER_S = 0.3
PROGRESS_AFTER_S = 0.5
WORKER_NICE = 3
START_TIMEOUT_S = 60.0


@dataclass
class Job:
    kind: str  # "check" or "translate"
    uri: str
    version: int | None
    args: tuple[Any, ...]
    budget_s: float
    id: int = 0
    future: asyncio.Future[Any] | None = None
    started: float | None = None
    ended_because: str | None = None  # "cancelled" or "budget" when the worker was ended under it
    meta: dict[str, Any] = field(default_factory=dict)


class Cancelled(Exception):
    """The job was dropped for a newer version."""


class OverBudget(Exception):
    """The job ran past its time budget."""


class Failed(Exception):
    """The worker reported an error, or died."""


def _context() -> Any:
    """Workers are forked from a fork server that has the glossary loaded (xlate.lsp.preload): no
    thread of the server's is forked, and a replacement worker starts in milliseconds."""
    try:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["xlate.lsp.preload"])
        return ctx
    except ValueError:  # no fork server on this platform
        return multiprocessing.get_context("spawn")


class WorkerProcess:
    """One spawned worker with a pipe; answers arrive on the event loop through a reader thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        from xlate.lsp import worker

        ctx = _context()
        self.loop = loop
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=worker.main, args=(child, WORKER_NICE), daemon=True, name="xlate-pass")
        self.process.start()
        child.close()
        self.ready: asyncio.Future[Any] = loop.create_future()
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.dead = False
        self._send_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True, name="xlate-pass-reader").start()

    def _read(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                break
            except Exception as exc:  # an answer that does not unpickle: report it, keep reading
                logger.error("unreadable answer from the pass worker: %s", exc)
                continue
            self.loop.call_soon_threadsafe(self._deliver, message)
        self.loop.call_soon_threadsafe(self._lost)

    def _deliver(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "ready":
            if not self.ready.done():
                self.ready.set_result(message[1])
            return
        future = self.pending.pop(message[1], None)
        if future is None or future.done():
            return
        if kind == "done":
            future.set_result(message[2])
        else:
            future.set_exception(Failed(message[2]))

    def _lost(self) -> None:
        self.dead = True
        if not self.ready.done():
            self.ready.set_exception(Failed("the pass worker did not start"))
        for future in self.pending.values():
            if not future.done():
                future.set_exception(Failed("the pass worker ended"))
        self.pending.clear()

    async def run(self, job: Job) -> Any:
        future = self.loop.create_future()
        self.pending[job.id] = future
        message = (job.kind, job.id, job.uri, *job.args)
        # Pickling and writing a large document happens on a thread, not on the event loop.
        await self.loop.run_in_executor(None, self._send, message)
        return await future

    def _send(self, message: Any) -> None:
        with self._send_lock:
            self.conn.send(message)

    def notify(self, message: Any) -> None:
        if not self.dead:
            try:
                self._send(message)
            except OSError:
                pass

    def kill(self) -> None:
        self.dead = True
        try:
            self.process.kill()
            self.process.join(timeout=5)
        except Exception:
            pass
        try:
            self.conn.close()
        except OSError:
            pass


class Passes:
    """The queue of jobs and the worker that runs them."""

    def __init__(self, on_slow: Callable[[Job], None] | None = None, on_done: Callable[[Job], None] | None = None) -> None:
        self._queue: OrderedDict[tuple[str, str], Job] = OrderedDict()
        self._ids = itertools.count(1)
        self._worker: WorkerProcess | None = None
        self._spare: WorkerProcess | None = None
        self._current: Job | None = None
        self._wake: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None
        self.on_slow, self.on_done = on_slow, on_done
        self.restarts = 0

    # --- the queue ---------------------------------------------------------------------------

    def submit(self, job: Job) -> asyncio.Future[Any]:
        """Queue a job; a queued job of the same kind for the same document is replaced (its future
        raises Cancelled), and a running one for an older version may be cancelled."""
        loop = asyncio.get_running_loop()
        job.id = next(self._ids)
        job.future = loop.create_future()
        key = (job.kind, job.uri)
        old = self._queue.pop(key, None)
        if old is not None and old.future and not old.future.done():
            old.future.set_exception(Cancelled())
            old.future.exception()  # retrieved: nobody may be waiting on it any more
        self._queue[key] = job
        current = self._current
        if (current is not None and current.kind == "check" and job.kind == "check" and current.uri == job.uri
                and current.started is not None and time.monotonic() - current.started >= CANCEL_AFTER_S):
            self._end_worker(current, "cancelled")
        self._ensure_runner()
        assert self._wake is not None
        self._wake.set()
        return job.future

    def forget(self, uri: str) -> None:
        for key in [k for k in self._queue if k[1] == uri]:
            job = self._queue.pop(key)
            if job.future and not job.future.done():
                job.future.set_exception(Cancelled())
                job.future.exception()
        if self._current is not None and self._current.uri == uri and self._current.started is not None:
            if time.monotonic() - self._current.started >= CANCEL_AFTER_S:
                self._end_worker(self._current, "cancelled")
        if self._worker is not None:
            self._worker.notify(("forget", uri))

    def start(self) -> None:
        """Start the worker ahead of the first job (it loads the glossary while the editor opens)."""
        self._ensure_runner()
        self._fresh_worker()

    def close(self) -> None:
        for w in (self._worker, self._spare):
            if w is not None:
                w.kill()
        self._worker = self._spare = None
        if self._runner is not None:
            self._runner.cancel()

    # --- running ------------------------------------------------------------------------------

    def _ensure_runner(self) -> None:
        if self._runner is None or self._runner.done():
            self._wake = asyncio.Event()
            self._runner = asyncio.get_running_loop().create_task(self._run())

    def _fresh_worker(self) -> WorkerProcess:
        loop = asyncio.get_running_loop()
        if self._worker is None or self._worker.dead:
            if self._spare is not None and not self._spare.dead:
                self._worker, self._spare = self._spare, None
            else:
                self._worker = WorkerProcess(loop)
        if self._spare is None or self._spare.dead:
            self._spare = WorkerProcess(loop)
        return self._worker

    def _end_worker(self, job: Job, why: str) -> None:
        job.ended_because = why
        if self._worker is not None:
            self._worker.kill()
            self.restarts += 1

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            _, job = self._queue.popitem(last=False)
            if job.future is None or job.future.done():
                continue
            await self._run_one(job)

    async def _run_one(self, job: Job) -> None:
        assert job.future is not None
        worker = self._fresh_worker()
        try:
            await asyncio.wait_for(asyncio.shield(worker.ready), START_TIMEOUT_S)
        except Exception as exc:
            worker.kill()
            if not job.future.done():
                job.future.set_exception(Failed(f"the pass worker did not start: {exc}"))
            return
        self._current = job
        job.started = time.monotonic()
        slow = asyncio.get_running_loop().call_later(PROGRESS_AFTER_S, self._slow, job)
        try:
            result = await asyncio.wait_for(worker.run(job), job.budget_s)
        except TimeoutError:
            self._end_worker(job, "budget")
            self._settle(job, exception=OverBudget())
        except Failed as exc:
            if job.ended_because == "cancelled":
                self._settle(job, exception=Cancelled())
            else:
                self._settle(job, exception=exc)
        except Exception as exc:  # the pipe broke while sending
            self._settle(job, exception=Failed(f"{type(exc).__name__}: {exc}"))
        else:
            self._settle(job, result=result)
        finally:
            slow.cancel()
            self._current = None
            if job.meta.get("slow") and self.on_done is not None:
                self.on_done(job)

    def _slow(self, job: Job) -> None:
        job.meta["slow"] = True
        if self.on_slow is not None:
            self.on_slow(job)

    @staticmethod
    def _settle(job: Job, result: Any = None, exception: BaseException | None = None) -> None:
        if job.future is None or job.future.done():
            return
        if exception is not None:
            job.future.set_exception(exception)
        else:
            job.future.set_result(result)
