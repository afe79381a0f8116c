#!/usr/bin/env python3
"""The fixed messages AMD's GPU runtime prints or returns when a HIP program fails, read from one
commit of a git directory of ROCm/ROCR-Runtime (ROCr, the HSA runtime) or ROCm/clr (the HIP runtime
and ROCclr underneath it).

Read straight from the git object store (`git show`, `git ls-tree`: no checkout, no network, no build).
Comments are dropped; string literals next to each other are joined, as the compiler joins them.

- `rocr`: the text `hsa_status_string` returns for each status (the `case NAME:` /
  `*status_string = "...";` pairs of runtime/hsa-runtime/core/runtime/hsa.cpp), and each
  `fprintf(stderr, "...")` in the runtime's core, runtime/hsa-runtime/core/runtime/*.cpp (the memory
  fault handler, the queue error handler, the topology and tool loading; not the OS wrappers under
  core/util, the core dump writer under libamdhsacode or the image extension).
- `clr`: in the HIP runtime, hipamd/src/*.cpp and *.hpp (hiprtc/ aside: HIPRTC has its own list), and
  in ROCclr's device layer for ROCm, rocclr/device/rocm/*.cpp: `ClPrint(amd::LOG_NONE, ...)` (printed
  whatever AMD_LOG_LEVEL is), `guarantee(cond, "...")` (printed, then abort()), and
  `LogError("...")` / `LogPrintfError("...")` (`ClPrint(amd::LOG_ERROR, amd::LOG_ALWAYS, ...)`,
  printed once AMD_LOG_LEVEL is 1 or more). `LogPrintfError("%s", "text")` is read as the text.

    python3 scripts/list_rocm_runtime_messages.py GITDIR COMMIT rocr --repo ROCm/ROCR-Runtime
    python3 scripts/list_rocm_runtime_messages.py GITDIR COMMIT clr --repo ROCm/clr

prints a first line `# OWNER/NAME COMMIT (REF): N messages ...` (the commit in full; the ref given when
it was not the commit id), then one line per message, in path and line order:

    PATH:LINE<TAB>HOW<TAB>NAME<TAB>FIXED<TAB>FORMAT

HOW is how the text reaches the user (hsa_status_string, fprintf, ClPrint(LOG_NONE), guarantee,
LogError, LogPrintfError); NAME is the status enumerator for hsa_status_string, else the function (or
macro) whose body prints it: the last name before `(` on the nearest line above that starts a
definition at column 0. FIXED is the literal text up to the first printf placeholder (`%u`, `%p`,
`%s`...), outer spaces trimmed and a `0x` just before it dropped (it belongs to the printed value); FORMAT is the whole format, with tabs and newlines written `\\t` and
`\\n`. A message whose format opens with a placeholder has an empty FIXED. The lists in tests/data/
were written with:

    python3 scripts/list_rocm_runtime_messages.py ROCR_GITDIR c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9 rocr --repo ROCm/ROCR-Runtime > tests/data/rocm_runtime_messages_rocr.txt
    python3 scripts/list_rocm_runtime_messages.py CLR_GITDIR f9f995c6d0aecec28debd3db0f41df0c15ec003d clr --repo ROCm/clr > tests/data/rocm_runtime_messages_clr.txt

Only the standard library and the local git are used. Exit status 0; 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the git reader beside this script
from list_nccl_names import git  # noqa: E402

_LEXEME = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_STRING = re.compile(r'"((?:\\.|[^"\\\n])*)"')
_PLACEHOLDER = re.compile(r"%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|j|z|t|L)?[diouxXeEfFgGaAcspn%]")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r", "0": "\0"}
_DEFINITION = re.compile(r"^(?!(?:namespace|class|struct|union|enum|template|typedef|using|extern|return|if|for|while|switch)\b)"
                         r"[A-Za-z_~][^;{}()]*?\b([A-Za-z_~]\w*)\s*\(")
_MACRO = re.compile(r"^#\s*define\s+([A-Za-z_]\w*)")

ROCR_STATUS_FILE = "runtime/hsa-runtime/core/runtime/hsa.cpp"


class Listing(NamedTuple):
    """Which files a list reads, and which calls print a message: each call's name, how the list names
    it, and the index of the argument that holds the format."""

    folders: tuple[str, ...]
    suffixes: tuple[str, ...]
    calls: tuple[tuple[str, str, int], ...]


LISTS = {
    "rocr": Listing(
        folders=("runtime/hsa-runtime/core/runtime/",),
        suffixes=(".cpp",),
        calls=((r"\bfprintf\s*\(\s*stderr\s*,", "fprintf", 0),),
    ),
    "clr": Listing(
        folders=("hipamd/src/", "rocclr/device/rocm/"),
        suffixes=(".cpp", ".hpp"),
        calls=((r"\bClPrint\s*\(\s*amd::LOG_NONE\s*,\s*amd::LOG_\w+\s*,", "ClPrint(LOG_NONE)", 0),
               (r"\b(?:fixme_)?guarantee\s*\(", "guarantee", 1),
               (r"\bLogError\s*\(", "LogError", 0),
               (r"\bLogPrintfError\s*\(", "LogPrintfError", 0)),
    ),
}


def strip_comments(text: str) -> str:
    """Comments blanked (their newlines kept, so line numbers stay), string and char literals kept."""
    out, pos = [], 0
    for m in _LEXEME.finditer(text):
        out.append(text[pos:m.start()])
        token = m.group(0)
        out.append(token if token[0] in "\"'" else "\n" * token.count("\n") + ("" if token.startswith("//") else " "))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def _arguments(code: str, start: int) -> list[str]:
    """The top-level arguments of the call whose opening parenthesis ends just before `start`."""
    args, depth, begin, i = [], 0, start, start
    while i < len(code):
        ch = code[i]
        if ch in "\"'":
            m = _LEXEME.match(code, i)
            i = m.end() if m else i + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                args.append(code[begin:i].strip())
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(code[begin:i].strip())
            begin = i + 1
        i += 1
    return args


def literal(arg: str) -> str | None:
    """The text of an argument made only of adjacent string literals, else None."""
    rest = _STRING.sub("", arg)
    if rest.strip() or not _STRING.search(arg):
        return None
    return "".join(_unescape(m.group(1)) for m in _STRING.finditer(arg))


def fixed_part(text: str) -> str:
    """The literal text before the first printf placeholder (`%%` is text), outer spaces trimmed; a
    `0x` written right before the placeholder goes with the value (`ptr: 0x%x` prints `ptr: 0x7f3a`)."""
    for m in _PLACEHOLDER.finditer(text):
        if m.group(0) != "%%":
            text = text[:m.start()]
            text = text[:-2] if text.endswith("0x") else text
            break
    return text.replace("%%", "%").strip()


def _shown(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def enclosing(lines: list[str], index: int) -> str:
    """The function or macro whose body holds line `index`: a `#define` whose continued lines reach
    it, else the last name before `(` on the nearest line above that starts a definition at column 0."""
    continued = True
    for i in range(index, -1, -1):
        line = lines[i]
        if i < index:
            continued = continued and line.rstrip().endswith("\\")
        macro = _MACRO.match(line)
        if macro and continued:
            return macro.group(1)
        if i < index and not line.startswith((" ", "\t", "#", "}", "{")):
            m = _DEFINITION.match(line)
            if m:
                return m.group(1)
    return ""


def status_strings(text: str) -> list[tuple[int, str, str]]:
    """(line, status name, text) for each case of hsa_status_string."""
    code = strip_comments(text)
    start = code.find("hsa_status_t hsa_status_string(")
    if start < 0:
        return []
    end = code.find("\n}", start)
    out = []
    for m in re.finditer(r"case\s+([A-Z_][A-Z0-9_]*)\s*:\s*\*status_string\s*=\s*((?:\"(?:\\.|[^\"\\\n])*\"\s*)+);",
                         code[start:end]):
        line = code.count("\n", 0, start + m.start(2)) + 1
        text_ = literal(m.group(2))
        if text_ is not None:
            out.append((line, m.group(1), text_))
    return out


def messages(text: str, which: str) -> list[tuple[int, str, str, str]]:
    """(line, how, name, format) for each call in a source that prints a fixed message."""
    code = strip_comments(text)
    lines = code.split("\n")
    code = code.replace("\\\n", " \n")  # a macro's continued lines read as one, line numbers kept
    out = []
    for pattern, how, index in LISTS[which].calls:
        for m in re.finditer(pattern, code):
            args = _arguments(code, m.end())
            if len(args) <= index:
                continue
            fmt = literal(args[index])
            if fmt == "%s" and len(args) > index + 1:
                fmt = literal(args[index + 1])  # LogPrintfError("%s", "text")
            if fmt is None:
                continue
            line = code.count("\n", 0, m.start())
            out.append((line + 1, how, enclosing(lines, line), fmt))
    return sorted(out)


def listing(git_dir: str, commit: str, which: str, repo: str) -> list[str]:
    full = git(git_dir, "rev-parse", f"{commit}^{{commit}}").strip()
    conf = LISTS[which]
    paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", full, "--", *conf.folders).split("\n")
             if p.endswith(conf.suffixes) and any(p.startswith(f) and "/" not in p[len(f):] for f in conf.folders)]
    rows = []
    if which == "rocr":
        for line, name, text in status_strings(git(git_dir, "show", f"{full}:{ROCR_STATUS_FILE}")):
            rows.append(f"{ROCR_STATUS_FILE}:{line}\thsa_status_string\t{name}\t{fixed_part(text)}\t{_shown(text)}")
    for path in sorted(paths):
        for line, how, name, fmt in messages(git(git_dir, "show", f"{full}:{path}"), which):
            rows.append(f"{path}:{line}\t{how}\t{name}\t{_shown(fixed_part(fmt))}\t{_shown(fmt)}")
    ref = "" if commit == full else f" ({commit})"
    head = (f"# {repo} {full}{ref}: {len(rows)} messages; PATH:LINE, HOW, NAME, FIXED (text before the first "
            "placeholder), FORMAT")
    return [head, *rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir")
    parser.add_argument("commit")
    parser.add_argument("which", choices=sorted(LISTS))
    parser.add_argument("--repo", required=True, help="owner/name, for the first line")
    args = parser.parse_args(argv)
    try:
        rows = listing(args.git_dir, args.commit, args.which, args.repo)
    except subprocess.CalledProcessError as exc:
        print(f"git failed: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
