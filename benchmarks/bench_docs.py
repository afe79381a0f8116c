"""Docs site build time: generate the pages, then build with mkdocs (strict) and with zensical.

Prints each stage's median over N runs and the ratio to a reference: a one-page Material site built
with the same mkdocs in the same run (the fixed cost of starting mkdocs and the theme).
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
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "ref"
        (ref / "docs").mkdir(parents=True)
        (ref / "docs" / "index.md").write_text("# Reference\n\nOne page.\n")
        (ref / "mkdocs.yml").write_text("site_name: ref\ntheme:\n  name: material\n  font: false\n")
        reference = statistics.median(timed([sys.executable, "-m", "mkdocs", "build", "-q"], ref) for _ in range(runs))
        gen = statistics.median(timed([sys.executable, "-m", "xlate", "docs", "generate"], REPO) for _ in range(runs))
        site = Path(tmp) / "site"
        build = statistics.median(
            timed([sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-d", str(site)], REPO) for _ in range(runs))
        pages = len(list(site.rglob("*.html")))
        zensical = shutil.which("zensical")
        z = None
        if zensical:
            work = Path(tmp) / "z"
            shutil.copytree(REPO / "docs", work / "docs")
            shutil.copy(REPO / "mkdocs.yml", work / "mkdocs.yml")
            z = statistics.median(timed([zensical, "build", "-f", "mkdocs.yml"], work) for _ in range(runs))
    print(f"{'stage':<40} {'median s':>9} {'x reference':>12}")
    print(f"{'reference: one-page Material site':<40} {reference:>9.2f} {1.0:>12.2f}")
    print(f"{'xlate docs generate':<40} {gen:>9.2f} {gen / reference:>12.2f}")
    print(f"{'mkdocs build --strict (the site)':<40} {build:>9.2f} {build / reference:>12.2f}")
    print(f"{'generate + mkdocs build':<40} {gen + build:>9.2f} {(gen + build) / reference:>12.2f}")
    if z is not None:
        print(f"{'zensical build (same mkdocs.yml)':<40} {z:>9.2f} {z / reference:>12.2f}")
    print(f"{pages} HTML pages; target: whole site under 10 s on 2 cores ({runs} runs each)")


if __name__ == "__main__":
    main()
