"""The compiled knowledge base: one JSON digest of concepts, symbol rows and GPU sheets.

Every surface (lookup, explain, the language server, translate, compare, the docs) reads this one
index, cached by content hash; `symbols.SymbolMap` is a view of its rows. This module is on the
editor's hot path: it imports neither pydantic, networkx nor the YAML validation unless the cache
is stale; `rapidfuzz` is imported only when exact matching fails. Rows are stored as JSON strings
and decoded only when asked for, so a cold start parses one flat list instead of 9,000 objects.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from types import MappingProxyType
from typing import Any

from xlate.errors import GlossaryError
from xlate.kb._paths import (
    INDEX_VERSION,
    cache_dir,
    content_key,
    glossary_root,
    kernels_root,
    write_cache,
)
from xlate.kb._types import ROW_SIDES, SIDE_BACKEND, ConceptCard, RocmFact, Row, Side
from xlate.kb._types import VERSION_WORDS as _VERSION_WORDS


# Ranking tiers (score out of 100): an exact code spelling beats an exact word, which beats a
# spelling that matches once underscores and call parentheses are ignored, which beats fuzzy.
SCORE_SYMBOL = 100.0
SCORE_NAME = 95.0
SCORE_LOOSE = 90.0
FUZZY_CEILING = 88.0
FUZZY_FLOOR = 76.0  # long queries need 86 (see _fuzzy_floor)
MAX_QUERY = 200



def loose(text: str) -> str:
    """Spelling-insensitive form: case, underscores, punctuation and call parens ignored."""
    return re.sub(r"[\s_\-:.()<>\[\]*&,/]+", "", text.casefold())


class Match:
    """One ranked answer. A plain slotted class: a cold lookup does not pay for importing dataclasses."""

    __slots__ = ("backend", "concept", "kind", "matched", "score")

    def __init__(self, concept: str, score: float, matched: str, kind: str, backend: str | None) -> None:
        self.concept = concept
        self.score = score
        self.matched = matched
        self.kind = kind  # symbol, name, alias, title, id, fuzzy
        self.backend = backend

    def __repr__(self) -> str:
        return f"Match({self.concept!r}, {self.score!r}, {self.matched!r}, {self.kind!r}, {self.backend!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Match) and all(getattr(self, f) == getattr(other, f) for f in self.__slots__)


class IndexError_(GlossaryError):
    """The glossary has defects, or is missing, so no index could be built."""

    def __init__(self, message: str, problems: list[Any] | tuple[Any, ...] = ()) -> None:
        super().__init__(message, hint=None)  # each message already says what to run
        self.problems = list(problems)  # the defects (kb.Problem), first first


def build(root: Path) -> dict[str, Any]:
    """Digest the validated glossary into plain JSON data."""
    from xlate.kb import _glossary as gl

    g = gl.load(root)
    if g.problems:
        shown = "\n".join(str(p) for p in g.problems[:10])
        more = f"\n... and {len(g.problems) - 10} more" if len(g.problems) > 10 else ""
        raise IndexError_(f"the glossary has {len(g.problems)} problem(s); run `xlate glossary check`:\n{shown}{more}", g.problems)

    concepts: dict[str, Any] = {}
    labels: list[list[Any]] = []
    # Declared edges first, then the incoming ones: computed once, by the glossary (kb.Glossary.incoming).
    related = {cid: [[e.type, e.target, 1] if e.incoming else [e.type, e.target] for e in g.edges(cid)] for cid in g.concepts}
    for cid, c in g.concepts.items():
        terms = {}
        for backend, term in c.terms.items():
            terms[backend.value] = {
                "names": term.names,
                "symbols": term.symbols,
                "relation": term.relation.value,
                "caveat": term.caveat,
                "since": term.since,
                "docs": term.docs,
            }
            for s in term.symbols:
                labels.append([s, cid, "symbol", backend.value])
            for n in term.names:
                labels.append([n, cid, "name", backend.value])
        labels.append([cid, cid, "id", None])
        labels.append([c.title, cid, "title", None])
        for a in c.aliases + c.abbreviations:
            labels.append([a, cid, "alias", None])
        concepts[cid] = {
            "title": c.title,
            "category": c.category.value,
            "summary": " ".join(c.summary.split()),
            "terms": terms,
            "related": related[cid],
        }
    examples = example_links(root)
    for cid, links in examples.items():
        if cid in concepts:
            concepts[cid]["examples"] = links
    from xlate.kb._sheets import name_table

    sheets = g.gpu_sheets()
    gpus = {gid: s.card() for gid, s in sheets.items()}
    # Loose spellings precomputed once here, so a cold lookup does not run the regex over every label.
    data = {"version": INDEX_VERSION, "concepts": concepts, "labels": labels, "loose": [loose(e[0]) for e in labels],
            "gpus": gpus, "gpu_names": name_table(sheets.values())}
    data.update(_rows_payload(g.rows, g.row_families, concepts))
    return data


# Side order inside a packed row and in the packed spelling table (row * 8 + position).
SIDE_ORDER = ("cuda", *ROW_SIDES)
_REL = {"same": "s", "renamed": "r", "approximate": "a", "none": "n"}
_REL_BACK = {v: k for k, v in _REL.items()}
_ORIGIN = {"hipify": "h", "family": "f", "override": "o", "curated": "c", "concept": "k"}
_ORIGIN_BACK = {v: k for k, v in _ORIGIN.items()}
_LIB = {"hip": "HIP", "roc": "ROC library", "miopen": "MIOpen"}
# Counterparts spelled as plain C/C++ types or keywords (cusolver_int_t -> int) are real answers,
# but a lookup or hover of `int` must not land on them.
GENERIC_SPELLINGS = frozenset({
    "int", "unsigned", "unsigned int", "long", "long long", "short", "char", "float", "double", "void", "void*",
    "bool", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "const", "static", "struct", "enum", "auto", "half", "float2", "float4", "int2", "int4", "uint", "ulong",
})
_NO_EQUIVALENT = "HIPIFY's tables (ROCm 6.3 sync) list no {lib} equivalent for {name}."


def _rows_payload(rows: dict[str, dict[str, Any]], families: list[dict[str, Any]], concepts: dict[str, Any]) -> dict[str, Any]:
    """Rows packed for a fast cold start: one short JSON array per row, every longer text stored once.

    A packed row is [cuda, concept, kind, family, section, cuda_versions, side...] with the sides in
    SIDE_ORDER[1:] (0 where a row has none); a side is [symbol, relation, origin, caveat, source,
    extras] where texts are indices into `texts` and HIPIFY's "no equivalent" caveat is implied.
    """
    rows = dict(rows)
    # A CUDA symbol a concept lists but no row pairs: the concept is known, its counterparts are not.
    for cid, c in concepts.items():
        for name in (c["terms"].get("cuda") or {}).get("symbols") or []:
            row = rows.get(name)
            if row is None:
                rows[name] = {"cuda": name, "concept": cid, "kind": None, "family": None, "sides": {}}
            elif row.get("concept") is None or row.get("concept_by_prefix"):
                # A concept that lists the spelling knows it better than a family's name prefix.
                rows[name] = {**row, "concept": cid, "concept_by_prefix": False}
    # A concept with no counterpart at all on a backend has none for each of its symbols either; a
    # side filled so says where it came from (origin "concept"). Nothing else is inferred.
    for name, row in list(rows.items()):
        c = concepts.get(row.get("concept") or "")
        if c is None:
            continue
        filled = None
        for backend in ("hip", "metal", "mlx", "triton"):
            term = c["terms"].get(backend)
            if term and term["relation"] == "none" and backend not in row["sides"]:
                filled = filled or {**row, "sides": dict(row["sides"])}
                filled["sides"][backend] = {"symbol": None, "relation": "none", "origin": "concept",
                                            "caveat": term.get("caveat")}
        if filled is not None:
            rows[name] = filled
    texts: list[str] = []
    text_ids: dict[str, int] = {}

    def text(value: str | None) -> int | str | None:
        if value is None or len(value) <= 12:
            return value
        if value not in text_ids:
            text_ids[value] = len(texts)
            texts.append(value)
        return text_ids[value]

    packed: list[str] = []
    rocm_versions: set[str] = set()  # the ROCm versions the rows' facts name (translate --rocm)
    cuda: dict[str, int] = {}
    spell: dict[str, list[int]] = {}
    for i, (name, row) in enumerate(sorted(rows.items())):
        sides: list[Any] = []
        for s in SIDE_ORDER[1:]:
            side = row["sides"].get(s)
            if side is None:
                sides.append(0)
                continue
            origin = side.get("origin", "curated")
            caveat = side.get("caveat")
            if origin == "hipify" and side["relation"] == "none":
                caveat = None  # implied: decode_row writes it
            extras = {k: side[k] for k in ("also", "shared", "rocm") if side.get(k)}
            rocm_versions.update(f["version"] for f in side.get("rocm") or ())
            extras.update({k: side[k] for k in _VERSION_WORDS if side.get(k)})
            sides.append([side.get("symbol"), _REL[side["relation"]], _ORIGIN[origin], text(caveat),
                          text(side.get("source")), extras or 0])
            for spelling in [side.get("symbol")] + list(side.get("also") or []):
                if spelling and spelling != name and spelling not in GENERIC_SPELLINGS:
                    spell.setdefault(spelling, []).append(i * 8 + SIDE_ORDER.index(s))
        while sides and sides[-1] == 0:
            sides.pop()
        head = [name, row.get("concept") if row.get("concept") in concepts else None, row.get("kind"), row.get("family"), text(row.get("section")),
                row.get("cuda_versions") or 0]
        packed.append(json.dumps(head + sides, separators=(",", ":"), ensure_ascii=False))
        cuda[name] = i
    prefixes: set[str] = set()
    namespaces: set[str] = set()
    for fam in families:
        # Literal starts of the pattern's alternatives: a cheap pre-filter before the regex.
        for literal in re.findall(r"(?:^\^?\(?|\|)([A-Za-z_][A-Za-z0-9_]*(?:::)?)", fam["match"]):
            prefixes.add(literal)
            if literal.endswith("::"):
                namespaces.add(literal.split("::")[0])
    # Flat lists, not objects: JSON makes a 9,000-key dictionary an order of magnitude slower than
    # the same strings in a list, and dict(zip(...)) rebuilds it in under a millisecond when asked.
    spell_keys = sorted(spell)
    # Flat lists, not objects: JSON makes a 9,000-key dictionary an order of magnitude slower than
    # the same strings in a list, and dict(zip(...)) rebuilds it in under a millisecond when asked.
    spell_keys = sorted(spell)
    return {"rows": packed, "texts": texts, "names": list(cuda), "spell_keys": spell_keys,
            "spell_vals": [spell[k] for k in spell_keys], "families": families,
            "prefixes": sorted(prefixes), "namespaces": sorted(namespaces),
            "rocm_versions": sorted(rocm_versions, key=lambda v: tuple(int(x) for x in v.split(".")))}


def names(index: Index) -> list[str]:
    """Every CUDA spelling with a row, in row order."""
    if index.names is None:
        raw = index.names_raw
        index.names = bytes(raw).decode("utf-8").split("\n") if raw else []
    return index.names


def name_bytes(index: Index) -> frozenset[bytes]:
    """The same spellings as bytes, for the scanner's cheapest test (split straight from the file)."""
    if index.names_raw is not None:
        return frozenset(bytes(index.names_raw).split(b"\n")) if index.names_raw else frozenset()
    return frozenset(n.encode() for n in names(index))


def _row_text(index: Index, i: int) -> str | bytes:
    """Row i's packed JSON: from the list of a freshly built index, or sliced out of the cached file's
    row block, which is never parsed as a whole."""
    if index.blob is None:
        row: str = index["rows"][i]
        return row
    if index.offsets is None:
        from binascii import (
            a2b_base64,  # loaded with the interpreter; base64 and array cost a cold start 1 ms
        )

        index.offsets = memoryview(a2b_base64(index["row_offsets"])).cast("I")
    return bytes(index.blob[index.offsets[i]:index.offsets[i + 1] - 1])  # each row ends with a newline


def cuda_names(index: Index) -> dict[str, int]:
    """CUDA spelling -> row number, built on first use."""
    if index.cuda is None:
        all_names = names(index)
        index.cuda = dict(zip(all_names, range(len(all_names))))
    return index.cuda


def counterpart_spellings(index: Index) -> dict[str, list[int]]:
    """Another backend's spelling -> packed (row * 8 + side) codes, built on first use."""
    if index.spell is None:
        index.spell = dict(zip(index["spell_keys"], index["spell_vals"]))
    return index.spell


def decode_row(index: Index, i: int) -> Row:
    """Row i, decoded into the store's frozen objects."""
    raw = json.loads(_row_text(index, i))
    texts = index["texts"]

    def text(value: Any) -> Any:
        return texts[value] if isinstance(value, int) and not isinstance(value, bool) else value

    name = raw[0]
    sides: dict[str, Side] = {}
    for s, packed in zip(SIDE_ORDER[1:], raw[6:]):
        if not packed:
            continue
        symbol, rel, origin, caveat, source, extras = packed
        relation, origin = _REL_BACK[rel], _ORIGIN_BACK[origin]
        caveat = text(caveat)
        if origin == "hipify" and relation == "none" and caveat is None:
            caveat = _NO_EQUIVALENT.format(lib=_LIB.get(s, s), name=name)
        extras = extras or {}
        rocm = tuple(RocmFact(f["version"], f.get("symbol"), f.get("note"), f.get("source")) for f in extras.get("rocm") or ())
        versions: dict[str, Any] = {w: extras.get(w) for w in _VERSION_WORDS}  # release strings from the JSON
        sides[s] = Side(symbol, relation, origin, caveat, text(source), tuple(extras.get("also") or ()),
                        bool(extras.get("shared")), rocm=rocm, **versions)
    return Row(name, raw[1], raw[2], raw[3], text(raw[4]), MappingProxyType(raw[5] or {}), MappingProxyType(sides))


def rows_for(index: Index, spelling: str) -> list[tuple[Row, str]]:
    """Every row in which `spelling` is written, with the side it is written on ("cuda" for the row's own)."""
    out: list[tuple[Row, str]] = []
    i = cuda_names(index).get(spelling)
    if i is not None:
        out.append((decode_row(index, i), "cuda"))
    for code in counterpart_spellings(index).get(spelling, ()):
        out.append((decode_row(index, code // 8), SIDE_ORDER[code % 8]))
    return out


def example_links(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Back-links from kernel examples to the concepts they demonstrate (example.yaml is the source)."""
    import yaml

    out: dict[str, list[dict[str, Any]]] = {}
    kernels = kernels_root(root)
    if not kernels.is_dir():
        return out
    for path in sorted(kernels.glob("*/example.yaml")):
        try:
            # libyaml's parser where present (the pure-Python one takes tens of milliseconds a file)
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue  # `xlate glossary check` reports broken examples; lookups keep working
        for link in data.get("concepts", []) or []:
            if isinstance(link, dict) and isinstance(link.get("concept"), str):
                symbols = {k: v for k, v in (link.get("symbols") or {}).items() if isinstance(v, str)}
                out.setdefault(link["concept"], []).append({"example": path.parent.name, "symbols": symbols})
    return out


_MEMO: dict[str, Index] = {}

# The cached file holds two JSON documents after a one-line header: the symbol part, which explain,
# translate and the language server's scanner need, and the card part (concepts, labels, GPU sheets),
# which lookup and hover need. A reader parses the card part only when it first asks for one of its
# keys, so a cold explain does not pay for the cards.
CARD_KEYS = ("concepts", "gpu_names", "gpus", "labels", "loose", "spell_keys", "spell_vals")


# One label a concept answers to: (label, concept id, kind of label, backend of a symbol or name).
LabelEntry = tuple[str, str, str, str | None]
# Exact, case-folded and loose spellings -> the label entries spelled so.
Tables = tuple[dict[str, list[LabelEntry]], dict[str, list[LabelEntry]], dict[str, list[LabelEntry]]]


class Index:
    """The loaded index: its JSON parts by key (`index["concepts"]`), the card part parsed on first
    access, and the readers' derived tables, built on first use and kept with the index they describe."""

    __slots__ = ("_cards", "_concepts", "_data", "blob", "cuda", "names", "names_raw", "offsets", "searches", "spell", "tables")

    def __init__(self, data: dict[str, Any], cards: bytes | None = None, names_raw: Any = None, blob: Any = None) -> None:
        self._data = data
        self._cards = cards
        self.names_raw = names_raw  # the cached file's CUDA names, one a line (None: a fresh build's list)
        self.blob = blob  # the cached file's row block (None: a fresh build's list of rows)
        self.offsets: Any = None
        self.names: list[str] | None = data.get("names")
        self.cuda: dict[str, int] | None = None
        self.spell: dict[str, list[int]] | None = None
        self.tables: Tables | None = None
        self.searches = 0
        self._concepts: dict[str, ConceptCard] = {}

    def _load_cards(self) -> None:
        if self._cards is not None:
            text, self._cards = self._cards, None
            self._data.update(_parse(text))

    def __getitem__(self, key: str) -> Any:
        if key in CARD_KEYS and self._cards is not None:
            self._load_cards()
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        if key in CARD_KEYS and self._cards is not None:
            self._load_cards()
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return (key in CARD_KEYS and self._cards is not None) or key in self._data

    def concept(self, cid: str) -> ConceptCard | None:
        """One concept, decoded once into the store's frozen objects; None for an unknown id."""
        card = self._concepts.get(cid)
        if card is None:
            data = self["concepts"].get(cid)
            if data is None:
                return None
            card = self._concepts[cid] = ConceptCard.decode(cid, data)
        return card

    @property
    def hash(self) -> str:
        """The content hash of the glossary it was built from."""
        return str(self._data.get("hash", ""))


def load_index(root: Path | None = None) -> Index:
    """The index for the glossary's current content, rebuilt and cached when the content changes.

    One index per process and content: the symbol map, lookups and hovers all share it.
    """
    root = root or glossary_root()
    if not root.is_dir():
        raise IndexError_(f"glossary folder not found: {root} (set XLATE_GLOSSARY)")
    key = content_key(root)
    if key in _MEMO:
        return _MEMO[key]
    path = cache_dir() / f"index-{INDEX_VERSION}-{key}.json"
    data = _read_cache(path)
    if data is None:
        built = build(root)
        built["hash"] = key
        write_cache(path, _serialize(built), replaces="index-*.json")
        data = Index(built)
    _MEMO.clear()
    _MEMO[key] = data
    return data


def _serialize(data: dict[str, Any]) -> bytes:
    """Header line, the symbol part (JSON), the CUDA names (one a line), the row block (one packed
    row a line, in name order), the card part (JSON). Only the symbol part is parsed whole."""
    def dump(d: Any) -> bytes:
        return json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    rows = [r.encode("utf-8") + b"\n" for r in data["rows"]]
    offsets = [0]
    for r in rows:
        offsets.append(offsets[-1] + len(r))
    names = "\n".join(data["names"]).encode("utf-8")
    import array
    import base64

    # The offsets as one base64 string of 32-bit integers: decoded in microseconds, where a JSON list
    # of 9,000 numbers costs a parse.
    packed_offsets = base64.b64encode(array.array("I", offsets).tobytes()).decode("ascii")
    symbols = dump({**{k: v for k, v in data.items() if k not in CARD_KEYS and k not in ("rows", "names")},
                    "row_offsets": packed_offsets})
    cards = dump({k: data[k] for k in CARD_KEYS if k in data})
    header = json.dumps({"version": INDEX_VERSION, "symbols": len(symbols), "names": len(names), "rows": offsets[-1]}).encode()
    return header + b"\n" + symbols + b"\n" + names + b"\n" + b"".join(rows) + b"\n" + cards


def _parse(text: str | bytes) -> Any:
    import gc

    # Parsing creates many objects at once; the cyclic collector would run over them for nothing
    # (JSON data has no cycles).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if enabled:
            gc.enable()


def _read_cache(path: Path) -> Index | None:
    import mmap

    try:
        with path.open("rb") as fh:
            raw = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)  # rows and cards stay on disk until asked for
        start = raw.find(b"\n") + 1
        header = json.loads(raw[:start])
        if not isinstance(header, dict) or header.get("version") != INDEX_VERSION:
            return None
        names_at = start + int(header["symbols"]) + 1
        rows_at = names_at + int(header["names"]) + 1
        cards_at = rows_at + int(header["rows"]) + 1
        data = _parse(raw[start:names_at - 1])
        names_raw = raw[names_at:rows_at - 1]
        blob = memoryview(raw)[rows_at:cards_at - 1]
        cards = raw[cards_at:]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Index(data, cards, names_raw, blob) if isinstance(data, dict) and cards else None


def clean_query(query: str) -> str:
    """Drop control characters, fold Unicode, collapse spaces, cap the length."""
    text = unicodedata.normalize("NFKC", query)
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(text.split())[:MAX_QUERY]




def _tables(index: Index) -> Tables:
    """Exact, case-folded and loose spellings -> label entries; built once per loaded index.

    A language server asks thousands of times against one index, so the scan over every label
    happens once, not per request.
    """
    if index.tables is not None:
        return index.tables
    exact: dict[str, list[LabelEntry]] = {}
    folded: dict[str, list[LabelEntry]] = {}
    loose_map: dict[str, list[LabelEntry]] = {}
    precomputed = index.get("loose") or [loose(e[0]) for e in index["labels"]]
    for entry, key in zip(index["labels"], precomputed):
        label = entry[0]
        exact.setdefault(label, []).append(tuple(entry))
        folded.setdefault(label.casefold(), []).append(tuple(entry))
        if key:
            loose_map.setdefault(key, []).append(tuple(entry))
    index.tables = (exact, folded, loose_map)
    return index.tables


TABLES_AFTER = 3  # searches of one index before building its tables pays off (an editor asks thousands)


def _lookups(index: Index, q: str) -> Tables:
    """The entries spelled like q, three ways. A one-off query scans the labels (cheaper than building
    tables); an index searched repeatedly gets tables."""
    index.searches += 1
    if index.searches > TABLES_AFTER or index.tables is not None:
        return _tables(index)
    labels = index["labels"]
    q_folded, q_loose = q.casefold(), loose(q)
    precomputed = index.get("loose") or [loose(e[0]) for e in labels]
    exact = {q: [tuple(e) for e in labels if e[0] == q]}
    folded = {q_folded: [tuple(e) for e in labels if e[0].casefold() == q_folded]}
    loose_map = {q_loose: [tuple(labels[i]) for i, key in enumerate(precomputed) if key == q_loose]} if q_loose else {}
    return exact, folded, loose_map


def symbol_variants(q: str) -> list[str]:
    """Spellings a person types for one code symbol: `cudaMalloc()`, `metal::exp`, `cg::sync` ..."""
    out = [q]
    bare = q.removesuffix("()").strip()
    if bare != q:
        out.append(bare)
    for ns in ("metal::", "std::", "::"):
        if bare.startswith(ns):
            out.append(bare[len(ns):])
    if bare.startswith("cg::"):
        out.append("cooperative_groups::" + bare[4:])
    if bare.startswith("wmma::"):
        out.append("nvcuda::" + bare)
    return out


def find_rows(index: Index, query: str, backend: str | None = None) -> list[tuple[Row, str]]:
    """Rows in which the query is written exactly (on the side the backend filter allows)."""
    q = clean_query(query)
    seen: set[str] = set()
    out: list[tuple[Row, str]] = []
    for spelling in symbol_variants(q) if q else ():
        for row, side in rows_for(index, spelling):
            if row.cuda in seen or (backend and SIDE_BACKEND[side] != backend):
                continue
            seen.add(row.cuda)
            out.append((row, side))
        if out:
            break
    # Several CUDA names can share one counterpart (hipMalloc answers cudaMalloc and cuMemAlloc,
    # simd_any answers __any_sync and the legacy __any): the row's own spelling first, then the order
    # in which the concept lists its CUDA symbols (the glossary puts the current spelling first),
    # then the runtime and device APIs before the driver API, current names before deprecated ones.
    # This orders answers; it never makes one up.
    def listed(row: Row) -> int:
        symbols = ((index["concepts"].get(row.concept or "") or {}).get("terms", {}).get("cuda") or {}).get("symbols") or []
        return symbols.index(row.cuda) if row.cuda in symbols else len(symbols) + 1

    return sorted(out, key=lambda rs: (rs[1] != "cuda", listed(rs[0]), FAMILY_RANK.get(rs[0].family or "", 5),
                                        bool(rs[0].cuda_versions.get("deprecated")), rs[0].cuda))


FAMILY_RANK = {"cuda-runtime": 0, "cuda-device": 0, "cuda-language": 0, "cuda-driver": 3}


def search(index: Index, query: str, backend: str | None = None, limit: int = 5) -> list[Match]:
    """Rank concepts for `query`: exact symbol (a row or a concept's symbol) > exact name or alias >
    loose spelling > fuzzy. Fuzzy matching abstains below a calibrated score: an empty list then."""
    q = clean_query(query)
    if not q:
        return []
    best: dict[str, Match] = {}

    def offer(m: Match) -> None:
        if m.concept not in best or m.score > best[m.concept].score:
            best[m.concept] = m

    def allowed(label_backend: str | None) -> bool:
        return not (backend and label_backend and label_backend != backend)

    for row, side in find_rows(index, q, backend):
        if row.concept and row.concept in index["concepts"]:
            # A CUDA spelling is the row's own: an exact symbol. Another backend's spelling of it
            # ranks below an exact name, since Metal's `threadgroup` is both the address-space
            # qualifier of the __shared__ row and the name of the thread-block concept.
            score = SCORE_SYMBOL if side == "cuda" else SCORE_NAME - 1
            offer(Match(row.concept, score, q, "symbol", SIDE_BACKEND[side]))
    exact, folded, loose_map = _lookups(index, q)
    for label, cid, kind, label_backend in exact.get(q, ()):
        if kind == "symbol" and allowed(label_backend):
            offer(Match(cid, SCORE_SYMBOL, label, kind, label_backend))
    for label, cid, kind, label_backend in folded.get(q.casefold(), ()):
        if allowed(label_backend) and not (kind == "symbol" and label == q):
            score = SCORE_SYMBOL - 1 if kind == "symbol" else SCORE_NAME
            offer(Match(cid, score, label, kind, label_backend))
    q_loose = loose(q)
    for label, cid, kind, label_backend in loose_map.get(q_loose, ()) if q_loose else ():
        if allowed(label_backend):
            offer(Match(cid, SCORE_LOOSE, label, kind, label_backend))
    if not best:
        for m in word_matches(index, q, backend):
            offer(m)
    if not best:
        for m in fuzzy(index, q, backend, limit * 4):
            offer(m)
    # Equal scores: the concept whose own title holds the query wins ("metallib" is a name on the
    # compiler page and on "Device binary (cubin, code object, metallib)"); next, a concept that also
    # carries the query as its own name or alias (thread-block for "threadgroup") ranks before one
    # reached only through a symbol (the __shared__ row's `threadgroup`).
    title_of = {cid: loose(index["concepts"][cid]["title"]) for cid in best}
    named = {cid for _, cid, kind, _ in exact.get(q, ()) if kind != "symbol"}
    ranked = sorted(best.values(), key=lambda m: (-m.score, not (q_loose and q_loose in title_of[m.concept]),
                                                  m.concept not in named, m.concept))
    return ranked[:limit]


SCORE_WORDS = 86.0  # every word of a several-word query is in one label ("atomic add float" lacks one)
STOPWORDS = frozenset({"a", "an", "the", "of", "on", "in", "for", "to", "with", "and", "or", "how", "what", "is",
                       "vs", "versus", "do", "i", "use", "using", "my"})


def _words(text: str) -> list[str]:
    """Words of a label or query, stop words dropped, a plural s dropped ("conflicts" finds "conflict")."""
    out = []
    for w in re.split(r"[^0-9a-z]+", text.casefold()):
        if w and w not in STOPWORDS:
            out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def word_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """Several-word queries whose words all appear in one label, in any order ("memory fence" finds
    the fence concepts); with three words or more, one may be missing. The label with the fewest
    other words wins, so the closest name ranks first."""
    words = set(_words(query))
    if len(words) < 2 or " " not in query.strip():
        return []  # a code spelling (simd_shuffle_down) is one name, not a phrase
    found: dict[str, tuple[float, int, str, str, str | None]] = {}
    for label, cid, kind, label_backend in index["labels"]:
        if backend and label_backend and label_backend != backend:
            continue
        have = set(_words(label))
        missing = len(words - have)
        if missing == 0 or (missing == 1 and len(words) >= 3 and len(words & have) >= 2):
            score = SCORE_WORDS - 2.0 * missing
            extra = len(have - words)
            cur = found.get(cid)
            if cur is None or (score, -extra) > (cur[0], -cur[1]):
                found[cid] = (score, extra, label, kind, label_backend)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    # Closer names first: the score drops a little with each word the label has beyond the query.
    return [Match(cid, round(score - min(extra, 5) * 0.2, 1), label, "words", b) for cid, (score, extra, label, _, b) in ranked]


# Fuzzy matching is plain edit similarity over whole spellings (token order ignored): never a short
# label found inside a longer word, which is how "MMA" once matched "MTLComputeCommandEncoder".
# The floors were calibrated on tests/data/lookup_queries.yaml (typos of real terms land, unrelated
# words do not); short queries need a closer match, since one edit in four letters is a new word.
FUZZY_FLOOR_SHORT = 90.0  # queries of at most 5 characters once loosened
FUZZY_MIN_LABEL = 3


def _fuzzy_floor(q_loose: str) -> float:
    return FUZZY_FLOOR_SHORT if len(q_loose) <= 5 else FUZZY_FLOOR + 10.0


def _fuzzy_text(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.casefold()).split())


def fuzzy(index: Index, query: str, backend: str | None, limit: int, floor: float | None = None) -> list[Match]:
    from rapidfuzz import fuzz, process

    entries = [e for e in index["labels"] if not (backend and e[3] and e[3] != backend) and len(loose(e[0])) >= FUZZY_MIN_LABEL]
    q = _fuzzy_text(query)
    q_loose = loose(query)
    if not q or not q_loose:
        return []
    cutoff = _fuzzy_floor(q_loose) if floor is None else floor
    choices = [_fuzzy_text(e[0]) for e in entries]
    found = process.extract(q, choices, scorer=fuzz.token_sort_ratio, processor=None, limit=limit * 3, score_cutoff=cutoff)
    out: list[Match] = []
    for _, score, i in found:
        label, cid, kind, label_backend = entries[i]
        key = loose(label)
        if key != q_loose and key in q_loose and q_loose != key + "s":
            continue  # a shorter name inside the query is another word ("elect" in "select"), not a typo
        if len(out) == limit:
            break
        out.append(Match(cid, round(min(score, 100.0) * FUZZY_CEILING / 100.0, 1), label, "fuzzy", label_backend))
    return out


def suggestions(index: Index, query: str, limit: int = 5) -> list[str]:
    """Nearest labels and symbol spellings for a query that matched nothing, however far."""
    from rapidfuzz import fuzz, process

    q = _fuzzy_text(clean_query(query))
    if not q:
        return []
    labels = [e[0] for e in index["labels"] if len(loose(e[0])) >= FUZZY_MIN_LABEL]
    spellings = names(index) + list(index.get("spell_keys", ()))
    pool = list(dict.fromkeys(labels + spellings))
    found = process.extract(q, [_fuzzy_text(p) for p in pool], scorer=fuzz.token_sort_ratio, processor=None,
                            limit=limit * 3, score_cutoff=40.0)
    seen: list[str] = []
    for _, _, i in found:
        if pool[i] not in seen:
            seen.append(pool[i])
    return seen[:limit]


def match_json(index: Index, m: Match) -> dict[str, Any]:
    concept = index.concept(m.concept)
    if concept is None:
        raise KeyError(m.concept)  # a match names a concept of this index
    return {
        "concept": m.concept,
        "title": concept.title,
        "score": m.score,
        "matched": m.matched,
        "matched_kind": m.kind,
        "matched_backend": m.backend,
        "terms": {b: t.spellings() for b, t in concept.terms.items()},
    }
