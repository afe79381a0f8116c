#!/usr/bin/env python3
"""The names NCCL and RCCL declare in their public header and the environment variables their sources
read, from one commit of a git directory of NVIDIA/nccl or ROCm/rccl.

Two lists, each read straight from the git object store (`git show`, `git ls-tree`: no checkout, no
network, no build):

- `header`: what the public header declares, `src/nccl.h.in` (the template `make` turns into nccl.h, and
  RCCL's build into rccl/rccl.h). Comments and `__attribute__((...))` are dropped and every branch of an
  `#if` is read. Kinds: `function` (a declaration `TYPE NAME(...);` at file level), `type` (a typedef's
  name), `enumerator` (a member of a typedef'd enum) and `macro` (an object-like or function-like
  `#define`, the include guard aside). Names spelled twice (a function declared in both branches of an
  `#if`, an enumerator alias) are listed once, under the first kind found.
- `env`: the environment variables the library's sources under `src/` read, each with how it is read:
  `NCCL_PARAM(Name, "KEY", default)` reads NCCL_KEY and `RCCL_PARAM(Name, "KEY", default)` reads RCCL_KEY
  (the macros of src/include/param.h paste the prefix on); `DEFINE_NCCL_PARAM(name, type, KEY, ...)`
  (NCCL 2.30's typed parameters, src/include/param/param.h) reads KEY itself; and a string literal naming
  an NCCL_ or RCCL_ variable passed to `ncclGetEnv`, `getenv` or `std::getenv`, or to `ncclGetLevel`
  (which reads its two arguments, NCCL_P2P_DISABLE and NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL). Only names
  beginning with NCCL_ or RCCL_ are kept (RCCL's copy of the CUDA wrappers reads other programs'
  variables too). A build-time variable a Python generator reads (NCCL_USE_CMAKE) is not under these
  calls and is not listed.

    python3 scripts/list_nccl_names.py GITDIR COMMIT header --repo OWNER/NAME
    python3 scripts/list_nccl_names.py GITDIR COMMIT env --repo OWNER/NAME

prints a first line `# OWNER/NAME COMMIT (REF): N names ...` (the commit in full; the ref given when it
was not the commit id), then one line per name: `KIND<TAB>NAME` for the header, `NAME<TAB>HOW<TAB>PATH`
for the environment (the first file, in path order, that reads it that way; a name read several ways is
listed once per way). A parameter macro whose getter (ncclParamName(), rcclParamName()) no source calls,
not even from another macro's body, is declared but never read: its HOW is followed by
" (getter never called)". The lists in tests/data/ were written with:

    python3 scripts/list_nccl_names.py NCCL_GITDIR v2.30.7-1 header --repo NVIDIA/nccl > tests/data/nccl_header_names.txt
    python3 scripts/list_nccl_names.py NCCL_GITDIR v2.30.7-1 env --repo NVIDIA/nccl > tests/data/nccl_env.txt
    python3 scripts/list_nccl_names.py RCCL_GITDIR 0cbce2a7571c907554199fad7e905f16ec0a565c header --repo ROCm/rccl > tests/data/rccl_header_names.txt
    python3 scripts/list_nccl_names.py RCCL_GITDIR 0cbce2a7571c907554199fad7e905f16ec0a565c env --repo ROCm/rccl > tests/data/rccl_env.txt

The section headings of the NCCL user guide (docs/userguide/source of NVIDIA/nccl) come from the shared
heading reader:

    python3 scripts/list_doc_headings.py NCCL_GITDIR v2.30.7-1 --repo NVIDIA/nccl --folder docs/userguide/source > tests/data/nccl_doc_headings.txt

Only the standard library and the local git are used. Exit status 0; 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable

HEADER = "src/nccl.h.in"
SOURCES = ("src/",)
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".cuh")

_LEXEME = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_EXTERN_C = re.compile(r'extern\s+"C"\s*\{')
_IDENT = re.compile(r"[A-Za-z_]\w*")
_FUNC_POINTER = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")
_ENV_NAME = re.compile(r"^(?:NCCL|RCCL)_[A-Z0-9_]+$")


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True, encoding="utf-8", errors="replace").stdout


def strip_comments(text: str) -> str:
    """C and C++ comments removed, string literals kept whole (a `//` inside a string is no comment)."""
    out, pos = [], 0
    for m in _LEXEME.finditer(text):
        out.append(text[pos:m.start()])
        token = m.group(0)
        out.append(token if token.startswith('"') else (" " if token.startswith("/*") else ""))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def first_branches(text: str, skip_first: Callable[[str, str], bool] | None = None) -> str:
    """Only one branch of each #if/#elif/#else chain kept, the others' lines emptied (line numbers hold):
    the first, or where `skip_first(directive, condition)` says the first is not the one to read (an
    `#if 0`, a Windows-only `#ifdef _WIN32`), the next. A header that spells one declaration twice,
    `typedef enum e : int {` for C++ and `typedef enum e {` for C, then has one opening brace per
    declaration for the statement splitter, not two."""
    skip = skip_first or (lambda kind, cond: kind == "if" and cond.strip() == "0")
    out: list[str] = []
    stack: list[list[bool]] = []  # per open #if: [this branch is dropped, no branch taken yet]
    for line in text.split("\n"):
        m = re.match(r"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
        if m is None:
            out.append("" if any(level[0] for level in stack) else line)
            continue
        kind = m.group(1)
        if kind in ("if", "ifdef", "ifndef"):
            skipped = skip(kind, m.group(2))
            stack.append([skipped, skipped])
        elif kind == "endif":
            if stack:
                stack.pop()
        elif stack:
            level = stack[-1]
            level[0], level[1] = not level[1], False
        out.append("")
    return "\n".join(out)


def _drop_attributes(text: str) -> str:
    """`__attribute__((...))` groups removed, however deeply their parentheses nest."""
    while True:
        start = text.find("__attribute__")
        if start < 0:
            return text
        i = text.find("(", start)
        if i < 0:
            return text[:start] + text[start + len("__attribute__"):]
        depth, j = 0, i
        for j in range(i, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
        text = text[:start] + " " + text[j + 1:]


def _statements(code: str) -> list[str]:
    """File-level statements: text up to each `;` at brace depth 0 (a braced body stays inside its
    statement, `typedef enum {...} name;`); `extern "C" {` and its closing brace are not depth."""
    code = _EXTERN_C.sub(" ", code)
    out, depth, start = [], 0, 0
    for i, ch in enumerate(code):
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                start = i + 1  # the brace that closed extern "C"
            else:
                depth -= 1
        elif ch == ";" and depth == 0:
            out.append(" ".join(code[start:i].split()))
            start = i + 1
    return [s for s in out if s]


def header_names(text: str) -> list[tuple[str, str]]:
    """(kind, name) for each name a C header declares at file level, in order; see the module's doc."""
    code = strip_comments(text)
    found: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(kind: str, name: str) -> None:
        if name not in seen:
            seen.add(name)
            found.append((kind, name))

    guard = re.search(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)", code, re.M)
    defines = [m.group(1) for m in _DEFINE.finditer(code) if not (guard and m.group(1) == guard.group(1))]
    body = _drop_attributes(_DIRECTIVE.sub(" ", first_branches(code)))
    declared: list[tuple[str, str]] = []
    for statement in _statements(body):
        if statement.startswith("typedef"):
            brace = statement.find("{")
            if brace >= 0 and statement.split()[1] == "enum":
                inner = statement[brace + 1:statement.rfind("}")]
                for member in inner.split(","):
                    m = _IDENT.match(member.strip())
                    if m:
                        declared.append(("enumerator", m.group(0)))
            pointer = _FUNC_POINTER.search(statement)
            tail = statement[statement.rfind("}") + 1:] if brace >= 0 else statement
            name = pointer.group(1) if pointer else (_IDENT.findall(tail) or [""])[-1]
            if name:
                declared.append(("type", name))
        elif "(" in statement and not statement.startswith(("struct", "enum", "union", "using", "namespace")):
            head = statement[:statement.index("(")].split()
            if len(head) >= 2 and _IDENT.fullmatch(head[-1].lstrip("*&")):
                declared.append(("function", head[-1].lstrip("*&")))
    # Declarations first (a function-like #define of the same name in an #else branch is that
    # function's stand-in), then the macros in the header's order.
    for kind, name in declared:
        add(kind, name)
    for name in defines:
        add("macro", name)
    return found


def _param_reads(code: str) -> list[tuple[str, str, str]]:
    """(name, how, getter) for each parameter macro in comment-stripped C++ source: the getter is the
    function (ncclParamName, rcclParamName) or object (DEFINE_NCCL_PARAM's first argument) the library's
    code reads the value through."""
    out: list[tuple[str, str, str]] = []
    for m in re.finditer(r'\b(NCCL|RCCL)_PARAM\s*\(\s*(\w+)\s*,\s*"([A-Z0-9_]+)"', code):
        out.append((f"{m.group(1)}_{m.group(3)}", f"{m.group(1)}_PARAM", f"{m.group(1).lower()}Param{m.group(2)}"))
    for m in re.finditer(r"\bDEFINE_NCCL_PARAM\s*\(\s*(\w+)\s*,\s*[^,]+?,\s*([A-Za-z_]\w*)\s*,", code):
        out.append((m.group(2), "DEFINE_NCCL_PARAM", m.group(1)))
    return out


def _call_reads(code: str) -> list[tuple[str, str]]:
    """(name, how) for each NCCL_/RCCL_ string literal among the arguments of a call that reads the
    environment."""
    out: list[tuple[str, str]] = []
    for m in re.finditer(r"\b(ncclGetEnv|std::getenv|getenv|ncclGetLevel)\s*\(", code):
        how = m.group(1).removeprefix("std::")
        depth, end = 0, m.end() - 1
        for end in range(m.end() - 1, min(len(code), m.end() + 400)):
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            if depth == 0:
                break
        for literal in _STRING.findall(code[m.end():end]):
            name = literal[1:-1]
            if _ENV_NAME.match(name):
                out.append((name, how))
    return out


def _code(text: str) -> str:
    """Comment-stripped C++ with its #define directives blanked (the macro definitions themselves,
    `#define NCCL_PARAM(name, env, deftVal)`, read nothing)."""
    return _DIRECTIVE.sub(lambda m: "" if re.match(r"\s*#\s*define\b", m.group(0)) else m.group(0), strip_comments(text))


def env_reads(text: str) -> list[tuple[str, str]]:
    """(name, how) for each NCCL_ or RCCL_ environment variable a C++ source reads, in order."""
    code = _code(text)
    reads = [(n, h) for n, h, _ in _param_reads(code)] + _call_reads(code)
    return [(n, h) for n, h in reads if _ENV_NAME.match(n)]


UNCALLED = " (getter never called)"


def env_names(git_dir: str, commit: str) -> list[tuple[str, str, str]]:
    """(name, how, path) for every variable the sources read, sorted; a parameter whose getter no source
    calls (declared, so listed, but its value never read) has UNCALLED after its macro's name."""
    paths = sorted(p for p in git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *SOURCES).splitlines()
                   if p.endswith(SOURCE_SUFFIXES))
    texts = {path: strip_comments(git(git_dir, "show", f"{commit}:{path}")) for path in paths}
    codes = {path: _code(text) for path, text in texts.items()}
    uses: dict[str, int] = {}  # identifiers counted in macro bodies too (a #define may call a getter)
    for text in texts.values():
        for word in _IDENT.findall(text):
            uses[word] = uses.get(word, 0) + 1
    first: dict[tuple[str, str], str] = {}
    for path, code in codes.items():
        params = [(n, h + ("" if uses.get(getter, 0) > (h == "DEFINE_NCCL_PARAM") else UNCALLED))
                  for n, h, getter in _param_reads(code)]
        for name, how in params + _call_reads(code):
            if _ENV_NAME.match(name):
                first.setdefault((name, how), path)
    return sorted((name, how, path) for (name, how), path in first.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", help="a git directory (a bare repository or a .git folder)")
    parser.add_argument("commit", help="the commit (or tag, or branch) to read")
    parser.add_argument("what", choices=("header", "env"))
    parser.add_argument("--repo", required=True, help="OWNER/NAME to name in the first line")
    args = parser.parse_args(argv)
    try:
        commit = git(args.git_dir, "rev-parse", f"{args.commit}^{{commit}}").strip()
    except subprocess.CalledProcessError as exc:
        print(f"error: {args.commit!r} is no commit of {args.git_dir}: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    given = f" ({args.commit})" if args.commit != commit else ""
    if args.what == "header":
        names = header_names(git(args.git_dir, "show", f"{commit}:{HEADER}"))
        print(f"# {args.repo} {commit}{given}: {len(names)} names declared in {HEADER}")
        for kind, name in names:
            print(f"{kind}\t{name}")
    else:
        reads = env_names(args.git_dir, commit)
        count = len({n for n, _, _ in reads})
        print(f"# {args.repo} {commit}{given}: {count} names of environment variables read under "
              f"{', '.join(SOURCES)}")
        for name, how, path in reads:
            print(f"{name}\t{how}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
