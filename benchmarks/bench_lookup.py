"""Cold-start lookup latency: `xlate lookup ...` as a fresh process, against bare Python start-up.

Prints the median of N runs of each and their ratio to `python3 -c pass` measured in the same run,
the size of the compiled index, and a cold `xlate explain` of a 5,000-line file (the other reader
of the same index). Run: python benchmarks/bench_lookup.py [N]
The index cache is warmed first (one lookup), as it is after the first use on a machine.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def median_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    xlate = shutil.which("xlate")
    lookup = [xlate, "lookup", "warp"] if xlate else [sys.executable, "-m", "xlate", "lookup", "warp"]
    # An installed package has its bytecode written; where the environment says not to write it
    # (PYTHONDONTWRITEBYTECODE), every start would compile every module, so compile once first.
    src = Path(__file__).resolve().parents[1] / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=False, stdout=subprocess.DEVNULL)
    warm = subprocess.run(lookup, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # build the index cache
    if warm.returncode != 0:
        sys.exit(f"lookup failed, nothing to measure:\n{warm.stderr}")
    bare = median_ms([sys.executable, "-c", "pass"], runs)
    module = [sys.executable, "-m", "xlate", "lookup"]
    cases = {
        "xlate lookup warp (exact)": lookup,
        "python -m xlate lookup warp": module + ["warp"],
        "python -m xlate lookup hipMemcpy2DAsync": module + ["hipMemcpy2DAsync"],
        "python -m xlate lookup MI300X": module + ["MI300X"],
        "python -m xlate lookup git rebase": module + ["git rebase"],
        "xlate lookup wavefrnt (fuzzy)": lookup[:-1] + ["wavefrnt"],
        "xlate lookup LDS --format json": lookup[:-1] + ["LDS", "--format", "json"],
    }
    print(f"{'case':<44} {'median ms':>10} {'x bare python':>14}")
    print(f"{'python3 -c pass':<44} {bare:>10.1f} {1.0:>14.2f}")
    for name, cmd in cases.items():
        ms = median_ms(cmd, runs)
        print(f"{name:<44} {ms:>10.1f} {ms / bare:>14.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.cu"
        kernel = (Path(__file__).resolve().parents[1] / "kernels" / "examples" / "reduction" / "reduction.cu").read_text()
        lines = kernel.splitlines()
        big.write_text("\n".join((lines * (5000 // len(lines) + 1))[:5000]) + "\n")
        explain = [sys.executable, "-m", "xlate", "explain", str(big), "--format", "json"]
        subprocess.run(explain, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        ms = median_ms(explain, max(5, runs // 3))
        print(f"{'xlate explain 5,000 lines (json)':<44} {ms:>10.1f} {ms / bare:>14.2f}")
    from xlate import kb

    cache = sorted(kb.cache_dir().glob("index-*.json"))
    if cache:
        data = kb.load_index()
        print(f"index: {cache[-1].stat().st_size / 1e6:.2f} MB on disk, {len(data['concepts'])} concepts, "
              f"{len(kb.load_symbols())} symbol rows, {len(data['spell_keys'])} counterpart spellings, {len(data['gpus'])} GPU sheets")
    print(f"({runs} runs each; target: cold lookup within 8x of python3 -c pass)")


if __name__ == "__main__":
    main()
