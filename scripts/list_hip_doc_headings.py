"""Every section heading of the HIP documentation at one commit of a git repository that holds it.

The HIP docs are a Sphinx project: reStructuredText pages (.rst) and MyST Markdown pages (.md) under
`docs/` (ROCm/HIP) or `projects/hip/docs/` (ROCm/rocm-systems, where HIP moved), and a table of contents
in `sphinx/_toc.yml.in` whose captions ("Programming guide", "Reference") and entry titles name the
navigation's sections. The script reads them straight from the git object store (`git show`), so it
needs no checkout and no network:

- reStructuredText and Markdown pages: their titles and headings as scripts/list_doc_headings.py reads
  them (the parsers are shared), inline markup reduced to its text as Sphinx renders it;
- the table of contents: every `caption` and every entry's `title`.

    python3 scripts/list_hip_doc_headings.py GIT_DIR COMMIT [--repo OWNER/NAME]

prints one line per heading, `PATH<TAB>KIND<TAB>HEADING` (KIND: rst, md, toc-caption or toc-title), in
the order of the files' paths and, within a file, of the page; with --repo the first line is a comment
naming the repository, the commit (and the branch or tag given, if it was not a commit id) and the count,
as tests/data/hip_doc_headings.txt keeps it:

    python3 scripts/list_hip_doc_headings.py REPO.git refs/heads/docs/develop --repo vjelic/hip-glog-fork
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the heading parsers beside this script
import list_doc_headings as shared  # noqa: E402

DOC_ROOTS = ("docs/", "projects/hip/docs/")
TOC = "sphinx/_toc.yml.in"


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True, encoding="utf-8", errors="replace").stdout


def rst_headings(source: str) -> list[str]:
    """The section titles of a reStructuredText page, in order."""
    return shared.headings("page.rst", source)


def md_headings(source: str) -> list[str]:
    """The headings of a Markdown page, fenced blocks aside."""
    return shared.headings("page.md", source)


def toc_headings(source: str) -> list[tuple[str, str]]:
    """The captions and entry titles of a sphinx-external-toc file, in order."""
    out: list[tuple[str, str]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("caption", "title") and isinstance(value, str):
                    out.append((f"toc-{key}", shared.clean(value, markdown=False)))
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(source))
    return out


def headings(git_dir: str, commit: str) -> list[tuple[str, str, str]]:
    paths = git(git_dir, "ls-tree", "-r", "--name-only", commit).splitlines()
    root = next((r for r in DOC_ROOTS if any(p.startswith(r) for p in paths)), None)
    if root is None:
        raise SystemExit(f"no {' or '.join(DOC_ROOTS)} folder at {commit}")
    out = []
    for path in sorted(p for p in paths if p.startswith(root)):
        rel = path[len(root):]
        if rel.endswith(".rst"):
            found = [("rst", h) for h in rst_headings(git(git_dir, "show", f"{commit}:{path}"))]
        elif rel.endswith(".md"):
            found = [("md", h) for h in md_headings(git(git_dir, "show", f"{commit}:{path}"))]
        elif rel == TOC:
            found = toc_headings(git(git_dir, "show", f"{commit}:{path}"))
        else:
            continue
        out += [(path, kind, text) for kind, text in found]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", help="a git directory (a bare repository or a .git folder)")
    parser.add_argument("commit", help="the commit (or branch) to read")
    parser.add_argument("--repo", help="OWNER/NAME to name in a first comment line")
    args = parser.parse_args(argv)
    commit = git(args.git_dir, "rev-parse", f"{args.commit}^{{commit}}").strip()
    found = headings(args.git_dir, commit)
    if args.repo:
        given = f" ({args.commit})" if args.commit != commit else ""
        print(f"# {args.repo} {commit}{given}: {len(found)} headings of the HIP documentation")
    for path, kind, text in found:
        print(f"{path}\t{kind}\t{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
