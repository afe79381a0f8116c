"""Cold command start-up against another checkout, in the same run: lookup, explain and translate.

Each round runs every command once per checkout, alternating which goes first, each in a fresh
interpreter with warm caches (the compiled index of each checkout is built before timing). Prints
the median wall time per command and checkout and the ratio current / other; a ratio above 1 means
this checkout is slower.

    python benchmarks/bench_cold.py --against SRC [--rounds 15]

SRC is the src/ folder of the other checkout (for example a `git worktree` of an earlier commit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "kernels" / "examples" / "reduction" / "reduction.cu"
COMMANDS = {
    "lookup wavefront": ["lookup", "wavefront"],
    "lookup MI300X": ["lookup", "MI300X"],
    "explain reduction.cu": ["explain", str(KERNEL)],
    "translate reduction.cu": ["translate", str(KERNEL), "--to", "hip", "--summary", "none"],
}


CACHES = Path(tempfile.mkdtemp(prefix="xlate-bench-cold-"))


def run(src: Path, args: list[str]) -> float:
    # Each checkout keeps its own cache folder, as one user's machine would: alternating two
    # checkouts over one cache would make each re-check the other's stamps on every start.
    cache = CACHES / str(abs(hash(str(src))))
    env = {**os.environ, "PYTHONPATH": str(src), "XLATE_GLOSSARY": str(src.parent / "glossary"), "XDG_CACHE_HOME": str(cache)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "xlate", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", type=Path, required=True, metavar="SRC", help="src/ of the other checkout")
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    here, other = ROOT / "src", args.against.resolve()
    if not (other / "xlate").is_dir():
        print(f"error: {other} holds no xlate package", file=sys.stderr)
        return 2
    for src in (here, other):  # build each index once, outside the timing
        for cmd in COMMANDS.values():
            run(src, cmd)
    times: dict[tuple[str, Path], list[float]] = {}
    for r in range(args.rounds):
        order = (here, other) if r % 2 == 0 else (other, here)
        for name, cmd in COMMANDS.items():
            for src in order:
                times.setdefault((name, src), []).append(run(src, cmd))
    print(f"cold commands, median of {args.rounds} fresh processes each (alternating), this checkout vs {other}")
    print(f"{'command':26} {'this ms':>9} {'other ms':>9} {'ratio':>7}")
    for name in COMMANDS:
        a, b = statistics.median(times[(name, here)]), statistics.median(times[(name, other)])
        print(f"{name:26} {a * 1000:9.1f} {b * 1000:9.1f} {a / b:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
