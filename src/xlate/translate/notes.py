"""`// xlate:` notes for code the translator chose to keep: a rewrite it could not prove, a guard
whose meaning has no HIP spelling, an include kept with its API.

The rule behind every note is that an unknown beats a wrong answer: where a rewrite is not proven
to compile (or to mean the same) for the code at that site, the original stays and the note says
why, so a person knows where to look. Notes go on their own lines above the line they concern,
with its indentation (above the first line of a backslash-continued macro, where a line comment
would end the macro), and a note already there (a second run) is not written again.
"""

from __future__ import annotations

from tree_sitter import Node

from xlate.translate.edits import Edits, blanks_at, comment_row, line_of
from xlate.translate.report import Report

PREFIX = b"// xlate: "


class Notes:
    """Notes planned during one file's translation, written once at the end."""

    def __init__(self) -> None:
        self._by_row: dict[int, list[str]] = {}
        self._starts: list[int] | None = None

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_row.values())

    def add(self, starts: list[int], offset: int, text: str, report: Report, kind: str,
            counted_as: str | None = None) -> None:
        """Plan a note above the line holding `offset`; counted in the report as kept for `kind`, or
        under `counted_as` (a note on a line the translator changed, saying what it wrote)."""
        row = line_of(starts, offset)
        texts = self._by_row.setdefault(row, [])
        report.flagged[counted_as or f"kept: {kind}"] += 1
        if text not in texts:
            texts.append(text)

    def add_at(self, starts: list[int], node: Node, text: str, report: Report, kind: str) -> None:
        self.add(starts, node.start_byte, text, report, kind)

    def rows(self) -> dict[int, list[str]]:
        return {row: list(texts) for row, texts in self._by_row.items()}

    def write(self, source: bytes, starts: list[int], edits: Edits, enabled: bool) -> None:
        if not enabled:
            return
        by_anchor: dict[int, list[str]] = {}
        for row, texts in self._by_row.items():
            anchor = comment_row(source, starts, row)
            for t in texts:
                if t not in by_anchor.setdefault(anchor, []):
                    by_anchor[anchor].append(t)
        for row in sorted(by_anchor):
            present = _notes_above(source, starts, row)
            lines = [t for t in by_anchor[row] if " ".join(t.split()) not in present]
            if not lines:
                continue
            start = starts[row]
            outer = edits.enclosing(start)
            if outer is not None:  # the line starts inside a rewritten span (a launch over lines): above it
                start = starts[line_of(starts, outer.start)]
            indent = blanks_at(source, start)
            text = b"".join(indent + PREFIX + " ".join(t.split()).encode("utf-8", "replace") + b"\n" for t in lines)
            edits.add(start, start, text)


def _notes_above(source: bytes, starts: list[int], row: int) -> set[str]:
    """The texts of the `// xlate:` lines directly above a 0-based row (hazard comments included)."""
    found: set[str] = set()
    r = row - 1
    while r >= 0:
        end = starts[r + 1] if r + 1 < len(starts) else len(source)
        line = source[starts[r]:end].strip()
        if not line.startswith(PREFIX):
            break
        found.add(line[len(PREFIX):].decode("utf-8", "replace").strip())
        r -= 1
    return found



