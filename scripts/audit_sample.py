"""Draw a reproducible random sample of the glossary's checkable claims for an accuracy audit.

    python3 scripts/audit_sample.py --seed 20261201 -n 150 > sample.md
    python3 scripts/audit_sample.py --seed 7 -n 150 --exclude docs/contributing/audits/2026-12-01.md

The population is `xlate glossary claims --show all` (one checkable sentence per row, see
src/xlate/kb/_claims.py). Rows are sorted by (item, field, sentence) so the order does not depend on file
system order, then `random.Random(seed).sample` picks n of them. With --exclude, claims whose key appears
in an earlier audit file are left out first, so a second audit draws claims nobody has checked. The
output is a Markdown table with an empty verdict column to fill in (docs/contributing/audit.md).
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from xlate import kb  # noqa: E402

KEY_IN_TABLE = re.compile(r"`([a-z0-9-]+) ([a-z0-9_.]+)`")


def _already_audited(paths: list[Path]) -> set[tuple[str, str, str]]:
    """(item, field, first 60 characters) of every claim listed in earlier audit tables."""
    seen: set[tuple[str, str, str]] = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) < 5:
                continue
            m = KEY_IN_TABLE.search(cells[2])
            if m:
                seen.add((m.group(1), m.group(2), cells[3][:60]))
    return seen


def draw(seed: int, n: int, exclude: list[Path]) -> tuple[list[kb.Claim], int]:
    g = kb.load_glossary(ROOT / "glossary")
    if g.problems:
        raise SystemExit(f"error: the glossary has {len(g.problems)} problem(s); run `xlate glossary check`")
    population = sorted(kb.collect_claims(g), key=lambda c: (c.item, c.field, c.text))
    seen = _already_audited(exclude)
    population = [c for c in population if (c.item, c.field, _cell(c.text)[:60]) not in seen]
    if n > len(population):
        raise SystemExit(f"error: only {len(population)} claims to draw from, asked for {n}")
    return random.Random(seed).sample(population, n), len(population)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-n", type=int, default=150)
    ap.add_argument("--exclude", type=Path, nargs="*", default=[], help="earlier audit tables whose claims to skip")
    args = ap.parse_args()
    sample, size = draw(args.seed, args.n, args.exclude)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"Sample of {len(sample)} from {size} claims, seed {args.seed}, glossary at commit {commit or 'unknown'}.\n")
    print("| # | claim | sentence | verdict | how checked |")
    print("|---|---|---|---|---|")
    for i, c in enumerate(sample, 1):
        backed = " (has evidence)" if c.evidence else ""
        print(f"| {i} | `{c.item} {c.field}`{backed} | {_cell(c.text)} |  |  |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
