"""Kernel gallery benchmark: every CUDA and Triton example on this machine's NVIDIA GPU, each
against a reference measured in the same process, with the project's performance floors.

References: a device-to-device copy (bytes read + written) for the memory-bound kernels,
torch.softmax and torch.nn.functional.rms_norm for the row kernels, torch.matmul (cuBLAS) for
GEMM. Prints one row per run and writes kernels/evidence/bench--<example>--<device>.json.

    PYTHONPATH=src python3 benchmarks/bench_kernels.py [--only NAME ...] [--no-record]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from xlate.kernels import backends, evidence, runner, tools  # noqa: E402
from xlate.kernels.examples import kernels_root, load, names  # noqa: E402

# (example, backend) -> (reference key, minimum ratio); ratio = kernel throughput / reference's
FLOORS = {
    ("vector-add", "cuda"): ("copy", 0.90),
    ("vector-add", "triton"): ("copy", 0.90),
    ("reduction", "cuda"): ("copy", 0.85),
    ("reduction", "triton"): ("copy", 0.85),
    ("transpose", "cuda"): ("copy", 0.85),
    ("transpose", "triton"): ("copy", 0.85),
    ("softmax", "triton"): ("torch.softmax", 1.00),
    ("rmsnorm", "triton"): ("torch rms_norm", 1.00),
    ("gemm", "triton"): ("torch.matmul", 0.80),
    ("gemm", "cuda"): ("torch.matmul", None),  # reported, no floor
    ("softmax", "cuda"): ("torch.softmax", None),
    ("rmsnorm", "cuda"): ("torch rms_norm", None),
    ("histogram", "cuda"): ("copy", None),
    ("histogram", "triton"): ("cuda histogram", None),  # the CUDA histogram timed in this run; GOALS
    ("scan", "cuda"): ("copy", None),  # single pass with decoupled look-back: one read, one write; GOALS
    ("scan", "triton"): ("copy", None),
    ("compaction", "cuda"): ("copy", None),
    ("compaction", "triton"): ("copy", None),
    ("atomics", "cuda"): ("copy", None),
    ("atomics", "triton"): ("copy", None),
    ("cluster-histogram", "cuda"): ("copy", None),  # extras: the global-atomic baseline timed in the same run
    ("cluster-histogram", "triton"): ("copy", None),
    ("grid-sync", "cuda"): ("copy", None),
    ("grid-sync", "triton"): ("copy", None),
    ("precision", "cuda"): ("copy", None),
    ("precision", "triton"): ("copy", None),
    ("bezier", "cuda"): ("copy", None),  # float64 arithmetic and local-memory traffic bound it, not DRAM
    ("bezier", "triton"): ("copy", None),
    ("hopper-gemm", "cuda"): ("torch.matmul A@B.T", None),  # goal 0.7, reported
    ("hopper-gemm", "triton"): ("torch.matmul A@B.T", None),
    ("graphs", "cuda"): (None, None),
    ("graphs", "triton"): (None, None),
    ("runtime", "cuda"): (None, None),  # host-link pipeline; graph replay vs direct issue is in its extras
}
# targets the issue sets that are measured and reported, met or not, without failing the run
GOALS = {("scan", "cuda"): 0.80, ("histogram", "triton"): 0.50, ("hopper-gemm", "cuda"): 0.70}
# references taken from another backend's run of the same example in this process
SAME_RUN = {"cuda histogram": ("histogram", "cuda")}


def references() -> dict[str, dict]:
    """Ceilings measured here and now: GB/s for copies and row kernels, TFLOP/s for GEMM."""
    import torch
    from triton.testing import do_bench

    out = {}
    x = torch.rand(2**28, device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), warmup=50, rep=300, return_mode="median")
    out["copy"] = {"ms": ms, "value": 2 * x.numel() * 4 / (ms * 1e-3) / 1e9, "unit": "GB/s",
                   "what": "device-to-device copy of 1 GiB (read + write)"}
    x = y = None  # free the GiB before the next problem
    rows, cols = load("softmax").sizes["gpu"]
    x = torch.randn(rows, cols, device="cuda")
    ms = do_bench(lambda: torch.softmax(x, dim=1), warmup=50, rep=300, return_mode="median")
    out["torch.softmax"] = {"ms": ms, "value": 8 * x.numel() / (ms * 1e-3) / 1e9, "unit": "GB/s",
                            "what": f"torch.softmax({rows}x{cols} float32, dim=1)"}
    w = torch.rand(cols, device="cuda") + 0.5
    ms = do_bench(lambda: torch.nn.functional.rms_norm(x, (cols,), w, 1e-6), warmup=50, rep=300, return_mode="median")
    out["torch rms_norm"] = {"ms": ms, "value": (8 * x.numel() + 4 * cols) / (ms * 1e-3) / 1e9, "unit": "GB/s",
                             "what": f"torch.nn.functional.rms_norm({rows}x{cols} float32)"}
    x = None
    m, n, k = load("gemm").sizes["gpu"]
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    ms = do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500, return_mode="median")
    out["torch.matmul"] = {"ms": ms, "value": 2 * m * n * k / (ms * 1e-3) / 1e12, "unit": "TFLOP/s",
                           "what": f"torch.matmul bf16 {m}x{n}x{k} (cuBLAS), random data"}
    bt = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    ms = do_bench(lambda: torch.matmul(a, bt.T), warmup=100, rep=500, return_mode="median")
    out["torch.matmul A@B.T"] = {"ms": ms, "value": 2 * m * n * k / (ms * 1e-3) / 1e12, "unit": "TFLOP/s",
                                 "what": f"torch.matmul(a, bt.T) bf16 {m}x{n}x{k} (cuBLAS), random data"}
    torch.cuda.empty_cache()
    return out


def write_record(name: str, rows: list[dict], refs: dict[str, dict], device: tools.Device) -> Path:
    """kernels/evidence/bench--<example>--<device>.json: this example's runs, the references they
    were compared with (measured in the same process), and the hashes of the sources that ran."""
    ex = load(name)
    files = [f for b in ("cuda", "triton") if ex.has(b) for f in backends.sources(ex, b)]
    used = {r["reference"] for r in rows if r["reference"]}
    record = {
        "example": name, "backend": "bench",
        "device": {"name": device.name, "driver": device.driver, "compute_capability": device.compute_capability},
        "sources": evidence.hashes(sorted(set(files)), kernels_root().parent),
        "references": {k: v for k, v in refs.items() if k in used}, "runs": rows,
        "recorded_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    path = evidence.evidence_dir() / f"bench--{name}--{evidence.slug(device.name)}.json"
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="example names (default: all)")
    parser.add_argument("--no-record", action="store_true", help="do not write evidence files")
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()
    device = tools.nvidia_device()
    if device is None:
        print("no NVIDIA GPU here: nothing to benchmark", file=sys.stderr)
        return 2
    todo = args.only or names()
    # build every CUDA program in parallel first; nvcc dominates otherwise
    with cf.ThreadPoolExecutor(8) as pool:
        for fut in [pool.submit(backends.cuda_binary, load(n), device.sm) for n in todo]:
            fut.result()
    refs = references()
    rows, failures = [], []
    for name in todo:
        for backend in ("cuda", "triton"):
            print(f"running {name} [{backend}]", flush=True)
            out = runner.run(name, backend, iters=args.iters, record=not args.no_record)
            ref_key, floor = FLOORS.get((name, backend), (None, None))
            if out.throughput is not None and (name, backend) in SAME_RUN.values():
                key = next(k for k, v in SAME_RUN.items() if v == (name, backend))
                refs[key] = {"ms": out.ms, "value": out.throughput, "unit": out.unit,
                             "what": f"the {backend} {name} example, timed in this run"}
            ratio = None
            if out.throughput is not None and ref_key in refs and refs[ref_key]["unit"] == out.unit:
                ratio = out.throughput / refs[ref_key]["value"]
            ok = out.status != runner.FAILED and (floor is None or (ratio is not None and ratio >= floor))
            if not ok:
                failures.append(f"{name} [{backend}]")
            rows.append({"example": name, "backend": backend, "status": out.status, "cell": out.cell,
                         "ms": out.ms, "throughput": out.throughput, "unit": out.unit, "roofline": out.roofline,
                         "reference": ref_key, "ratio": ratio, "floor": floor, "meets_floor": ok,
                         "goal": GOALS.get((name, backend)),
                         "meets_goal": None if (name, backend) not in GOALS or ratio is None
                         else ratio >= GOALS[(name, backend)],
                         "extras": out.extras})
            print(json.dumps(rows[-1]), flush=True)
    print()
    print(f"device: {device.name}, driver {device.driver}")
    for key, r in refs.items():
        print(f"reference {key:<15} {r['value']:>9,.1f} {r['unit']:<8} ({r['ms']:.3f} ms) {r['what']}")
    print(f"{'example':<11} {'backend':<7} {'ms':>9} {'throughput':>16} {'roofline':>8} {'vs ref':>8} {'floor':>6}  ok")
    for r in rows:
        tp = f"{r['throughput']:,.1f} {r['unit']}" if r["throughput"] is not None else r["status"]
        rf = f"{100 * r['roofline']:.1f}%" if r["roofline"] is not None else "-"
        ratio = f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"
        floor = f"{r['floor']:.2f}" if r["floor"] is not None else "-"
        ms = f"{r['ms']:.4f}" if r["ms"] is not None else "-"
        print(f"{r['example']:<11} {r['backend']:<7} {ms:>9} {tp:>16} {rf:>8} {ratio:>8} {floor:>6}  "
              f"{'yes' if r['meets_floor'] else 'NO'}")
    if not args.no_record:
        for name in todo:
            path = write_record(name, [r for r in rows if r["example"] == name], refs, device)
            print(f"wrote {path.relative_to(REPO)}")
    if failures:
        print("below floor or failed: " + ", ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
