"""Identifiers, types and enumerators renamed by the symbol rows, never by a guess.

A row's HIP spelling is used only when the row is listed (kind "symbol"): names that a family's
naming rule merely derives are reported as unknown and left as written.
"""

from __future__ import annotations

import re
from typing import Any

from xlate.kb import LAUNCH
from xlate.translate.edits import Edits, offset_of
from xlate.translate.options import Options
from xlate.translate.report import Report

# A code spelling: a possibly qualified name, optionally a template-id whose arguments are names or
# literals (rocRAND's engines: rocrand_device::sobol32_engine<false>).
NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:<[\w:]+(?:, ?[\w:]+)*>)?")


def hip_name(entry: Any, options: Options, smap: Any = None) -> tuple[str | None, str]:
    """(HIP spelling to write, why) for a row: why is "ok", "same", "derived", "none" or "unknown"."""
    if entry.kind == "derived" or getattr(entry, "derived", False):
        return None, "derived"
    if entry.family is None and entry.hip != entry.symbol and not _curated(entry) and not _rule_agrees(entry, smap):
        # A glossary concept's symbol list names the concept's primary HIP spelling for every CUDA
        # spelling of the concept (int4 -> float4): that is a concept mapping, not this name's pair.
        # Such a row is used only where an API family's renaming rule gives the very same name.
        return None, "unknown"
    target = (roc_name(entry) if options.roc else None) or entry.hip
    if target is None:
        return None, "none" if entry.hip_relation == "none" else "unknown"
    if not NAME.fullmatch(target):
        return None, "unknown"  # the row gives prose or a non-code spelling, not a name to write
    if target == entry.symbol:
        return target, "same"
    return target, "ok"


def writable_name(smap: Any, cuda: str, options: Options) -> str | None:
    """The HIP spelling the row of `cuda` gives, when it is one to write ("ok" or "same"); else None."""
    row = smap.get(cuda)
    target, why = hip_name(row, options, smap) if row is not None else (None, "unknown")
    return target if why in ("ok", "same") else None


def side(entry: Any, name: str) -> dict[str, Any]:
    """One side (hip, roc, ...) of the entry's symbol row as JSON, or {} when the row has none."""
    found = entry.side(name) if hasattr(entry, "side") else None
    return found.json() if found is not None else {}


def roc_name(entry: Any) -> str | None:
    """The rocBLAS-style second answer of a row (rocblas_sgemm for cublasSgemm), or None."""
    return getattr(entry, "roc", None) or side(entry, "roc").get("symbol")


def _rule_agrees(entry: Any, smap: Any) -> bool:
    """Whether a family's naming rule, applied to the CUDA name, gives the row's HIP name."""
    if smap is None or not entry.symbol.startswith(smap.family_prefixes):
        return False
    for fam in smap.families:
        if fam.pattern.fullmatch(entry.symbol):
            for old, new in fam.rename:
                if entry.symbol.startswith(old):
                    return new + entry.symbol[len(old):] == entry.hip
            return False
    return False


def _curated(entry: Any) -> bool:
    """A row written one to one for this spelling: its HIP side names its own source."""
    return bool(side(entry, "hip").get("source"))


def occurrence_offset(o: Any, source: bytes, starts: list[int]) -> int:
    return offset_of(starts, source, o[0], o[1])


def rewrite(found: list[tuple[Any, Any]], source: bytes, starts: list[int], edits: Edits, report: Report,
            options: Options, claimed: set[int], smap: Any = None) -> None:
    for o, entry in found:
        written = o[2]
        if written == LAUNCH or entry.kind == "header":
            continue
        start = occurrence_offset(o, source, starts)
        if start in claimed:
            continue  # a preprocessor condition or an argument-aware rewrite decided this one
        end = start + len(written.encode())
        if source[start:end] != written.encode():
            continue  # position and spelling disagree (unusual bytes on the line): leave it
        target, why = hip_name(entry, options, smap)
        if why in ("derived", "unknown"):
            report.unknown[written] += 1
            continue
        if why == "none":
            report.no_equivalent[written] += 1
            continue
        if why == "same" or target == written:
            continue
        if written != entry.symbol:
            # Written through a namespace alias (cg::thread_block): keep the alias when the HIP
            # spelling only differs from the resolved name after the alias's namespace.
            head, _, rest = written.partition("::")
            full_head = entry.symbol[: len(entry.symbol) - len(rest)] if entry.symbol.endswith(rest) else None
            if full_head and target.startswith(full_head):
                target = head + "::" + target[len(full_head):] if rest else target
        if edits.add(start, end, target.encode()):
            report.rewritten["identifier"] += 1
