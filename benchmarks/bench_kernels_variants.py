"""Tuning sweep for the CUDA examples with compile-time knobs (tile shapes, pipeline depth).

Each variant is the example's own source built with -D overrides and run through the same file
protocol and NumPy check as `xlate kernels run`; the table shows which defaults to keep.

    PYTHONPATH=src python3 benchmarks/bench_kernels_variants.py [EXAMPLE ...]
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from xlate.kernels import backends, problems, runner, tools  # noqa: E402
from xlate.kernels.examples import load  # noqa: E402

VARIANTS = {
    "transpose": [[], ["-DTRANSPOSE_TILE=32"], ["-DTRANSPOSE_TILE=32", "-DTRANSPOSE_BY=4"],
                  ["-DTRANSPOSE_BY=16"], ["-DTRANSPOSE_BY=4"]],
    "gemm": [[], ["-DGEMM_GROUP=8"], ["-DGEMM_BK=64"], ["-DGEMM_BK=64", "-DGEMM_STAGES=2"],
             ["-DGEMM_BK=64", "-DGEMM_GROUP=8"], ["-DGEMM_BN=128", "-DGEMM_WN=32", "-DGEMM_GROUP=8"],
             ["-DGEMM_STAGES=4", "-DGEMM_GROUP=8"]],
}


def build(name: str, flags: list[str], sm: str, out: Path) -> Path:
    ex = load(name)
    exe = out / f"{name}{''.join(f.replace('-D', '_') for f in flags)}"
    backends._compile([tools.nvcc(), backends._gencode(sm), "-O3", "-std=c++17", *flags, "-o", str(exe),
                       str(ex.source("cuda"))])
    return exe


def main() -> int:
    only = sys.argv[1:] or list(VARIANTS)
    device = tools.nvidia_device()
    if device is None:
        print("no NVIDIA GPU here", file=sys.stderr)
        return 2
    rng = np.random.default_rng()
    with tempfile.TemporaryDirectory() as tmp:
        with cf.ThreadPoolExecutor(8) as pool:  # nvcc dominates: build every variant at once
            futures = {(name, tuple(flags)): pool.submit(build, name, flags, device.sm, Path(tmp))
                       for name, variants in VARIANTS.items() if name in only for flags in variants}
        for name, variants in VARIANTS.items():
            if name not in only:
                continue
            ex = load(name)
            size = ex.sizes["gpu"]
            inputs = problems.PROBLEMS[name].make(size, rng)
            rows = np.sort(rng.choice(size[0], 256, replace=False)) if name == "gemm" else None
            ref = problems.sampled_reference(name, inputs, rows)
            for flags in variants:
                try:
                    exe = futures[(name, tuple(flags))].result()
                    run = backends.run_program(exe, ex, size, inputs, 20, device.name)
                except backends.BuildError as exc:
                    print(f"{name:<10} {' '.join(flags) or '(defaults)':<45} failed: {exc}")
                    continue
                _, rel = runner._compare(runner._shape_outputs(run.outputs, ref, rows), ref)
                value, unit = runner._throughput(ex, size, run.ms)
                ok = "ok" if rel <= ex.tolerance else f"WRONG {rel:.2g}"
                print(f"{name:<10} {' '.join(flags) or '(defaults)':<45} {run.ms:9.4f} ms {value:10,.1f} {unit:<8} {ok}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
