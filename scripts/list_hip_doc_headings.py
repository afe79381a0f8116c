"""Every section heading of the HIP documentation at one commit of a git repository that holds it.

The HIP docs are a Sphinx project: reStructuredText pages (.rst) and MyST Markdown pages (.md) under
`docs/` (ROCm/HIP) or `projects/hip/docs/` (ROCm/rocm-systems, where HIP moved), and a table of contents
in `sphinx/_toc.yml.in` whose captions ("Programming guide", "Reference") and entry titles name the
navigation's sections. The script reads them straight from the git object store (`git show`), so it
needs no checkout and no network:

- reStructuredText: a title is a line of text under an adornment line (one punctuation character
  repeated, at least as long as the text less a little slack), with or without the same line above it;
  lines in literal blocks and directives (indented) are never titles.
- Markdown: an ATX heading (`#` to `######` and a space) outside fenced blocks (``` or ~~~, and MyST's
  ::: directives).
- the table of contents: every `caption` and every entry's `title`.

Inline markup is dropped from a heading as Sphinx renders it: ``literal`` and *emphasis* keep their
text, a role or link keeps its text (`:doc:`text <target>`` gives "text").

    python3 scripts/list_hip_doc_headings.py GIT_DIR COMMIT [--repo OWNER/NAME]

prints one line per heading, `PATH<TAB>KIND<TAB>HEADING` (KIND: rst, md, toc-caption or toc-title), in
the order of the files' paths and, within a file, of the page; with --repo the first line is a comment
naming the repository, the commit (and the branch or tag given, if it was not a commit id) and the count,
as tests/data/hip_doc_headings.txt keeps it:

    python3 scripts/list_hip_doc_headings.py REPO.git refs/heads/docs/develop --repo vjelic/hip-glog-fork
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import yaml

DOC_ROOTS = ("docs/", "projects/hip/docs/")
TOC = "sphinx/_toc.yml.in"

# The characters docutils accepts as section adornment.
_ADORNMENT = re.compile(r"""^([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}\s*$""")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")

# Inline markup, as Sphinx renders it into the heading's text.
_ROLE = re.compile(r":[\w:+.-]+:`([^`<]*?)\s*(?:<[^>]*>)?`")
_RST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`__?")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_ROLE = re.compile(r"\{[\w:+.-]+\}`([^`<]*?)\s*(?:<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`")
_EMPHASIS = re.compile(r"(\*{1,2})(\S(?:.*?\S)?)\1")


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True, encoding="utf-8", errors="replace").stdout


def clean(text: str) -> str:
    text = _ROLE.sub(r"\1", text)
    text = _MD_ROLE.sub(r"\1", text)
    text = _RST_LINK.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _LITERAL.sub(lambda m: m.group(1) or m.group(2), text)
    text = _EMPHASIS.sub(r"\2", text)
    return re.sub(r"\s+", " ", text.replace("\\", "")).strip()


def rst_headings(source: str) -> list[str]:
    """The section titles of a reStructuredText page, in order."""
    lines = source.splitlines()
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        above = lines[i - 1] if i else ""
        below = lines[i + 1] if i + 1 < len(lines) else ""
        title = None
        if _ADORNMENT.match(below) and line.strip() and not line[0].isspace() and not _ADORNMENT.match(line):
            # A title under an underline; with an overline too when the line above is the same adornment.
            if len(below.rstrip()) + 2 >= len(line.rstrip()) and (i == 0 or not above.strip()
                                                                  or _ADORNMENT.match(above)):
                title = line
                i += 2
        elif _ADORNMENT.match(line) and below.strip() and i + 2 < len(lines) and _ADORNMENT.match(lines[i + 2]) \
                and lines[i + 2].rstrip() == line.rstrip():
            # An overline and underline around a title that may be indented.
            title = below
            i += 3
        if title is None:
            i += 1
            continue
        text = clean(title)
        if text:
            out.append(text)
    return out


def md_headings(source: str) -> list[str]:
    """The ATX headings of a Markdown page, fenced blocks aside."""
    out = []
    fence: str | None = None
    for line in source.splitlines():
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            continue
        if fence is not None:
            continue
        h = _MD_HEADING.match(line)
        if h:
            text = clean(h.group(2))
            if text:
                out.append(text)
    return out


def toc_headings(source: str) -> list[tuple[str, str]]:
    """The captions and entry titles of a sphinx-external-toc file, in order."""
    out: list[tuple[str, str]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("caption", "title") and isinstance(value, str):
                    out.append((f"toc-{key}", clean(value)))
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
