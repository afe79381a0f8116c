#!/usr/bin/env python3
"""Every section heading of AMD's ROCm documentation, read from given commits of git directories.

The headings of glossary/vocabulary/names-rocm-doc-sections.yaml and names-amdgpu-usage-sections.yaml
are chosen from this script's output, kept in tests/data/rocm_doc_headings.txt and
tests/data/amdgpu_usage_headings.txt, and tests/test_vocabulary_rocm_docs.py checks the lists against
those copies. Each source is a repository, a commit and the folders (or files) to read:

- reStructuredText (.rst) and Markdown (.md) pages: titles and headings as scripts/list_doc_headings.py
  reads them (its parsers are imported, not copied), inline markup reduced to its text;
- a Sphinx table of contents (sphinx/_toc.yml.in, sphinx/_toc.yml) under a folder read: every caption
  and every entry title, as scripts/list_hip_doc_headings.py reads HIP's.

    python3 scripts/list_rocm_doc_headings.py \\
        --source OWNER/NAME GIT_DIR COMMIT FOLDER[,FOLDER...] [--source ...]

The output starts with one comment line per source, `# OWNER/NAME COMMIT (REF) FOLDER...: N headings`
(the ref only when it was not the commit id), then one line per heading,
`OWNER/NAME<TAB>PATH<TAB>KIND<TAB>HEADING` (KIND: rst, md, toc-caption or toc-title), sources in the
order given, files in path order and headings in page order. The kept lists were written with:

    python3 scripts/list_rocm_doc_headings.py \\
        --source ROCm/ROCm ROCM_GITDIR develop docs \\
        --source ROCm/rocm-systems SYSTEMS_GITDIR develop \\
            projects/rocprofiler-compute/docs,projects/rocprofiler-sdk/source/docs
    python3 scripts/list_rocm_doc_headings.py \\
        --source fly-lang/fly FLY_GITDIR d613787f87ac60df99879684898fe9db68ab5a27 llvm/docs/AMDGPUUsage.rst

GIT_DIR is a git directory (a bare clone is enough). Only the standard library, PyYAML (for the table
of contents) and the local git are used; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the heading parsers beside this script
import list_doc_headings as shared  # noqa: E402
import list_hip_doc_headings as hip  # noqa: E402

TOCS = ("sphinx/_toc.yml.in", "sphinx/_toc.yml")


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True, encoding="utf-8", errors="replace"
    ).stdout


def page_headings(path: str, source: str) -> list[tuple[str, str]]:
    """The headings of one docs file as (KIND, HEADING); none for a file that is neither page nor toc."""
    if path.endswith(".rst"):
        return [("rst", h) for h in shared.headings(path, source)]
    if path.endswith(".md"):
        return [("md", h) for h in shared.headings(path, source)]
    if path.endswith(TOCS):
        return hip.toc_headings(source)
    return []


def headings(git_dir: str, commit: str, folders: list[str]) -> list[tuple[str, str, str]]:
    """(PATH, KIND, HEADING) for every heading under the folders at the commit."""
    paths = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *folders).splitlines()
    if not paths:
        raise SystemExit(f"nothing under {' '.join(folders)} at {commit}")
    out = []
    for path in sorted(paths):
        if path.endswith((".rst", ".md", *TOCS)):
            out += [(path, kind, text) for kind, text in page_headings(path, git(git_dir, "show", f"{commit}:{path}"))]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        nargs=4,
        action="append",
        required=True,
        metavar=("OWNER/NAME", "GIT_DIR", "COMMIT", "FOLDERS"),
        help="a repository, its git directory, a commit and comma-separated folders (repeatable)",
    )
    args = parser.parse_args(argv)
    comments: list[str] = []
    rows: list[str] = []
    for repo, git_dir, ref, folders in args.source:
        commit = git(git_dir, "rev-parse", f"{ref}^{{commit}}").strip()
        wanted = [f.strip("/") for f in folders.split(",") if f.strip("/")]
        found = headings(git_dir, commit, wanted)
        given = f" ({ref})" if ref != commit else ""
        comments.append(f"# {repo} {commit}{given} {' '.join(wanted)}: {len(found)} headings")
        rows += [f"{repo}\t{path}\t{kind}\t{text}" for path, kind, text in found]
    sys.stdout.write("\n".join(comments + rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
