"""`xlate glossary check`: every validation, reported compiler-style, with a summary on success."""

from __future__ import annotations

import sys
from pathlib import Path

from xlate.errors import EXIT_FINDINGS, EXIT_OK
from xlate.kb import _glossary as gl
from xlate.kb import _schema as schema
from xlate.kb._model import REQUIRED_BACKENDS
from xlate.kb._paths import display_path, require_glossary
from xlate.kb._yamlio import Problem

__all__ = ["EXIT_OK", "EXIT_PROBLEMS", "collect", "header_problems", "run_check"]

EXIT_PROBLEMS = EXIT_FINDINGS  # problems found is the check's "no", not a failure to run


def header_problems(root: Path) -> list[Problem]:
    """Every YAML file must point editors at the schema on its first line."""
    out = []
    files = gl.concept_files(root) + gl.gpu_files(root)
    for path in files:
        try:
            with path.open(encoding="utf-8") as fh:
                first = fh.readline().rstrip("\n")
        except (OSError, UnicodeDecodeError):
            continue  # load() reports unreadable files
        if first != schema.SCHEMA_COMMENT:
            out.append(Problem(display_path(path, root), 1, f"first line must be `{schema.SCHEMA_COMMENT}`"))
    return out


def lint_problems(root: Path, g: gl.Glossary) -> list[Problem]:
    """The checks that need no compiler: template and sibling slips in symbol rows, concept sides that
    the rows contradict, and every Metal side against the MSL and Metal API tables (symbols/specs/) and
    against the record of its uses in compiled Metal code (symbols/specs/msl-attested.yaml).
    The compile probes of HIP sides and the MLX/Triton look-ups run in the tests (tests/test_proofs.py)."""
    from xlate.kb import _proofs

    out = [Problem(file, line, message) for file, line, message in _proofs.row_lints(g.rows)]
    for cid, message in _proofs.concept_lints(g.concepts, g.rows):
        where = g.where(cid) if cid in g.sources else (f"{root.name}/{cid}", 1)
        out.append(Problem(where[0], where[1], message))
    if (root / _proofs.SPECS_DIR).is_dir():
        for text in _proofs.metal_problems(g.rows, root):
            file, line, message = _split_location(text)
            out.append(Problem(file, line, message))
        for text in _proofs.attested_problems(g.rows, root):
            file, line, message = _split_location(text)
            out.append(Problem(file, line, message))
        for text in _proofs.concept_metal_problems(g.concepts, root)[1]:
            cid, _, message = text.partition(": ")
            file, line = g.where(cid, "terms", "metal", "symbols")
            out.append(Problem(file, line, message))
    return out


def _split_location(text: str) -> tuple[str, int, str]:
    """'path:line: message' -> its parts; text without a location is reported at the tables' folder."""
    head, sep, rest = text.partition(": ")
    path, _, line = head.rpartition(":")
    if sep and path and line.isdigit():
        return path, int(line), rest
    return "glossary/symbols/specs", 1, text


def collect(root: Path) -> tuple[gl.Glossary, list[Problem]]:
    g = gl.load(root)
    problems = list(g.problems)
    if root.is_dir():
        problems += header_problems(root)
        if not schema.is_current(root):
            problems.append(Problem(f"{root.name}/{schema.SCHEMA_FILE}", 1, "schema is missing or stale; run `xlate glossary schema`"))
        from xlate import examples_check

        problems += examples_check.problems(root, g)
        from xlate.kb._translate_data import translate_problems

        problems += translate_problems(root)
        problems += lint_problems(root, g)
        # The API family files are checked by gl.load, with the symbol rows they feed.
    return g, problems


def run_check(root: Path) -> int:
    """Print every problem and return EXIT_PROBLEMS, or a summary and EXIT_OK; a missing folder is refused."""
    g, problems = collect(require_glossary(root))
    for p in sorted(problems, key=lambda p: (p.path, p.line)):
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {root}", file=sys.stderr)
        return EXIT_PROBLEMS
    counts = gl.categories_in_use(g)
    filled = sum(1 for c in g.concepts.values() for b in REQUIRED_BACKENDS if getattr(c.terms, b.value))
    none = sum(1 for c in g.concepts.values() for _, t in c.terms.items() if t.relation.value == "none")
    print(f"ok: {len(g.concepts)} concepts, {len(g.gpus)} GPU spec sheets, {filled} required backend cells "
          f"({none} of all cells are 'none' with a reason)")
    print("   " + ", ".join(f"{c.value} {n}" for c, n in counts.items()))
    sides = {b: sum(1 for r in g.rows.values() if (r["sides"].get(b) or {}).get("symbol")) for b in ("hip", "metal", "mlx", "triton")}
    print(f"   {len(g.rows)} symbol rows: " + ", ".join(f"{n} with a {b} spelling" for b, n in sides.items()))
    return EXIT_OK
