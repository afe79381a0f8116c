"""Docs site build time from a fresh clone: plain `mkdocs build --strict`, and zensical.

Clones the repository's committed HEAD into a temporary folder (nothing generated, nothing cached),
then times, N runs each, the median of:
  - a one-page Material site built by the same mkdocs (the fixed cost of starting mkdocs and the theme),
  - `mkdocs build --strict` of the whole site in the clone (the hook renders every generated page),
  - the same with XLATE_DOCS_JOBS=1 (every page rendered in one process, no second core),
  - `xlate docs build --engine zensical` in the clone (stage the pages, zensical build, move the site).
and prints each with its ratio to the one-page reference measured in the same run.
Run: python benchmarks/bench_docs.py [N]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True)
        # Nothing from the working tree: no PYTHONPATH, an empty cache folder.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XLATE_DOCS_JOBS")}
        env.update(NO_MKDOCS_2_WARNING="1", XDG_CACHE_HOME=str(Path(tmp) / "cache"))
        ref = Path(tmp) / "ref"
        (ref / "docs").mkdir(parents=True)
        (ref / "docs" / "index.md").write_text("# Reference\n\nOne page.\n")
        (ref / "mkdocs.yml").write_text("site_name: ref\ntheme:\n  name: material\n  font: false\n")
        # The whole-site builds run without -q: with it mkdocs drops warnings before --strict counts them.
        reference = statistics.median(timed([sys.executable, "-m", "mkdocs", "build", "-q"], ref, env) for _ in range(runs))
        site = Path(tmp) / "site"
        mk = statistics.median(timed([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], clone, env)
                               for _ in range(runs))
        pages = sum(1 for _ in site.rglob("*.html"))
        serial = statistics.median(timed([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                                         clone, {**env, "XLATE_DOCS_JOBS": "1"}) for _ in range(runs))
        z = None
        if shutil.which("zensical"):
            zenv = {**env, "PYTHONPATH": str(clone / "src")}
            zsite = Path(tmp) / "zsite"
            z = statistics.median(timed([sys.executable, "-m", "xlate", "docs", "build", "--engine", "zensical",
                                         "--site-dir", str(zsite)], clone, zenv) for _ in range(runs))
            zpages = sum(1 for _ in zsite.rglob("*.html"))
    print(f"{'stage (fresh clone, median of ' + str(runs) + ')':<46} {'s':>7} {'x reference':>12}")
    print(f"{'reference: one-page Material site':<46} {reference:>7.2f} {1.0:>12.2f}")
    print(f"{'mkdocs build --strict (whole site, via hook)':<46} {mk:>7.2f} {mk / reference:>12.2f}")
    print(f"{'  the same, one process (XLATE_DOCS_JOBS=1)':<46} {serial:>7.2f} {serial / reference:>12.2f}")
    if z is not None:
        print(f"{'xlate docs build --engine zensical':<46} {z:>7.2f} {z / reference:>12.2f}")
    print(f"mkdocs: {pages} HTML pages" + (f"; zensical: {zpages} HTML pages" if z is not None else "; zensical not installed"))
    print(f"target: mkdocs build --strict of a fresh clone in at most 10 s; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
