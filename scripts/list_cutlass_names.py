#!/usr/bin/env python3
"""The public names of NVIDIA's CUTLASS and CuTe, read from one commit of the repository's git directory,
for the name lists glossary/vocabulary/names-cutlass.yaml and names-cutlass-doc-sections.yaml.

Two lists, each written to a file of tests/data/ whose first line names the repository and the commit:

- names (tests/data/cutlass_names.txt): the classes, structs and alias templates (`using NAME = ...`,
  with or without a template head) declared at namespace scope in the headers under include/cute/ and
  include/cutlass/, and the function templates defined at namespace scope under include/cute/. One line
  per name and folder, `FOLDER<TAB>HEADER<TAB>KIND<TAB>NAME` (KIND: class, alias or function), the
  first header of the folder that declares it, folders and headers in path order. Left out as not
  public: names in a namespace whose name contains `detail` (detail, PipelineDetail, collective::detail),
  in `impl` or an anonymous namespace; names starting with an underscore; and names in the namespaces
  that mirror the C++ standard library (std, cuda::std, cutlass::platform, CUTE_STL_NAMESPACE), whose
  names are the standard library's. Enumerations, member types and class members are not read.
- headings (tests/data/cutlass_doc_headings.txt): every heading of media/docs/ (Markdown and
  reStructuredText), as scripts/list_doc_headings.py reads headings, `PATH<TAB>HEADING`.

How the headers are read, without a compiler: comments, string and character literals are removed;
of each preprocessor conditional only the first branch is kept (the #else and #elif branches of a
header repeat its declarations for other compilers); braces are then matched, each opening brace
classed by the statement before it as a namespace, a class or another block (a function body, an
enumeration, an initializer). A declaration counts only where every enclosing brace is a namespace's.

    python3 scripts/list_cutlass_names.py GITDIR COMMIT names > tests/data/cutlass_names.txt
    python3 scripts/list_cutlass_names.py GITDIR COMMIT headings > tests/data/cutlass_doc_headings.txt

GITDIR is a git directory (a bare clone is enough). Only the standard library and the local git are used.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = "NVIDIA/cutlass"
ROOTS = ("include/cute", "include/cutlass")
DOCS = ("media/docs",)
HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inl")
FUNCTIONS_UNDER = "include/cute"

# Namespaces whose names are not the library's own public names.
_HIDDEN_NAMESPACE = re.compile(r"detail|Detail|^impl$|^$")
_STD_NAMESPACES = {"std", "platform", "CUTE_STL_NAMESPACE"}

_TOKEN = re.compile(
    r"""//[^\n]*|/\*.*?\*/|R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
    re.S,
)
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)")
_NAMESPACE = re.compile(r"^(?:inline\s+)?namespace\b\s*([\w:\s]*?)\s*$")
_ATTRIBUTE = r"(?:(?:alignas|CUTE_ALIGNAS|__align__|__declspec|CUTLASS_ALIGNED)\s*\([^()]*\)\s*|\[\[[^\]]*\]\]\s*)*"
_CLASS = re.compile(r"^(?:struct|class|union)\s+" + _ATTRIBUTE + r"([A-Za-z_]\w*)\b(?!\s*::)")
_ALIAS = re.compile(r"^using\s+([A-Za-z_]\w*)\s*(?:\[\[[^\]]*\]\]\s*)?=")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_NOT_A_FUNCTION_NAME = {
    "decltype",
    "sizeof",
    "alignof",
    "alignas",
    "noexcept",
    "requires",
    "static_assert",
    "operator",
    "if",
    "for",
    "while",
    "switch",
    "return",
    "throw",
    "typeid",
    "__attribute__",
    "__launch_bounds__",
    "__align__",
    "__declspec",
}


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def strip(source: str) -> str:
    """The source without comments and literals, and of each preprocessor conditional only its first
    branch; directive lines (with their continuations) become blank."""
    source = _TOKEN.sub(lambda m: " " if m.group(0).startswith("/") else '""', source)
    out: list[str] = []
    skipping: list[bool] = []  # per open conditional: whether this part is dropped
    continued = False
    for line in source.splitlines():
        if continued:
            continued = line.rstrip().endswith("\\")
            out.append("")
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            continued = line.rstrip().endswith("\\")
            word = directive.group(1)
            if word in ("if", "ifdef", "ifndef"):
                skipping.append(False)
            elif word in ("else", "elif", "elifdef", "elifndef") and skipping:
                skipping[-1] = True
            elif word == "endif" and skipping:
                skipping.pop()
            out.append("")
            continue
        out.append("" if any(skipping) else line)
    return "\n".join(out)


def _without_template_heads(statement: str) -> str:
    """The statement without its leading `template <...>` heads (angle brackets matched)."""
    while True:
        head = re.match(r"^\s*template\s*<", statement)
        if not head:
            return statement.strip()
        depth, i = 1, head.end()
        while i < len(statement) and depth:
            depth += {"<": 1, ">": -1}.get(statement[i], 0)
            i += 1
        statement = statement[i:]


def _function_name(statement: str) -> str | None:
    """The name a function definition's head declares: the first identifier before a parenthesis that is
    not a keyword, a macro (all capitals) or inside a template argument list."""
    depth = 0
    for i, c in enumerate(statement):
        if c == "<":
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif c == "(" and depth == 0:
            found = re.search(r"([A-Za-z_]\w*)\s*$", statement[:i])
            if not found:
                return None
            name = found.group(1)
            if name in _NOT_A_FUNCTION_NAME or re.fullmatch(r"[A-Z0-9_]+", name):
                # A keyword or macro call (decltype(auto), CUTE_HOST_DEVICE(...)): skip past its parentheses.
                continue
            if statement[: found.start()].rstrip().endswith(("::", ".", "->")):
                return None  # a qualified name: an out-of-class member definition
            return name
    return None


def declarations(source: str, functions: bool = False) -> list[tuple[str, str]]:
    """The (kind, name) of each class, alias template and (when functions) function template declared at
    namespace scope in one header, public namespaces only, in order."""
    text = strip(source)
    stack: list[tuple[str, str]] = []  # (kind, namespace name) per open brace
    found: list[tuple[str, str]] = []
    start = 0

    def public() -> bool:
        if any(kind != "namespace" for kind, _ in stack):
            return False
        names = [n for _, n in stack]
        return not any(_HIDDEN_NAMESPACE.search(n) or n in _STD_NAMESPACES for n in names) and (names[:2] != ["cuda", "std"])

    def add(kind: str, name: str) -> None:
        if not name.startswith("_") and (kind, name) not in found:
            found.append((kind, name))

    for i, c in enumerate(text):
        if c not in "{};":
            continue
        statement = " ".join(text[start:i].split())
        start = i + 1
        if c == "}":
            if stack:
                stack.pop()
            continue
        bare = _without_template_heads(statement)
        if c == ";":
            if public():
                alias = _ALIAS.match(bare)
                declared = _CLASS.match(bare)
                if alias:
                    add("alias", alias.group(1))
                elif declared and "(" not in bare.split(declared.group(1), 1)[1]:
                    add("class", declared.group(1))
            continue
        namespace = _NAMESPACE.match(statement)
        if namespace or statement.startswith('extern ""'):
            parts = [p.strip() for p in namespace.group(1).split("::")] if namespace else ["extern"]
            parts = parts or [""]
            stack.append(("namespace", parts[0]))
            # `namespace a::b {` opens one brace for several namespaces: keep the inner names on it.
            if len(parts) > 1:
                stack[-1] = ("namespace", "::".join(parts))
            continue
        declared = _CLASS.match(bare)
        if declared:
            if public():
                add("class", declared.group(1))
            stack.append(("class", ""))
            continue
        if functions and public() and "(" in bare and not bare.startswith(("enum", "using", "typedef")):
            name = _function_name(bare)
            if name and "=" not in bare.split("(", 1)[0]:
                add("function", name)
        stack.append(("block", ""))
    return found


def names(
    gitdir: str,
    commit: str,
    roots: tuple[str, ...] = ROOTS,
    suffixes: tuple[str, ...] = HEADER_SUFFIXES,
    functions_under: tuple[str, ...] = (FUNCTIONS_UNDER,),
) -> list[str]:
    """One `FOLDER\tHEADER\tKIND\tNAME` line per name the headers under `roots` declare, the first
    header of each folder that declares a name keeping it; function templates are read only under
    `functions_under`."""
    listing = _git(gitdir, "ls-tree", "-r", "-z", commit, "--", *roots).decode()
    rows: list[str] = []
    seen: set[tuple[str, str]] = set()
    for entry in sorted(filter(None, listing.split("\0")), key=lambda e: e.split("\t", 1)[1]):
        meta, path = entry.split("\t", 1)
        if not path.endswith(suffixes):
            continue
        folder, header = path.rsplit("/", 1)
        text = _git(gitdir, "cat-file", "blob", meta.split()[2]).decode("utf-8", errors="replace")
        functions = any(path.startswith(root + "/") for root in functions_under)
        for kind, name in declarations(text, functions=functions):
            if (folder, name) not in seen:
                seen.add((folder, name))
                rows.append(f"{folder}\t{header}\t{kind}\t{name}")
    return rows


def headings(gitdir: str, commit: str) -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import list_doc_headings

    listing = _git(gitdir, "ls-tree", "-r", "-z", commit, "--", *DOCS).decode()
    rows: list[str] = []
    for entry in sorted(filter(None, listing.split("\0")), key=lambda e: e.split("\t", 1)[1]):
        meta, path = entry.split("\t", 1)
        if path.endswith((".md", ".rst")):
            text = _git(gitdir, "cat-file", "blob", meta.split()[2]).decode("utf-8", errors="replace")
            rows += [f"{path}\t{h}" for h in list_doc_headings.headings(path, text)]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gitdir", help="a git directory of NVIDIA/cutlass (a bare clone is enough)")
    parser.add_argument("commit", help="the commit to read")
    parser.add_argument("what", choices=("names", "headings"))
    args = parser.parse_args(argv)
    try:
        commit = _git(args.gitdir, "rev-parse", "--verify", f"{args.commit}^{{commit}}").decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"cannot read {args.commit} in {args.gitdir}: {e}", file=sys.stderr)
        return 2
    if args.what == "names":
        rows = names(args.gitdir, commit)
        first = f"# {REPO} {commit} {' '.join(ROOTS)}: {len(rows)} names (FOLDER, HEADER, KIND, NAME)"
    else:
        rows = headings(args.gitdir, commit)
        first = f"# {REPO} {commit} {' '.join(DOCS)}: {len(rows)} headings (PATH, HEADING)"
    sys.stdout.write("\n".join([first, *rows]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
