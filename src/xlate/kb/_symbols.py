"""The SymbolMap: a CUDA spelling's row, as explain, the language server and translate read it.

It is a view of the one compiled index (`index.load_index`): every answer comes from a symbol row.
A name in no row but matching an API family's pattern gets the family's naming rule, and the entry
says so (`kind == "derived"`, `derived` True); any other name is unknown (None). Nothing here pairs
a symbol with a concept's first symbol.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from xlate.kb import _paths as paths
from xlate.kb._types import EMPTY, Row, Side

if TYPE_CHECKING:
    from xlate.kb._index import Index

__all__ = ["LAUNCH", "Entry", "FamilyRule", "SymbolMap", "load"]

LAUNCH = "<<<>>>"


class Entry(NamedTuple):
    """What one CUDA spelling means and what it is called elsewhere (from its row)."""

    symbol: str
    concept: str | None
    hip: str | None
    metal: str | None
    family: str | None  # API family it belongs to, or None
    hip_relation: str | None  # same, renamed, approximate, none (None: unknown)
    metal_relation: str | None
    hip_caveat: str | None
    metal_caveat: str | None
    kind: str  # symbol, header, derived (by a family's naming rule: the name is in no row)
    row: Row | None = None  # the whole row: every side with relation, caveat, versions, source
    derived: bool = False

    @property
    def sides(self) -> Mapping[str, Side]:
        """Every side the row gives (hip, roc, miopen, metal, mlx, triton); empty when none."""
        return self.row.sides if self.row is not None else EMPTY

    def side(self, backend: str) -> Side | None:
        """One backend's side of the row, or None when unknown."""
        return self.sides.get(backend)

    @property
    def roc(self) -> str | None:
        side = self.side("roc") or self.side("miopen")
        return side.symbol if side else None


class FamilyRule(NamedTuple):
    family: str
    pattern: re.Pattern[str]
    rename: tuple[tuple[str, str], ...]
    relation: str
    caveat: str | None
    concept: str | None
    source: str | None


def entry_from_row(row: Row) -> Entry:
    hip, metal = row.sides.get("hip"), row.sides.get("metal")
    kind = "derived" if row.derived else ("header" if row.kind == "header" else "symbol")
    return Entry(row.cuda, row.concept, hip and hip.symbol, metal and metal.symbol, row.family,
                 hip and hip.relation, metal and metal.relation, hip and hip.caveat, metal and metal.caveat, kind, row,
                 row.derived)


class SymbolMap:
    """Look-up from CUDA spelling to Entry over the compiled index."""

    def __init__(self, index: Index) -> None:
        from xlate.kb import _index as ix

        self._ix = ix
        self.index = index
        self._cuda: dict[str, int] = ix.cuda_names(index)
        self._cache: dict[str, Entry | None] = {}
        self._family_data: list[dict[str, Any]] = index.get("families", [])
        self._families: list[FamilyRule] | None = None
        self.family_prefixes: tuple[str, ...] = tuple(index.get("prefixes", []))
        self.content_hash: str = index.hash
        self.namespaces: frozenset[str] = frozenset(index.get("namespaces", []))
        self.prefix_bytes: tuple[bytes, ...] = tuple(p.encode() for p in self.family_prefixes)
        self._known_bytes: frozenset[bytes] | None = None
        self._head_bytes: frozenset[bytes] | None = None

    @property
    def known_bytes(self) -> frozenset[bytes]:
        """Byte spellings for the scanner's first, cheapest test (most identifiers in a file are not CUDA);
        built on first use, so a lookup that only asks one name never pays for them."""
        if self._known_bytes is None:
            self._known_bytes = self._ix.name_bytes(self.index)
        return self._known_bytes

    @property
    def head_bytes(self) -> frozenset[bytes]:
        """First names of qualified spellings (`cub` of `cub::WarpReduce`): a chain can only resolve
        when its first name is one of these, a known name, or starts with a family prefix."""
        if self._head_bytes is None:
            heads = {s.split("::", 1)[0] for s in self._cuda if "::" in s} | set(self.namespaces)
            heads |= {p.split("::", 1)[0] for p in self.family_prefixes if "::" in p}
            self._head_bytes = frozenset(h.encode() for h in heads)
        return self._head_bytes

    @property
    def families(self) -> list[FamilyRule]:
        """Naming rules of the API families, compiled on first use (most files never need one)."""
        if self._families is None:
            self._families = [
                FamilyRule(f["family"], re.compile(f["match"]), tuple(tuple(r) for r in f["rename"]), f["relation"],
                           f.get("caveat"), f.get("concept"), f.get("source"))
                for f in self._family_data
            ]
        return self._families

    def __len__(self) -> int:
        return len(self._cuda)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._cuda

    def names(self) -> list[str]:
        return list(self._cuda)

    def get(self, symbol: str) -> Entry | None:
        """The entry for a CUDA spelling: its row, else a family naming rule (marked derived), else None."""
        if symbol in self._cache:
            return self._cache[symbol]
        i = self._cuda.get(symbol)
        if i is None:
            entry = self._derive(symbol)
        else:
            row = self._ix.decode_row(self.index, i)
            if "hip" not in row.sides and symbol.startswith(self.family_prefixes):
                # A concept names the symbol but no table pairs it: a family rule may, marked derived.
                derived = self._derive(symbol)
                hip = derived.side("hip") if derived is not None else None
                if derived is not None and hip is not None:
                    row = row._replace(sides=MappingProxyType({**row.sides, "hip": hip}), family=row.family or derived.family)
            entry = entry_from_row(row)
            hip_side = row.sides.get("hip")
            if hip_side is not None and hip_side.derived:
                entry = entry._replace(kind="derived", derived=True)
        self._cache[symbol] = entry
        return entry

    def find_any(self, spelling: str) -> list[tuple[Entry, str]]:
        """Rows in which `spelling` is written on any backend, with that backend ("cuda" for the row's own)."""
        return [(entry_from_row(row), side) for row, side in self._ix.rows_for(self.index, spelling)]

    def _derive(self, symbol: str) -> Entry | None:
        if not symbol.startswith(self.family_prefixes):
            return None
        for fam in self.families:
            if fam.pattern.fullmatch(symbol):
                hip = None
                for old, new in fam.rename:
                    if symbol.startswith(old):
                        hip = new + symbol[len(old):]
                        break
                if fam.relation == "none":
                    hip = None
                relation = fam.relation if hip is not None or fam.relation == "none" else None
                note = (f"{symbol} is in no table: {hip} is derived by the {fam.family} naming rule and may not exist."
                        if hip else None)
                caveat = " ".join(filter(None, [note, fam.caveat]))  or None
                side = Side(hip, relation or "none", "derived", caveat, fam.source, derived=True) if relation else None
                row = Row(symbol, fam.concept, None, fam.family, sides=MappingProxyType({"hip": side} if side else {}), derived=True)
                return Entry(symbol, fam.concept, hip, None, fam.family, relation, None, caveat, None, "derived", row, True)
        return None


_LOADED: dict[str, SymbolMap] = {}


def load(root: Path | None = None) -> SymbolMap:
    """The SymbolMap over the glossary's compiled index (cached on disk by content, in memory per process)."""
    from xlate.kb import _index as ix

    root = root or paths.glossary_root()
    index = ix.load_index(root)
    key = index.hash or str(id(index))
    smap = _LOADED.get(key)
    if smap is None or smap.index is not index:
        _LOADED.clear()
        smap = SymbolMap(index)
        _LOADED[key] = smap
    return smap
