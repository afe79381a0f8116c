#!/usr/bin/env python3
"""HIP runtime calls that the AMD implementation refuses, read from one commit of a git directory of
ROCm/clr (or of ROCm/rocm-systems, whose projects/clr holds the same tree since clr moved there).

Read straight from the git object store (`git show`, `git ls-tree`: no checkout, no network, no build), over
every .cpp file under the runtime's source folder (hipamd/src, or projects/clr/hipamd/src). Comments and the
text of string literals are blanked first, and of each preprocessor conditional one branch is kept (the
Linux one of `#ifdef _WIN32`, else the first). A public call is a definition `hipError_t hipName(...) {...}` at
any namespace level. Two lists:

- `unsupported`: calls whose body does nothing but give hipErrorNotSupported. What may stand beside the
  `HIP_RETURN(hipErrorNotSupported)` (or `return hipErrorNotSupported;`) is only the `HIP_INIT_API...(...)`
  prologue, `assert(...)`, a `LogError`/`LogPrintf...` line and `(void)name;` casts. A call that forwards
  to a helper which refuses is not followed, so this list is a lower bound.
- `rejects`: calls that refuse some enumerator values of an argument: a `case X:` whose branch sets or
  returns hipErrorNotSupported (and not hipSuccess), an `if` whose condition is `arg == X` (joined by
  `||`) and whose statement only returns hipErrorNotSupported or hipErrorInvalidValue, and a range test
  `arg < A || arg > B` (or `arg > B`) that returns one of those errors. A range test lists the members of
  the enum holding A and B whose value lies outside [A, B]; the enum is read from a hip_runtime_api.h
  given with --header (the runtime sources do not hold the public header). Only enumerators that start
  with hip or HIP_ are kept. Checks against a plain flag mask (`flags & ~...`) are not listed. Internal
  helpers (ihipName) are read too: a helper's rejections are listed under the helper with `via`, the
  public calls whose body calls it by name (one level only).

    python3 scripts/list_hip_unsupported.py GITDIR REF --repo ROCm/clr --header HIP_RUNTIME_API_H

prints YAML: the repository, the ref and its full commit id and commit date, the folder read, then
`unsupported` (function, file, line) and `rejects` (function, file, line, error, how, enumerators). The
list in tests/data/hip_unsupported_clr.yaml was written from ROCm/clr's release/rocm-rel-6.3.0.1 branch and
amd-staging branch (see that file's header). Output is data only: names, files and line numbers.

Only the standard library and the local git are used. Exit status 0; 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the git and preprocessor helpers beside this script
from list_nccl_names import first_branches, git  # noqa: E402

FOLDERS = ("hipamd/src/", "projects/clr/hipamd/src/")
_LEXEME = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_DEF = re.compile(r"\bhipError_t\s+(?:hip::)?(i?hip[A-Z]\w*)\s*\(")
_ENUMERATOR = re.compile(r"\b(?:hip|HIP_)[A-Za-z0-9_]*\b")
_ERRORS = ("hipErrorNotSupported", "hipErrorInvalidValue")


def blank(text: str) -> str:
    """Comments become spaces (newlines kept, so line numbers hold) and string literals keep only quotes."""
    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s[0] in "\"'":
            return s[0] + " " * (len(s) - 2) + s[-1]
        return re.sub(r"[^\n]", " ", s)
    return _LEXEME.sub(repl, text)


def _windows_only(kind: str, condition: str) -> bool:
    """An `#ifdef _WIN32` or `#if defined(_WIN32)`: the branch to read is the Linux one after it."""
    return "_WIN32" in condition and kind != "ifndef" and "!" not in condition


def one_branch(text: str) -> str:
    """One branch of each preprocessor conditional, so that braces opened in both branches balance: the
    Linux branch of `#ifdef _WIN32` / `#if defined(_WIN32)` (its `#else`, or nothing), and the first branch
    of any other conditional."""
    return first_branches(text, _windows_only)


def close(text: str, start: int, open_: str = "(", shut: str = ")") -> int:
    """Index just past the bracket that closes the one at `start`; -1 if it never closes."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_:
            depth += 1
        elif c == shut:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def definitions(text: str) -> list[tuple[str, int, str]]:
    """(name, offset of the body, body without its outer braces) of each hipError_t hipName(...) {...}."""
    out = []
    for m in _DEF.finditer(text):
        end = close(text, m.end() - 1)
        if end < 0:
            continue
        rest = text[end:end + 200]
        lead = re.match(r"\s*(?:noexcept\s*)?\{", rest)
        if not lead:
            continue  # a declaration or a call, not a definition
        brace = end + lead.end() - 1
        stop = close(text, brace, "{", "}")
        if stop < 0:
            continue
        out.append((m.group(1), m.start(), text[brace + 1:stop - 1]))
    return out


def _drop_calls(body: str, names: str) -> str:
    """Remove every `NAME(...);` statement whose NAME matches the pattern `names`."""
    while True:
        m = re.search(rf"\b(?:{names})\s*\(", body)
        if not m:
            return body
        end = close(body, m.end() - 1)
        if end < 0:
            return body
        semi = re.match(r"\s*;", body[end:])
        body = body[:m.start()] + body[end + (semi.end() if semi else 0):]


def only_unsupported(body: str) -> bool:
    rest = _drop_calls(body, r"HIP_INIT_API\w*|assert|LogError\w*|LogPrintf\w*|LogWarning\w*|LogInfo\w*")
    rest = re.sub(r"\(\s*void\s*\)\s*\w+\s*;", "", rest)
    rest = re.sub(r"\b(?:HIP_RETURN\s*\(\s*hipErrorNotSupported\s*\)|return\s+hipErrorNotSupported)\s*;", "", rest)
    return rest.strip() == "" and "hipErrorNotSupported" in body


def _statement_after(body: str, pos: int) -> str:
    """The statement that follows position `pos` (an if's closing parenthesis): a {...} block or up to ';'."""
    m = re.match(r"\s*\{", body[pos:])
    if m:
        stop = close(body, pos + m.end() - 1, "{", "}")
        return body[pos:stop] if stop > 0 else ""
    semi = body.find(";", pos)
    return body[pos:semi + 1] if semi >= 0 else ""


def _only_error(stmt: str) -> str | None:
    """The error a statement does nothing but return (LogError lines aside), else None."""
    inner = stmt.strip()
    if inner.startswith("{"):
        inner = inner[1:-1]
    inner = _drop_calls(inner, r"LogError\w*|LogPrintf\w*|LogWarning\w*|LogInfo\w*")
    m = re.fullmatch(r"\s*(?:HIP_RETURN\s*\(\s*(\w+)\s*\)|return\s+(\w+))\s*;\s*", inner)
    if not m:
        return None
    err = m.group(1) or m.group(2)
    return err if err in _ERRORS else None


def case_rejections(body: str) -> list[tuple[str, list[str]]]:
    """(error, enumerators) for each run of case labels whose branch gives hipErrorNotSupported."""
    out = []
    for sw in re.finditer(r"\bswitch\s*\(", body):
        end = close(body, sw.end() - 1)
        m = re.match(r"\s*\{", body[end:]) if end > 0 else None
        if not m:
            continue
        block_end = close(body, end + m.end() - 1, "{", "}")
        block = body[end + m.end():block_end - 1]
        # Split on labels at this switch's own level only (nested switches stay inside their branch).
        labels: list[tuple[int, int, str]] = []
        depth = 0
        i = 0
        while i < len(block):
            c = block[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif depth == 0:
                lm = re.match(r"\b(case\s+([\w:]+)|default)\s*:(?!:)", block[i:])
                if lm and (i == 0 or not (block[i - 1].isalnum() or block[i - 1] == "_")):
                    labels.append((i, i + lm.end(), lm.group(2) or "default"))
                    i += lm.end()
                    continue
            i += 1
        group: list[str] = []
        for k, (_, label_end, name) in enumerate(labels):
            group.append(name)
            branch = block[label_end:labels[k + 1][0] if k + 1 < len(labels) else len(block)]
            if branch.strip() == "":
                continue  # falls through to the next label
            if "hipErrorNotSupported" in branch and "hipSuccess" not in branch:
                names = [n.split("::")[-1] for n in group if n != "default"]
                names = [n for n in names if _ENUMERATOR.fullmatch(n)]
                if names:
                    out.append(("hipErrorNotSupported", names))
            group = []
    return out


def if_rejections(body: str) -> list[tuple[str, str, list[str], tuple[str, str] | None]]:
    """(error, how, enumerators, range) for each `if` that refuses enumerator values."""
    out: list[tuple[str, str, list[str], tuple[str, str] | None]] = []
    for m in re.finditer(r"\bif\s*\(", body):
        end = close(body, m.end() - 1)
        if end < 0:
            continue
        cond = body[m.end():end - 1]
        err = _only_error(_statement_after(body, end))
        if err is None:
            continue
        parts = [p.strip().strip("()").strip() for p in re.split(r"\|\|", cond)]
        equal = [re.fullmatch(r"[\w.>\-\[\]]+\s*==\s*((?:hip|HIP_)\w+)", p) for p in parts]
        if parts and all(equal):
            out.append((err, "equals", [e.group(1) for e in equal if e], None))
            continue
        low = high = None
        for p in parts:
            lt = re.fullmatch(r"[\w.>\-\[\]]+\s*<\s*((?:hip|HIP_)\w+)", p)
            gt = re.fullmatch(r"[\w.>\-\[\]]+\s*>\s*((?:hip|HIP_)\w+)", p)
            if lt:
                low = lt.group(1)
            elif gt:
                high = gt.group(1)
            else:
                low = high = None
                break
        if high is not None:
            out.append((err, "range", [], (low or "", high)))
    return out


def enum_values(header: str) -> list[dict[str, int]]:
    """Each enum of a header as {enumerator: value} (values that are plain integers or implicit)."""
    text = blank(header)
    out = []
    for m in re.finditer(r"\benum\b[^{;]*\{", text):
        stop = close(text, m.end() - 1, "{", "}")
        members: dict[str, int] = {}
        value = -1
        for item in text[m.end():stop - 1].split(","):
            im = re.fullmatch(r"\s*(\w+)(?:\s+\w+\s*\([^)]*\))?\s*(?:=\s*([^,]+?))?\s*", item)
            if not im:
                continue
            if im.group(2) is not None:
                raw = im.group(2).strip()
                if raw in members:
                    value = members[raw]
                else:
                    try:
                        value = int(raw, 0)
                    except ValueError:
                        continue
            else:
                value += 1
            members[im.group(1)] = value
        if members:
            out.append(members)
    return out


def outside(enums: list[dict[str, int]], low: str, high: str) -> list[str]:
    for members in enums:
        if high in members and (not low or low in members):
            lo = members[low] if low else None
            hi = members[high]
            return [n for n, v in members.items() if v > hi or (lo is not None and v < lo)]
    return []


def scan(gitdir: str, ref: str, header: str | None) -> dict[str, object]:
    commit = git(gitdir, "rev-parse", f"{ref}^{{commit}}").strip()
    date = git(gitdir, "show", "-s", "--format=%cI", commit).strip()
    files = git(gitdir, "ls-tree", "-r", "--name-only", commit).splitlines()
    folder = next((f for f in FOLDERS if any(p.startswith(f) for p in files)), None)
    if folder is None:
        raise SystemExit(f"{ref}: no hipamd/src folder")
    enums = enum_values(Path(header).read_text(encoding="utf-8", errors="replace")) if header else []
    unsupported: dict[str, dict[str, object]] = {}
    rejects: list[dict[str, object]] = []
    bodies: dict[str, str] = {}
    for path in sorted(p for p in files if p.startswith(folder) and p.endswith(".cpp")):
        text = one_branch(blank(git(gitdir, "show", f"{commit}:{path}")))
        for name, offset, body in definitions(text):
            line = text.count("\n", 0, offset) + 1
            short = path[len(folder):]
            if not name.startswith("i"):
                bodies.setdefault(name, body)
            if only_unsupported(body):
                if not name.startswith("i"):
                    unsupported.setdefault(name, {"function": name, "file": short, "line": line})
                continue
            found: list[tuple[str, str, list[str]]] = [(e, "case", n) for e, n in case_rejections(body)]
            for err, how, names, rng in if_rejections(body):
                if rng is not None:
                    names = outside(enums, *rng)
                    how = f"range {rng[0] or '...'} to {rng[1]}"
                found.append((err, how, names))
            for err, how, names in found:
                if names:
                    rejects.append({"function": name, "file": short, "line": line, "error": err, "how": how,
                                    "enumerators": sorted(set(names))})
    merged: dict[tuple[str, str, str], dict[str, object]] = {}
    for r in rejects:
        key = (str(r["function"]), str(r["error"]), str(r["how"]))
        if key in merged:
            merged[key]["enumerators"] = sorted(set(merged[key]["enumerators"]) | set(r["enumerators"]))  # type: ignore[call-overload]
        else:
            merged[key] = r
    rejects = list(merged.values())
    # A helper (ihipName) that rejects is reported for each public call whose body calls it.
    for r in rejects:
        helper = str(r["function"])
        if helper.startswith("i"):
            r["via"] = sorted(n for n, b in bodies.items() if re.search(rf"\b{helper}\s*\(", b))
    return {"commit": commit, "date": date, "folder": folder, "unsupported": sorted(unsupported.values(), key=lambda d: str(d["function"])),
            "rejects": rejects}


def _yaml_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir")
    ap.add_argument("ref")
    ap.add_argument("--repo", default="ROCm/clr")
    ap.add_argument("--header", help="a hip_runtime_api.h to resolve range tests against")
    args = ap.parse_args(argv)
    try:
        got = scan(args.gitdir, args.ref, args.header)
    except subprocess.CalledProcessError as exc:
        print(f"git failed: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    print(f"- repo: {args.repo}")
    print(f"  ref: {args.ref}")
    print(f"  commit: {got['commit']}")
    print(f"  date: {got['date']}")
    print(f"  folder: {got['folder']}")
    print("  unsupported:")
    for u in got["unsupported"]:  # type: ignore[attr-defined]
        print(f"    - {{function: {u['function']}, file: {u['file']}, line: {u['line']}}}")
    print("  rejects:")
    for r in got["rejects"]:  # type: ignore[attr-defined]
        via = f", via: {_yaml_list(r['via'])}" if "via" in r else ""
        print(f"    - {{function: {r['function']}{via}, file: {r['file']}, line: {r['line']}, error: {r['error']}, how: \"{r['how']}\", "
              f"enumerators: {_yaml_list(r['enumerators'])}}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
