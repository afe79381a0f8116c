"""List the names two kernel profilers show in their reports, read straight from a git repository.

rocprof-compute (ROCm Compute Profiler, formerly Omniperf) defines each analysis panel in a YAML file per GPU
architecture (src/rocprof_compute_soc/analysis_configs/gfxNNN/*.yaml): the panel's title, the titles of its
tables, and each table's metric names (the keys of a table's `metric` mapping). Nsight Compute defines each
report section in a protobuf text file (*.section): its Identifier (what `ncu --section` takes), its
DisplayName, and the Label of every metric it shows.

    python3 scripts/list_profiler_names.py rocprof-compute GIT_DIR COMMIT FOLDER > tests/data/names-rocprof-compute-panels.tsv
    python3 scripts/list_profiler_names.py nsight-compute GIT_DIR COMMIT FOLDER > tests/data/names-nsight-compute.tsv

Output: one tab-separated row per name and place, after a first line naming the commit and the folder.
rocprof-compute rows are `kind  name  panel  table  architectures` (kind: panel, table or metric);
Nsight Compute rows are `kind  name  section` (kind: identifier, display or label). The provenance line's
repository is given with --repo.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator

import yaml


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True).stdout


def files_under(git_dir: str, commit: str, folder: str, suffix: str) -> list[str]:
    listed = git(git_dir, "ls-tree", "-r", "--name-only", commit, folder).splitlines()
    return sorted(p for p in listed if p.endswith(suffix))


# --- rocprof-compute ---------------------------------------------------------------------------------------


def panel_rows(config: dict) -> Iterator[tuple[str, str, str, str]]:
    """(kind, name, panel, table) for one panel file: the panel's title, each table's title and each
    metric name of a table."""
    panel = config.get("Panel Config") or {}
    title = str(panel.get("title") or "")
    if title:
        yield "panel", title, title, ""
    for source in panel.get("data source") or []:
        for table in source.values():
            if not isinstance(table, dict):
                continue
            table_title = str(table.get("title") or "")
            if table_title:
                yield "table", table_title, title, table_title
            for metric in table.get("metric") or {}:
                yield "metric", str(metric), title, table_title


def rocprof_compute(git_dir: str, commit: str, folder: str) -> list[str]:
    seen: dict[tuple[str, str, str, str], list[str]] = {}
    for path in files_under(git_dir, commit, folder, ".yaml"):
        arch = path[len(folder) :].strip("/").split("/")[0]
        if not arch.startswith("gfx"):
            continue  # the template beside the architecture folders
        config = yaml.safe_load(git(git_dir, "show", f"{commit}:{path}")) or {}
        for row in panel_rows(config):
            archs = seen.setdefault(row, [])
            if arch not in archs:
                archs.append(arch)
    return ["\t".join((*row, ",".join(archs))) for row, archs in seen.items()]


# --- Nsight Compute ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r'[\s,;]*(?:(#[^\n]*)|([A-Za-z_][A-Za-z0-9_]*)\s*(:)?\s*(\{)?|(\})|("(?:[^"\\]|\\.)*")|([^\s{}",;]+))')


def parse_text_proto(text: str) -> list[tuple[str, object]]:
    """A protobuf text message as (field, value) pairs in order; a nested message's value is its own
    list of pairs, a scalar's is its text (quotes removed)."""
    stack: list[list[tuple[str, object]]] = [[]]
    field: str | None = None
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip():
                raise ValueError(f"cannot read {text[pos : pos + 40]!r}")
            break
        pos = m.end()
        comment, name, colon, brace, close, quoted, bare = m.groups()
        if comment:
            continue
        if name is not None and field is not None and not colon and not brace:
            stack[-1].append((field, name))  # a bare value (an enum such as CC_75)
            field = None
            continue
        if name is not None:
            if brace:
                inner: list[tuple[str, object]] = []
                stack[-1].append((name, inner))
                stack.append(inner)
            else:
                field = name
        elif close:
            stack.pop()
        elif quoted is not None or bare is not None:
            value = quoted[1:-1].encode().decode("unicode_escape") if quoted is not None else bare
            if field is None:
                raise ValueError(f"value without a field near {value!r}")
            stack[-1].append((field, value))
            field = None
    return stack[0]


def _labels(message: list[tuple[str, object]]) -> Iterator[str]:
    for key, value in message:
        if isinstance(value, list):
            yield from _labels(value)
        elif key == "Label":
            yield str(value)


def section_rows(text: str) -> Iterator[tuple[str, str, str]]:
    """(kind, name, section identifier) for one section file: its Identifier, its DisplayName and the
    Label of each metric, chart or table it shows."""
    message = parse_text_proto(text)
    top = {k: v for k, v in message if not isinstance(v, list)}
    ident = str(top.get("Identifier", ""))
    yield "identifier", ident, ident
    if top.get("DisplayName"):
        yield "display", str(top["DisplayName"]), ident
    for key, value in message:
        if isinstance(value, list) and key != "Sets":
            for label in _labels(value):
                yield "label", label, ident


def nsight_compute(git_dir: str, commit: str, folder: str) -> list[str]:
    seen: dict[tuple[str, str, str], None] = {}
    for path in files_under(git_dir, commit, folder, ".section"):
        for row in section_rows(git(git_dir, "show", f"{commit}:{path}")):
            seen.setdefault(row, None)
    return ["\t".join(row) for row in seen]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool", choices=["rocprof-compute", "nsight-compute"])
    parser.add_argument("git_dir")
    parser.add_argument("commit")
    parser.add_argument("folder")
    parser.add_argument("--repo", required=True, help="owner/name of the repository read, for the first line")
    parser.add_argument("--note", default="", help="what the commit is (branch, release), for the first line")
    args = parser.parse_args(argv)
    commit = git(args.git_dir, "rev-parse", args.commit).strip()
    rows = (rocprof_compute if args.tool == "rocprof-compute" else nsight_compute)(args.git_dir, commit, args.folder)
    note = f" ({args.note})" if args.note else ""
    print(f"# {args.repo} {commit}{note} {args.folder}: {len(rows)} rows")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
