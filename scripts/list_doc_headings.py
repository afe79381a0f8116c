#!/usr/bin/env python3
"""Every section heading of a repository's documentation, read from one commit of a git directory.

The heading names of glossary/vocabulary/names-mlx-doc-sections.yaml and names-triton-doc-sections.yaml
are chosen from this list, and tests/test_vocabulary_doc_sections.py checks them against the copies kept
in tests/data/ (mlx_doc_headings.txt, triton_doc_headings.txt).

What counts as a heading, by file kind:

- reStructuredText (`.rst`): a one-line title under an underline of one repeated punctuation character
  (as long as the title, or at least four characters, as docutils accepts it), or between an overline
  and an underline of the same character. The title starts a block (the line before it is blank, or is
  the overline) and, without an overline, starts in the first column; a bullet item or an explicit
  markup line (`.. `) is no title. Indented text (directive content, literal blocks) holds no titles.
- Markdown (`.md`): ATX headings (`#` to `######`) and setext headings (one line of text over `===` or
  `---`), outside fenced code blocks.
- Python (`.py`), for the galleries Sphinx builds from tutorial scripts: the module docstring and the
  comment blocks that start with `# %%` or a line of twenty or more `#` (their `#` removed, then their
  common indentation, as Sphinx-Gallery does), read as reStructuredText, or
  as Markdown under a folder given with --markdown-gallery (Triton's Gluon galleries are MyST Markdown,
  as docs/conf.py configures them).

A heading is printed as the page shows it: inline markup (roles, literals, emphasis, link targets) is
reduced to its text. Output: a first line `# REPO COMMIT FOLDER...` (the commit in full), then one line
per heading, `PATH<TAB>HEADING`, files in path order and headings in file order.

    python3 scripts/list_doc_headings.py GITDIR COMMIT --repo OWNER/NAME [--folder docs ...]
        [--markdown-gallery FOLDER ...]

The lists in tests/data/ were written with:

    python3 scripts/list_doc_headings.py MLX_GITDIR v0.32.1 --repo ml-explore/mlx
    python3 scripts/list_doc_headings.py TRITON_GITDIR 63068fcc274cd152fb34abe1bcab10e5078b0df5 \
        --repo triton-lang/triton --folder docs --folder python/tutorials --folder python/examples/gluon \
        --markdown-gallery python/tutorials/gluon --markdown-gallery python/examples/gluon

GITDIR is a git directory (a bare clone is enough); COMMIT anything git names a commit with. Only the
standard library and the local git are used. Exit status 0; 2 for a bad argument or an unreadable
commit.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator

SUFFIXES = (".rst", ".md", ".py")

# A line of one repeated non-alphanumeric printable ASCII character (trailing blanks allowed).
_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1*[ \t]*$""")
_BULLET = re.compile(r"^[-*+\u2022\u2023\u2043][ \t]+\S")
_EXPLICIT = re.compile(r"^\.\.(?:[ \t]|$)")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_GALLERY_BLOCK = re.compile(r"^(?:# ?%%.*|#{20,})$")

# Inline markup, reduced to its text.
_ROLE_WITH_TARGET = re.compile(r":[\w.+-]+:`([^`<]*?)\s*<[^`>]*>`")  # :doc:`Title <target>`
_ROLE = re.compile(r"(?::[\w.+-]+:|\{[\w.+-]+\})`([^`]*)`")  # :code:`x`, MyST {sup}`x`
_LINK_RST = re.compile(r"`([^`<]*?)\s*<[^`>]*>`__?")  # `text <url>`_
_REF_RST = re.compile(r"`([^`]+)`__?")  # `text`_
_LINK_MD = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")  # [text](url)
_LITERAL = re.compile(r"``?([^`]+)``?")
# Strong emphasis: ** in both, __ only in Markdown (reStructuredText's `__host__` is the name itself).
_STRONG_MD = re.compile(r"(\*\*|__)(\S(?:.*?\S)?)\1")
_STRONG_RST = re.compile(r"(\*\*)(\S(?:.*?\S)?)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])")
_ESCAPE = re.compile(r"\\(.)")


def clean(text: str, markdown: bool) -> str:
    """The heading as rendered: inline markup reduced to its text, blanks collapsed."""
    for pattern in (_ROLE_WITH_TARGET, _ROLE, _LINK_RST, _LINK_MD, _REF_RST, _LITERAL):
        text = pattern.sub(r"\1", text)
    text = (_STRONG_MD if markdown else _STRONG_RST).sub(r"\2", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _ESCAPE.sub(r"\1", text)
    return " ".join(text.split())


def _blank(line: str) -> bool:
    return not line.strip()


def rst_headings(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The section titles of reStructuredText, in order, each with the index of its line."""
    i = 0
    n = len(lines)
    while i < n:
        before_blank = i == 0 or _blank(lines[i - 1])
        line = lines[i]
        over = _ADORNMENT.match(line)
        # Overline, title (which may be inset), underline of the same character.
        if over and before_blank and i + 2 < n:
            title, under = lines[i + 1], _ADORNMENT.match(lines[i + 2])
            if (under and under.group(1) == over.group(1) and title.strip()
                    and not _ADORNMENT.match(title.strip())):
                yield i + 1, title.strip()
                i += 3
                continue
        # Title in the first column, then an underline.
        if (before_blank and line.strip() and not line[0].isspace() and not over
                and not _BULLET.match(line) and not _EXPLICIT.match(line) and i + 1 < n):
            under = _ADORNMENT.match(lines[i + 1])
            if under:
                width = len(lines[i + 1].rstrip())
                title = line.rstrip()
                if width >= len(title) or width >= 4:
                    yield i, title
                    i += 2
                    continue
        i += 1


def md_headings(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The ATX and setext headings of Markdown, in order, each with the index of its line; fenced code
    left out."""
    fence: str | None = None
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line.strip()[len(opened.group(1)):].strip():
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            if atx.group(2):
                yield i, atx.group(2)
            continue
        if (line.strip() and (i == 0 or _blank(lines[i - 1])) and i + 1 < len(lines)
                and _SETEXT.match(lines[i + 1]) and not _SETEXT.match(line)
                and not _BULLET.match(line.lstrip()) and not line.startswith(("    ", "\t", ">", "|"))):
            yield i, line.strip()


def gallery_text(source: str) -> list[str]:
    """The text of a gallery script: its module docstring, then each comment block that starts with
    `# %%` or a line of twenty or more `#`. As Sphinx-Gallery reads a block: the `#` of each line
    removed, the indentation all lines share removed, and the block's leading blanks stripped."""
    texts: list[str] = []
    try:
        doc = ast.get_docstring(ast.parse(source), clean=True)
    except SyntaxError:
        doc = None
    if doc:
        texts += doc.splitlines() + [""]
    blocks: list[list[str]] = []
    block: list[str] | None = None
    for line in source.splitlines():
        if _GALLERY_BLOCK.match(line.rstrip()):
            block = []
            blocks.append(block)
        elif block is not None and line.startswith("#"):
            block.append(line[1:])
        else:
            block = None
    for lines in blocks:
        texts += textwrap.dedent("\n".join(lines)).lstrip().splitlines() + [""]
    return texts


def headings(path: str, text: str, markdown_galleries: tuple[str, ...] = ()) -> list[str]:
    """The headings of one file, in order, as the page shows them."""
    markdown = path.endswith(".md") or (path.endswith(".py") and any(path.startswith(folder + "/")
                                                                     for folder in markdown_galleries))
    lines = gallery_text(text) if path.endswith(".py") else text.splitlines()
    found = md_headings(lines) if markdown else rst_headings(lines)
    return [c for c in (clean(h, markdown) for _, h in found) if c]


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gitdir", help="a git directory (a bare clone is enough)")
    parser.add_argument("commit", help="the commit to read")
    parser.add_argument("--repo", required=True, help="OWNER/NAME, printed on the first line")
    parser.add_argument("--folder", action="append", help="a folder to read (repeatable; default docs)")
    parser.add_argument("--markdown-gallery", action="append", default=[],
                        help="a folder whose gallery scripts are written in Markdown (repeatable)")
    args = parser.parse_args(argv)
    folders = [f.strip("/") for f in (args.folder or ["docs"])]
    markdown_galleries = tuple(f.strip("/") for f in args.markdown_gallery)
    try:
        commit = _git(args.gitdir, "rev-parse", "--verify", f"{args.commit}^{{commit}}").decode().strip()
        listing = _git(args.gitdir, "ls-tree", "-r", "-z", commit, "--", *folders).decode()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        detail = e.stderr.decode().strip() if isinstance(e, subprocess.CalledProcessError) else str(e)
        print(f"cannot read {args.commit} in {args.gitdir}: {detail}", file=sys.stderr)
        return 2
    blobs: list[tuple[str, str]] = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        _, kind, sha = meta.split()
        if kind == "blob" and path.endswith(SUFFIXES):
            blobs.append((path, sha))
    out = [f"# {args.repo} {commit} {' '.join(folders)}"]
    for path, sha in sorted(blobs):
        text = _git(args.gitdir, "cat-file", "blob", sha).decode("utf-8", errors="replace")
        out += [f"{path}\t{h}" for h in headings(path, text, markdown_galleries)]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
