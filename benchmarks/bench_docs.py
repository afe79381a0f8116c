"""Docs site build time from a fresh clone: plain `mkdocs build --strict`, and zensical.

Clones the repository's committed HEAD into a temporary folder (nothing generated, nothing cached),
then times, N rounds, the median of:
  - a one-page Material site built by the same mkdocs (the fixed cost of starting mkdocs and the theme),
  - `mkdocs build --strict` of the whole site in the clone (the hook renders every generated page),
  - with --against REV: the same build of a fresh clone of REV (an older tree), in the same rounds (and
    which files of the two sites differ: a speed-up should leave the site byte-for-byte the same),
  - the same with XLATE_DOCS_CACHE=0: no page cache, as the first build of a fresh clone (the other
    builds of HEAD after the first round find the generated pages' output in the cache folder, which
    the rounds share),
  - the same with XLATE_DOCS_JOBS=1 (one process) and =2 (two processes, as unset),
  - `xlate docs build --engine zensical` in the clone (stage the pages, zensical build, move the site).
Each round runs every build once, one after another, so a busy machine slows them alike; each median
is printed with its ratio to the one-page reference and (with --against) to the older tree, together
with the CPU seconds the build used (both processes) and the load average before and after.
Run: python benchmarks/bench_docs.py [N] [--against REV] [--no-zensical]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the command and its children) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def site_differences(a: Path, b: Path) -> list[str]:
    """The files of two built sites that are not byte-for-byte the same (or are in only one of them)."""
    def files(root: Path) -> dict[str, Path]:
        return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file()}

    fa, fb = files(a), files(b)
    return sorted(name for name in fa.keys() | fb.keys()
                  if name not in fa or name not in fb or fa[name].read_bytes() != fb[name].read_bytes())


def clone(rev: str, into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "-q", rev], check=True)
    # Bytecode as an installed package has it (the shell may forbid writing it at run time).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into / "src" / "xlate")], check=True)
    return into


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("runs", nargs="?", type=int, default=3)
    ap.add_argument("--against", metavar="REV", help="also build a fresh clone of this older revision in each round")
    ap.add_argument("--no-zensical", action="store_true", help="leave out the zensical build")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        new = clone("HEAD", work / "clone")
        old = clone(args.against, work / "old") if args.against else None
        # Nothing from the working tree: no PYTHONPATH, an empty cache folder.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XLATE_DOCS_JOBS")}
        env.update(NO_MKDOCS_2_WARNING="1", XDG_CACHE_HOME=str(work / "cache"))
        ref = work / "ref"
        (ref / "docs").mkdir(parents=True)
        (ref / "docs" / "index.md").write_text("# Reference\n\nOne page.\n")
        (ref / "mkdocs.yml").write_text("site_name: ref\ntheme:\n  name: material\n  font: false\n")
        # The whole-site builds run without -q: with it mkdocs drops warnings before --strict counts them.
        build = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d"]
        runs: dict[str, list[tuple[float, float]]] = {}
        cases: list[tuple[str, list[str], Path, dict[str, str]]] = [
            ("reference: one-page Material site", [sys.executable, "-m", "mkdocs", "build", "-q"], ref, env),
            (f"mkdocs build --strict (HEAD {head})", [*build, str(work / "site")], new, env),
        ]
        if old is not None:
            cases.append((f"  the same, older tree ({args.against})", [*build, str(work / "oldsite")], old, env))
        cases.append(("  the same, no page cache (XLATE_DOCS_CACHE=0)", [*build, str(work / "site0")], new,
                      {**env, "XLATE_DOCS_CACHE": "0"}))
        cases.append(("  the same, one process (XLATE_DOCS_JOBS=1)", [*build, str(work / "site1")], new,
                      {**env, "XLATE_DOCS_JOBS": "1"}))
        cases.append(("  the same, two processes (XLATE_DOCS_JOBS=2)", [*build, str(work / "site2")], new,
                      {**env, "XLATE_DOCS_JOBS": "2"}))
        if shutil.which("zensical") and not args.no_zensical:
            cases.append(("xlate docs build --engine zensical",
                          [sys.executable, "-m", "xlate", "docs", "build", "--engine", "zensical", "--site-dir", str(work / "zsite")],
                          new, {**env, "PYTHONPATH": str(new / "src")}))
        load_before = os.getloadavg()
        for _ in range(args.runs):
            for name, cmd, cwd, case_env in cases:
                runs.setdefault(name, []).append(timed(cmd, cwd, case_env))
        load_after = os.getloadavg()
        pages = sum(1 for _ in (work / "site").rglob("*.html"))
        differ = site_differences(work / "site", work / "oldsite") if old is not None else None
        uncached = site_differences(work / "site", work / "site0")
        zpages = sum(1 for _ in (work / "zsite").rglob("*.html")) if (work / "zsite").exists() else None
    med = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in runs.items()}
    fastest = {name: min(w for w, _ in r) for name, r in runs.items()}  # the least disturbed run of each
    reference = med[cases[0][0]][0]
    older = med[cases[2][0]][0] if old is not None else None
    print(f"{'stage (fresh clone, median of ' + str(args.runs) + ')':<46} {'wall s':>7} {'cpu s':>7} {'min wall':>9} "
          f"{'x reference':>12}" + (f" {'x older':>8}" if older else ""))
    for name, (wall, cpu) in med.items():
        print(f"{name:<46} {wall:>7.2f} {cpu:>7.2f} {fastest[name]:>9.2f} {wall / reference:>12.2f}"
              + (f" {wall / older:>8.2f}" if older else ""))
    if differ is not None:
        print(f"site of HEAD vs {args.against}: " + ("byte-for-byte the same" if not differ else
              f"{len(differ)} file(s) differ: {', '.join(differ[:8])}" + (" ..." if len(differ) > 8 else "")))
    print("site with the page cache vs without: " + ("byte-for-byte the same" if not uncached else
          f"{len(uncached)} file(s) differ: {', '.join(uncached[:8])}"))
    print(f"mkdocs: {pages} HTML pages" + (f"; zensical: {zpages} HTML pages" if zpages is not None else "; zensical not built"))
    print(f"target: mkdocs build --strict of a fresh clone in at most 10 s; {os.cpu_count()} CPUs, load average "
          f"{load_before[0]:.1f} before, {load_after[0]:.1f} after")


if __name__ == "__main__":
    main()
