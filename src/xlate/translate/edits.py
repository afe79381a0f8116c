"""Byte edits on the original source that compose: each replaces [start, end) with new bytes.

Rewrites are planned on the original bytes (the syntax tree's offsets), then applied once from the
end backwards, so no rewrite ever shifts another's offsets. A structural rewrite (a launch) that
encloses smaller ones renders its own text with the inner edits applied and then takes their place.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import NamedTuple


class Edit(NamedTuple):
    start: int
    end: int
    order: int  # ties at one position (insertions) apply in this order
    text: bytes


class Edits:
    """Planned edits kept sorted by position, so planning, checking and rendering stay cheap for
    files with thousands of renames (bisect, not a scan)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._edits: list[Edit] = []  # sorted by (start, end, order)
        self._n = 0

    def __len__(self) -> int:
        return len(self._edits)

    def _clash(self, start: int, end: int) -> bool:
        edits = self._edits
        i = bisect_left(edits, (start,))
        # The edit just before may reach into the span; those after it start inside or beyond.
        if i > 0:
            e = edits[i - 1]
            if e.end > start:
                return True
        while i < len(edits):
            e = edits[i]
            if e.start > end or (e.start == end and start != end):
                break
            if start == end:  # an insertion clashes with a replacement that spans its position
                if e.start < start < e.end:
                    return True
            elif e.start < end and start < e.end:
                return True
            elif e.start == e.end and start < e.start < end:
                return True
            i += 1
        return False

    def add(self, start: int, end: int, text: bytes) -> bool:
        """Plan a replacement; refused (False) when it overlaps one already planned."""
        if not 0 <= start <= end <= len(self.source) or self._clash(start, end):
            return False
        insort(self._edits, Edit(start, end, self._n, text))
        self._n += 1
        return True

    def planned(self) -> list[bytes]:
        """The text of every planned edit, in position order."""
        return [e.text for e in self._edits]

    def enclosing(self, pos: int) -> Edit | None:
        """The planned replacement whose span contains `pos` strictly inside, if any."""
        i = bisect_left(self._edits, (pos,))
        if i > 0 and self._edits[i - 1].start < pos < self._edits[i - 1].end:
            return self._edits[i - 1]
        return None

    def covers(self, start: int, end: int) -> bool:
        return self._clash(start, end)

    def _inside(self, start: int, end: int) -> list[Edit]:
        edits = self._edits
        i = bisect_left(edits, (start,))
        out = []
        while i < len(edits) and edits[i].start <= end:
            e = edits[i]
            if e.end <= end and not (e.start == e.end and e.start in (start, end)):
                out.append(e)
            i += 1
        return out

    def render(self, start: int, end: int) -> bytes:
        """source[start:end] with the planned edits that lie inside it applied."""
        out, pos = [], start
        for e in self._inside(start, end):
            out.append(self.source[pos:e.start])
            out.append(e.text)
            pos = e.end
        out.append(self.source[pos:end])
        return b"".join(out)

    def replace_enclosing(self, start: int, end: int, text: bytes) -> bool:
        """Replace [start, end) and drop the edits inside it (the caller rendered them into `text`).
        Refused when a planned edit straddles the span's edge."""
        inside = set(self._inside(start, end))
        edits = self._edits
        i = max(0, bisect_left(edits, (start,)) - 1)
        while i < len(edits) and edits[i].start < end:
            e = edits[i]
            if e not in inside and e.start < end and start < e.end:
                return False
            i += 1
        if inside:
            self._edits = [e for e in edits if e not in inside]
        insort(self._edits, Edit(start, end, self._n, text))
        self._n += 1
        return True

    def apply(self) -> bytes:
        if not self._edits:
            return self.source
        out, pos = [], 0
        for e in self._edits:
            out.append(self.source[pos:e.start])
            out.append(e.text)
            pos = e.end
        out.append(self.source[pos:])
        return b"".join(out)


def line_starts(source: bytes) -> list[int]:
    starts = [0]
    pos = source.find(b"\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = source.find(b"\n", pos + 1)
    return starts


def offset_of(starts: list[int], source: bytes, line: int, column: int) -> int:
    """Byte offset of a 1-based (line, character column) position."""
    base = starts[line - 1]
    if column == 1:
        return base
    end = starts[line] if line < len(starts) else len(source)
    text = source[base:end]
    if text.isascii():
        return base + column - 1
    return base + len(text.decode("utf-8", errors="replace")[: column - 1].encode("utf-8", errors="replace"))


def blanks_at(source: bytes, start: int) -> bytes:
    """The spaces and tabs that begin at `start` (a line's indentation, when `start` begins the line)."""
    end = start
    while end < len(source) and source[end] in b" \t":
        end += 1
    return source[start:end]


def comment_row(source: bytes, starts: list[int], row: int) -> int:
    """The 0-based row a `// xlate:` comment for `row` goes above: the first row of the
    backslash-continued macro `row` belongs to, else `row` itself (a comment inside a continued
    macro would end it)."""
    while row > 0:
        prev = source[starts[row - 1]:starts[row] - 1].rstrip(b"\r")
        if not prev.endswith(b"\\"):
            break
        row -= 1
    return row


def line_of(starts: list[int], offset: int) -> int:
    """0-based line of a byte offset."""
    return bisect_left(starts, offset + 1) - 1
