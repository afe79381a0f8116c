"""Benchmark `xlate explain`: where the time goes, cold runs against `python3 -c pass`, linear time on
hostile shapes, and throughput over a generated tree.

Every figure is a median over alternating runs in this one process, printed with its same-run
reference, so it can be read whatever the machine's load (printed too):

1. Profile of one 5,000-line file in process, by stage: read, parse (tree-sitter), symbol scan,
   rules, JSON writing; and the start-up (interpreter, imports, symbol map) from cold runs.
2. Cold `xlate explain --format json` of that file, and of the example kernels concatenated to the
   same length, as a ratio to `python3 -c pass` (issue target: within 10x). With `--compare SRC`
   (the src/ folder of another checkout, e.g. the revision before a change) the same runs are made
   for that revision, alternating, and the ratio between the two is printed.
3. Literal-heavy expressions: 10,000 and 80,000 terms in one `return 1 + 1 + ...;`, cold runs
   (targets: at most 10 s, at most 16x the 10,000-term run).
4. Every shape of tests/fixtures/shapes at n and 2n units, in process: the ratio of the medians
   (target: at most ~2.5 for doubling).
5. A generated tree: files/s and lines/s in process (jobs 1 and 2) and as one cold command.
   hipify-perl is not installed here and no package registry this machine can use carries it, so
   no tree-vs-hipify-perl ratio is printed.

With `--instructions`, the cold 5,000-line run and `python3 -c pass` are also counted in machine
instructions under valgrind's callgrind (deterministic, independent of load; slow).

    python benchmarks/bench_explain.py [--repeat 7] [--files 100] [--lines 600] [--compare OLD/src]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the shapes corpus (tests/shapes.py)

# One block of typical CUDA: includes once per file, then kernels, device helpers, host code.
HEADER = """#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) return e; } while (0)
"""

BLOCK = """
// Kernel {i}: a grid-stride loop, a shared-memory reduction and a warp shuffle.
template <int BLOCK>
__global__ void __launch_bounds__(256) reduce_{i}(const float* __restrict__ x, float* out, int n) {{
  __shared__ float partial[BLOCK];
  float acc = 0.0f;
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += blockDim.x * gridDim.x) {{
    acc += __ldg(&x[idx]) * 2.0f;  /* cudaMalloc in a comment is not annotated */
  }}
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {{
    acc += __shfl_down_sync(__activemask(), acc, offset);
  }}
  if ((threadIdx.x & (warpSize - 1)) == 0) partial[threadIdx.x / warpSize] = acc;
  __syncthreads();
  cg::thread_block block = cg::this_thread_block();
  block.sync();
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}}

__device__ __forceinline__ float scale_{i}(float v) {{ return fmaxf(v, 0.0f) * rsqrtf(v + 1.0f); }}

cudaError_t launch_{i}(const float* x, float* out, int n, cudaStream_t stream) {{
  float* tmp = nullptr;
  CHECK(cudaMallocAsync(&tmp, n * sizeof(float), stream));
  CHECK(cudaMemcpyAsync(tmp, x, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  reduce_{i}<256><<<(n + 255) / 256, 256, 0, stream>>>(tmp, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaFreeAsync(tmp, stream));
  return cudaStreamSynchronize(stream);
}}
"""


def make_file(lines: int, seed: int) -> str:
    parts = [HEADER]
    count = HEADER.count("\n")
    i = 0
    while count < lines:
        block = BLOCK.format(i=f"{seed}_{i}")
        parts.append(block)
        count += block.count("\n")
        i += 1
    return "".join(parts)


def make_tree(root: Path, files: int, lines: int) -> int:
    total = 0
    for k in range(files):
        sub = root / f"mod{k % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        text = make_file(lines, k)
        (sub / f"kernels_{k}.cu").write_text(text)
        total += text.count("\n")
    (root / "build").mkdir(exist_ok=True)
    (root / "build" / "generated.cu").write_text(make_file(lines, 999))  # skipped: build folder
    return total


def examples_file(lines: int) -> str:
    """The example kernels of the gallery, repeated to about `lines` lines."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "kernels" / "examples").glob("*/*.cu"))]
    if not sources:
        return ""
    parts, count = [], 0
    while count < lines:
        for text in sources:
            parts.append(text)
            count += text.count("\n")
    return "".join(parts)


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def med(values: list[float]) -> float:
    return statistics.median(values)


# --- cold runs -----------------------------------------------------------------------------------

class Revision:
    """A checkout's src/ folder, run as `python -m xlate` with its own symbol-map cache."""

    def __init__(self, label: str, src: Path, cache: Path) -> None:
        self.label, self.src, self.cache = label, src, cache

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.src), "XDG_CACHE_HOME": str(self.cache)}

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "xlate", *args]

    def prepare(self) -> None:
        import compileall

        # Byte-compile first: with PYTHONDONTWRITEBYTECODE set, every cold run would otherwise
        # recompile each module it imports. Then one run fills this revision's symbol-map cache.
        compileall.compile_dir(str(self.src / "xlate"), quiet=1)
        probe = self.src.parent / "glossary"
        subprocess.run(self.command("explain", str(ROOT / "tests" / "fixtures" / "explain" / "constructs.cu")),
                       env=self.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       cwd=str(probe.parent))


def timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system of the child) and exit status of one run."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.returncode


def cold_section(revisions: list[Revision], files: list[tuple[str, Path]], repeat: int) -> None:
    print("\n## Cold runs: `xlate explain FILE --format json` against `python3 -c pass` and `python3 -S -c pass`, alternating")
    bare = [sys.executable, "-c", "pass"]
    nosite = [sys.executable, "-S", "-c", "pass"]  # without this installation's site-packages start-up hooks
    for label, path in files:
        walls: dict[str, list[float]] = {r.label: [] for r in revisions}
        cpus: dict[str, list[float]] = {r.label: [] for r in revisions}
        ref_w: list[float] = []
        ref_c: list[float] = []
        bare_w: list[float] = []
        bare_c: list[float] = []
        for _ in range(repeat):
            w, c, _ = timed(bare)
            ref_w.append(w)
            ref_c.append(c)
            w, c, _ = timed(nosite)
            bare_w.append(w)
            bare_c.append(c)
            for r in revisions:
                w, c, code = timed(r.command("explain", str(path), "--format", "json"), r.env())
                if code not in (0, 1):
                    raise SystemExit(f"{r.label}: explain exited {code} on {path}")
                walls[r.label].append(w)
                cpus[r.label].append(c)
        print(f"{label}: python3 -c pass median {med(ref_w) * 1e3:.0f} ms wall, {med(ref_c) * 1e3:.0f} ms CPU; "
              f"python3 -S -c pass {med(bare_w) * 1e3:.0f} ms wall, {med(bare_c) * 1e3:.0f} ms CPU ({load()})")
        for r in revisions:
            w, c = med(walls[r.label]), med(cpus[r.label])
            print(f"  {r.label}: median {w * 1e3:.0f} ms wall ({w / med(ref_w):.1f}x python -c pass, "
                  f"{w / med(bare_w):.1f}x python -S -c pass), {c * 1e3:.0f} ms CPU ({c / med(ref_c):.1f}x, {c / med(bare_c):.1f}x)")
        if len(revisions) == 2:
            a, b = revisions
            print(f"  {a.label} / {b.label}: {med(walls[a.label]) / med(walls[b.label]):.2f}x wall, "
                  f"{med(cpus[a.label]) / med(cpus[b.label]):.2f}x CPU")


def startup_section(revisions: list[Revision], repeat: int) -> None:
    """What a run costs before it reads a file: interpreter, imports, the symbol map from its cache."""
    print("\n## Start-up before the first file (cold processes, alternating)")
    bare = [sys.executable, "-c", "pass"]
    code = ("import xlate.explain as e\n"
            "try:\n    from xlate.kb import load_symbols\n"
            "except ImportError:  # a revision from before xlate.kb\n    from xlate.symbols import load as load_symbols\n"
            "load_symbols(); e.load_rules()\n"
            "import xlate.render.json_\n")
    ref, by = [], {r.label: [] for r in revisions}
    nosite = []
    for _ in range(repeat):
        ref.append(timed(bare)[0])
        nosite.append(timed([sys.executable, "-S", "-c", "pass"])[0])
        for r in revisions:
            by[r.label].append(timed([sys.executable, "-c", code], r.env())[0])
    print(f"python3 -c pass {med(ref) * 1e3:.0f} ms; python3 -S -c pass {med(nosite) * 1e3:.0f} ms "
          "(the difference is this installation's site-packages start-up hooks)")
    for r in revisions:
        print(f"  {r.label}: interpreter + imports + symbol map + rules {med(by[r.label]) * 1e3:.0f} ms "
              f"({(med(by[r.label]) - med(ref)) * 1e3:.0f} ms over python -c pass)")


def instructions_section(revisions: list[Revision], path: Path) -> None:
    if not shutil.which("valgrind"):
        print("\n## Instructions: valgrind is not installed; skipped")
        return
    print("\n## Machine instructions (valgrind callgrind, one run each; independent of load)")

    def count(args: list[str], env: dict[str, str] | None = None) -> int:
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", *args],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, check=False)
        m = re.search(r"Collected : (\d+)", out.stderr)
        return int(m.group(1)) if m else 0

    ref = count([sys.executable, "-c", "pass"])
    print(f"python3 -c pass: {ref / 1e6:.0f} M instructions")
    for r in revisions:
        n = count(r.command("explain", str(path), "--format", "json"), r.env())
        print(f"  {r.label}: {n / 1e6:.0f} M instructions ({n / ref:.1f}x python -c pass)")


# --- in process ----------------------------------------------------------------------------------

def profile_section(path: Path, smap: object, repeat: int) -> None:
    """Median CPU time of each stage for one file, as explain runs them."""
    from xlate import explain
    from xlate.cuda import occurrences, prepare
    from xlate.cuda.parser import parse
    from xlate.cuda.source import SourceView
    from xlate.cuda.tree import Locator
    from xlate.render import json_

    stages: dict[str, list[float]] = {k: [] for k in ("read", "parse", "scan", "rules", "json", "whole")}
    clock = time.process_time
    result = None
    for _ in range(repeat):
        t0 = clock()
        source = path.read_bytes()
        t1 = clock()
        tree = parse(prepare.for_parsing(source))
        t2 = clock()
        locator = Locator(tree)
        found = occurrences.find(tree, source, smap, None, locator)
        t3 = clock()
        view = SourceView(str(path), source, tree, found, locator)
        for rule in explain.load_rules():
            list(rule.check(view))
        t4 = clock()
        result = explain.explain_path(path.name, path, smap)
        t5 = clock()
        json_.write([result], io.StringIO(), backend="all")
        t6 = clock()
        for key, value in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5, t5 - t4)):
            stages[key].append(value)
    assert result is not None
    whole = med(stages["whole"])
    print(f"\n## Profile of one file in process ({path.stat().st_size // 1024} KB, {result['lines']} lines, "
          f"{len(result['annotations'])} annotations, {len(result['hazards'])} hazards; median CPU of {repeat} runs; {load()})")
    for key in ("read", "parse", "scan", "rules", "json"):
        print(f"  {key:6s} {med(stages[key]) * 1e3:6.1f} ms  ({med(stages[key]) / whole:4.0%} of explain_path)")
    print(f"  explain_path as a whole (read + parse + scan + rules + result dicts): {whole * 1e3:.1f} ms")


def literal_section(rev: Revision, root: Path, repeat: int) -> None:
    print("\n## Literal-heavy expressions: `__device__ int f() { return 1 + 1 + ... ; }`, cold runs")
    times = {}
    for n in (10_000, 80_000):
        path = root / f"literals_{n}.cu"
        path.write_text("__device__ int f() { return " + " + ".join(["1"] * n) + "; }\n")
        runs = [timed(rev.command("explain", str(path), "--format", "json", "--file-timeout", "0"), rev.env())[0]
                for _ in range(max(1, repeat // 2))]
        times[n] = med(runs)
        print(f"  {n:,} terms: median {times[n]:.2f} s wall ({load()})")
    print(f"  80,000 / 10,000 terms: {times[80_000] / times[10_000]:.1f}x (targets: at most 10 s and 16x)")


def shapes_section(smap: object, n: int, repeat: int) -> None:
    from shapes import expand, load_shapes

    from xlate import explain

    print(f"\n## Shapes (tests/fixtures/shapes) at {n:,} and {2 * n:,} units, in process, median CPU of {repeat}")
    worst = 0.0
    for name, shape in load_shapes().items():
        medians = []
        for size in (n, 2 * n):
            source = expand(shape, size)
            runs = []
            for _ in range(repeat):
                c0 = time.process_time()
                explain.explain_source(name, source, smap)
                runs.append(time.process_time() - c0)
            medians.append(med(runs))
        ratio = medians[1] / medians[0] if medians[0] else float("nan")
        worst = max(worst, ratio)
        print(f"  {name:22s} {medians[0] * 1e3:8.1f} ms -> {medians[1] * 1e3:8.1f} ms  ({ratio:.2f}x)")
    print(f"  worst doubling ratio {worst:.2f}x (target: at most ~2.5x)")


def tree_section(rev: Revision, smap: object, root: Path, files: int, lines: int, jobs: int, repeat: int) -> None:
    from xlate import explain
    from xlate.cuda.files import collect

    tree = root / "tree"
    total = make_tree(tree, files, lines)
    targets, _ = collect([str(tree)])
    print(f"\n## Tree: {files} generated files, {total:,} lines ({load()})")
    for j in sorted({1, jobs}):
        walls = []
        for _ in range(max(1, repeat // 3)):
            t0 = time.perf_counter()
            results = explain.explain_targets(targets, smap, jobs=j)
            walls.append(time.perf_counter() - t0)
            assert len(results) == files
        dt = med(walls)
        print(f"  in process, jobs={j}: {dt:.2f} s, {files / dt:,.0f} files/s, {total / dt:,.0f} lines/s")
    walls = [timed(rev.command("explain", str(tree), "--format", "json", "--jobs", str(jobs)), rev.env())[0]
             for _ in range(max(1, repeat // 3))]
    dt = med(walls)
    print(f"  one cold command (--jobs {jobs}): {dt:.2f} s, {files / dt:,.0f} files/s, {total / dt:,.0f} lines/s")
    print("  hipify-perl: not installed and not in any package registry reachable here; no ratio measured")



# --- where a tree run's time goes, cold --------------------------------------------------------

# Run in a fresh interpreter, as `xlate explain DIR --format json` runs: each stage's functions are
# wrapped with a CPU clock, and the stage times come back as one JSON line on stderr. The
# interpreter's own start-up is the process's CPU time (from the parent's rusage) minus the CPU
# time this script saw.
_STAGE_PROBE = r"""
import sys, time, json
clock = time.process_time  # CPU time: steadier than wall time on a shared machine
t_start = clock()
stages = {}
def clocked(owner, name, stage):
    inner = getattr(owner, name)
    def wrapper(*a, **k):
        t0 = clock()
        try:
            return inner(*a, **k)
        finally:
            stages[stage] = stages.get(stage, 0.0) + clock() - t0
    setattr(owner, name, wrapper)
    return inner
t0 = clock()
from xlate import explain
from xlate import kb
from xlate.cuda import files, occurrences, parser
stages["imports"] = clock() - t0
clocked(kb, "load_symbols", "index load")
clocked(files, "collect", "collect files")
clocked(explain, "load_rules", "rules import")
clocked(explain, "read_source", "read")
clocked(parser, "parse", "parse")
clocked(occurrences, "find_entries", "scan")
clocked(explain, "run_rules", "rules")
clocked(explain, "explain_path", "explain_path")
explain.load_rules()
for rule in explain.load_rules():  # each rule's own time, kept apart from the stage table
    def check(view, _inner=rule.check, _code=rule.code):
        t0 = clock()
        try:
            return list(_inner(view))
        finally:
            stages["rule " + _code] = stages.get("rule " + _code, 0.0) + clock() - t0
    rule.check = check
import xlate.render.json_ as json_
inner_write = json_.write
def write(*a, **k):
    t0 = clock()
    inner_write(*a, **k)
    stages["output"] = clock() - t0
json_.write = write
import io, os
out = open(os.devnull, "w")
try:  # where the process settings live (an older tree under --compare kept them in explain)
    from xlate.processes import quiet_gc
except ImportError:
    quiet_gc = explain.quiet_gc
quiet_gc()
code = explain.run(sys.argv[1:], fmt="json", out=out, jobs=int(os.environ.get("PROBE_JOBS", "1")))
out.close()
stages["per file, other"] = stages.pop("explain_path", 0.0) - sum(stages.get(k, 0.0) for k in ("read", "parse", "scan", "rules")) 
stages["script"] = clock() - t_start
print("STAGES " + json.dumps(stages), file=sys.stderr)
"""

STAGE_ORDER = ("interpreter", "imports", "index load", "collect files", "rules import", "read", "parse", "scan", "rules",
               "per file, other", "output", "rest")


def stage_profile(revisions: list[Revision], tree: Path, repeat: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]],
                                                                      dict[str, float], float]:
    """Per revision: median CPU seconds per stage of a cold tree run and of each rule, and the median
    wall time of the plain command; with the median of `python3 -c pass`, all alternating in this run."""
    per: dict[str, dict[str, list[float]]] = {r.label: {k: [] for k in STAGE_ORDER} for r in revisions}
    per_rule: dict[str, dict[str, list[float]]] = {r.label: {} for r in revisions}
    walls: dict[str, list[float]] = {r.label: [] for r in revisions}
    ref = []
    for _ in range(repeat):
        ref.append(timed([sys.executable, "-c", "pass"])[0])
        for rev in revisions:
            walls[rev.label].append(timed(rev.command("explain", str(tree), "--format", "json", "--jobs", "1"), rev.env())[0])
            import resource

            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run([sys.executable, "-c", _STAGE_PROBE, str(tree)], env={**rev.env(), "PROBE_JOBS": "1"},
                                  capture_output=True, text=True, check=False)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime  # the probe's CPU time
            line = next((ln for ln in done.stderr.splitlines() if ln.startswith("STAGES ")), None)
            if line is None:
                raise SystemExit(f"stage probe failed: {done.stderr[-800:]}")
            got = json.loads(line[7:])
            rules = {k: got.pop(k) for k in list(got) if k.startswith("rule ")}
            got["interpreter"] = wall - got.pop("script")
            got["rest"] = wall - sum(got.values())
            for k in STAGE_ORDER:
                per[rev.label][k].append(got.get(k, 0.0))
            for k, v in rules.items():
                per_rule[rev.label].setdefault(k, []).append(v)
    return ({lab: {k: med(v) for k, v in d.items()} for lab, d in per.items()},
            {lab: {k: med(v) for k, v in d.items()} for lab, d in per_rule.items()},
            {lab: med(v) for lab, v in walls.items()}, med(ref))


def tree_profile_section(revisions: list[Revision], tree: Path, repeat: int) -> None:
    from xlate.cuda.files import collect

    targets, _ = collect([str(tree)])
    size = sum(t.path.stat().st_size for t in targets)
    print(f"\n## Where a cold tree run goes: `xlate explain DIR --format json --jobs 1` over {len(targets)} files, {size // 1024} KB "
          f"({tree}), median CPU time of each stage over {repeat} cold runs, revisions alternating ({load()})")
    stages, rules, walls, ref = stage_profile(revisions, tree, repeat)
    labels = [r.label for r in revisions]
    print("  " + f"{'stage':16s}" + "".join(f"{lab[:24]:>26s}" for lab in labels))
    totals = {lab: sum(stages[lab].values()) for lab in labels}
    for k in STAGE_ORDER:
        print("  " + f"{k:16s}" + "".join(f"{stages[lab][k] * 1e3:12.1f} ms ({stages[lab][k] / totals[lab]:4.0%})     " for lab in labels))
    print("  " + f"{'whole run (CPU)':16s}" + "".join(f"{totals[lab] * 1e3:12.1f} ms            " for lab in labels))
    print("  " + f"{'plain command':16s}" + "".join(f"{walls[lab] * 1e3:12.1f} ms wall       " for lab in labels)
          + f"; python3 -c pass {ref * 1e3:.0f} ms wall in the same run ({load()})")
    for lab in labels:
        top = sorted(rules[lab].items(), key=lambda kv: -kv[1])[:6]
        print(f"  slowest rules, {lab}: " + ", ".join(f"{k[5:]} {v * 1e3:.1f} ms" for k, v in top))

def split_section(rev: Revision, root: Path, repeat: int) -> None:
    """Where spreading a tree over two processes starts to pay: cold commands over generated trees
    of growing size, `--jobs 1` against `--jobs 2` (this process and one forked copy), alternating."""
    from xlate import explain

    print(f"\n## Break-even of the split: cold `xlate explain DIR --format json`, --jobs 1 against --jobs 2, medians of "
          f"{repeat} alternating runs ({load()}; explain splits from {explain.SPLIT_MIN_BYTES // 1024} KB on)")
    for kb in (16, 32, 48, 64, 128, 256):
        tree = root / f"split-{kb}"
        files = 8
        for k in range(files):
            (tree / f"f{k}.cu").parent.mkdir(parents=True, exist_ok=True)
            text = make_file(1, k)
            while len(text) < kb * 1024 // files:
                text += BLOCK.format(i=f"{k}_{len(text)}")
            (tree / f"f{k}.cu").write_text(text)
        size = sum(f.stat().st_size for f in tree.iterdir())
        by: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
        for _ in range(repeat):
            for j in (1, 2):
                w, c, code = timed(rev.command("explain", str(tree), "--format", "json", "--jobs", str(j)), rev.env())
                if code not in (0, 1):
                    raise SystemExit(f"explain exited {code} on {tree}")
                by[j].append((w, c))
        w1, w2 = med([w for w, _ in by[1]]), med([w for w, _ in by[2]])
        c1, c2 = med([c for _, c in by[1]]), med([c for _, c in by[2]])
        print(f"  {size // 1024:4d} KB in {files} files: jobs 1 {w1 * 1e3:6.0f} ms wall {c1 * 1e3:5.0f} ms CPU; jobs 2 "
              f"{w2 * 1e3:6.0f} ms wall {c2 * 1e3:5.0f} ms CPU; jobs 2 / jobs 1: {w2 / w1:.2f}x wall ({load()})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--files", type=int, default=100)
    p.add_argument("--lines", type=int, default=600)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--shape-size", type=int, default=10_000)
    p.add_argument("--compare", type=Path, default=None, metavar="SRC", help="src/ of another checkout to run alongside")
    p.add_argument("--instructions", action="store_true", help="also count instructions under valgrind (slow)")
    p.add_argument("--only", default="profile,startup,cold,literals,shapes,tree,tree-profile,split",
                   help="comma-separated sections to run")
    p.add_argument("--tree", type=Path, default=None, metavar="DIR",
                   help="tree for the tree-profile section (default: the corpus of bench_vs_hipify.py)")
    args = p.parse_args()
    only = set(args.only.split(","))

    from xlate import explain
    from xlate import kb

    cache = Path(tempfile.mkdtemp(prefix="xlate-bench-"))
    revisions = [Revision("this tree", ROOT / "src", cache / "now")]
    if args.compare:
        revisions.append(Revision(f"compare ({args.compare})", args.compare.resolve(), cache / "compare"))
    for r in revisions:
        r.prepare()
    os.environ["XDG_CACHE_HOME"] = str(cache / "now")
    smap = kb.load_symbols()
    from xlate import processes

    processes.quiet_gc()
    explain.load_rules()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            big = root / "big.cu"
            big.write_text(make_file(5000, 7))
            examples = root / "examples.cu"
            examples.write_text(examples_file(5000))
            print(f"# bench_explain ({load()})")
            if "profile" in only:
                profile_section(big, smap, args.repeat)
            if "startup" in only:
                startup_section(revisions, args.repeat)
            if "cold" in only:
                cold_section(revisions, [("5,000-line generated file", big),
                                         (f"{examples.read_text().count(chr(10)):,}-line example kernels", examples)], args.repeat)
            if args.instructions:
                instructions_section(revisions, big)
            if "literals" in only:
                literal_section(revisions[0], root, args.repeat)
            if "shapes" in only:
                shapes_section(smap, args.shape_size, max(3, args.repeat // 2))
            if "tree-profile" in only:
                if args.tree is None:
                    sys.path.insert(0, str(ROOT / "benchmarks"))
                    from bench_vs_hipify import corpus

                    corpus(root / "hipify-corpus")
                tree_profile_section(revisions, args.tree or root / "hipify-corpus", args.repeat)
            if "split" in only:
                split_section(revisions[0], root, args.repeat)
            if "tree" in only:
                tree_section(revisions[0], smap, root, args.files, args.lines, args.jobs, args.repeat)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"\n# done ({load()})")


if __name__ == "__main__":
    main()
