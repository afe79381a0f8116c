"""`xlate kernels run` and `xlate kernels verify`: build, run, check, time, record.

A run draws fresh random inputs, runs one backend, compares every output with the NumPy
reference (||out - ref|| / ||ref|| against the example's stated tolerance; NaN never passes),
and turns the median time into GB/s or TFLOP/s and a fraction of the spec-sheet ceiling.
"""

from __future__ import annotations

import datetime as dt
import platform
import secrets
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlate.kernels import backends, evidence, problems, specs, tools
from xlate.kernels.examples import BACKENDS, NATIVE_HOST_UNVERIFIED, Example, ExampleError, kernels_root, load, names

SHOWN, SKIPPED, FAILED = "shown", "skipped", "failed"


@dataclass
class Outcome:
    example: str
    backend: str
    status: str  # shown, skipped or failed
    cell: str  # one-line account of what was shown, for the matrix
    where: str = ""
    size: tuple[int, ...] = ()
    max_abs_err: float | None = None
    rel_err: float | None = None
    tolerance: float | None = None
    ms: float | None = None
    throughput: float | None = None
    unit: str | None = None
    roofline: float | None = None
    roofline_of: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    evidence: str | None = None

    def summary(self) -> str:
        lines = [f"{self.example} [{self.backend}] {self.status}: {self.cell}"]
        if self.size:
            lines.append(f"  size        {'x'.join(map(str, self.size))}")
        if self.rel_err is not None:
            lines.append(f"  error       max abs {self.max_abs_err:.3g}, ||out-ref||/||ref|| {self.rel_err:.3g} "
                         f"(tolerance {self.tolerance:g})")
        if self.ms is not None:
            lines.append(f"  time        {self.ms:.4f} ms (median)")
        if self.throughput is not None:
            lines.append(f"  throughput  {self.throughput:,.1f} {self.unit}")
        if self.roofline is not None:
            lines.append(f"  roofline    {100 * self.roofline:.1f}% of {self.roofline_of}")
        elif self.roofline_of:
            lines.append(f"  roofline    n/a: {self.roofline_of}")
        for k, v in self.extras.items():
            lines.append(f"  {k:<11} {v}")
        if self.evidence:
            lines.append(f"  evidence    {self.evidence}")
        return "\n".join(lines)


def _compare(out: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> tuple[float, float]:
    each = _compare_each(out, ref)
    return (max((a for a, _ in each.values()), default=0.0), max((r for _, r in each.values()), default=0.0))


def _compare_each(out: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """(max abs error, ||out - ref|| / ||ref||) of every output; inf where an output is not finite."""
    each: dict[str, tuple[float, float]] = {}
    for name, want in ref.items():
        if name not in out:
            raise backends.BuildError(f"no output named {name!r}")
        got = np.asarray(out[name], dtype=np.float64).reshape(-1)
        want = np.asarray(want, dtype=np.float64).reshape(-1)
        if got.size != want.size:
            raise backends.BuildError(f"output {name!r} has {got.size} elements, expected {want.size}")
        if not np.all(np.isfinite(got)):
            each[name] = (float("inf"), float("inf"))
            continue
        diff = got - want
        denom = float(np.linalg.norm(want))
        rel = float(np.linalg.norm(diff)) / denom if denom else float(np.linalg.norm(diff))
        each[name] = (float(np.max(np.abs(diff))) if diff.size else 0.0, rel)
    return each


def _within(ex: Example, each: dict[str, tuple[float, float]]) -> bool:
    """Every output within its tolerance: example.yaml's `tolerances` per output, else `tolerance`."""
    per = ex.raw.get("tolerances") or {}
    return all(rel <= float(per.get(name, ex.tolerance)) for name, (_, rel) in each.items())


def _shape_outputs(out: dict[str, np.ndarray], ref: dict[str, np.ndarray], rows: np.ndarray | None) -> dict[str, np.ndarray]:
    shaped = {}
    for name, want in ref.items():
        if name not in out:
            continue
        arr = np.asarray(out[name])
        if rows is not None:
            cols = want.shape[-1]
            arr = arr.reshape(-1, cols)[rows]
        shaped[name] = arr.reshape(want.shape)
    return shaped


def _throughput(ex: Example, size: tuple[int, ...], ms: float) -> tuple[float, str]:
    p = problems.PROBLEMS[ex.name]
    if ex.metric == "compute":
        return p.flops(size) / (ms * 1e-3) / 1e12, "TFLOP/s"
    if ex.metric == "launch":  # a chain of tiny kernels: what counts is kernels completed per second
        return p.flops(size) / (ms * 1e-3) / 1e3, "k kernels/s"
    return p.bytes_moved(size) / (ms * 1e-3) / 1e9, "GB/s"


def _roofline(ex: Example, value: float, device_name: str) -> tuple[float | None, str | None]:
    if ex.metric == "host-link":
        return None, "host-to-device copies; the spec sheets record no host-link bandwidth"
    if ex.metric == "launch":
        return None, "launch-bound chain of small kernels; no spec-sheet ceiling applies"
    spec = specs.find(device_name)
    if spec is None:
        return None, f"no spec sheet in glossary/gpus matches {device_name!r}"
    if ex.metric == "compute":
        if not spec.bf16_tflops:
            return None, f"{spec.path} has no dense bf16 figure"
        return value / spec.bf16_tflops, f"{spec.name} dense bf16 {spec.bf16_tflops:g} TFLOP/s ({spec.path})"
    if not spec.bandwidth_tbs:
        return None, f"{spec.path} has no memory bandwidth figure"
    return value / (spec.bandwidth_tbs * 1000), f"{spec.name} memory bandwidth {spec.bandwidth_tbs:g} TB/s ({spec.path})"


def _versions(backend: str) -> dict[str, str]:
    out: dict[str, str] = {"python": platform.python_version(), "numpy": np.__version__}
    nvcc = tools.nvcc() if backend in ("cuda",) else None
    if nvcc:
        text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        out["nvcc"] = text.strip().splitlines()[-1] if text.strip() else "unknown"
    if backend == "triton":
        import torch
        import triton

        out["triton"] = triton.__version__
        out["torch"] = torch.__version__
    return out


def _gpu_run_possible(backend: str) -> bool:
    if backend == "cuda":
        return tools.nvidia_device() is not None and tools.nvcc() is not None
    if backend == "triton":
        return tools.nvidia_device() is not None
    if backend == "hip":
        return tools.amd_gpu()
    return False


def run(name: str, backend: str, size_text: str | None = None, iters: int = 20, record: bool = True,
        interpret: bool | None = None) -> Outcome:
    """Run one example on one backend and check it. Raises ExampleError for bad requests."""
    if backend not in BACKENDS:
        raise ExampleError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    ex = load(name)
    if backend in ex.absent:
        return Outcome(name, backend, SKIPPED, f"no {backend} version: {ex.absent[backend]}")
    if not ex.source(backend).is_file():
        return Outcome(name, backend, FAILED, f"missing {ex.source(backend).name}")
    on_gpu = _gpu_run_possible(backend) and not interpret
    size = ex.parse_size(size_text, "gpu" if on_gpu else "cpu")
    seed = secrets.randbits(32)
    rng = np.random.default_rng(seed)
    problem = problems.PROBLEMS[name]
    try:
        inputs = problem.make(size, rng)
    except ValueError as exc:  # a size the problem cannot take (precision's n, bezier's degree)
        raise ExampleError(f"--size {'x'.join(map(str, size))}: {exc}") from None
    try:
        if backend == "cuda":
            execution = backends.run_cuda(ex, size, inputs, iters)
        elif backend == "hip":
            execution = backends.run_hip(ex, size, inputs, iters)
        elif backend == "triton":
            execution = backends.run_triton(ex, inputs, interpret=not on_gpu, iters=iters)
        elif backend == "mlx":
            execution = backends.run_mlx(ex, inputs, iters)
        elif ex.native_host is not None:
            execution = backends.run_metal_host(ex, size, inputs, iters)
        else:
            execution = backends.run_mlx(ex, inputs, iters, metal=True)
    except backends.Unavailable as exc:
        return Outcome(name, backend, SKIPPED, f"not run: {exc}", size=size)
    except backends.BuildError as exc:
        return Outcome(name, backend, FAILED, str(exc), size=size)

    rows = None
    if problem.sample_rows and size[0] > problem.sample_rows and np.prod(size) > 2**27:
        rows = np.sort(rng.choice(size[0], problem.sample_rows, replace=False))
        execution.extras["checked"] = f"{problem.sample_rows} random rows of {size[0]} against the reference"
    ref = problems.sampled_reference(name, inputs, rows)
    if problem.canonical is not None:
        try:
            execution.outputs = problem.canonical(execution.outputs)
        except (KeyError, ValueError, IndexError) as exc:
            return Outcome(name, backend, FAILED, f"outputs cannot be read: {exc}", size=size)
    try:
        each = _compare_each(_shape_outputs(execution.outputs, ref, rows), ref)
    except backends.BuildError as exc:
        return Outcome(name, backend, FAILED, str(exc), size=size)
    max_abs = max((a for a, _ in each.values()), default=0.0)
    # the error reported is the worst among outputs held to the example's own tolerance, plus any
    # output with a tolerance of its own that it exceeds
    per = ex.raw.get("tolerances") or {}
    plain = [r for k, (_, r) in each.items() if k not in per]
    rel = max(plain, default=0.0)
    ok = _within(ex, each)
    if per:
        execution.extras["errors"] = {k: f"{r:.3g} (tolerance {float(per.get(k, ex.tolerance)):g})"
                                      for k, (_, r) in each.items()}
    out = Outcome(name, backend, SHOWN if ok else FAILED, "", execution.where, size, max_abs, rel, ex.tolerance,
                  execution.ms, extras=dict(execution.extras))
    over = [f"{k} {r:.3g} > {float(per.get(k, ex.tolerance)):g}" for k, (_, r) in each.items()
            if r > float(per.get(k, ex.tolerance))]
    verdict = f"max err {max_abs:.2g}" if ok else f"WRONG: error over tolerance ({', '.join(over)})"
    if on_gpu and execution.ms:
        out.throughput, out.unit = _throughput(ex, size, execution.ms)
        out.roofline, out.roofline_of = _roofline(ex, out.throughput, execution.where.removeprefix("ran on "))
        frac = f", {100 * out.roofline:.0f}% of roofline" if out.roofline is not None else ""
        out.cell = f"{execution.where}: {out.throughput:,.0f} {out.unit}{frac}, {verdict}"
        if record and ok:
            out.evidence = str(_record(ex, backend, out, seed))
    else:
        out.cell = f"{execution.where}, {verdict}"
    return out


def _record(ex: Example, backend: str, out: Outcome, seed: int) -> Path:
    device = tools.nvidia_device()
    repo = kernels_root().parent
    record = {
        "example": ex.name,
        "backend": backend,
        "device": {"name": out.where.removeprefix("ran on "), "driver": device.driver if device else None,
                   "compute_capability": device.compute_capability if device else None},
        "sources": evidence.hashes(backends.sources(ex, backend), repo),
        "size": dict(zip(ex.size_names, out.size)),
        "seed": seed,
        "tolerance": out.tolerance,
        "max_abs_err": out.max_abs_err,
        "rel_err": out.rel_err,
        "time_ms_median": out.ms,
        "throughput": {"value": out.throughput, "unit": out.unit},
        "roofline": {"fraction": out.roofline, "of": out.roofline_of},
        "extras": out.extras,
        "versions": _versions(backend),
        "recorded_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    return evidence.write(record)


# --- compile-time checks ---------------------------------------------------------------------------


def cuda_cell(ex: Example) -> Outcome:
    try:
        text = backends.sass(backends.cuda_cubin(ex))
    except backends.Unavailable as exc:
        return Outcome(ex.name, "cuda", SKIPPED, f"not compiled: {exc}")
    except backends.BuildError as exc:
        return Outcome(ex.name, "cuda", FAILED, f"sm_90a build failed: {exc}")
    present, missing = backends.found_instructions(text, ex.expect.get("sass", []))
    if missing:
        return Outcome(ex.name, "cuda", FAILED, f"compiled sm_90a, SASS lacks {', '.join(missing)}")
    return Outcome(ex.name, "cuda", SHOWN, f"compiled sm_90a: {', '.join(present)}")


def hip_cell(ex: Example) -> Outcome:
    if "hip" in ex.absent:
        return Outcome(ex.name, "hip", SKIPPED, f"no HIP version: {ex.absent['hip']}")
    archs = list(backends.HIP_ARCHS) + (["gfx1100"] if "amdgcn_gfx1100" in ex.expect else [])
    shown = []
    for arch in archs:
        try:
            text = backends.hip_asm(ex, arch)
        except backends.Unavailable as exc:
            return Outcome(ex.name, "hip", SKIPPED, f"not compiled: {exc}")
        except backends.BuildError as exc:
            return Outcome(ex.name, "hip", FAILED, f"{arch} build failed: {exc}")
        present, missing = backends.found_instructions(text, backends.expected_amdgcn(ex, arch))
        if missing:
            return Outcome(ex.name, "hip", FAILED, f"compiled {arch}, assembly lacks {', '.join(missing)}")
        shown.append((arch, present))
    parts = []
    base = set(ex.expect.get("amdgcn", []))
    for arch, present in shown:
        own = present if arch == "gfx1100" else [i for i in present if i not in base]
        parts.append(f"{arch}" + (f" ({', '.join(own)})" if own else ""))
    main = [i for i in shown[0][1] if i in base] or shown[0][1]
    try:
        backends.hip_host_check(ex)
    except backends.BuildError as exc:
        return Outcome(ex.name, "hip", FAILED, f"device code compiled, host code does not: {exc}")
    _, headers = backends.hip_headers(ex)
    return Outcome(ex.name, "hip", SHOWN,
                   f"compiled {', '.join(parts)} with {headers}, host code type-checked: {', '.join(main)}")


def triton_aot_note(ex: Example) -> str:
    """AOT-compile the example's first kernel for sm_90 and gfx942 where example.yaml asks for it."""
    aot = ex.raw.get("triton_aot")
    if not aot:
        return ""
    from xlate.kernels import triton_aot

    notes = []
    for target, key in (("cuda", "ptx"), ("hip", "amdgcn")):
        want = aot.get(key, [])
        text = triton_aot.compile_kernel(ex.source("triton"), aot["kernel"], aot["signature"], aot["constexprs"], target)
        present, missing = backends.found_instructions(text, want)
        if missing:
            raise backends.BuildError(f"Triton AOT {target}: {key} lacks {', '.join(missing)}")
        notes.append(f"{'sm_90' if target == 'cuda' else 'gfx942'} {', '.join(present)}")
    return "; AOT " + ", ".join(notes)


def _evidence_cell(name: str) -> Outcome:
    root = kernels_root()
    records = [(p, r) for p, r in evidence.load_all(root) if r.get("example") == name]
    if not records:
        return Outcome(name, "evidence", SKIPPED, "no GPU evidence recorded")
    parts, status = [], SHOWN
    for path, rec in records:
        why = evidence.staleness(path, rec, root.parent)
        if rec.get("backend") == "bench":
            floors = [r for r in rec.get("runs", []) if r.get("floor")]
            met = all(r.get("meets_floor") for r in floors)
            if floors:
                parts.append(f"floors {'met' if met else 'MISSED'} ({'fresh' if not why else 'STALE'})")
            if why or not met:
                status = FAILED
            continue
        tp = rec.get("throughput") or {}
        dev = str(rec.get("device", {}).get("name", "?")).replace("NVIDIA ", "")
        frac = (rec.get("roofline") or {}).get("fraction")
        figure = f"{tp.get('value', 0):,.0f} {tp.get('unit', '')}" + (f" ({100 * frac:.0f}%)" if frac else "")
        extras = rec.get("extras") or {}
        if extras.get("overlap_speedup"):
            figure += f", overlap {float(extras['overlap_speedup']):.2f}x faster than serial"
        if extras.get("graph_speedup"):
            figure += f", graph replay {float(extras['graph_speedup']):.2f}x faster than launch by launch"
        if extras.get("tile_shape"):
            figure += f", tile shape {extras['tile_shape']} chosen on the input"
        parts.append(f"{rec['backend']} {dev} {figure} ({'fresh' if not why else 'STALE'})")
        if why:
            status = FAILED
    return Outcome(name, "evidence", status, "evidence: " + "; ".join(parts))


def verify(only: list[str] | None = None, gpu: bool | None = None) -> list[Outcome]:
    """Everything this machine can show for every example and backend."""
    out: list[Outcome] = []
    gpu = tools.nvidia_device() is not None if gpu is None else gpu
    for name in only or names():
        try:
            ex = load(name)
        except ExampleError as exc:
            out.append(Outcome(name, "cuda", FAILED, str(exc)))
            continue
        out.append(run(name, "cuda", record=True) if gpu else cuda_cell(ex))
        hip = hip_cell(ex)
        if hip.status == SHOWN and tools.amd_gpu():
            hip = run(name, "hip")
        out.append(hip)
        tri = run(name, "triton", record=gpu, interpret=not gpu)
        if tri.status == SHOWN and not gpu:
            try:
                tri.cell += triton_aot_note(ex)
            except (backends.BuildError, backends.Unavailable) as exc:
                tri.status, tri.cell = FAILED, f"{tri.cell}; {exc}"
        out.append(tri)
        out.append(run(name, "mlx"))
        metal = run(name, "metal")
        if metal.status == SKIPPED and ex.native_host is not None:
            metal.cell = f"skipped: no Metal (not run here); {ex.native_host.name} and its library are {NATIVE_HOST_UNVERIFIED}"
        elif metal.status == SKIPPED and "Metal" in metal.cell:
            metal.cell = "skipped: no Metal (not run here)"
        out.append(metal)
        out.append(_evidence_cell(name))
    return out


COLUMNS = ("cuda", "hip", "triton", "mlx", "metal", "evidence")


def render_matrix(outcomes: list[Outcome]) -> str:
    """example x backend: one block per example with what each cell showed, then the grid of ok / -- / FAIL."""
    mark = {SHOWN: "ok  ", SKIPPED: "--  ", FAILED: "FAIL"}
    lines = []
    for name in dict.fromkeys(o.example for o in outcomes):
        lines.append(name)
        for o in outcomes:
            if o.example == name:
                cell = o.cell.splitlines()[0] if o.cell else ""
                lines.append(f"  {o.backend:<8} {mark[o.status]} {cell}")
    # The same outcomes as one grid: an example a row, a backend a column.
    columns = list(dict.fromkeys(o.backend for o in outcomes))
    examples = list(dict.fromkeys(o.example for o in outcomes))
    cells = {(o.example, o.backend): mark[o.status].strip() for o in outcomes}
    width = max(len(n) for n in examples) if examples else 7
    lines.append("")
    lines.append(f"{'example':<{width}}  " + "  ".join(f"{c:<8}" for c in columns))
    for name in examples:
        lines.append(f"{name:<{width}}  " + "  ".join(f"{cells.get((name, c), ''):<8}" for c in columns))
    shown = sum(o.status == SHOWN for o in outcomes)
    failed = sum(o.status == FAILED for o in outcomes)
    lines.append(f"{shown} shown, {failed} failed, {len(outcomes) - shown - failed} skipped")
    return "\n".join(lines)


def as_json(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    return [asdict(o) for o in outcomes]
