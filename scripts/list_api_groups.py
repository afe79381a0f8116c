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
    python3 scripts/list_api_groups.py cuda-math rocm-libraries   # the math and tools libraries' groups
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

# The CUDA headers outside the runtime and driver APIs that define Doxygen groups: the math API (its groups
# are defined in crt/math_functions.h and the type headers; each function's own comment names its group
# with \\ingroup), then CUPTI, NVTX and libNVVM, whose groups enclose their functions with `@{`.
CUDA_MATH = ("crt/math_functions.h", "crt/device_functions.h", "crt/device_double_functions.h",
             "crt/device_fp128_functions.h", "crt/sm_100_rt.h", "sm_20_intrinsics.h", "sm_30_intrinsics.h",
             "sm_32_intrinsics.h", "sm_61_intrinsics.h", "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h",
             "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp", "cuda_fp4.h",
             "cuda_fp4.hpp")
CUDA_TOOLS = ("cupti_result.h", "cupti_version.h", "cupti_activity.h", "cupti_callbacks.h", "cupti_events.h",
              "cupti_metrics.h", "cupti_checkpoint.h", "cupti_pcsampling.h", "cupti_pcsampling_util.h",
              "cupti_pmsampling.h", "cupti_profiler_target.h", "cupti_profiler_host.h", "cupti_range_profiler.h",
              "cupti_sass_metrics.h", "nvtx3/nvToolsExt.h", "nvtx3/nvToolsExtCuda.h", "nvtx3/nvToolsExtCudaRt.h",
              "nvtx3/nvToolsExtOpenCL.h", "nvtx3/nvToolsExtSync.h", "nvtx3/nvToolsExtMem.h",
              "nvtx3/nvToolsExtMemCudaRt.h", "nvvm.h")
# The ROCm 6.4 math and tools libraries' headers that define Doxygen groups (hipBLAS, rocBLAS, hipSPARSE
# and hipSOLVER define none: hipSPARSE's comments name groups its documentation defines elsewhere,
# without titles). rocThrust is left to the thrust card: its only group defined here is Memory Management.
ROCM_LIBRARIES = ("hipblaslt/hipblaslt.h", "hiprand/hiprand.h", "hiprand/hiprand_kernel.h",
                  "hiprand/hiprand_kernel_rocm.h", "hiprand/hiprand_rocm.h", "hiprand/hiprand_mtgp32_host.h", "hipfft/hipfftXt.h",
                  "miopen/miopen.h", "rocprim/type_traits_interface.hpp", "rocprim/thread/thread_load.hpp",
                  "rocprim/thread/thread_store.hpp", "rocprim/thread/thread_search.hpp",
                  "rocprim/thread/thread_scan.hpp", "rocprim/thread/thread_reduce.hpp",
                  "rocprim/thread/thread_operators.hpp", "roctracer/roctx.h", "amd_smi/amdsmi.h")

# A group opened: `\defgroup NAME Title`, `@addtogroup NAME Title` (the title may be absent).
_GROUP = re.compile(r"[\\@](defgroup|addtogroup)[ \t]+(\w+)[ \t]*([^\n]*)")
_INGROUP = re.compile(r"[\\@]ingroup[ \t]+(\w+)")
_OPEN = re.compile(r"[\\@]\{")
_CLOSE = re.compile(r"[\\@]\}")
# A declared function: its name after a return type (a word, `*` or `>` before it, never `return`, `=`
# or a call's parenthesis), then its argument list.
_DECLARED = re.compile(r"(?P<before>[\w*>&][ \t\n*&]*)\b(?P<name>(?:cuda|cu|hip)[A-Z]\w*)\s*\(")
_NOT_A_TYPE = {"return", "sizeof", "if", "while", "defined", "case", "else"}
# Any function name, for the headers whose functions carry no API prefix (fabsf, __hadd, thread_load):
# not a keyword, a cast or a macro spelled in capitals (__CUDA_DEPRECATED("..."), ROCPRIM_DEVICE).
_ANY_NAME = re.compile(r"(?P<before>[\w*>&][ \t\n*&]*)\b(?P<name>[A-Za-z_]\w*)\s*\(")
_NOT_A_FUNCTION = _NOT_A_TYPE | {"for", "switch", "asm", "volatile", "__asm__", "__asm", "__volatile__",
                                 "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "decltype",
                                 "__attribute__", "__declspec", "__align__", "alignas", "alignof", "noexcept",
                                 "throw", "operator", "static_assert", "typeid", "__pragma", "_Pragma", "void"}
_MACRO = re.compile(r"_*[A-Z][A-Z0-9_]*")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# The same, with a run of `///` lines read as one comment (rocPRIM writes `/// \\addtogroup X` and `/// @{`
# on two lines).
_COMMENT_RUNS = re.compile(r"/\*.*?\*/|//[^\n]*(?:\n[ \t]*//[^\n]*)*", re.S)


@dataclass
class Group:
    """One Doxygen group: its id, title, where it is defined (header and line), the functions it declares."""

    api: str  # "runtime", "driver" or "HIP"
    name: str
    title: str
    header: str
    line: int
    functions: list[str] = field(default_factory=list)
    parent: str | None = None  # the group whose defining comment says `\\ingroup` it (read for library headers)


def _code_declarations(code: str, any_name: bool = False) -> list[str]:
    """Function names declared in a stretch of code between comments (preprocessor lines left out): names
    with a CUDA or HIP API prefix, or with `any_name` any function name."""
    code = "\n".join(line for line in code.split("\n") if not line.lstrip().startswith("#"))
    found = []
    for m in (_ANY_NAME if any_name else _DECLARED).finditer(code):
        word = re.findall(r"\w+", code[max(0, m.start("name") - 40):m.start("name")])
        if word and word[-1] in _NOT_A_TYPE:
            continue
        if any_name and (m.group("name") in _NOT_A_FUNCTION or _MACRO.fullmatch(m.group("name"))):
            continue
        head = code[max(0, m.start() - 1):m.start("name")]
        if "=" in head or "(" in head or "," in head:
            continue
        found.append(m.group("name"))
    return found


def _declared(code: str, any_name: bool, owned: bool) -> list[str]:
    """The functions a stretch of code declares. With `any_name`, a stretch that follows a function's own
    comment declares one function, its first (what follows is that function's body or its next spelling
    under another #if branch)."""
    names = list(dict.fromkeys(_code_declarations(code, any_name)))
    return names[:1] if any_name and owned else names


def parse(path: Path, shown: str, api: str, groups: dict[str, Group], any_name: bool = False) -> None:
    """Add the groups `path` defines, and the functions it declares inside each, to `groups` (by id).
    `any_name`: functions have no API prefix (see _code_declarations)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    stack: list[str] = []
    pending: list[str] = []  # groups a function's own comment names with @ingroup
    at = 0
    for m in (_COMMENT_RUNS if any_name else _COMMENT).finditer(text):
        for name in _declared(text[at:m.start()], any_name, bool(pending)):
            for gid in pending or stack[-1:]:
                if name not in groups[gid].functions:
                    groups[gid].functions.append(name)
            pending = []
        at = m.end()
        comment = m.group(0)
        opened = _GROUP.search(comment)
        ingroups = _INGROUP.findall(comment)
        if opened:
            # One comment may define several groups (hipBLASLt's three); library headers read them all.
            for each in _GROUP.finditer(comment) if any_name else [opened]:
                kind, gid, title = each.groups()
                title = title.strip().rstrip("*/").strip()
                if gid not in groups:
                    groups[gid] = Group(api, gid, title, shown, text.count("\n", 0, m.start() + each.start()) + 1)
                elif title and not groups[gid].title:
                    groups[gid].title = title
                if any_name and kind == "defgroup" and ingroups:
                    groups[gid].parent = ingroups[0]
            kind, gid, title = opened.groups()
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
    for name in _declared(text[at:], any_name, bool(pending)):
        for gid in pending or stack[-1:]:
            if name not in groups[gid].functions:
                groups[gid].functions.append(name)


def read_groups(include: Path, headers: tuple[str, ...], api: str, any_name: bool = False) -> list[Group]:
    groups: dict[str, Group] = {}
    for header in headers:
        path = include / header
        if path.is_file():
            parse(path, header, api, groups, any_name)
    return list(groups.values())


def cuda_groups(include: Path) -> list[Group]:
    """The runtime API's groups, then the driver API's, of the CUDA headers in `include`."""
    return read_groups(include, CUDA_RUNTIME, "runtime") + read_groups(include, CUDA_DRIVER, "driver")


def hip_groups(include: Path) -> list[Group]:
    return read_groups(include, HIP, "HIP")


def with_subgroups(groups: list[Group]) -> list[Group]:
    """Each group's functions followed by those of the groups under it (Half Precision Intrinsics holds the
    Half Arithmetic Functions and the other half groups, which hold the functions)."""
    by_name = {g.name: g for g in groups}
    children: dict[str, list[Group]] = {}
    for g in groups:
        if g.parent in by_name and g.parent != g.name:
            children.setdefault(g.parent, []).append(g)

    def gather(g: Group, seen: set[str]) -> list[str]:
        found = list(g.functions)
        for child in children.get(g.name, []):
            if child.name not in seen:
                found += gather(child, seen | {child.name})
        return list(dict.fromkeys(found))

    for g in groups:
        g.functions = gather(g, {g.name})
    return groups


def cuda_library_groups(include: Path) -> list[Group]:
    """The math API's groups, then those of CUPTI, NVTX and libNVVM, of the CUDA headers in `include`."""
    return with_subgroups(read_groups(include, CUDA_MATH, "math", any_name=True)
                          + read_groups(include, CUDA_TOOLS, "tools", any_name=True))


def rocm_library_groups(include: Path) -> list[Group]:
    """The groups of the ROCm math and tools libraries' headers in `include`."""
    return with_subgroups(read_groups(include, ROCM_LIBRARIES, "library", any_name=True))


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
    answer does (hipEventRecordWithFlags, a spelling of the hipEventRecord row), and so does a prefix's
    (amdsmi_get_gpu_activity, a member of the library `amdsmi_*` names)."""
    from xlate import kb

    found = kb.search(index, function)
    return found[0].concept if found and (found[0].kind in ("symbol", "prefix") or found[0].matched == function) else None


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
    readers = {"cuda": (cuda_include, cuda_groups), "hip": (rocm_include, hip_groups),
               "cuda-math": (cuda_include, cuda_library_groups), "rocm-libraries": (rocm_include, rocm_library_groups)}
    vendors = argv or ["cuda", "hip"]
    for vendor in vendors:
        find, read = readers[vendor]
        include = find()
        if include is None:
            print(f"# {vendor}: headers not found", file=sys.stderr)
            continue
        groups = read(include)
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
