"""Tuning sweep for the gallery examples with compile-time knobs, in one GPU process.

CUDA variants are the example's own source built with -D overrides; Triton variants are the
example's own kernel launched with explicit meta-parameters instead of its autotuner. Every
variant runs through the same file protocol (or tensors) and is checked against NumPy like
`xlate kernels run`, and every ratio is taken against a reference timed in this same process:
a device-to-device copy (bytes read + written) for the memory-bound examples, and for the Triton
histogram also the CUDA histogram example. The table shows which defaults to keep.

    PYTHONPATH=src python3 benchmarks/bench_kernels_variants.py [EXAMPLE ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from xlate.kernels import backends, problems, runner, tools  # noqa: E402
from xlate.kernels.examples import load  # noqa: E402

# the scan program sweeps its tile shapes itself (8 one-block-per-tile shapes, then 4 with a
# look-back warp, in that order), checks each against the first on the device and reports each in
# tried_ms; SCAN_ONLY=i keeps shape i alone, so that the checked output is that shape's
VARIANTS = {
    "transpose": [[], ["-DTRANSPOSE_TILE=32"], ["-DTRANSPOSE_TILE=32", "-DTRANSPOSE_BY=4"],
                  ["-DTRANSPOSE_BY=16"], ["-DTRANSPOSE_BY=4"]],
    "gemm": [[], ["-DGEMM_GROUP=8"], ["-DGEMM_BK=64"], ["-DGEMM_BK=64", "-DGEMM_STAGES=2"],
             ["-DGEMM_BK=64", "-DGEMM_GROUP=8"], ["-DGEMM_BN=128", "-DGEMM_WN=32", "-DGEMM_GROUP=8"],
             ["-DGEMM_STAGES=4", "-DGEMM_GROUP=8"]],
    "scan": [["-DSCAN_TRIES=10"], ["-DSCAN_TRIES=10", "-DSCAN_EARLY=0"], ["-DSCAN_TRIES=10", "-DSCAN_ONLY=4"],
             ["-DSCAN_TRIES=10", "-DSCAN_ONLY=8"], ["-DSCAN_TRIES=10", "-DSCAN_ONLY=9"]],
}
# (BLOCK, num_warps, programs per SM) of the Triton histogram's kernel
TRITON_VARIANTS = {
    "histogram": [(8192, 8, 2), (16384, 8, 4), (16384, 16, 4), (32768, 16, 4), (65536, 32, 2)],
}
# (launch function of scan_triton.py, BLOCK, num_warps)
TRITON_SCAN_VARIANTS = [("launch", block, warps) for block, warps in ((4096, 8), (8192, 16), (16384, 16), (16384, 32))]
RUN_LIMIT_S = 30  # a variant that deadlocks costs this much, not the whole session


def build(name: str, flags: list[str], sm: str, out: Path) -> Path:
    """The example built with `flags`, behind a wrapper that kills it after RUN_LIMIT_S."""
    ex = load(name)
    exe = out / f"{name}{''.join(f.replace('-D', '_').replace('=', '-') for f in flags)}"
    backends._compile([tools.nvcc(), backends._gencode(sm), "-O3", "-std=c++17", *flags, "-o", str(exe) + ".bin",
                       str(ex.source("cuda"))])
    exe.write_text(f'#!/bin/sh\nexec timeout -k 5 {RUN_LIMIT_S} "{exe}.bin" "$@"\n', encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def copy_reference() -> dict[str, Any]:
    """A 1 GiB device-to-device copy, timed as benchmarks/bench_kernels.py times it."""
    import torch
    from triton.testing import do_bench

    x = torch.rand(2**28, device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), warmup=50, rep=300, return_mode="median")
    value = 2 * x.numel() * 4 / (ms * 1e-3) / 1e9
    x = y = None  # free the inputs before the next problem
    torch.cuda.empty_cache()
    return {"ms": ms, "value": value, "unit": "GB/s", "what": "device-to-device copy of 1 GiB (read + write)"}


def check(ex: Any, outputs: dict[str, np.ndarray], ref: dict[str, np.ndarray], rows: np.ndarray | None) -> str:
    shaped = runner._shape_outputs(outputs, ref, rows)
    if ex.tolerance == 0 and all(np.issubdtype(v.dtype, np.integer) for v in ref.values()):
        # exact integer results: compare as integers (the float64 norms cost seconds at 2**28)
        bad = [k for k, v in ref.items() if k not in shaped or not np.array_equal(shaped[k].reshape(v.shape), v)]
        return "ok" if not bad else "WRONG " + ",".join(bad)
    _, rel = runner._compare(shaped, ref)
    return "ok" if rel <= ex.tolerance else f"WRONG {rel:.2g}"


def cuda_rows(name: str, futures: dict, device: tools.Device, copy: dict, rng: np.random.Generator) -> list[dict]:
    ex = load(name)
    size = ex.sizes["gpu"]
    inputs = problems.PROBLEMS[name].make(size, rng)
    rows = np.sort(rng.choice(size[0], 256, replace=False)) if name == "gemm" else None
    ref = problems.sampled_reference(name, inputs, rows)
    out = []
    timeouts = 0
    for flags in VARIANTS[name]:
        label = " ".join(flags) or "(defaults)"
        if timeouts >= 2:  # a hang in the kernel itself: the rest would only repeat it
            print(f"{name:<10} {label:<45} skipped after two runs past {RUN_LIMIT_S} s", flush=True)
            out.append({"example": name, "backend": "cuda", "variant": label, "error": "skipped after two timeouts"})
            continue
        try:
            run = backends.run_program(futures[(name, tuple(flags))].result(), ex, size, inputs, 20, device.name)
        except backends.BuildError as exc:
            timeouts += "exited with 124" in str(exc) or "exited with 137" in str(exc)
            print(f"{name:<10} {label:<45} failed: {str(exc)[:300]}", flush=True)
            out.append({"example": name, "backend": "cuda", "variant": label, "error": str(exc)[:2000]})
            continue
        ok = check(ex, run.outputs, ref, rows)
        value, unit = runner._throughput(ex, size, run.ms)
        ratio = value / copy["value"] if unit == copy["unit"] else None
        shown = f"{ratio:6.3f}x copy" if ratio is not None else ""
        print(f"{name:<10} {label:<45} {run.ms:9.4f} ms {value:10,.1f} {unit:<8} {shown} {ok}", flush=True)
        extras = dict(run.extras)
        if extras.get("disagreed"):
            print(f"{'':<10}   output differed from the first shape's: {', '.join(extras['disagreed'])}", flush=True)
        for shape, ms in (extras.get("tried_ms") or {}).items():  # each shape of the program's own sweep
            v, _ = runner._throughput(ex, size, ms)
            r = f"{v / copy['value']:6.3f}x copy" if unit == copy["unit"] else ""
            print(f"{'':<10}   tried {shape:<37} {ms:9.4f} ms {v:10,.1f} {unit:<8} {r}", flush=True)
        out.append({"example": name, "backend": "cuda", "variant": label, "ms": run.ms, "value": value, "unit": unit,
                    "ratio_to_copy": ratio, "check": ok, "extras": extras})
    return out


def triton_rows(name: str, device: tools.Device, copy: dict, rng: np.random.Generator, cuda_exe: Path) -> list[dict]:
    """The Triton histogram's kernel at each meta-parameter set, against the CUDA example timed
    on the same input in this process."""
    import torch
    from triton.testing import do_bench

    ex = load(name)
    size = ex.sizes["gpu"]
    inputs = problems.PROBLEMS[name].make(size, rng)
    ref = problems.sampled_reference(name, inputs, None)
    out = []
    cuda = backends.run_program(cuda_exe, ex, size, inputs, 20, device.name)
    cuda_ok = check(ex, cuda.outputs, ref, None)
    cuda_value, unit = runner._throughput(ex, size, cuda.ms)
    print(f"{name:<10} {'cuda example (reference)':<45} {cuda.ms:9.4f} ms {cuda_value:10,.1f} {unit:<8} "
          f"{cuda_value / copy['value']:6.3f}x copy {cuda_ok}", flush=True)
    out.append({"example": name, "backend": "cuda", "variant": "(defaults)", "ms": cuda.ms, "value": cuda_value,
                "unit": unit, "ratio_to_copy": cuda_value / copy["value"], "check": cuda_ok})
    module = backends.load_module(ex.source("triton"), "gpu")
    data = torch.from_numpy(inputs["data"]).cuda()
    bins = torch.zeros(256, dtype=torch.int32, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = data.numel()

    def measure(label: str, fn) -> None:
        try:
            fn()
            torch.cuda.synchronize()
            ok = check(ex, {"bins": bins.cpu().numpy()}, ref, None)
            ms = float(do_bench(fn, warmup=50, rep=200, return_mode="median"))
        except Exception as exc:  # noqa: BLE001 - a compile error of one variant is a row, not the end
            print(f"{name:<10} {label:<45} failed: {backends._one_line(exc)[:300]}", flush=True)
            out.append({"example": name, "backend": "triton", "variant": label, "error": backends._one_line(exc)})
            return
        value, unit = runner._throughput(ex, size, ms)
        print(f"{name:<10} {label:<45} {ms:9.4f} ms {value:10,.1f} {unit:<8} {value / cuda_value:6.3f}x cuda "
              f"{value / copy['value']:6.3f}x copy {ok}", flush=True)
        out.append({"example": name, "backend": "triton", "variant": label, "ms": ms, "value": value, "unit": unit,
                    "ratio_to_cuda": value / cuda_value, "ratio_to_copy": value / copy["value"], "check": ok})

    for block, warps, per_sm in TRITON_VARIANTS[name]:
        def fn(block=block, warps=warps, per_sm=per_sm) -> None:
            bins.zero_()
            module.histogram_kernel[(sms * per_sm,)](data, bins, n, BLOCK=block, BINS=256, PROGRAMS_PER_SM=per_sm,
                                                     num_warps=warps)
        measure(f"BLOCK={block} warps={warps} per_sm={per_sm}", fn)
    measure("(the example's launch: autotuned)", lambda: module.launch(data, bins))
    return out


def triton_scan_rows(device: tools.Device, copy: dict, rng: np.random.Generator) -> list[dict]:
    """The Triton scan's schemes and block sizes, against the copy timed in this process."""
    import torch
    from triton.testing import do_bench

    ex = load("scan")
    size = ex.sizes["gpu"]
    inputs = problems.PROBLEMS["scan"].make(size, rng)
    ref = problems.sampled_reference("scan", inputs, None)
    module = backends.load_module(ex.source("triton"), "gpu")
    x = torch.from_numpy(inputs["x"]).cuda()
    y = torch.empty_like(x)
    out = []
    for fn_name, block, warps in TRITON_SCAN_VARIANTS:
        label = f"{fn_name} BLOCK={block} warps={warps}"
        fn = getattr(module, fn_name)
        try:
            y.fill_(-1)
            fn(x, y, block=block, warps=warps)
            torch.cuda.synchronize()
            ok = check(ex, {"y": y.cpu().numpy()}, ref, None)
            ms = float(do_bench(lambda fn=fn, block=block, warps=warps: fn(x, y, block=block, warps=warps), warmup=50, rep=200,
                                return_mode="median"))
        except Exception as exc:  # noqa: BLE001 - one variant's compile error is a row
            print(f"{'scan':<10} {label:<45} failed: {backends._one_line(exc)[:300]}", flush=True)
            out.append({"example": "scan", "backend": "triton", "variant": label, "error": backends._one_line(exc)})
            continue
        value, unit = runner._throughput(ex, size, ms)
        print(f"{'scan':<10} {label:<45} {ms:9.4f} ms {value:10,.1f} {unit:<8} {value / copy['value']:6.3f}x copy {ok}",
              flush=True)
        out.append({"example": "scan", "backend": "triton", "variant": label, "ms": ms, "value": value, "unit": unit,
                    "ratio_to_copy": value / copy["value"], "check": ok})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", help="examples to sweep (default: all with variants)")
    parser.add_argument("--json", type=Path, help="also write every row to this file")
    args = parser.parse_args()
    only = args.examples or sorted(set(VARIANTS) | set(TRITON_VARIANTS))
    t0 = time.monotonic()
    device = tools.nvidia_device()
    if device is None:
        print("no NVIDIA GPU here", file=sys.stderr)
        return 2
    os.environ.setdefault("TRITON_CACHE_DIR", str(Path(tempfile.gettempdir()) / "xlate-triton-cache"))
    rng = np.random.default_rng()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        with cf.ThreadPoolExecutor(8) as pool:  # nvcc dominates: build every variant at once
            futures = {(name, tuple(flags)): pool.submit(build, name, flags, device.sm, Path(tmp))
                       for name, variants in VARIANTS.items() if name in only for flags in variants}
            for name in TRITON_VARIANTS:
                if name in only:
                    futures[(name, ())] = pool.submit(build, name, [], device.sm, Path(tmp))
            copy = copy_reference()
            print(f"reference copy {copy['value']:,.1f} GB/s ({copy['ms']:.4f} ms), {device.name}", flush=True)
            record = {"device": device.name, "driver": device.driver, "copy": copy, "rows": rows}

            def dump() -> None:  # after every example, so that a run cut short keeps what it measured
                if args.json:
                    args.json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

            for name in VARIANTS:
                if name in only:
                    rows += cuda_rows(name, futures, device, copy, rng)
                    dump()
                    print(f"-- {time.monotonic() - t0:.0f} s", flush=True)
            for name in TRITON_VARIANTS:
                if name in only:
                    rows += triton_rows(name, device, copy, rng, futures[(name, ())].result())
                    dump()
                    print(f"-- {time.monotonic() - t0:.0f} s", flush=True)
            if "scan" in only:
                rows += triton_scan_rows(device, copy, rng)
                dump()
        # the copy again: how far the clocks drifted during the sweep
        record["copy_at_end"] = again = copy_reference()
        print(f"reference copy at the end {again['value']:,.1f} GB/s ({again['ms']:.4f} ms)", flush=True)
        dump()
    return 0


if __name__ == "__main__":
    sys.exit(main())
