"""Import AMD's HIPIFY support tables (Markdown) into `glossary/symbols/hipify/*.yaml`.

HIPIFY publishes, per CUDA library, which CUDA names it translates, to which HIP (and rocBLAS-style
ROC or MIOpen) names, and in which versions each side added, deprecated, changed or removed them.
An empty target cell means HIPIFY knows the name and has no equivalent for it. This importer reads
those tables unchanged and writes one generated YAML file per family; rerunning it on the same
tables writes the same bytes. Facts newer than the imported tables live in
`glossary/symbols/overrides.yaml`, which an import never touches.

Usage: `xlate glossary import-hipify TABLES_DIR` (or `python3 -m xlate.hipify_import TABLES_DIR`).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["FAMILIES", "ImportError_", "TableRow", "import_tables", "main", "parse_table"]

# Table file stem prefix -> family id (the family files in glossary/api/ share these ids).
FAMILIES: dict[str, str] = {
    "CUDA_Runtime_API_functions": "cuda-runtime",
    "CUDA_Driver_API_functions": "cuda-driver",
    "CUDA_Device_API": "cuda-device",
    "CUDA_RTC_API": "cuda-rtc",
    "CUB_API": "cub",
    "CUBLAS_API": "cublas",
    "CUSPARSE_API": "cusparse",
    "CUSOLVER_API": "cusolver",
    "CURAND_API": "curand",
    "CUFFT_API": "cufft",
    "CUDNN_API": "cudnn",
    "cuComplex_API": "cucomplex",
}
TARGETS = ("HIP", "ROC", "MIOPEN")  # column groups a table may carry, in this order
VERSION_KEYS = {"A": "added", "D": "deprecated", "C": "changed", "R": "removed", "E": "experimental"}
UPSTREAM = "https://github.com/ROCm/HIPIFY/blob/{commit}/docs/tables/{table}"
OUT_DIR = Path("symbols") / "hipify"


class ImportError_(Exception):
    """The tables folder is missing, unreadable or not in HIPIFY's table format."""


@dataclass
class TableRow:
    cuda: str
    section: str
    cuda_versions: dict[str, str] = field(default_factory=dict)
    targets: dict[str, tuple[str | None, dict[str, str]]] = field(default_factory=dict)  # HIP/ROC/MIOPEN


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _name(cell: str) -> str | None:
    text = cell.strip().strip("`").strip()
    return text or None


def parse_table(text: str, shown: str) -> list[TableRow]:
    """Rows of one HIPIFY Markdown table file, in file order."""
    rows: list[TableRow] = []
    section = ""
    header: list[str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            section = re.sub(r"^\d+\.\s*", "", line[3:].replace("*", "").strip())
            header = None
        elif line.startswith("|**"):
            header = [c.replace("*", "") for c in _cells(line)]
            if not header or header[0] != "CUDA":
                raise ImportError_(f"{shown}:{number}: expected a table whose first column is CUDA")
        elif line.startswith("|`"):
            if header is None:
                raise ImportError_(f"{shown}:{number}: table row before any table header")
            cells = _cells(line)
            if len(cells) != len(header):
                raise ImportError_(f"{shown}:{number}: {len(cells)} cells where the header has {len(header)}")
            cuda = _name(cells[0])
            if cuda is None:
                raise ImportError_(f"{shown}:{number}: empty CUDA name")
            row = TableRow(cuda, section)
            group = "CUDA"
            for title, cell in zip(header[1:], cells[1:]):
                if title in TARGETS:
                    group = title
                    row.targets[group] = (_name(cell), {})
                elif title in VERSION_KEYS and cell:
                    versions = row.cuda_versions if group == "CUDA" else row.targets[group][1]
                    versions[VERSION_KEYS[title]] = cell
            rows.append(row)
    return rows


def _family_of(stem: str) -> tuple[str, str] | None:
    for prefix, family in FAMILIES.items():
        if stem.startswith(prefix + "_supported_by_"):
            return family, stem[len(prefix + "_supported_by_"):]
    return None


def _commit(folder: Path) -> str:
    prov = folder / "PROVENANCE.md"
    try:
        text = prov.read_text(encoding="utf-8")
    except OSError as exc:
        raise ImportError_(f"{prov}: cannot read the provenance note ({exc.strerror})") from None
    found = re.search(r"\b[0-9a-f]{40}\b", text)
    if not found:
        raise ImportError_(f"{prov}: no source commit (40 hex digits) found")
    return found.group(0)


def _q(text: str) -> str:
    """A YAML scalar: plain where safe, else double-quoted."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_:.<>]*", text) and text not in ("true", "false", "null", "yes", "no", "on", "off"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _render(family: str, commit: str, tables: list[str], sections: list[str], rows: list[TableRow]) -> str:
    out = [
        "# Generated by `xlate glossary import-hipify` from AMD's HIPIFY support tables (MIT licence).",
        "# Do not edit: rerun the importer. Newer facts go in glossary/symbols/overrides.yaml.",
        f"family: {family}",
        f"commit: {commit}",
        "tables:",
        *[f"  - {UPSTREAM.format(commit=commit, table=t)}" for t in tables],
        "sections:",
        *[f"  - {_q(s)}" for s in sections],
        "# rows: cuda name, section index, then per side (cuda, hip, roc, miopen) the name and its versions",
        "rows:",
    ]
    for row in rows:
        parts = [f"cuda: {_q(row.cuda)}", f"section: {sections.index(row.section)}"]
        parts += [f"cuda_{k}: {_q(v)}" for k, v in row.cuda_versions.items()]
        for target in TARGETS:
            if target not in row.targets:
                continue
            name, versions = row.targets[target]
            side = target.lower()
            parts.append(f"{side}: {_q(name) if name else 'null'}")
            parts += [f"{side}_{k}: {_q(v)}" for k, v in versions.items()]
        out.append("  - {" + ", ".join(parts) + "}")
    return "\n".join(out) + "\n"


def _merge(into: TableRow, other: TableRow, shown: str) -> None:
    """Tables of one family overlap (HIP, ROC, HIP_and_ROC): the same name must say the same thing."""
    for target, value in other.targets.items():
        mine = into.targets.get(target)
        if mine is None:
            into.targets[target] = value
        elif mine != value:
            raise ImportError_(f"{shown}: {other.cuda}: {target} column disagrees between tables ({mine} vs {value})")
    if other.cuda_versions and into.cuda_versions != other.cuda_versions:
        into.cuda_versions = {**other.cuda_versions, **into.cuda_versions}


def import_tables(tables_dir: Path, glossary_root: Path) -> dict[str, int]:
    """Read every table in `tables_dir`, write one YAML per family; returns rows written per family."""
    if not tables_dir.is_dir():
        raise ImportError_(f"tables folder not found: {tables_dir}")
    commit = _commit(tables_dir)
    by_family: dict[str, dict[str, TableRow]] = {}
    sections: dict[str, list[str]] = {}
    sources: dict[str, list[str]] = {}
    for path in sorted(tables_dir.glob("*.md")):
        found = _family_of(path.stem)
        if found is None:
            continue
        family, _ = found
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ImportError_(f"{path.name}: cannot read ({exc})") from None
        rows = by_family.setdefault(family, {})
        secs = sections.setdefault(family, [])
        sources.setdefault(family, []).append(path.name)
        for row in parse_table(text, path.name):
            if row.section not in secs:
                secs.append(row.section)
            if row.cuda in rows:
                _merge(rows[row.cuda], row, path.name)
            else:
                rows[row.cuda] = row
    if not by_family:
        raise ImportError_(f"{tables_dir}: no HIPIFY tables (*_supported_by_*.md) found")
    out_dir = glossary_root / OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for family, rows in sorted(by_family.items()):
        text = _render(family, commit, sources[family], sections[family], list(rows.values()))
        target = out_dir / f"{family}.yaml"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            tmp = target.with_suffix(".yaml.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
        counts[family] = len(rows)
    return counts


def main(argv: list[str] | None = None) -> int:
    import argparse

    from xlate.kb._paths import glossary_root

    p = argparse.ArgumentParser(prog="xlate glossary import-hipify", description=__doc__.splitlines()[0])
    p.add_argument("tables", type=Path, help="folder holding HIPIFY's docs/tables/*.md and a PROVENANCE.md naming the commit")
    p.add_argument("--glossary", type=Path, default=None, help="glossary folder (default: the project's glossary/)")
    args = p.parse_args(argv)
    try:
        counts = import_tables(args.tables, args.glossary or glossary_root())
    except ImportError_ as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for family, n in counts.items():
        print(f"{family}: {n} rows")
    print(f"{sum(counts.values())} rows in {len(counts)} families")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
