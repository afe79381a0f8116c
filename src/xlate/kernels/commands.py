"""The `xlate kernels` commands: argument handling and printing around `runner`."""

from __future__ import annotations

import json
import sys

from xlate.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_NOT_RUN, EXIT_OK
from xlate.kernels import runner
from xlate.kernels.examples import ExampleError, load, names


def run_command(name: str, backend: str, size: str | None, iters: int, interpret: bool, record: bool, fmt: str) -> int:
    if iters < 1:
        print("error: --iters must be at least 1", file=sys.stderr)
        return EXIT_ERROR
    try:
        outcome = runner.run(name, backend, size, iters=iters, record=record, interpret=interpret or None)
    except ExampleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if outcome.status == runner.SKIPPED and backend in ("cuda", "hip"):
        ex = load(name)  # still show what the compiler shows on this machine
        note = runner.cuda_cell(ex) if backend == "cuda" else runner.hip_cell(ex)
        outcome.cell += f"; {note.cell}"
    if fmt == "json":
        print(json.dumps(runner.as_json([outcome])[0], indent=2))
    else:
        print(outcome.summary())
    return {runner.SHOWN: EXIT_OK, runner.FAILED: EXIT_FINDINGS}.get(outcome.status, EXIT_NOT_RUN)


def verify_command(only: list[str] | None, fmt: str) -> int:
    known = names()
    unknown = [n for n in only or [] if n not in known]
    if unknown:
        print(f"error: no example named {', '.join(map(repr, unknown))} (known: {', '.join(known)})", file=sys.stderr)
        return EXIT_ERROR
    outcomes = runner.verify(only or None)
    if fmt == "json":
        print(json.dumps(runner.as_json(outcomes), indent=2))
    else:
        print(runner.render_matrix(outcomes))
    return EXIT_FINDINGS if any(o.status == runner.FAILED for o in outcomes) else EXIT_OK
