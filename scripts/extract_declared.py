"""Extract, from the public headers of libraries the ROCm 6.4 headers do not hold (rocWMMA, hipTensor,
hipFile), the names they declare, and write those that symbol rows spell, once, as data:
`glossary/symbols/specs/declared-outside-rocm64.yaml` (its path comes from `xlate.kb`).

Each repository is read from a bare git directory at a pinned release tag (`git show TAG:path`): the
files under its public include folder are scanned for declarations at namespace scope (functions,
classes, structs, enums and their enumerators, `using` and `typedef` names, macros, namespaces), each
with its header and line and the macros a positive `#ifdef` / `#if defined(...)` around it requires.
Only names and locations are written, never header text. Names a row spells that the release does not
declare go to `not_declared`, where a reason is written by hand (a rerun keeps it; a new one reads TODO).

Usage: python3 scripts/extract_declared.py ROCm/rocWMMA=GITDIR ROCm/hipTensor=GITDIR ROCm/hipFile=GITDIR
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field

import yaml

from xlate import kb

# repository -> (library, release tag, public include folder). The tag is a ROCm release where the
# repository has one (rocWMMA and hipTensor stop at rocm-6.2.2 before moving into rocm-libraries);
# hipFile has no ROCm 6.x release, its tag marks the commit rocm-systems took in.
RELEASES = {
    "ROCm/rocWMMA": ("rocWMMA", "rocm-6.2.2", "library/include"),
    "ROCm/hipTensor": ("hipTensor", "rocm-6.2.2", "library/include"),
    "ROCm/hipFile": ("hipFile", "rocm-systems", "include"),
}
HEADER_SUFFIXES = (".h", ".hpp", ".hh")
_TOKEN = re.compile(r'[A-Za-z_]\w*|::|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\S')
_NOT_A_TYPE = {"return", "if", "while", "for", "switch", "sizeof", "alignof", "new", "delete", "throw", "case",
               "decltype", "static_assert", "else", "do", "operator", "using", "typedef", "namespace"}


@dataclass
class Declaration:
    name: str
    kind: str
    header: str
    line: int
    macros: tuple[str, ...]


@dataclass
class _Scope:
    name: str | None  # a namespace's name; "" for extern "C"; None for any other brace
    enum: str | None = None  # set for an enum's body: the enum's qualified name, or its scope for an unscoped one
    items: list[str] = field(default_factory=list)


def _strip_comments(text: str) -> str:
    """The text with comments blanked, line breaks kept (so line numbers stay)."""
    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if s.startswith(('"', "'")) else re.sub(r"[^\n]", " ", s)
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', blank, text, flags=re.S)


def _positive(condition: str) -> set[str]:
    """Macros a `#if` condition requires defined (`defined(X)` not negated)."""
    return set(re.findall(r"(?<!!)\s*defined\s*\(?\s*([A-Za-z_]\w*)", " " + condition))


def scan(header: str, text: str) -> list[Declaration]:
    """The declarations at namespace scope of one header (`header` is its include path)."""
    out: list[Declaration] = []
    conds: list[set[str]] = []
    scopes: list[_Scope] = []
    code_lines: list[tuple[int, str]] = []
    lines = _strip_comments(text).split("\n")
    i = 0
    while i < len(lines):
        n, line = i + 1, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        i += 1
        pp = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if not pp:
            code_lines.append((n, line))
            continue
        word, rest = pp.groups()
        # Code is scanned per preprocessor region so that each declaration carries its conditions.
        out += _scan_code(header, code_lines, scopes, tuple(sorted(set().union(*conds))) if conds else ())
        code_lines = []
        if word == "ifdef":
            conds.append({rest.split()[0]} if rest.split() else set())
        elif word in ("ifndef", "else"):
            if word == "ifndef":
                conds.append(set())
            elif conds:
                conds[-1] = set()
        elif word == "if":
            conds.append(_positive(rest))
        elif word == "elif" and conds:
            conds[-1] = _positive(rest)
        elif word == "endif" and conds:
            conds.pop()
        elif word == "define":
            m = re.match(r"([A-Za-z_]\w*)", rest)
            if m:
                out.append(Declaration(m.group(1), "macro", header, n, tuple(sorted(set().union(*conds))) if conds else ()))
    out += _scan_code(header, code_lines, scopes, tuple(sorted(set().union(*conds))) if conds else ())
    return out


def _qualify(scopes: list[_Scope], name: str) -> str:
    parts = [s.name for s in scopes if s.name]
    return "::".join([*parts, name])


def _at_namespace_scope(scopes: list[_Scope]) -> bool:
    return all(s.name is not None for s in scopes)


def _scan_code(header: str, lines: list[tuple[int, str]], scopes: list[_Scope], macros: tuple[str, ...]) -> list[Declaration]:
    out: list[Declaration] = []
    toks = [(n, m.group(0)) for n, line in lines for m in _TOKEN.finditer(line)]
    pending: _Scope | None = None  # what the next `{` opens
    typedef_at: int | None = None
    k = 0
    while k < len(toks):
        n, t = toks[k]
        nxt = toks[k + 1][1] if k + 1 < len(toks) else ""
        prev = toks[k - 1][1] if k else ""
        if t == "template" and nxt == "<":  # skip the parameter list: `class T` there declares nothing
            depth, k = 0, k + 1
            while k < len(toks):
                depth += {"<": 1, ">": -1}.get(toks[k][1], 0)
                if depth == 0:
                    break
                k += 1
        elif t == "{":
            scopes.append(pending or _Scope(None))
            pending = None
        elif t == "}":
            if scopes:
                scopes.pop()
        elif t == ";" and typedef_at is not None and len(scopes) == typedef_at and _at_namespace_scope(scopes):
            if re.match(r"[A-Za-z_]", prev):
                out.append(Declaration(_qualify(scopes, prev), "type", header, n, macros))
            typedef_at = None
        elif scopes and scopes[-1].enum is not None and re.match(r"[A-Za-z_]\w*$", t) and prev in ("{", ","):
            out.append(Declaration(f"{scopes[-1].enum}::{t}".lstrip(":"), "enumerator", header, n, macros))
        elif t == "namespace" and re.match(r"[A-Za-z_]", nxt):
            pending = _Scope(nxt)
            if _at_namespace_scope(scopes):
                out.append(Declaration(_qualify(scopes, nxt), "namespace", header, n, macros))
        elif t == "extern" and nxt.startswith('"'):
            pending = _Scope("")
        elif t == "typedef" and _at_namespace_scope(scopes):
            typedef_at = len(scopes)
        elif t == "using" and re.match(r"[A-Za-z_]", nxt) and k + 2 < len(toks) and toks[k + 2][1] == "=" \
                and _at_namespace_scope(scopes):
            out.append(Declaration(_qualify(scopes, nxt), "type", header, n, macros))
        elif t in ("struct", "class", "union", "enum") and _at_namespace_scope(scopes) and typedef_at is None:
            j = k + 1
            scoped = t == "enum" and toks[j][1] in ("class", "struct") if j < len(toks) else False
            if scoped:
                j += 1
            while j + 1 < len(toks) and toks[j + 1][1] == "(":  # an attribute macro: class __align__(4) fragment
                depth, j = 0, j + 1
                while j < len(toks):
                    depth += {"(": 1, ")": -1}.get(toks[j][1], 0)
                    if depth == 0:
                        break
                    j += 1
                j += 1
            name = toks[j][1] if j < len(toks) else ""
            if re.match(r"[A-Za-z_]\w*$", name) and prev != "enum":
                qualified = _qualify(scopes, name)
                out.append(Declaration(qualified, "type", header, n, macros))
                if t == "enum":
                    # Unscoped enumerators live in the enclosing scope, scoped ones in the enum's.
                    pending = _Scope(None, enum=qualified if scoped else _qualify(scopes, "").rstrip(":") or "")
        elif t == "enum" and typedef_at is not None:
            pending = _Scope(None, enum=_qualify(scopes, "").rstrip(":") or "")
        elif nxt == "(" and re.match(r"[A-Za-z_]\w*$", t) and _at_namespace_scope(scopes) and typedef_at is None \
                and (re.match(r"[A-Za-z_]\w*$", prev) and prev not in _NOT_A_TYPE or prev in ("*", "&", ">")):
            out.append(Declaration(_qualify(scopes, t), "function", header, n, macros))
        k += 1
    return out


def _git(gitdir: str, *args: str) -> str:
    run = subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, text=True, errors="replace")
    if run.returncode:
        raise SystemExit(f"git {' '.join(args)}: {run.stderr.strip()}")
    return run.stdout


def wanted_names(rows: dict[str, dict[str, object]]) -> dict[str, str]:
    """Spelling -> library, for every HIP side of a library this script reads."""
    libraries = {lib for lib, _, _ in RELEASES.values()}
    out = {}
    for side in kb.hip_sides(rows):  # type: ignore[arg-type]
        lib = kb.outside_library(side.symbol)
        if lib in libraries:
            out[side.symbol] = lib
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="+", metavar="OWNER/NAME=GITDIR")
    args = ap.parse_args(argv)
    given = dict(a.split("=", 1) for a in args.gitdirs if "=" in a)
    unknown = set(given) - set(RELEASES)
    if unknown or len(given) != len(args.gitdirs):
        print(f"expected OWNER/NAME=GITDIR for {', '.join(RELEASES)}; got {', '.join(args.gitdirs)}", file=sys.stderr)
        return 2
    root = kb.glossary_root()
    wanted = wanted_names(kb.load_glossary(root).rows)
    out_path = kb.declared_outside_path(root)
    old = kb.load_declared_outside(root)
    reasons = {str(e["name"]): str(e.get("reason", "")) for e in old.get("not_declared") or []}
    releases, declared, found = [], [], set()
    for repo, gitdir in given.items():
        library, tag, include = RELEASES[repo]
        commit = _git(gitdir, "rev-list", "-n", "1", tag).strip()
        releases.append({"library": library, "repo": repo, "tag": tag, "commit": commit, "include": include})
        files = [f for f in _git(gitdir, "ls-tree", "-r", "--name-only", commit, "--", include).split("\n")
                 if f.endswith(HEADER_SUFFIXES)]
        for path in sorted(files):
            header = path[len(include) + 1:]
            if header in wanted:
                declared.append({"name": header, "library": library, "kind": "header", "at": f"{path}:1"})
                found.add(header)
            for d in scan(header, _git(gitdir, "show", f"{commit}:{path}")):
                if d.name in wanted and d.name not in found and wanted[d.name] == library:
                    found.add(d.name)
                    entry = {"name": d.name, "library": library, "kind": d.kind, "at": f"{path}:{d.line}"}
                    if d.macros:
                        entry["macros"] = list(d.macros)
                    declared.append(entry)
    read = {r["library"] for r in releases}
    missing = [{"name": n, "library": lib, "reason": reasons.get(n) or "TODO: why the pinned release lacks it"}
               for n, lib in sorted(wanted.items()) if lib in read and n not in found]
    head = ("# Names the public headers of libraries outside the ROCm 6.4 header set declare, at pinned releases:\n"
            "# only the names symbol rows spell, with header path and line (no header text).\n"
            "# Written by scripts/extract_declared.py; `not_declared` reasons are written by hand.\n")
    data = {"releases": releases, "declared": sorted(declared, key=lambda e: (e["library"], e["name"])),
            "not_declared": missing}
    out_path.write_text(head + yaml.safe_dump(data, sort_keys=False, width=140), encoding="utf-8")
    print(f"{kb.display_path(out_path, root)}: {len(declared)} declared, {len(missing)} not declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
