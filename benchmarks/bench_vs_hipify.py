"""Benchmark xlate against AMD's hipify-perl on the same files, in the same run.

hipify-perl is the regex translator AMD ships with HIPIFY. The install script unpacks Debian's
package of it (pinned, see scripts/install-test-deps.sh) beside the ROCm headers, at
$XLATE_ROCM_DIR/usr/bin/hipify-perl; $HIPIFY_PERL names another copy. Nothing here puts it on PATH.

The corpus is the project's own CUDA: the gallery (kernels/**.cu and the headers they include) and
the translator's fixtures (tests/fixtures/translate). Four measurements, each a same-run comparison:

1. speed: one call each over the whole corpus, alternating, medians of --repeat cold runs, in wall
   time and in CPU time (the command and its worker processes; steadier on a loaded machine):
   `xlate explain DIR --format json`, `xlate translate --to hip DIR -o OUT`, and hipify-perl with
   every file on one command line. Ratios are hipify-perl's time over xlate's.
2. fixtures: lines of each fixture's expected HIP reproduced in order (difflib, blanks and trailing
   spaces ignored) by each tool, and files reproduced exactly. The expected files are xlate's own
   (HIPIFY's names plus xlate's rewrites), so the comparison leaves out the `// xlate:` comment lines
   that only xlate writes: what remains is code.
3. compile: every translated gallery kernel and fixture, syntax-checked for gfx942 and gfx90a by
   clang-19 against the ROCm 6.4 headers, for each tool's output.

    python benchmarks/bench_vs_hipify.py [--repeat 5] [--only speed,fixtures,compile]
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from xlate import hip_headers  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "translate"
SOURCES = (".cu", ".cpp")
HEADERS = (".cuh", ".h")
ARCHS = ("gfx942", "gfx90a")


def hipify_perl() -> Path | None:
    env = os.environ.get("HIPIFY_PERL")
    candidate = Path(env) if env else hip_headers.unpack_root() / "usr" / "bin" / "hipify-perl"
    return candidate if candidate.is_file() else None


def xlate_cmd() -> list[str]:
    return [sys.executable, "-m", "xlate"]


def byte_compile() -> None:
    """Compile the package's bytecode once before timing: an installed package has it, and where the
    environment says not to write it (PYTHONDONTWRITEBYTECODE) every timed start would compile
    every module instead."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=False, stdout=subprocess.DEVNULL)


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HIP_PLATFORM": "amd"}


def corpus(dest: Path) -> list[Path]:
    """Copy the gallery and the fixtures into dest (keeping relative includes working)."""
    shutil.copytree(ROOT / "kernels", dest / "kernels", ignore=shutil.ignore_patterns("evidence", "*.hip", "*.metal", "*.py", "*.yaml", "*.md"))
    shutil.copytree(FIXTURES, dest / "fixtures", ignore=shutil.ignore_patterns("*.expected", "*.json"))
    return sorted(p for p in dest.rglob("*") if p.suffix in SOURCES + HEADERS)


def timed(cmd: list[str], **kw) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env(), **kw)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode not in (0, 1):  # explain exits 1 when it found hazards
        raise SystemExit(f"{cmd[:4]} failed ({run.returncode}): {run.stderr.decode(errors='replace')[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def speed(hp: Path, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        files = corpus(tree)
        lines = sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in files)
        print(f"## Speed: one call each over {len(files)} files, {lines} lines (load average {load()} on {os.cpu_count()} cores)")
        runs: dict[str, list[tuple[float, float]]] = {"hipify-perl": [], "xlate explain": [], "xlate translate": []}
        out = Path(tmp) / "out"
        for _ in range(repeat):
            runs["hipify-perl"].append(timed(["perl", str(hp), "-quiet-warnings", *map(str, files)]))
            runs["xlate explain"].append(timed([*xlate_cmd(), "explain", str(tree), "--format", "json"]))
            shutil.rmtree(out, ignore_errors=True)
            runs["xlate translate"].append(timed([*xlate_cmd(), "translate", "--to", "hip", str(tree), "-o", str(out), "--summary", "none"]))
        ref_wall = statistics.median(w for w, _ in runs["hipify-perl"])
        ref_cpu = statistics.median(c for _, c in runs["hipify-perl"])
        for name, times in runs.items():
            wall, cpu = statistics.median(w for w, _ in times), statistics.median(c for _, c in times)
            ratio = "" if name == "hipify-perl" else f"  ({ref_wall / wall:.1f}x faster in wall time, {ref_cpu / cpu:.1f}x in CPU)"
            print(f"  {name:16} median {wall * 1000:6.0f} ms wall, {cpu * 1000:6.0f} ms CPU over {repeat} runs{ratio}")
        print(f"  (load average {load()} after)")


def _code_lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("// xlate:")]


def _matched(want: str, got: str) -> tuple[int, int]:
    a, b = _code_lines(want), _code_lines(got)
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return sum(block.size for block in sm.get_matching_blocks()), len(a)


def _cases() -> dict[str, dict]:
    data = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def fixtures(hp: Path) -> None:
    print("## Fixture suite: expected code lines reproduced in order (xlate's `// xlate:` comment lines left out)")
    totals = {"xlate": [0, 0, 0], "hipify-perl": [0, 0, 0]}
    cases = _cases()
    for name, case in cases.items():
        src = FIXTURES / name
        want = (FIXTURES / (name.rsplit(".", 1)[0] + ".expected")).read_text(encoding="utf-8")
        ours = subprocess.run([*xlate_cmd(), "translate", "--to", "hip", *case.get("args", []), "--summary", "none", str(src)],
                              capture_output=True, text=True, env=env()).stdout
        theirs = subprocess.run(["perl", str(hp), "-quiet-warnings", *(["-roc"] if "--roc" in case.get("args", []) else []), str(src)],
                                capture_output=True, text=True, env=env()).stdout
        row = []
        for tool, got in (("xlate", ours), ("hipify-perl", theirs)):
            m, n = _matched(want, got)
            exact = _code_lines(want) == _code_lines(got)
            totals[tool][0] += m
            totals[tool][1] += n
            totals[tool][2] += exact
            row.append(f"{tool} {m}/{n}{' exact' if exact else ''}")
        print(f"  {name:24} " + "; ".join(row))
    for tool, (m, n, exact) in totals.items():
        print(f"  {tool:12} {m}/{n} lines = {100 * m / max(n, 1):.2f}%, {exact} of {len(cases)} files exact")


def _compile(path: Path, arch: str, include: Path, extra: list[Path]) -> bool:
    cmd = ["clang++-19", "-x", "hip", f"--offload-arch={arch}", "-nogpulib", "-std=c++17", "-w", "-I", str(include)]
    for inc in extra:
        cmd += ["-I", str(inc)]
    cmd += ["-fsyntax-only", str(path)]
    return subprocess.run(cmd, capture_output=True, env=env(), timeout=300).returncode == 0


def compile_rates(hp: Path) -> None:
    found = hip_headers.find_rocm_headers()
    if found is None or shutil.which("clang++-19") is None:
        print(f"## Compile: skipped ({hip_headers.absent_reason() if found is None else 'clang++-19 is not installed'})")
        return
    print(f"## Compile: translated sources syntax-checked by clang-19 against the ROCm {found.version_text} headers")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        files = corpus(tree)
        ours, theirs = Path(tmp) / "xlate", Path(tmp) / "hipify"
        subprocess.run([*xlate_cmd(), "translate", "--to", "hip", str(tree), "-o", str(ours), "--summary", "none"],
                       capture_output=True, env=env())
        for f in files:  # hipify-perl: every file, headers too, keeping names and folders
            target = theirs / f.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(subprocess.run(["perl", str(hp), "-quiet-warnings", str(f)], capture_output=True, text=True).stdout,
                              encoding="utf-8")
        sources = [f.relative_to(tree) for f in files if f.suffix in SOURCES]
        for tool, base in (("xlate", ours), ("hipify-perl", theirs)):
            ok = {arch: 0 for arch in ARCHS}
            failed = []
            for rel in sources:
                path = base / rel
                if not path.exists():
                    path = path.with_suffix(".hip")  # xlate names translated .cu files .hip
                if not path.exists():
                    failed.append(f"{rel} (no output)")
                    continue
                for arch in ARCHS:
                    if _compile(path, arch, found.include, [path.parent, base / "kernels" / "common"]):
                        ok[arch] += 1
                    elif arch == ARCHS[0]:
                        failed.append(str(rel))
            print(f"  {tool:12} " + ", ".join(f"{arch} {ok[arch]}/{len(sources)}" for arch in ARCHS)
                  + (f"; not compiling for {ARCHS[0]}: {', '.join(failed)}" if failed else ""))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", default="speed,fixtures,compile")
    args = p.parse_args()
    hp = hipify_perl()
    if hp is None:
        print("hipify-perl not found: run scripts/install-test-deps.sh or set $HIPIFY_PERL", file=sys.stderr)
        return 2
    shown = subprocess.run(["perl", str(hp), "-version"], capture_output=True, text=True)
    version = (shown.stdout + shown.stderr).strip()
    print(f"# bench_vs_hipify: hipify-perl ({version or 'version unknown'}) against xlate, same run")
    parts = set(args.only.split(","))
    if "speed" in parts:
        byte_compile()
        speed(hp, args.repeat)
    if "fixtures" in parts:
        fixtures(hp)
    if "compile" in parts:
        compile_rates(hp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
