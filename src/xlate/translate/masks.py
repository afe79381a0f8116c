"""The one mechanical hazard fix: a provably full 32-bit member mask passed to a *_sync warp call.

CUDA's 0xffffffff names every lane of a 32-lane warp; the call's meaning is "all lanes take part".
HIP's wavefront has 64 lanes on CDNA, so the same literal names only half of it. Two safe spellings
keep "all lanes": the mask-less HIP function (`__shfl_down(v, d)`, on every ROCm; its name comes
from the row of CUDA's own mask-less function; for a shuffle only where the value's declared type is
one the mask-less overloads are proven for) or the _sync call with a 64-bit all-lanes mask
(ROCm 6.2 and later). A mask is "provably full" when it is the literal, `~0`/`~0u`, or a name
declared once in the file as a const/constexpr (or #define) with that literal. Anything else is
left for a human (explain's XL011 comment).
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name
from xlate.rules.masks import FULL32, FULL64
from xlate.rules.syntax import file_constants, int_literal, literal_suffix, strip_parens, text
from xlate.translate import calldata
from xlate.translate.edits import Edits
from xlate.translate.names import writable_name
from xlate.translate.options import Options
from xlate.translate.pointee import Pointees
from xlate.translate.report import Report

# *_sync calls whose mask-less form HIP has on every ROCm release.
LEGACY = {"__shfl_sync": "__shfl", "__shfl_up_sync": "__shfl_up", "__shfl_down_sync": "__shfl_down",
          "__shfl_xor_sync": "__shfl_xor", "__ballot_sync": "__ballot", "__any_sync": "__any", "__all_sync": "__all"}
# *_sync calls with no mask-less CUDA function (so no row names a mask-less HIP one): in legacy mode
# too they keep the _sync call and get the 64-bit all-lanes mask (HIP's static_assert rejects a
# 32-bit mask), which needs ROCm 6.2 or later and the opt-in macro, as the rows say.
MASK64_ONLY = ("__match_any_sync", "__match_all_sync")
MASK64 = b"0xffffffffffffffffull"


def _full32(mask: Node, consts: dict[str, int] | None, src: SourceView) -> tuple[bool, dict[str, int] | None]:
    mask = strip_parens(mask)
    value = int_literal(mask)
    if value == FULL32 and "ll" not in literal_suffix(mask):
        return True, consts
    if mask.type == "unary_expression" and text(mask).replace(" ", "") in ("~0", "~0u", "~0U"):
        return True, consts
    if mask.type == "identifier":
        consts = consts if consts is not None else file_constants(src)
        name = text(mask)
        return consts.get(name) == FULL32 and _defined_once(src.source, name), consts
    return False, consts


def _defined_once(source: bytes, name: str) -> bool:
    """One definition of the name in the whole file, so no shadowing or redefinition can change it."""
    word = re.escape(name.encode())
    assignments = re.findall(rb"\b" + word + rb"\s*(?:=(?!=)|\{)", source)
    defines = re.findall(rb"#[ \t]*define[ \t]+" + word + rb"\b", source)
    return len(assignments) + len(defines) == 1


def _maskless_proven(name: str, args: list[Node], types: Pointees) -> bool:
    """Whether the mask-less HIP form is proven for the call's value: always for the votes (their
    value is a predicate), for a shuffle only where the value is a variable the file declares with
    a type calls.yaml (`maskless`) lists. Elsewhere the 64-bit mask keeps HIP's _sync template,
    which takes every type CUDA's does."""
    spec = calldata.maskless().get(name)
    if spec is None:
        return True
    declared = types.of_argument_plain(args[1]) if len(args) > 1 else None
    return declared is not None and declared in spec["accepts"]


def _full64(mask: Node) -> bool:
    mask = strip_parens(mask)
    return int_literal(mask) == FULL64 or text(mask).replace(" ", "") in ("~0ull", "~0ULL")


def rewrite(src: SourceView, smap: Any, edits: Edits, report: Report, options: Options,
            claimed: set[int]) -> set[tuple[int, int]]:
    """Fix full-mask calls; returns the 1-based (line, column) of each mask argument the fix settles
    (explain reports XL010/XL011 at the mask itself)."""
    settled: set[tuple[int, int]] = set()
    if options.warp_sync == "keep" or b"_sync" not in src.source:
        return settled
    consts: dict[str, int] | None = None
    types = Pointees()
    for call in src.calls((*LEGACY, *MASK64_ONLY)):
        args = call_arguments(call)
        name = call_name(call)
        if not args:
            continue
        mask = args[0]
        where = src.position(strip_parens(mask))
        if _full64(mask):  # fixed already (a second run over translated code)
            settled.add(where)
            continue
        full, consts = _full32(mask, consts, src)
        if not full:
            continue
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "identifier":
            continue
        maskless = options.warp_sync == "legacy" and name in LEGACY and _maskless_proven(name, args, types)
        if maskless:
            target = writable_name(smap, LEGACY[name], options)
            if target is None or len(args) < 2:
                continue
            # Drop the mask and the comma after it: from the mask's start to the next argument.
            ok = edits.add(callee.start_byte, callee.end_byte, target.encode()) and edits.add(mask.start_byte, args[1].start_byte, b"")
            label = f"full 32-bit mask: {name} -> {target} (mask-less, all lanes)"
        else:
            ok = edits.add(mask.start_byte, mask.end_byte, MASK64)
            label = f"full 32-bit mask: {name} mask -> 64-bit all-lanes mask"
        if ok:
            if maskless or options.warp_sync != "legacy":
                # Claimed: the callee is decided here (the opt-in macro reads these, in legacy mode, as
                # calls that no longer need it; a _sync call kept in legacy mode still does).
                claimed.add(callee.start_byte)
            settled.add(where)
            report.fixed[f"XL011 warp-sync-mask ({label})"] += 1
    return settled
