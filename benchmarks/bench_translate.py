"""Benchmark `xlate translate --to hip` on a tree of several hundred CUDA files in one call, with
`xlate explain` of the same tree in the same run as the reference (translate parses, resolves and
runs explain's rules too, then plans and writes its edits, so the ratio says what the writing costs).

The tree is derived from the gallery's CUDA kernels (with their shared harness header, so includes
resolve) and the translate fixtures, copied into numbered folders. Both commands run as a user runs
them (`python -m xlate ...`, a fresh process, default worker count), alternating, and the medians
are printed. hipify-perl is measured over the same files (one call per file, as it works) when it
is installed; it is not packaged for Debian 12, so here the script says so.

    python benchmarks/bench_translate.py [--copies 12] [--repeats 5] [--jobs N] [--compare OLD/src]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = [*sorted((REPO / "kernels" / "examples").glob("*/*.cu")),
           *sorted(p for p in (REPO / "tests" / "fixtures" / "translate").iterdir() if p.suffix in (".cu", ".cpp", ".h"))]


def build_tree(root: Path, copies: int) -> tuple[int, int]:
    """Copies of the sources under root/copyNN/ (examples keep their folder layout and the harness
    header beside them); returns (files, lines)."""
    files = lines = 0
    for i in range(copies):
        base = root / f"copy{i:02d}"
        shutil.copytree(REPO / "kernels" / "common", base / "common")
        for src in SOURCES:
            if src.is_relative_to(REPO / "kernels"):
                dest = base / src.relative_to(REPO / "kernels")
            else:
                dest = base / "fixtures" / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        for f in base.rglob("*"):
            if f.is_file():
                files += 1
                lines += f.read_bytes().count(b"\n")
    return files, lines


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:4])} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=12, help="numbered copies of the sources (default 12)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=None, help="worker processes for both commands (default: each command's own)")
    ap.add_argument("--compare", type=Path, default=None, metavar="SRC",
                    help="also time both commands from this src/ folder (another checkout), alternating, and compare outputs")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    if args.compare is not None:
        compare(args)
        return
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    with tempfile.TemporaryDirectory(prefix="bench-translate-") as tmp:
        tree = Path(tmp) / "tree"
        files, lines = build_tree(tree, args.copies)
        out = Path(tmp) / "out"
        explain_cmd = [sys.executable, "-m", "xlate", "explain", str(tree), "--backend", "hip", *jobs]
        translate_cmd = [sys.executable, "-m", "xlate", "translate", str(tree), "--to", "hip", "-o", str(out),
                         "--summary", "none", *jobs]
        timed(translate_cmd, env)  # warm the symbol map cache and the byte-compiled modules
        ex, tr = [], []
        for _ in range(args.repeats):
            ex.append(timed(explain_cmd, env))
            shutil.rmtree(out, ignore_errors=True)
            tr.append(timed(translate_cmd, env))
        written = sum(1 for p in out.rglob("*") if p.is_file())
        e, t = statistics.median(ex), statistics.median(tr)
        print(f"tree: {files} files, {lines} lines ({args.copies} copies of {len(SOURCES)} sources + harness headers); "
              f"{args.repeats} runs each, alternating, medians; cpu count {os.cpu_count()}")
        print(f"xlate translate: {t:.2f} s  {files / t:.0f} files/s  {lines / t:.0f} lines/s  ({written} files written)")
        print(f"xlate explain:   {e:.2f} s  {files / e:.0f} files/s  {lines / e:.0f} lines/s")
        print(f"translate / explain time ratio: {t / e:.2f} (below 1: translate is faster)")
        hipify = shutil.which("hipify-perl")
        if hipify is None:
            print("hipify-perl: not installed (no Debian 12 package: `apt-cache search hipify` finds none); not compared")
            return
        sources = [p for p in tree.rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h")]
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            for p in sources:
                subprocess.run([hipify, str(p)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            runs.append(time.perf_counter() - start)
        h = statistics.median(runs)
        print(f"hipify-perl (one call per file): {h:.2f} s  {len(sources) / h:.0f} files/s; hipify-perl / translate: {h / t:.1f}x")


def compare(args: argparse.Namespace) -> None:
    """This tree against another src/ folder: each command from each, alternating, medians and ratios; the
    translated trees (the first run's of each) must be byte-for-byte the same."""
    srcs = {"this tree": REPO / "src", f"compare ({args.compare})": args.compare.resolve()}
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    with tempfile.TemporaryDirectory(prefix="bench-translate-") as tmp:
        tree = Path(tmp) / "tree"
        files, lines = build_tree(tree, args.copies)
        times: dict[tuple[str, str], list[float]] = {}
        outs = {}
        for k, (name, src) in enumerate(srcs.items()):
            env = {**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(Path(tmp) / f"cache{k}")}
            outs[name] = Path(tmp) / f"out{k}"
            timed([sys.executable, "-m", "xlate", "translate", str(tree), "--to", "hip", "-o", str(outs[name]),
                   "--summary", "none", *jobs], env)  # warm the symbol map cache and the byte-compiled modules
        first = {name: {p.relative_to(outs[name]).as_posix(): p.read_bytes() for p in outs[name].rglob("*") if p.is_file()}
                 for name in srcs}
        for _ in range(args.repeats):
            for k, (name, src) in enumerate(srcs.items()):
                env = {**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(Path(tmp) / f"cache{k}")}
                out = Path(tmp) / f"run{k}"
                shutil.rmtree(out, ignore_errors=True)
                times.setdefault((name, "translate"), []).append(timed(
                    [sys.executable, "-m", "xlate", "translate", str(tree), "--to", "hip", "-o", str(out), "--summary", "none", *jobs], env))
                times.setdefault((name, "explain"), []).append(timed(
                    [sys.executable, "-m", "xlate", "explain", str(tree), "--backend", "hip", *jobs], env))
    print(f"tree: {files} files, {lines} lines; {args.repeats} alternating runs, medians (min); load average {os.getloadavg()[0]:.1f}")
    med = {key: statistics.median(v) for key, v in times.items()}
    names = list(srcs)
    for command in ("translate", "explain"):
        for name in names:
            print(f"xlate {command:<9} {name:<40} {med[(name, command)]:6.2f} s ({min(times[(name, command)]):.2f})")
        print(f"  {command}: this tree / compare = {med[(names[0], command)] / med[(names[1], command)]:.2f}")
    a, b = first[names[0]], first[names[1]]
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print("translated trees: " + ("byte-for-byte the same" if not differ else f"{len(differ)} file(s) differ: {differ[:8]}"))


if __name__ == "__main__":
    main()
