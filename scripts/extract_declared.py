"""Extract, from the public headers of pinned releases the ROCm 6.4 header set does not hold, the names
they declare, and write those that symbol rows spell, once, as data:
`glossary/symbols/specs/declared-outside-rocm64.yaml` (its path comes from `xlate.kb`). The releases are
of two sorts: libraries ROCm 6.4's packaged headers lack (rocWMMA, hipTensor 1.x, hipFile, ROCprofiler-SDK's
ROCTx), and later
releases that rows name as the one a spelling belongs to (HIP 7.1 for the `__reduce_*_sync` functions,
hipBLAS 3.0 for the hipDataType GEMM-Ex calls, hipTensor 2.x for the cuTENSOR 2 style API).

Each repository is read from a bare git directory at a pinned release tag (`git show TAG:path`): the
files under its public include folder are scanned for declarations at namespace scope (functions,
classes, structs, enums and their enumerators, `using` and `typedef` names, macros, namespaces), each
with its header and line and the macros a positive `#ifdef` / `#if defined(...)` around it requires;
where a name is declared more than once, the least guarded declaration is kept. The library's own
version is read from the release too (its CMake version string or version macros), so that a row's
version fact is checked against it. Only names, versions and locations are written, never header text.
Names a row spells that a release does not declare go to `not_declared`, where a reason is written by
hand (a rerun keeps it; a new one reads TODO). Releases of repositories not given keep what the file
already holds, and so does the file's comment block: the hipBLAS 3.x and hipTensor 2.x releases of
ROCm/rocm-libraries are kept there by hand (read file by file at one commit, with a version series and
character ranges, as that comment says) until the script is run on a checkout of that repository.

Usage: python3 scripts/extract_declared.py OWNER/NAME[@TAG]=GITDIR ...
  e.g. ROCm/rocWMMA=GITDIR ROCm/hipTensor=GITDIR ROCm/hipFile=GITDIR ROCm/rocm-libraries=GITDIR
       ROCm/rocprofiler-sdk=GITDIR
  (@TAG reads another tag than RELEASES pins, for every release of that repository)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace

import yaml

from xlate import kb

_CMAKE_VERSION = (r'set\s*\(\s*VERSION_STRING\s+"(\d+(?:\.\d+)+)"',)


@dataclass(frozen=True)
class Release:
    """A library at a release tag: where its public headers are, and where its version is read (each
    pattern's group is one part of the version, in order)."""

    library: str
    repo: str
    tag: str
    include: str
    version_file: str
    version_parts: tuple[str, ...]


# The tag is a ROCm release where the repository has one (rocWMMA and hipTensor stop at rocm-6.2.2 in
# their own repositories before moving into rocm-libraries); hipFile has no ROCm 6.x release, its tag
# marks the commit rocm-systems took in. ROCprofiler-SDK's ROCTx (rocprofiler-sdk-roctx/roctx.h, which names
# HIP streams and devices) is read at rocm-6.2.0, the first ROCm release that ships it; its version is the
# first line of its VERSION file. The last three are the releases rows name beyond ROCm 6.4:
# HIP's device headers (clr, with HIP's version file beside it) and hipBLAS and hipTensor 2.x, which
# moved into the rocm-systems and rocm-libraries monorepos.
RELEASES = (
    Release("rocWMMA", "ROCm/rocWMMA", "rocm-6.2.2", "library/include", "CMakeLists.txt", _CMAKE_VERSION),
    Release("hipTensor", "ROCm/hipTensor", "rocm-6.2.2", "library/include", "CMakeLists.txt", _CMAKE_VERSION),
    Release("hipFile", "ROCm/hipFile", "rocm-systems", "include", "include/hipfile.h",
            tuple(rf"#\s*define\s+HIPFILE_VERSION_{part}\s+(\d+)" for part in ("MAJOR", "MINOR", "PATCH"))),
    Release("ROCprofiler-SDK", "ROCm/rocprofiler-sdk", "rocm-6.2.0", "source/include", "VERSION", (r"\A(\d+\.\d+\.\d+)",)),
    Release("HIP", "ROCm/rocm-systems", "rocm-7.1.0", "projects/clr/hipamd/include", "projects/hip/VERSION",
            tuple(rf"#HIP_VERSION_{part}\s+(\d+)" for part in ("MAJOR", "MINOR"))),
    Release("hipBLAS", "ROCm/rocm-libraries", "rocm-7.0.0", "projects/hipblas/library/include",
            "projects/hipblas/CMakeLists.txt", _CMAKE_VERSION),
    Release("hipTensor", "ROCm/rocm-libraries", "rocm-7.0.0", "projects/hiptensor/library/include",
            "projects/hiptensor/CMakeLists.txt", _CMAKE_VERSION),
)
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
    """Macros a `#if` condition requires defined (`defined(X)` not negated, `! defined X` included)."""
    return {name for bang, name in re.findall(r"(!?)\s*\bdefined\s*\(?\s*([A-Za-z_]\w*)", condition) if not bang}


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


def _matching(toks: list[tuple[int, str]], k: int, opening: str, closing: str) -> int:
    """The index of the token that closes the bracket opened at `k` (len(toks) where none does)."""
    depth = 0
    while k < len(toks):
        depth += {opening: 1, closing: -1}.get(toks[k][1], 0)
        if depth == 0:
            break
        k += 1
    return k


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
            k = _matching(toks, k + 1, "<", ">")
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
                j = _matching(toks, j + 1, "(", ")") + 1
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


def read_version(gitdir: str, commit: str, release: Release) -> tuple[str, str]:
    """(version, 'file:line' of its first part) read from the release."""
    text = _git(gitdir, "show", f"{commit}:{release.version_file}")
    found = [re.search(p, text) for p in release.version_parts]
    if not all(found):
        raise SystemExit(f"{release.repo} {release.tag}: no version in {release.version_file}")
    first = found[0]
    assert first is not None
    return ".".join(m.group(1) for m in found if m), f"{release.version_file}:{text.count(chr(10), 0, first.start(1)) + 1}"


def wanted_names(rows: dict[str, dict[str, object]]) -> dict[str, str]:
    """Spelling -> library, for every HIP side the table settles that one of RELEASES' libraries holds."""
    libraries = {r.library for r in RELEASES}
    return {sym: lib for sym, lib in kb.table_spellings(rows).items() if lib in libraries}  # type: ignore[arg-type]


def read_release(gitdir: str, release: Release, wanted: dict[str, str], reasons: dict[tuple[str, str, str], str]
                 ) -> tuple[dict[str, str], list[dict[str, object]], list[dict[str, str]]]:
    """(release entry, declared entries, not_declared entries) of one release."""
    commit = _git(gitdir, "rev-list", "-n", "1", release.tag).strip()
    version, version_at = read_version(gitdir, commit, release)
    head = {"library": release.library, "version": version, "version_at": version_at, "repo": release.repo,
            "tag": release.tag, "commit": commit, "include": release.include}
    names = {n for n, lib in wanted.items() if lib == release.library}
    files = [f for f in _git(gitdir, "ls-tree", "-r", "--name-only", commit, "--", release.include).split("\n")
             if f.endswith(HEADER_SUFFIXES)]
    best: dict[str, Declaration] = {}  # name -> its least guarded declaration
    for path in sorted(files):
        header = path[len(release.include) + 1:]
        if header in names:
            best[header] = Declaration(header, "header", path, 1, ())
        for d in scan(path, _git(gitdir, "show", f"{commit}:{path}")):
            if d.name in names and (d.name not in best or len(d.macros) < len(best[d.name].macros)):
                best[d.name] = d
    tag = {"library": release.library, "version": version}
    declared = [{"name": d.name, **tag, "kind": d.kind, "at": f"{d.header}:{d.line}", **({"macros": list(d.macros)} if d.macros else {})}
                for d in best.values()]
    missing = [{"name": n, **tag, "reason": reasons.get((n, release.library, version)) or "TODO: why the pinned release lacks it"}
               for n in sorted(names - set(best))]
    return head, declared, missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdirs", nargs="+", metavar="OWNER/NAME[@TAG]=GITDIR")
    args = ap.parse_args(argv)
    given: dict[str, tuple[str | None, str]] = {}
    for a in args.gitdirs:
        if "=" not in a:
            break
        spec, gitdir = a.split("=", 1)
        repo, _, tag = spec.partition("@")
        given[repo] = (tag or None, gitdir)
    known = {r.repo for r in RELEASES}
    if len(given) != len(args.gitdirs) or set(given) - known:
        print(f"expected OWNER/NAME[@TAG]=GITDIR for {', '.join(sorted(known))}; got {', '.join(args.gitdirs)}", file=sys.stderr)
        return 2
    root = kb.glossary_root()
    wanted = wanted_names(kb.load_glossary(root).rows)
    out_path = kb.declared_outside_path(root)
    old = kb.load_declared_outside(root)
    reasons = {(str(e["name"]), str(e.get("library")), str(e.get("version", ""))): str(e.get("reason", ""))
               for e in old.get("not_declared") or []}
    releases: list[dict[str, str]] = []
    declared: list[dict[str, object]] = []
    missing: list[dict[str, str]] = []
    for release in RELEASES:
        if release.repo in given:
            tag, gitdir = given[release.repo]
            head, found, lacking = read_release(gitdir, replace(release, tag=tag or release.tag), wanted, reasons)
        else:  # not read this time: what the file holds for it stays
            kept = [r for r in old.get("releases") or [] if (r.get("repo"), r.get("library")) == (release.repo, release.library)]
            if not kept:
                continue
            head = kept[0]
            mine = (head.get("library"), head.get("version"))
            found = [e for e in old.get("declared") or [] if (e.get("library"), e.get("version")) == mine]
            lacking = [e for e in old.get("not_declared") or [] if (e.get("library"), e.get("version")) == mine]
        releases.append(head)
        declared += found
        missing += lacking
    # The file's comment block is kept as it is (it also describes the releases kept by hand).
    old_text = out_path.read_text(encoding="utf-8") if out_path.is_file() else ""
    start = ("\n" + old_text).find("\nreleases:")
    kept_head = old_text[:start] if start > 0 else ""
    head_text = kept_head or (
        "# Names that the public headers of pinned releases outside the ROCm 6.4 header set declare (libraries\n"
        "# that set lacks, and the later releases rows name): only the names symbol rows spell, with header path\n"
        "# and line (no header text), and each release's own version, which rows' version facts are checked against.\n"
        "# Written by scripts/extract_declared.py; `not_declared` reasons are written by hand.\n")
    data = {"releases": releases,
            "declared": sorted(declared, key=lambda e: (str(e["library"]), str(e["version"]), str(e["name"]))),
            "not_declared": sorted(missing, key=lambda e: (e["library"], e["version"], e["name"]))}
    out_path.write_text(head_text + yaml.safe_dump(data, sort_keys=False, width=140), encoding="utf-8")
    print(f"{kb.display_path(out_path, root)}: {len(releases)} releases, {len(declared)} declared, {len(missing)} not declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
