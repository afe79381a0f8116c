"""Macros that some ROCm releases need before their headers declare a name the translation calls.

ROCm 6.2 to 6.4 declare the *_sync warp functions only when HIP_ENABLE_WARP_SYNC_BUILTINS is defined
before hip_runtime.h; ROCm 7.0 and later declare them by default. A translation that calls one gets
the macro defined (guarded, so a command-line -D still works) before the file's first include, with
a comment saying why. Which macro declares which names is data: glossary/translate/macros.yaml
(`opt_in`), each entry citing the header lines.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Tree

from xlate.translate import headers, macros
from xlate.translate.edits import Edits
from xlate.translate.names import hip_name, occurrence_offset
from xlate.translate.options import Options
from xlate.translate.report import Report


def rewrite(tree: Tree, found: list[tuple[Any, Any]], source: bytes, starts: list[int], smap: Any, edits: Edits,
            report: Report, options: Options, mask_fixed: set[int]) -> None:
    """`mask_fixed`: offsets of the *_sync calls the mask fix turned into mask-less calls (legacy mode)."""
    table = macros.opt_in()
    if not table:
        return
    needed: list[str] = []
    for macro, entry in table.items():
        if macro.encode() in source:
            continue  # the file defines or tests it already (a translated file, or one ported by hand)
        declares = set(entry["declares"])
        if not any(name.encode() in source for name in declares):
            continue  # the common case: none of the names occurs at all, no need to look at rows
        for o, row in found:
            if row.kind == "header":
                continue
            target, why = hip_name(row, options, smap)
            if target not in declares or why not in ("ok", "same"):
                continue
            if options.warp_sync == "legacy" and occurrence_offset(o, source, starts) in mask_fixed:
                continue  # now the mask-less call, which every ROCm declares
            needed.append(macro)
            break
    if not needed:
        return
    text = b""
    for macro in needed:
        if options.annotate:
            text += b"// xlate: " + table[macro]["note"].encode() + b"\n"
        text += b"#ifndef %s\n#define %s\n#endif\n" % (macro.encode(), macro.encode())
    pos = headers.insertion_point(tree, source)
    if edits.add(pos, pos, text):
        report.rewritten["opt-in-macro"] += len(needed)
