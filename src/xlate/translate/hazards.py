"""Explain's hazard rules for HIP, written into the output as `// xlate: XL### name: what to do`
comments above the lines that need a human. The code itself is kept.

Each comment goes on its own line with the flagged line's indentation. A line inside a multi-line
macro gets its comments above the macro (a line comment would end the macro there). A comment that
is already there (a second run over translated code) is not written again.
"""

from __future__ import annotations

import re
from typing import Any

from xlate.translate.edits import Edits, blanks_at, comment_row, line_of, offset_of
from xlate.translate.report import Report

PREFIX = b"// xlate: "
# Findings a mechanical fix settles where it applies: masks (XL010, XL011), CUDA macro tests (XL080-XL082).
SETTLED_RULES = frozenset({"XL010", "XL011", "XL080", "XL081", "XL082"})
# "No HIP equivalent" findings: void where the translator did write a counterpart for the token (a
# MIOpen or rocBLAS-style name under --roc), so the comment would contradict the line below it.
NAME_RULES = frozenset({"XL090"})
_EXISTING = re.compile(rb"[ \t]*// xlate: (XL\d+) ")


def hip_hazards(hazards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [h for h in hazards if "hip" in h["backends"] or not h["backends"]]


def _existing_above(source: bytes, starts: list[int], row: int) -> set[bytes]:
    """Rule codes of the `// xlate:` comments directly above a 0-based row."""
    codes: set[bytes] = set()
    r = row - 1
    while r >= 0:
        end = starts[r + 1] if r + 1 < len(starts) else len(source)
        m = _EXISTING.match(source, starts[r], end)
        if not m:
            break
        codes.add(m.group(1))
        r -= 1
    return codes






def annotate(hazards: list[dict[str, Any]], source: bytes, starts: list[int], edits: Edits, report: Report,
             settled: set[tuple[int, int]], enabled: bool) -> None:
    by_row: dict[int, list[dict[str, Any]]] = {}
    for h in hazards:
        row = h["line"] - 1
        if (h["line"], h["column"]) in settled and h["rule"] in SETTLED_RULES:
            continue  # a mechanical fix took care of this finding (it points at the fixed token)
        if h["rule"] in NAME_RULES and 0 <= row < len(starts):
            at = offset_of(starts, source, h["line"], h["column"])
            if edits.covers(at, at + 1):
                continue
        by_row.setdefault(comment_row(source, starts, row), []).append(h)
    for row in sorted(by_row):
        found = by_row[row]
        existing = _existing_above(source, starts, row)
        lines = []
        seen: set[tuple[str, str]] = set()
        for h in sorted(found, key=lambda h: (h["rule"], h["column"])):
            report.flagged[f"{h['rule']} {h['name']}"] += 1
            key = (h["rule"], h["message"])
            if key in seen or h["rule"].encode() in existing:
                continue
            seen.add(key)
            message = " ".join(str(h["message"]).split())
            lines.append(f"{h['rule']} {h['name']}: {message}".encode("utf-8", "replace"))
        if not enabled or not lines:
            continue
        start = starts[row]
        indent = blanks_at(source, start)
        text = b"".join(indent + PREFIX + line + b"\n" for line in lines)
        if not edits.add(start, start, text):
            # The row starts inside a rewritten span (a launch over several lines): put the
            # comments above the row where that span begins.
            outer = edits.enclosing(start)
            if outer is not None:
                top = line_of(starts, outer.start)
                top_indent = blanks_at(source, starts[top])
                edits.add(starts[top], starts[top], b"".join(top_indent + PREFIX + line + b"\n" for line in lines))
