"""`#include` of CUDA headers rewritten to their HIP headers (by the header rows), duplicates
dropped, and <hip/hip_runtime.h> added to CUDA sources that rely on nvcc's implicit runtime header.

A library header's mapping is applied only together with the API it implies
(glossary/translate/headers.yaml): where every name of that API the file uses stays NVIDIA's (no
row maps it), or a __has_include test names the header, the CUDA include stays with a `// xlate:`
note; where only some stay, the HIP header is written for the mapped calls and the note names the
rest. Includes of other files of the tree follow their renames (`#include "kernels.cu"` becomes
`"kernels.hip"` when kernels.cu is translated to kernels.hip in the same run).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tree_sitter import Node, Tree

from xlate.cuda.names import identifiers
from xlate.translate import compat, datafile
from xlate.translate.edits import Edits, line_starts
from xlate.translate.names import approximate_member, class_prefix, hip_name, keeps_cuda_name, roc_name
from xlate.translate.notes import Notes
from xlate.translate.options import Options
from xlate.translate.report import Report

# Library families whose rows have rocBLAS-style second answers (HIPIFY's *_supported_by_ROC tables).
ROC_FAMILIES = frozenset({"cublas", "cusparse", "cusolver", "curand"})
# hip_runtime_api.h alone is not enough: it lacks the kernel language (threadIdx, __global__, launches)
# that nvcc's implicit runtime header gives a .cu file.
_RUNTIME_HEADERS = (b"hip/hip_runtime.h",)
# A file that includes either is CUDA runtime code (a header of a .cu file, where nvcc's implicit runtime
# header came first), so it gets the C headers that header brought (add_host_headers).
_RUNTIME_API_HEADERS = (*_RUNTIME_HEADERS, b"hip/hip_runtime_api.h")
_ANY_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.MULTILINE)


def _include_node(node: Node | None) -> Node | None:
    for _ in range(4):
        if node is None:
            return None
        if node.type == "preproc_include":
            return node
        node = node.parent
    return None


def _path_node(include: Node) -> Node | None:
    return include.child_by_field_name("path")


@lru_cache(maxsize=1)
def apis() -> dict[str, re.Pattern[str]]:
    """CUDA header -> the regex of the names of its API (glossary/translate/headers.yaml)."""
    return _patterns("apis")


@lru_cache(maxsize=1)
def declared_by() -> dict[str, re.Pattern[str]]:
    """HIP header -> the regex of names only it declares (hip_runtime.h does not; headers.yaml)."""
    return _patterns("declares")


@lru_cache(maxsize=1)
def host_uses() -> dict[str, re.Pattern[str]]:
    """C header -> the regex of names a file calls that CUDA's runtime header declares and HIP's does not."""
    return _patterns("host_uses")


@lru_cache(maxsize=1)
def _host_use_data() -> dict[str, dict[str, Any]]:
    return datafile.load_parts(datafile.data_path("headers.yaml"), {"apis": {}, "declares": {}, "host_uses": {}},
                               "CUDA headers")["host_uses"]


def _patterns(part: str) -> dict[str, re.Pattern[str]]:
    from xlate.errors import GlossaryError

    path = datafile.data_path("headers.yaml")
    entry_keys = {"match": str, "source": str}
    data = datafile.load_parts(path, {"apis": entry_keys, "declares": entry_keys, "host_uses": entry_keys},
                               "CUDA headers")
    out: dict[str, re.Pattern[str]] = {}
    for header, entry in data[part].items():
        try:
            out[str(header)] = re.compile(entry["match"])
        except re.error as exc:
            raise GlossaryError(f"{path}: apis.{header}: match is not a regex: {exc}") from None
    return out


_QUALIFIED_NAME = re.compile(rb"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_NOT_CODE = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "char_literal",
                       "system_lib_string", "escape_sequence"})


def _unported_api(header: str, tree: Tree | None, source: bytes, smap: Any, options: Options) -> tuple[bool, str | None]:
    """(keep the CUDA include, why) for an include of `header`: kept where a __has_include test names
    the header or where every name of its API the code uses stays NVIDIA's (no row maps it); where
    only some stay, the HIP header is written (the mapped calls need it) and `why` names the rest."""
    pattern = apis().get(header)
    if pattern is None:
        return False, None
    if re.search(rb"__has_include\s*\(\s*[<\"]" + re.escape(header.encode()) + rb"[>\"]", source):
        return True, f"a __has_include test names <{header}>"
    if smap is None:
        return False, None
    at = tree.root_node.descendant_for_byte_range if tree is not None else None
    from xlate.project.names import api_shaped, defined_names

    own_macros = defined_names(source)  # a user's NVTX_RANGE_FN or CUDNN_ATT_H is not the library's
    prefixes = getattr(smap, "prefix_bytes", ())
    left: list[str] = []
    kept: list[str] = []
    mapped = False
    checked: set[str] = set()
    for m in _QUALIFIED_NAME.finditer(source):
        name = m.group(0).decode("utf-8", "replace")
        if name in checked or name in own_macros or not pattern.fullmatch(name):
            continue
        node = at(m.start(), m.end()) if at is not None else None
        if node is not None and (node.type in _NOT_CODE or (node.parent is not None and node.parent.type in _NOT_CODE)):
            continue
        checked.add(name)
        entry = smap.get(name)
        if (entry is None or getattr(entry, "derived", False)) and prefixes and not api_shaped(name, prefixes):
            continue  # a user's variable named after the library (cublas_handle), not one of its names
        why = hip_name(entry, options, smap)[1] if entry is not None else "unknown"
        if why == "derived" and (class_prefix(name, smap, options) is not None
                                 or approximate_member(name, smap, options) is not None):
            # a member of a class a row renames, or a member whose two-phase calls follow an
            # approximate class's rename: the class's rename ports it (names.rewrite)
            why = "ok"
        if why == "ok" and entry is not None and keeps_cuda_name(entry, two_phase_here=True) \
                and compat.helper_for(entry.symbol) is None:
            # names.rewrite keeps these calls' CUDA name (a compat helper, where there is one, takes
            # them instead): they still need this header
            kept.append(name)
        elif why in ("ok", "same"):
            mapped = True
        else:
            left.append(name)
    if not left and not kept:
        return False, None
    reasons = [f"no row maps {_some(left)} to HIP"] if left else []
    reasons += [f"the calls of {_some(kept)} keep their CUDA name"] if kept else []
    return not mapped, " and ".join(reasons)


def _some(names: list[str]) -> str:
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")


def rewrite(found: list[tuple[Any, Any]], source: bytes, edits: Edits, report: Report, options: Options,
            tree: Tree | None = None, shown: str | None = None, notes: Notes | None = None,
            starts: list[int] | None = None, smap: Any = None) -> dict[str, int]:
    """Rewrite include paths; returns each header the file now includes with the offset of its
    first include line (for the runtime header check)."""
    notes = notes if notes is not None else Notes()
    starts = starts if starts is not None else line_starts(source)
    if shown is not None and tree is not None:
        _renamed_includes(tree, source, shown, edits, report)
    unported: dict[str, tuple[bool, str | None]] = {}
    included: dict[tuple[int, str], int] = {}  # (parent node id, header) -> count, for duplicates
    _unknown_cuda_headers(found, source, report)
    # Headers the file already includes by their HIP names (a file half ported by hand).
    now: dict[str, int] = {}
    for m in _ANY_INCLUDE.finditer(source):
        now.setdefault(m.group(1).decode("utf-8", "replace").strip(), m.start())
    for o, entry in found:
        if entry.kind != "header":
            continue
        include = _include_node(o[6])
        path = _path_node(include) if include is not None else None
        if include is None or path is None:
            continue
        written = o[2]
        target, why = hip_name_header(entry, options)
        if target is None:
            if why == "unknown-roc":
                report.unknown[f"{written} (roc header)"] += 1
                continue
            (report.no_equivalent if why == "none" else report.unknown)[written] += 1
            continue
        if written not in unported:
            unported[written] = _unported_api(written, tree, source, smap, options)
        keep, why_kept = unported[written]
        if keep:
            notes.add(starts, include.start_byte, f"kept <{written}>: {why_kept}; its HIP header {target} "
                      "comes with porting those calls", report, "header kept with its API")
            continue
        if why_kept is not None:
            notes.add(starts, include.start_byte, f"<{written}> -> <{target}> for the calls rows map; {why_kept}: "
                      "those calls still need porting", report, "header mapped, some of its API left")
        parent = include.parent
        key = (parent.id if parent is not None else 0, target)
        raw = source[path.start_byte:path.end_byte]
        if key in included or (target in now and target != written and _same_scope_has(source, parent, target)):
            # The same HIP header is already included at this level: drop this one, keep the line.
            end = include.end_byte
            line_end = end - 1 if source[end - 1:end] == b"\n" else end
            if edits.add(include.start_byte, line_end, b""):
                report.rewritten["duplicate-header"] += 1
            continue
        included[key] = 1
        line_start = source.rfind(b"\n", 0, include.start_byte) + 1
        now[target] = min(now.get(target, line_start), line_start)
        quote_open, quote_close = raw[:1], raw[-1:]
        if edits.add(path.start_byte, path.end_byte, quote_open + target.encode() + quote_close):
            report.rewritten["header"] += 1
    return now


def _renamed_includes(tree: Tree, source: bytes, shown: str, edits: Edits, report: Report) -> None:
    """`#include "x.cu"` of a file this run translates under another name: the new name."""
    from xlate.translate.output import renamed_include

    if b".cu" not in source:
        return
    for m in _ANY_INCLUDE.finditer(source):
        written = m.group(1).decode("utf-8", "replace")
        if not written.endswith(".cu"):
            continue
        new = renamed_include(shown, written)
        if new is None or new == written:
            continue
        s, e = m.span(1)
        if edits.add(s, e, new.encode()):
            report.rewritten["include-of-renamed-file"] += 1


# Include paths that are CUDA's by their spelling: reported when no header row answers them.
_CUDA_HEADER = re.compile(r"^(?:cuda[\w./]*|cooperative_groups[\w./]*|cub/.*|thrust/.*|cublas\w*\.h|curand\w*\.h|"
                          r"cufft\w*\.h|cusparse\w*\.h|cusolver\w*\.h|cudnn\w*\.h|nccl\.h|nvrtc\.h|mma\.h|"
                          r"cuda_\w+\.h|nvToolsExt\w*\.h|nvtx3/.*)$")


def _unknown_cuda_headers(found: list[tuple[Any, Any]], source: bytes, report: Report) -> None:
    known = {o[2] for o, e in found if e.kind == "header"}
    for m in _ANY_INCLUDE.finditer(source):
        path = m.group(1).decode("utf-8", "replace").strip()
        if path not in known and _CUDA_HEADER.match(path):
            report.unknown[f"{path} (header)"] += 1


def hip_name_header(entry: Any, options: Options) -> tuple[str | None, str]:
    if entry.kind != "header":
        return hip_name(entry, options)
    roc = roc_name(entry) if options.roc else None
    if options.roc and roc is None and entry.hip is not None and entry.family in ROC_FAMILIES:
        return None, "unknown-roc"  # --roc asked for the rocBLAS-style header and no row gives it
    target = roc or entry.hip
    if target is None:
        return None, "none" if entry.hip_relation == "none" else "unknown"
    if not re.fullmatch(r"[\w./+-]+", target):
        return None, "unknown"
    return target, "ok"


def _same_scope_has(source: bytes, parent: Node | None, target: str) -> bool:
    """Whether an include of `target` by its HIP name sits directly under the same parent."""
    if parent is None:
        return False
    for child in parent.children:
        if child.type == "preproc_include":
            path = child.child_by_field_name("path")
            if path is not None and (path.text or b"")[1:-1].decode("utf-8", "replace").strip() == target:
                return True
    return False


COOPERATIVE_GROUPS = "hip/hip_cooperative_groups.h"


def add_runtime(tree: Tree, source: bytes, edits: Edits, report: Report, headers_now: dict[str, int]) -> None:
    """nvcc includes the CUDA runtime header implicitly, before anything else; HIP-Clang does not.
    Add hip_runtime.h once, before the first code of the file (after its leading comments,
    `#pragma once` or include guard). HIP's cooperative-groups header is not self-contained (in
    HIP 5.2 it uses hipBlockIdx_x and friends from hip_runtime.h), so where it comes first the
    runtime header goes just above it."""
    runtime = [at for h, at in headers_now.items() if h.encode() in _RUNTIME_HEADERS]
    if runtime:
        cg = headers_now.get(COOPERATIVE_GROUPS)
        if cg is not None and cg < min(runtime) and edits.add(cg, cg, b"#include <hip/hip_runtime.h>\n"):
            report.rewritten["runtime-include"] += 1
        return
    pos = insertion_point(tree, source)
    if edits.add(pos, pos, b"#include <hip/hip_runtime.h>\n"):
        report.rewritten["runtime-include"] += 1


_WORD = re.compile(rb"[A-Za-z_]\w*")


def add_declaring_headers(tree: Tree, source: bytes, edits: Edits, report: Report, headers_now: dict[str, int]) -> None:
    """Each HIP header that declares a name the translation wrote, where hip_runtime.h does not and
    the file does not include it yet: added once, with the runtime header (after it when both are
    added at the same place). A name the file already spelled that way came with its header."""
    wanted = declared_by()
    if not wanted:
        return
    written = {w.decode() for e in edits.planned() for w in _WORD.findall(e)}
    present = set(headers_now) | {m.group(1).decode() for m in _ANY_INCLUDE.finditer(source)}
    for header, pattern in wanted.items():
        if header in present or not any(pattern.match(w) for w in written):
            continue
        pos = _after_runtime(tree, source, headers_now)
        if edits.add(pos, pos, f"#include <{header}>\n".encode()):
            report.rewritten["type-header-include"] += 1


def _used_unqualified(tree: Tree, source: bytes, name: str) -> bool:
    """Whether the file calls `name` without a scope or an object (`isfinite(x)`, not `std::isfinite(x)`
    or `v.isfinite()`), or, for a name in capitals, uses it as a value (`FLT_MAX`): the C headers'
    functions and macros. Only the places that spell the name are looked at."""
    at = tree.root_node.descendant_for_byte_range
    for m in re.finditer(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])", source):
        node = at(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start() or node.end_byte != m.end():
            continue
        if name.isupper():
            return True
        parent = node.parent
        if parent is not None and parent.type == "call_expression":
            fn = parent.child_by_field_name("function")
            if fn is not None and fn.start_byte == node.start_byte and fn.end_byte == node.end_byte:
                return True
    return False


def _after_runtime(tree: Tree, source: bytes, headers_now: dict[str, int]) -> int:
    """Where a header goes that must follow the runtime header: the line after it, or where the
    runtime header itself would go."""
    runtime = [at for h, at in headers_now.items() if h.encode() in _RUNTIME_HEADERS]
    return _line_after(source, min(runtime)) if runtime else insertion_point(tree, source)


def has_runtime(headers_now: dict[str, int]) -> bool:
    """Whether the translated file includes HIP's runtime header or its API header (where it included CUDA's)."""
    return any(h.encode() in _RUNTIME_API_HEADERS for h in headers_now)


def add_host_headers(tree: Tree, source: bytes, edits: Edits, report: Report, headers_now: dict[str, int]) -> None:
    """The C header a file needs for a name it calls as written, which CUDA's implicit runtime header
    declares and HIP's does not (headers.yaml, host_uses): added once, after the runtime header."""
    wanted = host_uses()
    if not wanted:
        return
    present = set(headers_now) | {m.group(1).decode() for m in _ANY_INCLUDE.finditer(source)}
    words: list[str] | None = None
    for header, pattern in wanted.items():
        if header in present or present & set(_host_use_data()[header].get("provided_by") or ()):
            continue
        # The file's words first, then only the places that spell one of the header's names.
        words = [w.decode() for w in identifiers(source)] if words is None else words
        if not any(_used_unqualified(tree, source, w) for w in words if pattern.match(w)):
            continue
        pos = _after_runtime(tree, source, headers_now)
        if edits.add(pos, pos, f"#include <{header}>\n".encode()):
            report.rewritten["host-header-include"] += 1


def insertion_point(tree: Tree, source: bytes) -> int:
    """Where a line goes that must come before the file's code: after its leading comments,
    `#pragma once` or include guard."""
    root = tree.root_node
    pos = 0
    for child in root.children:
        if child.type == "comment":
            pos = _line_after(source, child.end_byte)
            continue
        if child.type == "preproc_call" and b"once" in (child.text or b"") and b"pragma" in (child.text or b""):
            pos = _line_after(source, child.end_byte - 1)
            continue
        if child.type == "preproc_ifdef" and (child.text or b"").lstrip().startswith(b"#ifndef"):
            name = child.child_by_field_name("name")
            body = [c for c in child.named_children if name is None or c.start_byte != name.start_byte]
            first = body[0] if body else None
            if first is not None and first.type == "preproc_def" and name is not None:
                defined = first.child_by_field_name("name")
                if defined is not None and defined.text == name.text:
                    return _line_after(source, first.end_byte - 1)
            # A guard whose `#define` comes after other directives (`#pragma once`, comments): the
            # line goes right inside the `#ifndef`, where HIPIFY puts it too.
            if name is not None and _guard_defined(body, name.text):
                return _line_after(source, name.end_byte)
        return child.start_byte if _at_line_start(source, child.start_byte) else pos
    return pos


def _guard_defined(body: list[Node], guard: bytes | None) -> bool:
    """Whether `#define GUARD` comes among the leading comments and directives of an `#ifndef` body."""
    for node in body:
        if node.type == "preproc_def":
            defined = node.child_by_field_name("name")
            if defined is not None and defined.text == guard:
                return True
        elif node.type not in ("comment", "preproc_call"):
            return False
    return False


def _line_after(source: bytes, offset: int) -> int:
    nl = source.find(b"\n", offset)
    return len(source) if nl == -1 else nl + 1


def _at_line_start(source: bytes, offset: int) -> bool:
    return offset == 0 or source[offset - 1:offset] == b"\n" or source[source.rfind(b"\n", 0, offset) + 1:offset].strip() == b""
