"""The ROCm version a translation writes for (`--rocm`), read from the rows' version facts.

A HIP side may carry `rocm` facts (glossary/symbols/README.md): for one ROCm version, the spelling
its headers declare (`hipblasGemmStridedBatchedEx_v2` on ROCm 6.4, where the plain name still takes
the old hipblasDatatype_t), or, with no spelling, a note saying what a port for that version must do
because its headers declare nothing by that name. This module holds no such fact itself: it picks
the rows' fact for the target version and writes the notes.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from xlate.errors import UsageError
from xlate.kb import Entry, RocmFact
from xlate.translate.edits import Edits, blanks_at, comment_row, offset_of
from xlate.translate.report import Report

NOTE = b"// xlate: "


def known(smap: Any) -> list[str]:
    """The ROCm versions the rows' facts name, oldest first."""
    index = getattr(smap, "index", None) or {}
    return list(index.get("rocm_versions") or [])


def target(smap: Any, wanted: str | None) -> str | None:
    """The version to write for: `wanted` when the rows know it, else the newest they know (None: the
    rows name no version, so no version-specific spelling exists)."""
    versions = known(smap)
    if wanted is None:
        return versions[-1] if versions else None
    if wanted not in versions:
        listed = ", ".join(versions) or "none"
        raise UsageError(f"--rocm {wanted}: the rows' version facts know ROCm {listed}", "pass one of those")
    return wanted


def fact(entry: Entry | None, version: str | None) -> RocmFact | None:
    """The HIP side's fact for `version`, or None."""
    side = entry.side("hip") if entry is not None and version is not None else None
    return side.rocm_fact(version) if side is not None else None


class VersionedMap:
    """A SymbolMap seen from one ROCm version: an entry whose HIP side has a spelling for that
    version answers with it; every other question goes to the map underneath."""

    def __init__(self, base: Any, version: str) -> None:
        self.base = base
        self.version = version
        self._cache: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self.base

    def __len__(self) -> int:
        return len(self.base)

    def get(self, symbol: str) -> Any:
        if symbol in self._cache:
            return self._cache[symbol]
        entry = self.base.get(symbol)
        f = fact(entry, self.version)
        if f is not None and f.symbol and entry is not None and entry.row is not None and f.symbol != entry.hip:
            hip = entry.row.sides["hip"]
            sides = dict(entry.row.sides)
            sides["hip"] = hip._replace(symbol=f.symbol, source=f.source or hip.source)
            entry = entry._replace(hip=f.symbol, row=entry.row._replace(sides=MappingProxyType(sides)))
        self._cache[symbol] = entry
        return entry


_MAPS: dict[tuple[int, str], VersionedMap] = {}


def for_target(smap: Any, version: str | None) -> Any:
    """The map to translate with for `version` (the map itself when no version is set)."""
    if version is None or isinstance(smap, VersionedMap):
        return smap
    key = (id(smap), version)
    got = _MAPS.get(key)
    if got is None or got.base is not smap:
        _MAPS.clear()
        got = _MAPS[key] = VersionedMap(smap, version)
    return got




def annotate(found: list[tuple[Any, Any]], source: bytes, starts: list[int], edits: Edits, report: Report,
             version: str | None, enabled: bool) -> set[tuple[int, int]]:
    """A `// xlate: ...` note above each line that keeps a name whose fact for the target version
    says its headers declare nothing by it (the note says what to write instead). A name the
    translation rewrote at that place is not kept, and gets no note. Returns the (line, column) of
    each name noted, where the note replaces the generic "no HIP equivalent" finding."""
    noted: set[tuple[int, int]] = set()
    if version is None:
        return noted
    notes: dict[int, list[str]] = {}
    for o, entry in found:
        f = fact(entry, version)
        line, col, written = o[0], o[1], o[2]
        if f is None:
            # No fact for this version, but one for another, on a name with no HIP counterpart: the
            # newest such note is the best a reader has; say which version it speaks of.
            side = entry.side("hip") if entry is not None else None
            others = [g for g in (side.rocm if side is not None else ()) if g.note and not g.symbol]
            if not others or side is None or side.relation != "none":
                continue
            f = RocmFact(version, note=f"nothing is known about {written} in ROCm {version}'s headers; the rows say of an "
                                       f"older one: {others[-1].note}")
        if f.symbol or not f.note:
            continue
        at = offset_of(starts, source, line, col)
        if edits.covers(at, at + max(len(str(written).encode()), 1)):
            continue
        row = comment_row(source, starts, line - 1)
        text = " ".join(str(f.note).split())  # the row's note names the version it speaks of
        if text not in notes.setdefault(row, []):
            notes[row].append(text)
        report.flagged[f"ROCm {version} {written}"] += 1
        noted.add((line, col))
    if not enabled:
        return noted
    for row, texts in sorted(notes.items()):
        start = starts[row]
        indent = blanks_at(source, start)
        above = source[max(0, start - 4096):start]
        lines = [t for t in texts if NOTE + t.encode() + b"\n" not in above]  # a second run adds nothing
        if lines:
            edits.add(start, start, b"".join(indent + NOTE + t.encode("utf-8", "replace") + b"\n" for t in lines))
    return noted
