"""The API groups of the CUDA 13.0 and ROCm 6.4 (HIP) runtime headers, each with the functions it
declares and the card most of them reach in xlate's lookup.

The headers document each section of their API reference with a Doxygen group: a comment block holding
`\\defgroup NAME Title` (CUDA) or `@defgroup NAME Title` (HIP), or `addtogroup` for a group another header
opened, followed by `@{`; the declarations up to the matching `@}` belong to the innermost group open.
A documentation comment of one function may also say `@ingroup NAME` (HIP does for deprecated and C++
template functions): that declaration then belongs to the named group(s) instead. A block that both
defines a group and says `@ingroup` names its parent group, which is not where its functions go.

Each function is asked of lookup (xlate.kb.search, as `xlate lookup NAME` does) and its top card noted,
unless lookup answered a near spelling it corrected the name to.
A group is given the card that at least half of its functions that reach a card reach, when that is at
least MIN_VOTES functions; otherwise none.

    python3 scripts/list_api_groups.py          # both vendors: each title, its groups, votes and majority card
    python3 scripts/list_api_groups.py cuda     # one vendor
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MIN_VOTES = 2

# The headers read for each API, in the order their groups are listed: the runtime API (and the
# interoperability headers that add to its groups), then the driver API (cuda.h and the headers that
# define groups of their own under it).
CUDA_RUNTIME = ("cuda_runtime_api.h", "cuda_profiler_api.h", "cuda_gl_interop.h", "cuda_egl_interop.h",
                "cuda_vdpau_interop.h")
CUDA_DRIVER = ("cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaProfiler.h")
HIP = ("hip/hip_runtime_api.h",)

# A group opened: `\defgroup NAME Title`, `@addtogroup NAME Title` (the title may be absent).
_GROUP = re.compile(r"[\\@](defgroup|addtogroup)[ \t]+(\w+)[ \t]*([^\n]*)")
_INGROUP = re.compile(r"[\\@]ingroup[ \t]+(\w+)")
_OPEN = re.compile(r"[\\@]\{")
_CLOSE = re.compile(r"[\\@]\}")
# A declared function: its name after a return type (a word, `*` or `>` before it, never `return`, `=`
# or a call's parenthesis), then its argument list.
_DECLARED = re.compile(r"(?P<before>[\w*>&][ \t\n*&]*)\b(?P<name>(?:cuda|cu|hip)[A-Z]\w*)\s*\(")
_NOT_A_TYPE = {"return", "sizeof", "if", "while", "defined", "case", "else"}
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


@dataclass
class Group:
    """One Doxygen group: its id, title, where it is defined (header and line), the functions it declares."""

    api: str  # "runtime", "driver" or "HIP"
    name: str
    title: str
    header: str
    line: int
    functions: list[str] = field(default_factory=list)


def _code_declarations(code: str) -> list[str]:
    """Function names declared in a stretch of code between comments (preprocessor lines left out)."""
    code = "\n".join(line for line in code.split("\n") if not line.lstrip().startswith("#"))
    found = []
    for m in _DECLARED.finditer(code):
        word = re.findall(r"\w+", code[max(0, m.start("name") - 40):m.start("name")])
        if word and word[-1] in _NOT_A_TYPE:
            continue
        head = code[max(0, m.start() - 1):m.start("name")]
        if "=" in head or "(" in head or "," in head:
            continue
        found.append(m.group("name"))
    return found


def parse(path: Path, shown: str, api: str, groups: dict[str, Group]) -> None:
    """Add the groups `path` defines, and the functions it declares inside each, to `groups` (by id)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    stack: list[str] = []
    pending: list[str] = []  # groups a function's own comment names with @ingroup
    at = 0
    for m in _COMMENT.finditer(text):
        for name in dict.fromkeys(_code_declarations(text[at:m.start()])):
            for gid in pending or stack[-1:]:
                if name not in groups[gid].functions:
                    groups[gid].functions.append(name)
            pending = []
        at = m.end()
        comment = m.group(0)
        opened = _GROUP.search(comment)
        ingroups = _INGROUP.findall(comment)
        if opened:
            kind, gid, title = opened.groups()
            title = title.strip().rstrip("*/").strip()
            if gid not in groups:
                groups[gid] = Group(api, gid, title, shown, text.count("\n", 0, m.start() + opened.start()) + 1)
            elif title and not groups[gid].title:
                groups[gid].title = title
            if _OPEN.search(comment):
                stack.append(gid)
            pending = []
        elif ingroups and _OPEN.search(comment):
            stack.append(ingroups[0])  # a block that reopens a group (`@ingroup StreamO` then `@{`)
            pending = []
        elif ingroups:
            pending = [g for g in ingroups if g in groups]
        elif comment.startswith("/**"):
            pending = []
        for _ in _CLOSE.findall(comment):
            if stack:
                stack.pop()
    for name in dict.fromkeys(_code_declarations(text[at:])):
        for gid in pending or stack[-1:]:
            groups[gid].functions.append(name)


def read_groups(include: Path, headers: tuple[str, ...], api: str) -> list[Group]:
    groups: dict[str, Group] = {}
    for header in headers:
        path = include / header
        if path.is_file():
            parse(path, header, api, groups)
    return list(groups.values())


def cuda_groups(include: Path) -> list[Group]:
    """The runtime API's groups, then the driver API's, of the CUDA headers in `include`."""
    return read_groups(include, CUDA_RUNTIME, "runtime") + read_groups(include, CUDA_DRIVER, "driver")


def hip_groups(include: Path) -> list[Group]:
    return read_groups(include, HIP, "HIP")


def cuda_include() -> Path | None:
    from xlate.cuda_headers import find_cuda_headers

    found = find_cuda_headers()
    return found.include if found else None


def rocm_include() -> Path | None:
    from xlate.hip_headers import find_rocm_headers

    found = find_rocm_headers()
    return found.include if found else None


def card_of(index: Any, function: str) -> str | None:
    """The card lookup answers first for a function's name, or None. An answer for a near spelling that
    lookup corrected the name to (cudaGLGetDevices read as cudaGetDevice) does not count; a symbol's
    answer does (hipEventRecordWithFlags, a spelling of the hipEventRecord row)."""
    from xlate import kb

    found = kb.search(index, function)
    return found[0].concept if found and (found[0].kind == "symbol" or found[0].matched == function) else None


def votes(index: Any, group: Group) -> Counter[str]:
    return Counter(card for card in (card_of(index, f) for f in group.functions) if card)


def majority(counted: Counter[str]) -> str | None:
    """The card at least half of the placed functions reach, if at least MIN_VOTES do."""
    if not counted:
        return None
    card, n = counted.most_common(1)[0]
    return card if n >= MIN_VOTES and 2 * n >= sum(counted.values()) else None


def listable(title: str) -> bool:
    """Whether a name list can hold the title as a name (a heading: no brackets, no closing period)."""
    from pydantic import ValidationError

    from xlate import kb

    try:
        kb.NameList.model_validate({"names_of": "x", "version": "x", "source": "https://example.com", "listed_by": "x",
                                    "groups": [{"section": "x", "card": None, "names": [title]}]})
    except ValidationError:
        return False
    return True


def carried_by(index: Any, title: str) -> str | None:
    """The card that already spells the title as a name, alias, title, id or symbol (lookup answers it
    before any name list), or None."""
    from xlate import kb

    kinds = {entry[2] for entry in index["labels"]}
    found = kb.search(index, title)
    return found[0].concept if found and found[0].kind in kinds else None


def listing(index: Any, groups: list[Group]) -> list[dict[str, Any]]:
    rows = []
    for g in groups:
        counted = votes(index, g)
        rows.append({"api": g.api, "group": g.name, "title": g.title, "header": g.header, "line": g.line,
                     "functions": len(g.functions), "placed": sum(counted.values()),
                     "votes": dict(counted.most_common(4)), "card": majority(counted)})
    return rows


def main(argv: list[str]) -> int:
    from xlate import kb

    index = kb.load_index()
    vendors = argv or ["cuda", "hip"]
    for vendor in vendors:
        include = cuda_include() if vendor == "cuda" else rocm_include()
        if include is None:
            print(f"# {vendor}: headers not found", file=sys.stderr)
            continue
        groups = cuda_groups(include) if vendor == "cuda" else hip_groups(include)
        print(f"# {vendor}: one entry per title; each group of that title with its votes and majority card")
        by_title: dict[str, list[dict[str, Any]]] = {}
        for row in listing(index, groups):
            by_title.setdefault(row["title"], []).append(row)
        for title, rows in by_title.items():
            cards = {r["card"] for r in rows}
            note = ""
            if not title or not listable(title):
                note = "  # not listable as a heading"
            elif (owner := carried_by(index, title)) is not None:
                note = f"  # a card already spells it: {owner}"
            elif len(cards) > 1:
                note = "  # groups disagree"
            print(f"- title: {title!r}{note}")
            for r in rows:
                print(f"  # {r['api']} {r['group']} {r['header']}:{r['line']}: {r['functions']} functions, "
                      f"{r['placed']} reach a card {r['votes']} -> {r['card'] or 'null'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
