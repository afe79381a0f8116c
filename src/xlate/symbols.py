"""The SymbolMap: every CUDA spelling xlate knows, with its concept and its HIP and Metal equivalents.

Two sources feed it, both data: the glossary's concepts (each concept lists its CUDA symbols and each
backend's symbols; the first symbol of a backend is the primary equivalent) and the API family tables
in glossary/api/ (names transcribed from the HIPIFY tables, renaming rules, curated exceptions).
The built map is cached as JSON keyed by the glossary's content hash, so the hot path (explain, the
language server) reads one file and imports neither pydantic nor YAML.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from xlate import paths

SYMBOLS_VERSION = 7
LAUNCH = "<<<>>>"

# Field order of one entry in the cached JSON (a list per symbol keeps the file small and fast to read).
FIELDS = ("concept", "hip", "metal", "family", "hip_relation", "metal_relation", "hip_caveat", "metal_caveat", "kind")


class Entry(NamedTuple):
    """What one CUDA spelling means and what it is called elsewhere."""

    symbol: str
    concept: str | None
    hip: str | None
    metal: str | None
    family: str | None  # API family it was found in, or None for glossary-only symbols
    hip_relation: str | None  # same, renamed, approximate, none (None: unknown)
    metal_relation: str | None
    hip_caveat: str | None
    metal_caveat: str | None
    kind: str  # symbol, header, derived (by a family's naming rule, not listed one by one)


class FamilyRule(NamedTuple):
    family: str
    pattern: re.Pattern[str]
    rename: tuple[tuple[str, str], ...]
    relation: str
    caveat: str | None
    concept: str | None
    metal: str | None = None  # the family concept's primary Metal/MLX spelling
    metal_relation: str | None = None
    metal_caveat: str | None = None


class SymbolMap:
    """Lookup from CUDA spelling to Entry; unlisted names of rule-based families are derived on demand."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._raw: dict[str, list[Any]] = data["symbols"]
        self._texts: list[str] = data.get("texts", [])  # caveats stored once, by index (see compact)
        self._cache: dict[str, Entry | None] = {}
        self._family_data: list[dict[str, Any]] = data["families"]
        self._families: list[FamilyRule] | None = None
        self.family_prefixes: tuple[str, ...] = tuple(data.get("prefixes", []))
        self.content_hash: str = data.get("hash", "")
        self.namespaces: frozenset[str] = frozenset(data.get("namespaces", []))
        # Byte spellings for the scanner's first, cheapest test (most identifiers in a file are not CUDA).
        self.known_bytes: frozenset[bytes] = frozenset(s.encode() for s in self._raw)
        self.prefix_bytes: tuple[bytes, ...] = tuple(p.encode() for p in self.family_prefixes)
        # First names of qualified spellings (`cub` of `cub::WarpReduce`): a chain can only resolve
        # when its first name is one of these, a known name, or starts with a family prefix.
        heads = {s.split("::", 1)[0] for s in self._raw if "::" in s} | set(self.namespaces)
        heads |= {p.split("::", 1)[0] for p in self.family_prefixes if "::" in p}
        self.head_bytes: frozenset[bytes] = frozenset(h.encode() for h in heads)

    @property
    def families(self) -> list[FamilyRule]:
        """Naming rules of the API families, compiled on first use (most files never need one)."""
        if self._families is None:
            self._families = [
                FamilyRule(f["family"], re.compile(f["match"]), tuple(tuple(r) for r in f["rename"]), f["relation"],
                           f["caveat"], f["concept"], f.get("metal"), f.get("metal_relation"), f.get("metal_caveat"))
                for f in self._family_data
            ]
        return self._families

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._raw

    def names(self) -> list[str]:
        return list(self._raw)

    def get(self, symbol: str) -> Entry | None:
        """The entry for a spelling: listed names first, then family naming rules."""
        if symbol in self._cache:
            return self._cache[symbol]
        raw = self._raw.get(symbol)
        if raw is not None and self._texts:
            raw = [self._texts[v] if i in _TEXT_FIELDS and isinstance(v, int) else v for i, v in enumerate(raw)]
        entry = Entry(symbol, *raw) if raw is not None else self._derive(symbol)
        self._cache[symbol] = entry
        return entry

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
                return Entry(symbol, fam.concept, hip, fam.metal, fam.family, relation, fam.metal_relation, fam.caveat,
                             fam.metal_caveat, "derived")
        return None


_TEXT_FIELDS = frozenset({FIELDS.index("hip_caveat"), FIELDS.index("metal_caveat")})


def compact(data: dict[str, Any]) -> dict[str, Any]:
    """The cached form: each caveat text stored once and referred to by index.

    A family's caveat repeats on hundreds of its symbols; without this the cache is several times
    larger and every cold start spends its time parsing the repeats.
    """
    texts: list[str] = []
    index: dict[str, int] = {}
    for raw in data["symbols"].values():
        for i in _TEXT_FIELDS:
            value = raw[i]
            if isinstance(value, str):
                if value not in index:
                    index[value] = len(texts)
                    texts.append(value)
                raw[i] = index[value]
    data["texts"] = texts
    return data


# --- building ----------------------------------------------------------------------------------


def _primary(term: dict[str, Any] | None) -> str | None:
    """First symbol of a backend's term; a term with names but no code spelling gives its first name."""
    if not term or term.get("relation") == "none":
        return None
    symbols = term.get("symbols") or []
    if symbols:
        return symbols[0]
    names = term.get("names") or []
    return names[0] if names else None


def _concept_for(name: str, prefixes: dict[str, str], default: str | None) -> str | None:
    """Concept of the longest matching name prefix (an unknown concept there means none, not a shorter one)."""
    best = None
    for prefix, cid in prefixes.items():
        if prefix != "*" and name.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, cid)
    return best[1] if best else default


def build(root: Path, index: dict[str, Any] | None = None) -> dict[str, Any]:
    """Digest the glossary's concepts and API tables into the cached JSON form."""
    from xlate import api

    concepts: dict[str, Any] = index["concepts"] if index is not None else _concept_terms(root)
    tables = api.load(root)
    symbols: dict[str, list[Any]] = {}
    api_hip: dict[str, str | None] = {}
    api_family: dict[str, str] = {}
    api_notes: dict[str, str] = {}

    # 1. API tables: every listed name, its HIP spelling, a concept by name prefix where one exists.
    families_out = []
    prefixes: set[str] = set()
    namespaces: set[str] = set()
    for fam in tables.families:
        fam_concept = fam.concepts.get("*") if fam.concepts.get("*") in concepts else None
        for name, hip in fam.entries():
            cid = _concept_for(name, fam.concepts, fam_concept)
            cid = cid if cid in concepts else None
            metal = None
            metal_rel = metal_cav = None
            if cid is not None:
                mterm = concepts[cid]["terms"].get("metal")
                metal = _primary(mterm)
                metal_rel = mterm.get("relation") if mterm else None
                metal_cav = mterm.get("caveat") if mterm else None
            rel = "none" if hip is None else (fam.relation.value if fam.relation.value != "renamed" or hip != name else "same")
            caveat = fam.notes.get(name) or (fam.caveat if hip is not None else None)
            symbols[name] = [cid, hip, metal, fam.family, rel, metal_rel, caveat, metal_cav, "symbol"]
            api_hip[name] = hip
            api_family[name] = fam.family
            if name in fam.notes:
                api_notes[name] = " ".join(fam.notes[name].split())
        for header, hip_header in fam.headers.items():
            symbols[header] = [fam_concept, hip_header, None, fam.family, "renamed" if hip_header else "none", None, None, None, "header"]
        if fam.match:
            mterm = concepts[fam_concept]["terms"].get("metal") if fam_concept else None
            families_out.append({"family": fam.family, "match": fam.match, "rename": [list(r) for r in fam.rename],
                                 "relation": fam.relation.value, "caveat": fam.caveat, "concept": fam_concept,
                                 "metal": _primary(mterm), "metal_relation": (mterm or {}).get("relation"),
                                 "metal_caveat": (mterm or {}).get("caveat")})
            # Literal starts of the pattern's alternatives: a cheap pre-filter before the regex.
            for literal in re.findall(r"(?:^\^?\(?|\|)([A-Za-z_][A-Za-z0-9_]*(?:::)?)", fam.match):
                prefixes.add(literal)
                if literal.endswith("::"):
                    namespaces.add(literal.split("::")[0])

    # 2. Glossary concepts: their CUDA symbols name the concept; the primary HIP/Metal symbols are
    #    the equivalents unless an API table knows the exact HIP spelling of that name.
    for cid, c in concepts.items():
        terms = c["terms"]
        cuda, hip_t, metal_t = terms.get("cuda"), terms.get("hip"), terms.get("metal")
        if not cuda:
            continue
        hip_symbols = (hip_t or {}).get("symbols") or []
        for name in cuda.get("symbols") or []:
            if name.endswith(HEADER_SUFFIXES):
                _header_entry(symbols, name, cid, hip_t, metal_t)
                continue
            hip = _primary(hip_t)
            if name in api_hip and (api_hip[name] is None or api_hip[name] in hip_symbols or hip is None):
                hip = api_hip[name]
            elif hip_t and hip_t.get("relation") == "same" and not hip_symbols:
                hip = name
            else:
                derived = _rename_by_families(name, tables.families)
                if derived is not None and derived in hip_symbols:
                    hip = derived
            symbols[name] = [
                cid, hip, _primary(metal_t), api_family.get(name),
                (hip_t or {}).get("relation"), (metal_t or {}).get("relation"),
                _join(api_notes.get(name), (hip_t or {}).get("caveat")), (metal_t or {}).get("caveat"),
                "symbol",
            ]
    return {"version": SYMBOLS_VERSION, "symbols": symbols, "families": families_out,
            "prefixes": sorted(prefixes), "namespaces": sorted(namespaces)}


HEADER_SUFFIXES = (".h", ".hpp", ".cuh")


def _header_entry(symbols: dict[str, list[Any]], name: str, cid: str, hip_t: dict[str, Any] | None,
                  metal_t: dict[str, Any] | None) -> None:
    """A header's equivalent is another header, never the concept's first function.

    An API table's own header mapping wins; otherwise the concept's first header-like symbol of each
    backend, or no known equivalent (relation left unknown rather than guessed).
    """
    if name in symbols and symbols[name][8] == "header":
        # The table knows the HIP spelling; the glossary knows the concept and whether Metal has one.
        entry = symbols[name]
        entry[0] = cid
        if entry[5] is None and (metal_t or {}).get("relation") == "none":
            entry[5] = "none"
        return
    def header_of(term: dict[str, Any] | None) -> str | None:
        if not term or term.get("relation") == "none":
            return None
        return next((s for s in term.get("symbols") or [] if s.endswith(HEADER_SUFFIXES) or s.startswith("<")), None)
    hip, metal = header_of(hip_t), header_of(metal_t)
    metal_rel = (metal_t or {}).get("relation")
    symbols[name] = [cid, hip, metal, None, (hip_t or {}).get("relation") if hip else None,
                     metal_rel if metal or metal_rel == "none" else None, None, None, "header"]


def _join(*parts: str | None) -> str | None:
    text = " ".join(p for p in parts if p)
    return text or None


def _concept_terms(root: Path) -> dict[str, Any]:
    """Terms of every concept that validates. A glossary with defects elsewhere still yields a map:
    `xlate glossary check` reports the defects, explain keeps working with the sound concepts."""
    from xlate import glossary as gl

    g = gl.load(root)
    out: dict[str, Any] = {}
    for cid, c in g.concepts.items():
        out[cid] = {"terms": {b.value: {"symbols": t.symbols, "names": t.names, "relation": t.relation.value, "caveat": t.caveat} for b, t in c.terms.items()}}
    return out


def _rename_by_families(name: str, families: list[Any]) -> str | None:
    for fam in families:
        if fam.match and re.fullmatch(fam.match, name):
            return fam.rule_name(name)
    return None


_LOADED: dict[str, SymbolMap] = {}
def load(root: Path | None = None) -> SymbolMap:
    """The SymbolMap for the glossary's current content (cached on disk by content hash, in memory per process)."""
    root = root or paths.glossary_root()
    if not root.is_dir():
        from xlate import index as ix

        raise ix.IndexError_(f"glossary folder not found: {root} (set XLATE_GLOSSARY)")
    key = paths.content_key(root)
    if key in _LOADED:
        return _LOADED[key]
    path = paths.cache_dir() / f"symbols-{SYMBOLS_VERSION}-{key}.json"
    data: dict[str, Any] | None = None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != SYMBOLS_VERSION:
            data = None
    except (OSError, ValueError):
        data = None
    if data is None:
        data = compact(build(root))
        data["hash"] = key
        paths.write_cache(path, json.dumps(data, separators=(",", ":")), replaces="symbols-*.json")
    smap = SymbolMap(data)
    _LOADED[key] = smap
    return smap
