"""Cold-start lookup latency: `xlate lookup warp` as a fresh process, against bare Python start-up.

Prints the median of N runs of each and their ratio. Run: python benchmarks/bench_lookup.py [N]
The index cache is warmed first (one lookup), as it is after the first use on a machine.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time


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
    warm = subprocess.run(lookup, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # build the index cache
    if warm.returncode != 0:
        sys.exit(f"lookup failed, nothing to measure:\n{warm.stderr}")
    bare = median_ms([sys.executable, "-c", "pass"], runs)
    cases = {
        "xlate lookup warp (exact)": lookup,
        "xlate lookup wavefrnt (fuzzy)": lookup[:-1] + ["wavefrnt"],
        "xlate lookup LDS --format json": lookup[:-1] + ["LDS", "--format", "json"],
    }
    print(f"{'case':<36} {'median ms':>10} {'x bare python':>14}")
    print(f"{'python3 -c pass':<36} {bare:>10.1f} {1.0:>14.2f}")
    for name, cmd in cases.items():
        ms = median_ms(cmd, runs)
        print(f"{name:<36} {ms:>10.1f} {ms / bare:>14.2f}")
    print(f"({runs} runs each; target: cold exact lookup <= 100 ms median)")


if __name__ == "__main__":
    main()
