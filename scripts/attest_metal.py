#!/usr/bin/env python3
"""Where each Metal spelling of the symbol rows is used in real, compiled Metal code.

`glossary/symbols/specs/msl.yaml` and `metal-api.yaml` were transcribed by hand from Apple's
specification and documentation. This is a second witness that does not depend on that transcription:
public codebases that Apple's compiler builds (MLX, ggml, MetalPetal and metal-flash-attention; MoltenVK's
Objective-C++ host code; the MSL that SPIRV-Cross generates for its test shaders, which its test script
compiles with Apple's compiler at the MSL version each file name states). A spelling that such code
calls, declares with or annotates with has been accepted by that compiler; one they never use is listed
as not attested, with a reason a person writes.

What counts as code: comments and string literals are blanked first (so a name in a comment, or in
Metal source kept in a C++ or Swift string, is not counted). MSL spellings are looked for in Metal
source (`.metal` files, the headers they include, and folders a source below declares to hold MSL
headers); host API spellings in Objective-C (`.m`, `.mm`) and Swift files. Each kind of name has its
own pattern: a function must be called, a type named, an attribute written inside `[[...]]`, an address
space qualify a declaration, a texture method be called on a variable declared with that texture type,
an Objective-C selector be sent with all its parts in order (a method declaration is not a use), a
Swift method be called with its argument labels, and a generic property name (`status`, `error`) be read
from a variable declared with the protocol that owns it. A codebase that defines a function of the same
name counts only for calls whose argument is a built-in type none of its own overloads takes (and not at
all where its definition is a template).

Argument restrictions: for an attested function whose table entry restricts its arguments (integer,
floating, no-64-bit), each call is classified where a simple look can tell (literals, casts and
constructors of built-in types); a call that passes what the entry excludes is recorded, and the check
fails on it. Versions: the lowest MSL version a SPIRV-Cross file using the name is compiled for
(outside `#if __METAL_VERSION__` blocks) is recorded; where it is below the table's version, a note
written by hand must say why.

Output: `glossary/symbols/specs/msl-attested.yaml` (its path comes from `xlate.kb`): the repositories
and commits, then per table name where it was first seen (repository, path:line) and how often; reasons
and notes written by hand are kept when the file is written again (a new one reads `TODO`, which the
check rejects). Only names and locations are stored, no code.

    PYTHONPATH=src python3 scripts/attest_metal.py --source ml-explore/mlx=GITDIR [--source ...] [--write]

Each GITDIR is a git directory (a bare clone is enough) whose HEAD is read. Without --write the
result is printed as a summary. Exit status 0; 2 for a bad argument or an unreadable repository.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from xlate import kb

# Per repository: folders whose headers are MSL even when no .metal file includes them (MLX builds
# some kernels at run time from its kernel headers).
MSL_FOLDERS = {"ml-explore/mlx": ("mlx/backend/metal/kernels/",)}
# SPIRV-Cross keeps the MSL it generates for its test shaders under reference/*shaders-msl*/; its test
# script compiles each with Apple's Metal compiler at the language version the file name states
# (`.msl21.` -> 2.1, none -> 1.2), except files marked `.invalid.` and MSL 4 files (which its CI's
# compiler does not take). Those files also say which MSL version a name compiled under.
SPIRV_CROSS = "KhronosGroup/SPIRV-Cross"
SPIRV_CROSS_MSL = re.compile(r"^reference/(?:opt/)?shaders-msl[\w-]*/")
STD_TAGS = (("msl4", None), ("msl32", (3, 2)), ("msl31", (3, 1)), ("msl3", (3, 0)), ("msl24", (2, 4)), ("msl23", (2, 3)),
            ("msl22", (2, 2)), ("msl21", (2, 1)), ("msl2", (2, 0)), ("msl11", (1, 1)), ("msl10", (1, 0)))
# Preferred order for the location recorded as first seen.
ORDER = ("ml-explore/mlx", "ggml-org/ggml", "MetalPetal/MetalPetal", SPIRV_CROSS, "KhronosGroup/MoltenVK",
         "philipturner/metal-flash-attention")
# Property names too common to attest without knowing the receiver's type.
GENERIC = {"status", "error"}

C_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^()\\\s]{0,16})\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n]){1,8}\'', re.S)
SWIFT_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|#"""(?:.|\n)*?"""#|"""(?:.|\n)*?"""|#"(?:[^"\n])*"#|"(?:\\.|[^"\\\n])*"', re.S)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*(?:include|import)[ \t]*"([^"\n]+)"', re.M)


def blank(text: str, noise: re.Pattern[str]) -> str:
    """`text` with comments and string literals replaced by spaces (newlines kept: offsets and line
    numbers stay those of the file)."""
    return noise.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


@dataclass
class SourceFile:
    repo: str
    path: str
    lang: str  # msl, objc, swift
    code: str  # comments and strings blanked
    std: tuple[int, int] | None = None  # the MSL version the file is compiled for, where its repository says

    def line(self, offset: int) -> int:
        return self.code.count("\n", 0, offset) + 1


@dataclass
class Repo:
    name: str
    commit: str
    date: str
    files: list[SourceFile] = field(default_factory=list)


def _git(gitdir: str, *args: str) -> str:
    run = subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, errors="replace")
    if run.returncode != 0:
        raise SystemExit(f"error: git {' '.join(args[:2])} in {gitdir}: {run.stderr.strip().splitlines()[-1:]}")
    return run.stdout


def _show_many(gitdir: str, paths: list[str]) -> dict[str, str]:
    """The HEAD text of each path, read through one `git cat-file --batch`."""
    request = "".join(f"HEAD:{p}\n" for p in paths).encode()
    out = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch"], input=request, capture_output=True).stdout
    texts, pos = {}, 0
    for p in paths:
        end = out.index(b"\n", pos)
        head = out[pos:end].split()
        pos = end + 1
        if len(head) < 3 or head[1] != b"blob":
            continue
        size = int(head[2])
        texts[p] = out[pos:pos + size].decode("utf-8", errors="replace")
        pos += size + 1
    return texts


def load_repo(name: str, gitdir: str) -> Repo:
    commit = _git(gitdir, "rev-parse", "HEAD").strip()
    date = _git(gitdir, "log", "-1", "--format=%cs", "HEAD").strip()
    paths = _git(gitdir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    wanted = [p for p in paths if p.endswith((".metal", ".h", ".hpp", ".m", ".mm", ".swift"))]
    if name == SPIRV_CROSS:  # generated MSL only: its C++ is the generator, not Metal code
        wanted = [p for p in paths if SPIRV_CROSS_MSL.match(p) and _std(p) is not None and ".invalid." not in p]
    texts = _show_many(gitdir, wanted)
    repo = Repo(name, commit, date)
    if name == SPIRV_CROSS:
        for path in sorted(texts):
            repo.files.append(SourceFile(name, path, "msl", blank(texts[path], C_NOISE), _std(path)))
        return repo
    # MSL: every .metal file, the headers they include (transitively), and the declared MSL folders.
    msl = {p for p in texts if p.endswith(".metal")}
    msl |= {p for p in texts if p.endswith((".h", ".hpp")) and p.startswith(MSL_FOLDERS.get(name, ("\0",)))}
    todo = list(msl)
    while todo:
        path = todo.pop()
        for inc in INCLUDE.findall(texts[path]):
            target = _resolve(path, inc, texts)
            if target and target not in msl:
                msl.add(target)
                todo.append(target)
    for path in sorted(texts):
        if path in msl:
            repo.files.append(SourceFile(name, path, "msl", blank(texts[path], C_NOISE)))
        elif path.endswith((".m", ".mm")):
            repo.files.append(SourceFile(name, path, "objc", blank(texts[path], C_NOISE)))
        elif path.endswith(".swift"):
            repo.files.append(SourceFile(name, path, "swift", blank(texts[path], SWIFT_NOISE)))
    return repo


def _std(path: str) -> tuple[int, int] | None:
    """The MSL version SPIRV-Cross's test script compiles a reference file for; None for MSL 4 files,
    which it does not compile."""
    parts = set(PurePosixPath(path).name.split("."))
    for tag, version in STD_TAGS:
        if tag in parts:
            return version
    return (1, 2)


def _guarded(code: str, offset: int) -> bool:
    """Whether `offset` lies inside a preprocessor conditional that tests the MSL version (or any
    `__HAVE_...` feature macro): such a use says nothing about the version the file is compiled for."""
    stack: list[bool] = []
    for m in re.finditer(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", code[:offset], re.M):
        word, rest = m.group(1), m.group(2)
        if word in ("if", "ifdef", "ifndef"):
            stack.append(bool(re.search(r"__METAL_VERSION__|__HAVE_", rest)))
        elif word == "elif" and stack:
            stack[-1] = stack[-1] or bool(re.search(r"__METAL_VERSION__|__HAVE_", rest))
        elif word == "endif" and stack:
            stack.pop()
    return any(stack)


def _resolve(including: str, inc: str, texts: dict[str, str]) -> str | None:
    """The repository path an `#include "inc"` in `including` names: beside the file, from the root,
    or the one file whose path ends with it."""
    here = PurePosixPath(including).parent
    for candidate in (here / inc, PurePosixPath(inc)):
        parts: list[str] = []
        for part in candidate.parts:
            if part == "..":
                if parts:
                    parts.pop()
            elif part != ".":
                parts.append(part)
        p = "/".join(parts)
        if p in texts:
            return p
    ends = [p for p in texts if p.endswith("/" + inc)]
    return ends[0] if len(ends) == 1 else None


# --- Patterns per kind of name ------------------------------------------------------------------

def _word(name: str) -> str:
    return r"\s*::\s*".join(re.escape(part) for part in name.split("::"))


def _call(name: str) -> re.Pattern[str]:
    """A call of a free function (optionally metal::-qualified, optionally with template arguments)."""
    if "." in name:
        obj, method = name.split(".", 1)
        return re.compile(rf"(?<![\w.]){re.escape(obj)}\s*\.\s*{re.escape(method)}\s*\(")
    return re.compile(rf"(?<![\w.:>])(?:metal\s*::\s*)?{_word(name)}\s*(?:<[^;{{}}()]*?>)?\s*\(")


def _definition(name: str) -> re.Pattern[str]:
    """A function of that name defined by the codebase: `T name(params) {`; group 1 is the first
    parameter's type."""
    return re.compile(rf"[\w>&*]\s+(?:metal\s*::\s*)?{_word(name.split('.')[-1])}\s*\(\s*(?:const\s+)?"
                      rf"(?:(?:thread|device|threadgroup|constant)\s+)?([\w:]+)[^;{{}}]*\)\s*(?:const\s*)?(?:->[^;{{}}]*)?\{{")


SCALARS = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "bfloat")
BUILTIN = {*SCALARS, *(f"{t}{n}" for t in SCALARS for n in (2, 3, 4)), "int8_t", "uint8_t", "int16_t", "uint16_t",
           "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t"}


def defined_types(files: list[SourceFile], name: str) -> set[str] | None:
    """The first-parameter types of the codebase's own functions named `name` (empty: it defines none);
    None when one of them is a template (it may take any type)."""
    out: set[str] = set()
    pattern = _definition(name)
    for f in files:
        for m in pattern.finditer(f.code):
            head = f.code[max(0, m.start() - 200):m.start() + 1]
            if re.search(r"template\s*<[^<>]*(?:<[^<>]*>[^<>]*)*>\s*[\w\s:&*<>]*$", head) or m.group(1) in ("T", "auto"):
                return None
            out.add(m.group(1).removeprefix("metal::"))
    return out


def argument_type(arg: str) -> str | None:
    """The type of a call's argument where a simple look can tell: a literal, a cast, a constructor or
    an as_type of a built-in type."""
    a = arg.strip()
    if re.fullmatch(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?|[-+]?\d+[eE][-+]?\d+[fF]?|\d+[fF]", a):
        return "float"
    if re.fullmatch(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[hH]", a):
        return "half"
    if re.fullmatch(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+)", a):
        return "int"
    if re.fullmatch(r"(?:0[xX][0-9a-fA-F]+|\d+)[uU]", a):
        return "uint"
    m = re.match(r"(?:static_cast|as_type)\s*<\s*(?:metal::)?(\w+)\s*>\s*\(|\(\s*(\w+)\s*\)\s*[\w(]|(\w+)\s*\(", a)
    if m:
        t = next(g for g in m.groups() if g)
        if t in BUILTIN and (m.group(3) is None or _balanced(a, a.index("(")) == a[a.index("(") + 1:-1]):
            return t
    return None


OPERATOR = {op: re.compile(rf"[\w)\]]\s+{re.escape(op)}\s+[\w(]") for op in ("+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=")}


def msl_pattern(name: str, kind: str) -> re.Pattern[str] | None:
    """The pattern of a use of MSL name `name` in blanked MSL code; None for a member (texture method)."""
    if kind == "function":
        return _call(name)
    if kind == "member":
        return None
    if kind == "attribute":
        if name.endswith("(n)"):
            return re.compile(rf"\[\[\s*{re.escape(name[:-3])}\s*\(\s*\w+\s*\)\s*\]\]")
        return re.compile(rf"\[\[[^\[\]]*?(?<![\w]){re.escape(name)}\b[^\[\]]*?\]\]")
    if kind == "qualifier":
        if name == "kernel":
            return re.compile(r"\[\[\s*kernel\s*\]\]|(?<![\w\[])kernel\s+void\b")
        return re.compile(rf"(?<![\w:\[]){re.escape(name)}\s+(?!\()[A-Za-z_]")
    if kind == "operator":
        if name == "static_cast":
            return re.compile(r"\bstatic_cast\s*<")
        return OPERATOR.get(name)
    if kind == "syntax":
        return re.compile(rf"[\w)\]]\s*{re.escape(name)}\b")
    if kind == "specifier":
        return re.compile(rf"\b{re.escape(name)}\s*\(" if name == "alignas" else rf"\b{re.escape(name)}\b")
    # types, enumerators, macros, classes
    return re.compile(rf"(?<![\w.]){_word(name)}\b")


def member_uses(f: SourceFile, name: str) -> Iterator[int]:
    """Calls of texture method `type::method` on a variable this file declares with that texture type."""
    owner, method = name.split("::", 1)
    names = set(re.findall(rf"\b{re.escape(owner)}\s*<[^;{{}}()]*?>\s*[&*]?\s*(\w+)", f.code))
    for var in sorted(names):
        for m in re.finditer(rf"\b{re.escape(var)}\s*\.\s*{re.escape(method)}\s*\(", f.code):
            yield m.start()


def _parts(selector: str) -> list[str]:
    return [p for p in selector.split(":") if p]


def host_uses(f: SourceFile, name: str, entry: kb.MslEntry) -> Iterator[int]:
    """Uses of a Metal API name in Objective-C or Swift code."""
    owner = entry.section.split(":", 1)[0].strip()
    swift = "(" in name
    if f.lang == "swift" and swift:
        base, labels = name[:-1].split("(", 1)
        parts = [p for p in labels.split(":") if p]
        for m in re.finditer(rf"\.\s*{re.escape(base)}\s*\(", f.code):
            args = _balanced(f.code, m.end() - 1)
            first = re.match(r"\s*(\w+)\s*:(?!:)", args)
            if parts and parts[0] != "_" and (first is None or first.group(1) != parts[0]):
                continue
            if parts and parts[0] == "_" and first is not None:
                continue
            if not parts and args.strip():
                continue
            if _in_order(args, [p for p in parts[1:] if p != "_"]):
                yield m.start()
        return
    if swift or f.lang == "swift" and ":" in name:
        return
    if entry.kind in ("function",):
        yield from (m.start() for m in _call(name).finditer(f.code))
        return
    if entry.kind in ("protocol", "class"):
        yield from (m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\b", f.code))
        return
    if entry.kind == "property" or (entry.kind == "method" and ":" not in name):
        if name in GENERIC:
            decl = rf"id\s*<\s*{re.escape(owner)}\s*>\s*(\w+)" if f.lang == "objc" else rf"(\w+)\s*:\s*(?:any\s+)?{re.escape(owner)}\b"
            receivers = set(re.findall(decl, f.code))
            pat = "|".join(rf"\b{re.escape(r)}\s*\.\s*{name}\b|\[\s*{re.escape(r)}\s+{name}\s*\]" for r in sorted(receivers))
        elif f.lang == "objc":
            pat = rf"[\w\])]\s+{re.escape(name)}\s*\]|\.\s*{re.escape(name)}\b(?!\s*[(:])"
        else:
            pat = rf"\.\s*{re.escape(name)}\b(?!\s*\()"
        if pat:
            yield from (m.start() for m in re.finditer(pat, f.code) if not _declaration_line(f.code, m.start()))
        return
    if entry.kind == "method" and f.lang == "objc":
        parts = _parts(name)
        for m in re.finditer(rf"[\w\])]\s+{re.escape(parts[0])}\s*:", f.code):
            if _declaration_line(f.code, m.start()):
                continue
            region = _message(f.code, m.end())
            if _in_order(region, parts[1:]):
                yield m.start()


def _declaration_line(code: str, offset: int) -> bool:
    """Whether the line holding `offset` declares an Objective-C method (`- (type)name...`)."""
    start = code.rfind("\n", 0, offset) + 1
    return bool(re.match(r"\s*[-+]\s*\(", code[start:offset + 1]))


def _balanced(code: str, open_at: int) -> str:
    """The text inside the bracket pair that opens at `open_at`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth, i = 0, open_at
    while i < len(code):
        c = code[i]
        if c in pairs:
            depth += 1
        elif c in pairs.values():
            depth -= 1
            if depth == 0:
                return code[open_at + 1:i]
        i += 1
    return code[open_at + 1:]


def _message(code: str, start: int) -> str:
    """The rest of an Objective-C message from `start` to its closing `]`."""
    depth, i = 0, start
    while i < len(code):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return code[start:i]
            depth -= 1
        elif c == ";" and depth == 0:
            return code[start:i]
        i += 1
    return code[start:]


def _in_order(text: str, labels: list[str]) -> bool:
    pos = 0
    for label in labels:
        m = re.compile(rf"\b{re.escape(label)}\s*:(?!:)").search(text, pos)
        if m is None:
            return False
        pos = m.end()
    return True


# --- Argument classes ---------------------------------------------------------------------------

FLOATING = {t for t in BUILTIN if t.startswith(("half", "float", "bfloat"))}
WIDE = {t for t in BUILTIN if t.startswith(("long", "ulong", "int64", "uint64", "size_t"))}
INTEGER = BUILTIN - FLOATING - {"bool"}
RESTRICTIONS = ("integer", "no-64-bit", "floating")


def excluded_call(args: list[str], restriction: str) -> bool | None:
    """Whether a call passes what `restriction` excludes: True, False, or None where a simple look
    cannot tell. Integer-only: every argument is of a floating type (with one such argument and no
    integer one, overload resolution has no integer candidate to fall back on). No-64-bit: the first
    argument is explicitly of a 64-bit type. Floating-only: the one argument is explicitly of an
    integer type (a literal may convert; a cast says the type)."""
    types = [argument_type(a) for a in args]
    if restriction == "integer":
        if None in types:
            return None
        return all(t in FLOATING for t in types)
    if restriction == "no-64-bit":
        if types and types[0] in WIDE and not re.fullmatch(r"\s*\d+\s*", args[0]):
            return True
        return None if not types or types[0] is None else False
    if restriction == "floating":
        if len(args) != 1 or types[0] is None or re.fullmatch(r"\s*[-+]?\w+\s*", args[0]):
            return None
        return types[0] in INTEGER
    return None


def arguments(code: str, call_end: int) -> list[str]:
    """The top-level arguments of the call whose '(' ends at `call_end`."""
    inside = _balanced(code, call_end - 1)
    out, depth, start = [], 0, 0
    for i, c in enumerate(inside):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(inside[start:i])
            start = i + 1
    if inside.strip():
        out.append(inside[start:])
    return out


# --- The scan -----------------------------------------------------------------------------------

@dataclass
class Finding:
    uses: int = 0
    first: tuple[str, str, int] | None = None  # repo, path, line
    calls: int = 0  # calls whose first argument was classified
    excluded: list[str] = field(default_factory=list)  # "repo path:line" of calls passing an excluded class
    defined_by: list[str] = field(default_factory=list)  # repos that define a function of that name
    lowest: tuple[tuple[int, int], str] | None = None  # the lowest MSL version a file using it compiles for


def scan(repos: list[Repo], names: dict[str, kb.MslEntry]) -> dict[str, Finding]:
    out: dict[str, Finding] = {}
    ranked = sorted(repos, key=lambda r: ORDER.index(r.name) if r.name in ORDER else len(ORDER))
    for name, entry in sorted(names.items()):
        found = out[name] = Finding()
        msl = bool(entry.msl)
        pattern = msl_pattern(name, entry.kind) if msl else None
        for repo in ranked:
            files = [f for f in repo.files if (f.lang == "msl") == msl]
            own: set[str] | None = set()
            if msl and entry.kind == "function":
                own = defined_types(files, name)
                if own is None:  # a template of its own may catch every call
                    found.defined_by.append(repo.name)
                    continue
                if own:
                    found.defined_by.append(repo.name)
            for f in files:
                if msl:
                    hits = list(member_uses(f, name)) if pattern is None else [m.start() for m in pattern.finditer(f.code)]
                else:
                    hits = list(host_uses(f, name, entry))
                if own and pattern is not None:
                    # The codebase overloads the name: only a call whose argument is a built-in type none
                    # of its own overloads takes reaches Metal's function.
                    hits = [h for h in hits if _reaches_metal(f.code, pattern, h, own)]
                if not hits:
                    continue
                found.uses += len(hits)
                if found.first is None:
                    found.first = (repo.name, f.path, f.line(min(hits)))
                if f.std is not None and (found.lowest is None or f.std < found.lowest[0]):
                    plain = [h for h in hits if not _guarded(f.code, h)]
                    if plain:
                        found.lowest = (f.std, f"{repo.name} {f.path}:{f.line(plain[0])}")
                if msl and entry.kind == "function" and entry.args in RESTRICTIONS:
                    _classify(found, f, name, entry.args)
    return out


def _reaches_metal(code: str, pattern: re.Pattern[str], at: int, own: set[str]) -> bool:
    m = pattern.match(code, at)
    if m is None or not m.group(0).endswith("("):
        return False
    args = arguments(code, m.end())
    t = argument_type(args[0]) if args else None
    return t is not None and t not in own


def _classify(found: Finding, f: SourceFile, name: str, restriction: str) -> None:
    for m in _call(name).finditer(f.code):
        verdict = excluded_call(arguments(f.code, m.end()), restriction)
        if verdict is None:
            continue
        found.calls += 1
        if verdict:
            found.excluded.append(f"{f.repo} {f.path}:{f.line(m.start())}")


# --- Output -------------------------------------------------------------------------------------

def _q(text: str) -> str:
    """A YAML flow scalar: quoted unless plainly safe."""
    if re.fullmatch(r"[A-Za-z_][\w.()/ -]*", text) and not text.endswith(" ") and text not in ("yes", "no", "true", "false", "null"):
        return text
    return "'" + text.replace("'", "''") + "'"


def _below(f: Finding, entry: kb.MslEntry) -> bool:
    """Whether compiled code used the name at a lower MSL version than the table states."""
    return f.lowest is not None and bool(entry.msl) and f.lowest[0] < tuple(int(x) for x in entry.msl.split("."))


def render(repos: list[Repo], names: dict[str, kb.MslEntry], findings: dict[str, Finding], reasons: dict[str, str],
           notes: dict[str, str]) -> str:
    lines = [
        "# Where each Metal spelling that symbol rows use appears in real, compiled Metal code: a witness",
        "# independent of the hand-transcribed tables beside this file (msl.yaml, metal-api.yaml). Written by",
        "# scripts/attest_metal.py from the repositories and commits below; only names and locations are kept.",
        "# `at` is the first use found (repository, path:line), `uses` how many were found in all of them;",
        "# `calls` and `excluded` (functions whose table entry restricts the arguments) count the calls whose",
        "# first argument a simple look could classify, and list those that pass an excluded type. A name",
        "# no repository uses is under `not_attested` with the reason, written by hand. `compiled_as` is the",
        "# lowest MSL version a SPIRV-Cross reference file using it is compiled for (outside version tests);",
        "# where that is below the table's version, `version_notes` says why, by hand.",
        "generated_by: scripts/attest_metal.py",
        "repositories:",
    ]
    for r in sorted(repos, key=lambda r: ORDER.index(r.name) if r.name in ORDER else len(ORDER)):
        counts = {lang: sum(1 for f in r.files if f.lang == lang) for lang in ("msl", "objc", "swift")}
        lines.append(f"  - {{repo: {r.name}, commit: {r.commit}, date: '{r.date}', msl_files: {counts['msl']}, "
                     f"objc_files: {counts['objc']}, swift_files: {counts['swift']}}}")
    lines.append("attested:")
    missing = []
    for name in sorted(findings):
        f = findings[name]
        if f.first is None:
            missing.append(name)
            continue
        repo, path, line = f.first
        extra = ""
        if names[name].args in RESTRICTIONS and names[name].kind == "function":
            extra = f", calls: {f.calls}" + (f", excluded: [{', '.join(_q(x) for x in f.excluded)}]" if f.excluded else "")
        if f.lowest is not None:
            extra += f", compiled_as: '{f.lowest[0][0]}.{f.lowest[0][1]}', compiled_at: {_q(f.lowest[1])}"
        lines.append(f"  - {{name: {_q(name)}, repo: {repo}, at: {_q(f'{path}:{line}')}, uses: {f.uses}{extra}}}")
    lines.append("not_attested:")
    for name in missing:
        reason = reasons.get(name) or "TODO"
        defined = findings[name].defined_by
        if reason == "TODO" and defined:
            reason = f"TODO (defined by {', '.join(defined)} itself)"
        lines.append(f"  - {{name: {_q(name)}, reason: {_q(reason)}}}")
    lines.append("version_notes:")
    for name in sorted(findings):
        if _below(findings[name], names[name]):
            lowest = findings[name].lowest
            assert lowest is not None
            lines.append(f"  - {{name: {_q(name)}, table: '{names[name].msl}', compiled_as: '{lowest[0][0]}.{lowest[0][1]}', "
                         f"note: {_q(notes.get(name) or 'TODO')}}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GITDIR", help="a repository to read (repeatable)")
    parser.add_argument("--write", action="store_true", help="write the attestation file (else print a summary)")
    args = parser.parse_args(argv)
    if not args.source:
        print("error: name at least one --source OWNER/NAME=GITDIR", file=sys.stderr)
        return 2
    repos = []
    for spec in args.source:
        name, sep, gitdir = spec.partition("=")
        if not sep or name.count("/") != 1:
            print(f"error: --source {spec!r}: expected OWNER/NAME=GITDIR", file=sys.stderr)
            return 2
        try:
            repos.append(load_repo(name, gitdir))
        except SystemExit as exc:
            print(exc, file=sys.stderr)
            return 2
    root = kb.glossary_root()
    g = kb.load_glossary(root)
    table, _ = kb.load_msl_table(root)
    names = {key: table[key] for key in kb.metal_side_names(g.rows) if key in table}
    findings = scan(repos, names)
    old = kb.load_msl_attested(root)
    reasons = {e["name"]: e.get("reason", "") for e in old.get("not_attested") or []}
    notes = {e["name"]: e.get("note", "") for e in old.get("version_notes") or []}
    text = render(repos, names, findings, reasons, notes)
    if args.write:
        kb.msl_attested_path(root).write_text(text, encoding="utf-8")
    attested = sum(1 for f in findings.values() if f.first)
    print(f"{attested} of {len(findings)} Metal names attested in {len(repos)} repositories"
          + ("" if args.write else "; --write to store"))
    for name, f in sorted(findings.items()):
        if f.first is None:
            print(f"  not attested: {name}" + (f" (defined by {', '.join(f.defined_by)})" if f.defined_by else ""))
        elif f.excluded:
            print(f"  {name}: calls with an excluded argument type: {', '.join(f.excluded[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
