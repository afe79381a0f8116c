"""The compiled knowledge base: one JSON digest of concepts, symbol rows and GPU sheets.

Every surface (lookup, explain, the language server, translate, compare, the docs) reads this one
index, cached by content hash; `symbols.SymbolMap` is a view of its rows. This module is on the
editor's hot path: it imports neither pydantic, networkx nor the YAML validation unless the cache
is stale; `rapidfuzz` is imported only when exact matching fails. Rows are stored as JSON strings
and decoded only when asked for, so a cold start parses one flat list instead of 9,000 objects.
"""

from __future__ import annotations

import functools
import json
import os
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

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
            "gpus": gpus, "gpu_names": name_table(sheets.values()), "vocabulary": _vocabulary_payload(g),
            "counter_families": [[f.prefix, f.card, f.tool, f.unit] for f in g.name_families],
            "tool_options": _options_payload(g), "error_messages": _messages_payload(g)}
    data.update(_rows_payload(g.rows, g.row_families, concepts))
    return data


def _vocabulary_payload(g: Any) -> dict[str, list[Any]]:
    """Each spelling of a package name no card spells, and each name of a name list (environment
    variables, struct members) -> [card or None, qualified name, section, release]."""
    from xlate.kb import _vocabulary as vocabulary

    out: dict[str, list[Any]] = {}
    for vocab in g.vocabularies:
        for spelling, entry in vocabulary.spellings(vocab).items():
            out[spelling] = [entry.card, entry.qualified, entry.section, f"{vocab.package} {vocab.version}"]
    for names in g.name_lists:
        for group in names.groups:
            for name in group.names:
                # A package's own spelling keeps its place (a name both lists hold is the package's).
                out.setdefault(name, [group.card, name, f"{names.names_of}, {group.section}", names.version])
    return out


def _options_payload(g: Any) -> dict[str, list[Any]]:
    """Each option a tool's vocabulary lists -> [[tool, card or None, section, release], ...]: an option
    such as -o belongs to several tools."""
    out: dict[str, list[Any]] = {}
    for tool in g.tool_options:
        for group in tool.groups:
            for option in group.options:
                out.setdefault(option, []).append([tool.tool, group.card, group.section, f"{tool.tool} {tool.version}"])
    return out


def _messages_payload(g: Any) -> list[list[str]]:
    """[message as matched, error name, card, API and release] for each error string of a vocabulary."""
    return [[message_key(e.message), e.name, m.card, f"{m.messages_of} {m.version}"]
            for m in g.error_messages for e in m.errors]


def message_key(text: str) -> str:
    """An error string as it is matched: case-folded, words only (quotes, colons and a final period
    differ between the string returned and the one a log or an issue title shows)."""
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


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
CARD_KEYS = ("concepts", "gpu_names", "gpus", "labels", "loose", "spell_keys", "spell_vals", "vocabulary", "counter_families")


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


# Namespaces people spell out in full where the glossary writes the short import name.
_LONG_NAMESPACES = (("triton.language.", "tl."), ("triton.experimental.gluon.language.", "gl."), ("mlx.core.", "mx."), ("mx.metal.", "mx."), ("mlx.nn.", "nn."))
# Python namespaces: dropping a call's last part names a module (mx.fast), not the call, so the PTX rule
# below (trailing parts are modifiers) does not apply to them.
_PY_NAMESPACES = ("mx.", "mlx.", "tl.", "triton.", "torch.", "jax.", "np.")
_CALL_ARGS = re.compile(r"^([A-Za-z_][\w.:]*)\(.*\)$")
_PREPROCESSOR = re.compile(r"^#\s*(?:if|elif|ifdef|ifndef|define|undef)\s+(?:!?\s*defined\s*\(?\s*)?([A-Za-z_]\w*)\s*\)?.*$")
_SUBSCRIPT = re.compile(r"^([A-Za-z_][\w.:]*)\[[^\]]*\]$")
# An AMDGCN instruction with its encoding suffix (v_add_f32_e64, v_mov_b32_dpp, v_mul_f32_sdwa).
_AMDGCN_ENCODING = re.compile(r"^([vs]_[a-z0-9_]+?)_(dpp8?|dpp16|sdwa|e32|e64)$")
_PTX_REGISTER = re.compile(r"^%%?([a-z]+)(?:\.[xyz])?$")
_AIR = re.compile(r"^air\.([a-z][a-z0-9_]*?)(?:\.[a-z0-9_.]+)?$")
_TYPE_MODIFIER = re.compile(r"^[a-z]+\d+[a-z0-9]*$")  # e4m3x2, bf16, f32
_PACKED = re.compile(r"x[24]$")
_DOTTED = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_:]+)+$")


_DECORATOR = re.compile(r"^@([A-Za-z_][\w.]*(?:\(.*\))?)$")  # @triton.jit, @partial(...)
_ASSIGNED = re.compile(r"^(-{0,2}[A-Za-z_][\w.-]*)=[^\s=]*$")  # --offload-arch=gfx906, NAME=1
_TEMPLATE_ARGS = re.compile(r"^([A-Za-z_][\w.:]*)<.*>$")  # texture2d<float, access::read>
# A macro or CMake variable set on a command line (-DMLX_BUILD_CUDA=ON, -D__HIP_PLATFORM_AMD__).
_DEFINE = re.compile(r"^-D\s?([A-Za-z_]\w*)$")
# An Objective-C selector with its argument labels (memoryBarrierWithResources:count:), optionally as a
# method reference (-[MTLDevice newBufferWithLength:options:]).
_SELECTOR_CALL = re.compile(r"^(?:[-+]\[[A-Za-z_]\w*\s+)?([a-z][A-Za-z0-9]*):(?:[a-z][A-Za-z0-9]*:)*\]?$")


def _member_of_uncovered(index: Index, q: str) -> bool:
    """Whether a dotted name's nearest enclosing name that a vocabulary lists is on no card."""
    parts = q.split(".")
    for end in range(len(parts) - 1, 0, -1):
        entry = vocabulary_entry(index, ".".join(parts[:end]))
        if entry is not None:
            return not entry[0]
    return False


_MLX_CXX = "mlx::core::"


def _mlx_python(name: str) -> str:
    """MLX's C++ spelling as its Python one: mlx::core::fast::rms_norm is mx.fast.rms_norm."""
    return "mx." + name[len(_MLX_CXX):].replace("::", ".")


def symbol_variants(q: str) -> list[str]:
    """Spellings a person types for one code symbol: `cudaMalloc()`, `metal::exp`, `cg::sync`,
    `tl.program_id(axis=0)`, `triton.language.atomic_add`, a PTX instruction with its modifiers
    (`tcgen05.alloc.cta_group::1` names `tcgen05.alloc`, then `tcgen05`), a decorator (`@triton.jit`),
    a flag or variable with its value (`--offload-arch=gfx906`), a template with its arguments ..."""
    out = [q]
    for pattern in (_DECORATOR, _ASSIGNED, _TEMPLATE_ARGS):
        written = pattern.match(q)
        if written:
            q = written.group(1)
            out.append(q)
    named = _set_or_called(q)
    if named != q:  # -DNAME asks about NAME; a selector is named by its first part, as methods are listed
        q = named
        out.append(q)
    directive = _PREPROCESSOR.match(q)
    if directive:  # `#if defined(__HIP_PLATFORM_AMD__)` asks about the macro it tests
        q = directive.group(1)
        out.append(q)
    subscript = _SUBSCRIPT.match(q)
    if subscript:  # cmem[0], threadIdx.x[...]: the name, not its index
        out.append(subscript.group(1))
    call = _CALL_ARGS.match(q)
    bare = call.group(1) if call else q.removesuffix("()").strip()
    if bare != q:
        out.append(bare)
    encoded = _AMDGCN_ENCODING.match(bare)
    if encoded:  # v_mov_b32_dpp: the instruction (v_mov_b32) and, for DPP, the cross-lane mode it names
        out += [encoded.group(1)] + (["DPP"] if encoded.group(2).startswith("dpp") else [])
    sreg = _PTX_REGISTER.match(bare)
    if sreg:  # %tid.x and inline assembly's %%tid.x read the special register %tid
        out.append("%" + sreg.group(1))
    air = _AIR.match(bare)
    if air:
        # An AIR intrinsic (air.simd_sum.f32) is the Metal library function of that name, with the
        # operand type as a suffix; the bare `air` would only name the IR itself.
        out.append(air.group(1))
        return list(dict.fromkeys(out))
    out += _without_namespace(bare)
    member = _METAL_MEMBER.match(bare)
    if member and any(c.isupper() for c in member.group(3)):
        # MTLDevice.maxThreadgroupMemoryLength, and .NET's IMTLDevice.MaxThreadgroupMemoryLength: the
        # property or method of a Metal class, by its own name (a Swift enum case such as
        # MTLStorageMode.shared is one lower-case word, read by query_variants).
        name = member.group(2) + member.group(3)
        out.append(name[0].lower() + name[1:] if member.group(1) else name)
    for long, short in _LONG_NAMESPACES:
        if bare.startswith(long):
            out.append(short + bare[len(long):])
    if bare.startswith(_MLX_CXX):
        out.append(_mlx_python(bare))
    if bare.startswith("cg::"):
        out.append("cooperative_groups::" + bare[4:])
    if bare.startswith("wmma::"):
        out.append("nvcuda::" + bare)
    if _DOTTED.match(bare) and not bare.startswith(_PY_NAMESPACES):
        parts = bare.split(".")
        if "_" in parts[-1] and ":" not in parts[-1] and not _ISA_TYPE.fullmatch("_" + parts[-1].split("_", 1)[-1]):
            # A library call under a namespace (cute.arch.elect_one): its last part names it, before
            # the namespace does; a PTX modifier (cta_group::1) or operand type stays a modifier.
            out.append(parts[-1])
        # A PTX instruction is named by its leading parts; the rest are modifiers (.sync, .aligned, types).
        for n in range(len(parts) - 1, 0, -1):
            lead = ".".join(parts[:n])
            if len(lead) >= 3 and lead not in QUALIFIERS:  # triton.cdiv is not a name for Triton
                out.append(lead)
        # Failing those, a type among the modifiers, packed pairs and quads as one value
        # (cvt.rn.satfinite.e4m3x2.f32: e4m3).
        out += [_PACKED.sub("", part) for part in parts[1:] if _TYPE_MODIFIER.match(part)]
    return list(dict.fromkeys(out))


# C++ namespaces whose members the glossary and its vocabularies spell bare (metal::exp, MSL 4's
# mpp::tensor_ops::matmul2d), outermost last.
_CXX_NAMESPACES = ("mpp::tensor_ops::", "mpp::", "metal::", "cuda::ptx::", "cuda::device::", "cuda::", "std::", "::")


def _without_namespace(name: str) -> list[str]:
    return [name[len(ns):] for ns in _CXX_NAMESPACES if name.startswith(ns) and len(name) > len(ns)]


def code_name(q: str) -> str:
    """The bare name of one code spelling: a decorator, a value, template or call arguments taken off
    (`@triton.heuristics` -> triton.heuristics, `set_cache_limit(int)` -> set_cache_limit); q itself
    when it is no such spelling."""
    for pattern in (_DECORATOR, _ASSIGNED, _TEMPLATE_ARGS, _CALL_ARGS):
        written = pattern.match(q)
        if written:
            q = written.group(1)
    return q


_TARGET_TRIPLE = re.compile(r"^(?:amdgcn|nvptx64|nvptx)-[a-z0-9_]*-[a-z0-9_]*-[a-z0-9_]*-(gfx[0-9a-f]{3,4}|sm_\d{2,3}[af]?)(?:[:+-].*)?$")
_SUFFIXED_TARGET = re.compile(r"^((?:sm|compute)_\d{2,3})[af]$")
_VERSION_TOKEN = re.compile(r"^v?\d+(?:\.\d+)*[a-z]?$", re.IGNORECASE)
_SWIFT_MAKE = re.compile(r"^make([A-Z][a-z]+[A-Z]\w*)$")
_WITH_ARGUMENT = re.compile(r"^([a-z]+[A-Z][A-Za-z0-9]*?)(?:With|For)[A-Z][A-Za-z0-9]*$")
# An NSError domain names the error enum of its framework: MTLLibraryErrorDomain is MTLLibraryError's.
_ERROR_DOMAIN = re.compile(r"^(MTL\w*Error)Domain$")
_METAL_MEMBER = re.compile(r"^(I)?MTL4?[A-Z][A-Za-z]+\.([A-Za-z])([a-z]+[A-Z][A-Za-z0-9]*)$")
# A Metal enumerator as Swift spells it, its type then the case: MTLStorageMode.shared is the constant
# MTLStorageModeShared; swift_enum_matches finds the constant where Swift's case differs in more than its
# first letter (MTLCaptureDestination.gpuTraceDocument is ...GPUTraceDocument).
_SWIFT_CASE = re.compile(r"^(MTL[A-Za-z0-9]+)\.([a-z][A-Za-z0-9]*)$")


_COMPARISON = re.compile(r"^(.+?)\s+(?:vs\.?|versus)\s+(.+)$", re.I)
_GNU_ATTRIBUTE = re.compile(r"^__attribute__\s*\(\(\s*([A-Za-z_]\w*)\s*(?:\(.*\))?\s*\)\)$")


def query_variants(q: str) -> list[str]:
    """The query, then its code-symbol spellings, then the query without a trailing version number
    ("compute capability 9.0" asks about compute capability)."""
    out = symbol_variants(q)
    swift = _SWIFT_CASE.match(q)
    if swift:  # MTLStorageMode.shared is Swift's case of the constant MTLStorageModeShared
        q = swift.group(1) + swift.group(2)[0].upper() + swift.group(2)[1:]
        out.append(q)
    mtl = _MTL_CONSTANT.match(q)
    if mtl:
        out.append(mtl.group(1).lower() + mtl.group(2))  # MTLStorageModeShared: Swift's storageModeShared
    for spelled in list(out):
        # Swift's factory method names what it makes (makeIndirectCommandBuffer: MTLIndirectCommandBuffer);
        # an Objective-C method with its first argument's name (dispatchThreadgroupsWithIndirectBuffer)
        # is a variant of the method before `With`.
        made = _SWIFT_MAKE.match(spelled)
        if made:
            out.append("MTL" + made.group(1))
        base = _WITH_ARGUMENT.match(spelled)
        if base:
            out.append(base.group(1))
    attribute = _GNU_ATTRIBUTE.match(q)
    if attribute:  # __attribute__((amdgpu_num_vgpr(64))): the attribute it spells
        out.append(attribute.group(1))
    triple = _TARGET_TRIPLE.match(q)
    if triple:  # amdgcn-amd-amdhsa--gfx1201: the processor the triple names
        out.append(triple.group(1))
    target = _SUFFIXED_TARGET.match(q)
    if target:
        out.append(target.group(1))  # sm_120a is sm_120 with its architecture-specific features
    words = q.split()
    if len(words) >= 2 and _VERSION_TOKEN.match(words[-1]):
        out.append(" ".join(words[:-1]))
    if len(words) >= 2 and re.fullmatch(r"[a-z]{3,}[^s]s", words[-1]):
        out.append(" ".join(words[:-1] + [words[-1][:-1]]))  # a name in the plural (indirect command buffers)
    elif len(words) == 1 and re.fullmatch(r"[A-Za-z][a-z]{2,}[^s]s", q):
        out.append(q[:-1])  # one word in the plural (warps, Heaps)
    return list(dict.fromkeys(out))


def find_rows(index: Index, query: str, backend: str | None = None) -> list[tuple[Row, str]]:
    """Rows in which the query is written exactly (on the side the backend filter allows)."""
    q = clean_query(query)
    seen: set[str] = set()
    out: list[tuple[Row, str]] = []
    spellings = symbol_variants(q) if q else []
    labelled = _SWIFT_LABELLED.match(q) if q else None
    if labelled:
        # memoryBarrier(scope:) is a Swift method; a row that spells its bare base (memoryBarrier, a
        # field of a CUDA driver type) is another API's name.
        spellings = [s for s in spellings if s != labelled.group(1)]
    for spelling in spellings:
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


def _exact(index: Index, q: str, backend: str | None) -> tuple[dict[str, Match], set[str]]:
    """The concepts q names exactly: a row's spelling, a symbol, a name or alias (case and punctuation
    aside), tried for q and then its variants (query_variants) until one answers; and the concepts that
    carry q itself as a name or alias."""
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
    named: set[str] = set()  # concepts that carry the query itself as a name or alias
    from_rows = bool(best)  # a row's other-backend spelling must not stop a variant's exact symbol
    for variant in query_variants(q):
        exact, folded, loose_map = _lookups(index, variant)
        if variant == q:
            named = {cid for _, cid, kind, _ in exact.get(q, ()) if kind != "symbol"}
        for label, cid, kind, label_backend in exact.get(variant, ()):
            if kind == "symbol" and allowed(label_backend):
                offer(Match(cid, SCORE_SYMBOL, label, kind, label_backend))
        for label, cid, kind, label_backend in folded.get(variant.casefold(), ()):
            if allowed(label_backend) and not (kind == "symbol" and label == variant):
                score = SCORE_SYMBOL - 1 if kind == "symbol" else SCORE_NAME
                offer(Match(cid, score, label, kind, label_backend))
        v_loose = loose(variant)
        for label, cid, kind, label_backend in loose_map.get(v_loose, ()) if v_loose else ():
            if allowed(label_backend):
                offer(Match(cid, SCORE_LOOSE, label, kind, label_backend))
        if best and (not from_rows or max(m.score for m in best.values()) >= SCORE_SYMBOL - 1):
            break
    return best, named


# A method of an MLX array (mx.array.cummax, mlx.core.array.astype(...)).
_ARRAY_METHOD = re.compile(r"^(?:mx|mlx\.core)\.array\.([A-Za-z_]\w*)(?:\(.*\))?$")


def array_method_as_op(index: Index, q: str) -> str:
    """An MLX array method that mlx.core also has as a function (`x.cummax()` is documented as
    mx.cummax) is asked about as that function; q itself otherwise, and for the array's own attributes
    (mx.array.shape), which its vocabulary lists under `array`."""
    method = _ARRAY_METHOD.match(q)
    if method is None or (index.get("vocabulary") or {}).get(code_name(q)) is not None:
        return q
    op = "mx." + method.group(1)
    return op if vocabulary_entry(index, op) is not None or _exact(index, op, None)[0] else q


# A name of two words or more followed by its abbreviation in brackets.
# "What is a warp", "what's LDS", "what are wavefronts", "what does SIMT mean", "define occupancy": the
# term asked about, which alone may be a plain word that is no span of a longer phrase.
_DEFINITION = re.compile(r"^(?:what(?:'s|\s+is|\s+are)|what\s+does|what\s+do|define|meaning\s+of)\s+"
                         r"(?:an?\s+|the\s+)?(.+?)(?:\s+mean)?$", re.I)
_ABBREVIATED = re.compile(r"^([^()]+\s[^()]+?)\s*\(([A-Za-z][\w-]*)\)$")


# metal-cpp, Apple's C++ interface to Metal, spells MTLDevice as MTL::Device and its methods as members
# (MTL::Device::newBuffer for newBufferWithLength:options:, MTL::CreateSystemDefaultDevice for the C function).
_METAL_CPP = re.compile(r"^(MTL4?|MTLFX|NS|CA)::([A-Za-z]\w*)(?:::([A-Za-z_]\w*))?(?:\(.*\))?$")


def _metal_cpp_search(index: Index, spelled: re.Match[str], backend: str | None, limit: int) -> list[Match]:
    """A metal-cpp name: a member as the Objective-C method it wraps (its own name, or the card most of the
    selectors that begin with it and go on `With...` give), else the class or function it names as Metal spells
    it (MTL::ComputePipelineState is MTLComputePipelineState); never the English words of the member."""
    prefix, name, member = spelled.groups()
    objc = prefix + name
    if member:
        found = list(_exact(index, member, backend)[0].values()) \
            or list(_agreed_qualified(index, _with_argument_forms(index).get(member, []), backend).values())
        if found:
            return [Match(m.concept, round(min(m.score, SCORE_LOOSE) - 2.0, 2), m.matched, "loose", m.backend)
                    for m in found][:limit]
    return [Match(m.concept, round(min(m.score, SCORE_LOOSE) - (3.0 if member else 1.0), 2), m.matched, "loose", m.backend)
            for m in search(index, objc, backend, limit)]


# A Swift method with its first argument labelled (memoryBarrier(scope:), makeBuffer(length:options:)).
_SWIFT_LABELLED = re.compile(r"^([a-z][A-Za-z0-9]*)\(([a-z][A-Za-z0-9]*):(?:[A-Za-z_][A-Za-z0-9]*:)*\)$")


def _swift_selector(q: str) -> str | None:
    """The Objective-C selector's first part for a labelled Swift method: Swift drops the `With` and the
    first label's capital (memoryBarrier(scope:) is memoryBarrierWithScope:); None for other queries."""
    m = _SWIFT_LABELLED.match(q)
    return m.group(1) + "With" + m.group(2)[0].upper() + m.group(2)[1:] if m else None


def search(index: Index, query: str, backend: str | None = None, limit: int = 5) -> list[Match]:
    """Rank concepts for `query` (a question, "What is a warp?", is asked of its term): exact symbol (a row
    or a concept's symbol) > exact name or alias >
    loose spelling (a bare namespace member as its rows spell it qualified) > a package's public name
    its vocabulary file places (or none: the search ends empty), a counter by its documented prefix, a C
    binding's name of a dotted API, an LLVM intrinsic by its clang builtin or PTX, an API's error string, a
    tool's option (or none) > a chip an architecture card names > a documentation heading's topic
    > a phrase's words or a term inside it > an identifier a card's text names > a
    command's tool > a phrase's initials, an error code's words or one card's vocabulary > fuzzy > a
    swapped pair of letters or reordered letters > a family prefix or a tool's prefix > an
    identifier's words (NVGPUWarpSpecializationPass). Each step runs
    only when the ones before found nothing, and the inexact ones abstain below calibrated floors: an
    empty list then."""
    q = clean_query(query)
    if not q:
        return []
    q = array_method_as_op(index, q)
    selector = _swift_selector(q)
    if selector and (selector in (index.get("vocabulary") or {}) or _exact(index, selector, backend)[0]):
        # Swift's memoryBarrier(scope:) is Objective-C's memoryBarrierWithScope:, a known Metal method,
        # not the bare memoryBarrier that another API spells.
        return search(index, selector, backend, limit)
    best, named = _exact(index, q, backend)
    asked = q.rstrip("?!").rstrip()
    if not best and asked and asked != q:
        # A question or an exclamation ("LDS?", "What is a warp?", "Metal capturing is broken!"): its
        # marks are no part of any term, unless a label keeps them (tried above).
        return search(index, asked, backend, limit)
    defined = _DEFINITION.match(q) if not best else None
    if defined:
        answered = search(index, defined.group(1), backend, limit)
        if answered:
            return answered
    metal_cpp = _METAL_CPP.match(q) if not best else None
    if metal_cpp:
        return _metal_cpp_search(index, metal_cpp, backend, limit)
    abbreviated = _ABBREVIATED.match(q)
    if abbreviated and not best and vocabulary_entry(index, q) is None:
        # "Floating-Point Sanitizer (FpSan)": the name, else its abbreviation; the bracket is not a
        # word of the name, nor is the abbreviation an identifier to split.
        for part in abbreviated.groups():
            answered = search(index, part, backend, limit)
            if answered:
                return answered
        return []
    code = code_name(q)  # a code spelling's bare name (set_cache_limit(int), @triton.heuristics)
    table = index.get("vocabulary") or {}
    listed = table.get(q) or table.get(code)
    if best and listed and all(loose(m.matched) not in (loose(q), loose(code)) for m in best.values()):
        # A name a vocabulary lists whole (proton.record, gluon.set_auto_layout) is that name, not the
        # card that a leading part of it (Proton, Gluon) is a label of.
        if listed[0] is None:
            return []
        best = {m.concept: m for m in _package_match(list(listed), q, backend)}
    qualified = qualified_names(index, code)
    if qualified:
        # A bare name of a namespace member (coalesced_group, fast.metal_kernel): the rows and symbols
        # that spell it qualified answer before a leading part of it (fast) does.
        found = _agreed_qualified(index, qualified, backend)
        if found and (len(found) == 1 or not best):
            best = found

    def offer(m: Match) -> None:
        if m.concept not in best or m.score > best[m.concept].score:
            best[m.concept] = m

    if not best:
        # A public name of a package that no card spells (tl.sort, mx.linalg.eigh): the card its
        # package's vocabulary file gives it, before any guess from its words.
        entry = vocabulary_entry(index, q)
        if entry is not None and entry[0] is None:
            return []  # a known name no card covers (tl.reshape): nothing to guess from its words
        option, entries = option_entries(index, q)
        if option_asked(q, entries) and all(e[1] is None for e in entries):
            return []  # a known option about nothing GPU-specific (nvcc --output-file)
        for m in _package_match(entry, q, backend) or family_matches(index, code) or binding_matches(index, code, backend) or rust_metal_matches(index, code, backend) \
                or swift_enum_matches(index, code, backend) \
                or intrinsic_matches(index, code, backend) or method_base_matches(index, code, backend) \
                or swift_base_matches(index, q, backend) \
                or message_matches(index, q, backend) or twin_matches(index, code, backend) \
                or _option_match(option, entries, backend) or feature_matches(index, q, backend):
            offer(m)

    if not best:
        # A phrase with a slip in one of its words ("LDS bank confilct"): the phrase as corrected, when
        # it is then a label, before any word of it is taken alone.
        corrected = correct_words(index, q)
        if corrected != q:
            for m in _exact(index, corrected, backend)[0].values():
                offer(Match(m.concept, round(FUZZY_CEILING - (100.0 - m.score) / 100.0, 2), m.matched, "fuzzy", m.backend))
    if not best and backend is None:
        # A chip's model name with brand, variant or spec words ("GB200 (Grace Blackwell)"): the chip
        # decides, not a name among its words.
        for m in product_matches(index, q):
            offer(m)
    setting = _ENV_ASSIGN.match(q.split()[0]) if " " in q else None
    if not best and setting and backend is None:
        # A line that begins by setting a variable (`HSA_XNACK=1 and amdgpu.noretry=0`) is about the
        # variable, when a card names it, before any other term in it.
        for m in _exact(index, setting.group(1), backend)[0].values() or text_mentions(index, setting.group(1)):
            offer(Match(m.concept, round(min(m.score, SCORE_SPAN) - 0.5, 2), setting.group(1), "span", m.backend))
    if not best:
        # A documentation heading that opens with a verb ("Using Streams", "Creating Events"): the thing
        # it is about, when that is a label as it stands or in the singular, and not a vendor's name alone.
        for m in heading_matches(index, q, backend):
            offer(m)
    if not best:
        # A phrase: its words in one label, or a term (a code symbol, a multi-word name) inside it.
        for m in _wider_phrase_first(q, word_matches(index, q, backend), span_matches(index, q, backend)):
            offer(m)
    compared = _COMPARISON.match(q) if not best else None
    if compared:
        # "Proton vs nsys": two terms compared, neither a phrase's word; the first one a card names answers.
        for side in compared.groups():
            found = _exact(index, side.strip(), backend)[0]
            for m in found.values():
                offer(Match(m.concept, round(min(m.score, SCORE_SPAN) - 1.0, 2), m.matched, "span", m.backend))
            if found:
                break
    if not best and backend is None:  # prose and architecture cards do not say which backend spells a name
        # A build target alone (gfx908) that no card or list names is a chip, not whichever card's
        # prose happens to list it among others.
        mentions = [] if _TARGET_NAME.match(q) else text_mentions(index, code)
        for m in product_matches(index, q) or mentions:
            offer(m)
    if not best:
        # A command line whose flag no card names: its tool or operand (`nvcc --list-gpu-code`, `xcrun
        # metallib`) still says what it is about.
        for term in command_terms(q):
            found, named = _exact(index, term, backend)
            if not _term_like(term):
                # A plain word counts where a card carries it as a name (nvcc, metallib), never as a
                # method spelled so (`git commit --amend` is not Metal's commit).
                found = {cid: m for cid, m in found.items() if cid in named}
            for m in found.values():
                offer(Match(m.concept, round(SCORE_SPAN - 1.0 - (100.0 - m.score) / 100.0, 2), term, "span", m.backend))
            if found:
                break
    if not best:
        for m in initials(index, q, backend) or error_rows(index, q, backend) or phrase_cover(index, q, backend):
            offer(m)
    if not best:
        for m in fuzzy(index, q, backend, limit * 4):
            offer(m)
    if not best:
        for m in transpositions(index, q, backend) or anagrams(index, q, backend):
            offer(m)
    if not best:
        for m in row_slips(index, q, backend):
            offer(m)
    if not best:
        for m in prefix_family(index, code, backend) or library_prefix(index, q, backend) \
                or tool_prefix(index, code, backend) or flag_prefix(index, code, backend):
            offer(m)
    if not best and backend is None:
        # An identifier no label or prose holds, read as its words: NVGPUWarpSpecializationPass. Not
        # under a backend filter: another vendor's identifier is no spelling of that backend's.
        spelled = identifier_words(q)
        leaf = q.rsplit(".", 1)[-1]
        if _member_of_uncovered(index, q):
            # mlx.nn.Module.apply_to_modules: a member of a class a vocabulary places on no card is no
            # more covered than its class ("modules" is not the kernel's modules).
            spelled = q
        elif _DOTTED.match(q) and _code_like(leaf) and not word_matches(index, spelled, backend):
            # A member under a namespace no label spells (tt.make_tensor_ptr, the Triton IR's op): the
            # member's own words, without the namespace's.
            spelled = identifier_words(leaf)
        if spelled != q:
            # Its words in one label, or else one card's vocabulary holding them (make_tma_descriptor).
            for m in word_matches(index, spelled, backend) or phrase_cover(index, spelled, backend, prose=False):
                offer(Match(m.concept, round(m.score - 1.0, 1), q, "words", m.backend))
    q_loose = loose(q)
    # Equal scores: the concept whose own title holds the query wins ("metallib" is a name on the
    # compiler page and on "Device binary (cubin, code object, metallib)"); next, a concept that also
    # carries the query as its own name or alias (thread-block for "threadgroup") ranks before one
    # reached only through a symbol (the __shared__ row's `threadgroup`).
    title_of = {cid: loose(index["concepts"][cid]["title"]) for cid in best}
    # A card that carries the query as an alias of its own is about it; one that names it on a side is
    # naming a counterpart ("CUDA compute capability" on the Apple GPU family card's CUDA side).
    _, folded, _ = _lookups(index, q)
    aliased = {cid for _, cid, kind, _ in folded.get(q.casefold(), ()) if kind == "alias"}
    # Between cards that one spelling inside a sentence gives through its rows
    # (hipMemPoolAttrReleaseThreshold is the HIP side of a runtime and a driver row), the order find_rows
    # gives them: the runtime's before the driver API's (the sort key below, before the card id).
    row_order: dict[str, list[str]] = {}

    def row_rank(m: Match) -> int:
        if m.kind != "span":
            return 0  # a symbol asked alone keeps the order of the labels that spell it
        if m.matched not in row_order:
            row_order[m.matched] = [r.concept or "" for r, _ in find_rows(index, m.matched, backend)]
        concepts = row_order[m.matched]
        return concepts.index(m.concept) if m.concept in concepts else 0

    # Then a label that holds the code name as written (`offload-arch` in --offload-arch, not in the
    # alias "offload arch").
    ranked = sorted(best.values(), key=lambda m: (-m.score, not (q_loose and q_loose in title_of[m.concept]),
                                                  m.concept not in aliased, m.concept not in named,
                                                  code not in m.matched, row_rank(m), m.concept))
    return ranked[:limit]


SCORE_PACKAGE = 88.5  # a package's public name that its vocabulary file gives a card (tl.sort)
_PACKAGE_BACKEND = {"triton": "triton", "mlx": "mlx", "Metal": "metal"}


def vocabulary_entry(index: Index, query: str) -> list[Any] | None:
    """[card or None, qualified name, section, release] for a package name as code spells it (`tl.sort`,
    `mlx.core.linalg.eigh`, `tl.sort(x)`), or None."""
    table = index.get("vocabulary") or {}
    bare = code_name(query)
    attribute = bare[2:-2].strip() if bare.startswith("[[") and bare.endswith("]]") else bare  # MSL's [[grid_origin]]
    cxx = _mlx_python(bare) if bare.startswith(_MLX_CXX) else bare
    for spelling in dict.fromkeys((query, bare, query.removesuffix("()"), _set_or_called(bare), *_without_namespace(bare),
                                   _ERROR_DOMAIN.sub(r"\1", bare),
                                   attribute, cxx)):
        if spelling in table:
            return list(table[spelling])
    if _DOTTED.match(bare) and not bare.startswith(_PY_NAMESPACES):
        # A listed PTX instruction with its modifiers (st.async.shared::cluster.b32): its leading parts,
        # longest first, never a single part.
        parts = bare.split(".")
        for n in range(len(parts) - 1, 1, -1):
            lead = ".".join(parts[:n])
            if lead in table:
                return list(table[lead])
    if " " in query:
        entry = _headings(index).get(query.casefold())
        return list(entry) if entry is not None else None
    return None



def _set_or_called(q: str) -> str:
    """The name a define (-DNAME, its value already taken off) or an Objective-C selector with its
    argument labels (memoryBarrierWithResources:count:) is about; q itself otherwise."""
    for pattern in (_DEFINE, _SELECTOR_CALL):
        written = pattern.match(q)
        if written:
            return written.group(1)
    return q


def package_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    return _package_match(vocabulary_entry(index, query), query, backend)


def _package_match(entry: list[Any] | None, query: str, backend: str | None) -> list[Match]:
    """The card a vocabulary entry places the query on, unless the backend filter excludes its package."""
    if entry is None or entry[0] is None:
        return []
    owner = _PACKAGE_BACKEND.get(entry[1].split(".", 1)[0])
    if backend and owner and backend != owner:
        return []
    return [Match(entry[0], SCORE_PACKAGE, query, "package", owner)]


SCORE_OPTION = 88.5  # a tool's option that its vocabulary file places on a card (nvcc --use_fast_math)
_OPTION_TOKEN = re.compile(r"^(--?[A-Za-z0-9][A-Za-z0-9_.+:-]*?)(?:=.*)?$")


def option_entries(index: Index, query: str) -> tuple[str, list[list[Any]]]:
    """The option a command line or a bare flag names (`nsys profile --cudabacktrace=all`, `-arch=sm_90`)
    and its entries [tool, card, section, release], narrowed to the tool the line names when it names
    one; ("", []) when the query holds no listed option."""
    table = index.get("tool_options") or {}
    if not table:
        return "", []
    tokens = query.split()
    named = [t for t in tokens if t in _tool_commands(index)]
    for token in tokens:
        spelled = _OPTION_TOKEN.match(token)
        if not spelled:
            continue
        option = spelled.group(1)
        entries = table.get(option) or []
        if named:
            entries = [e for e in entries if e[0] in named]
        value = token.partition("=")[2]
        if len(entries) > 1 and value:
            # A value that names one of the tools (-std=metal4.0 is the metal compiler's, not nvcc's -std).
            entries = [e for e in entries if value.startswith(e[0])] or entries
        if entries:
            return option, entries
    return "", []


def option_asked(query: str, entries: list[list[Any]]) -> bool:
    """Whether a command line asks about its option: the option alone, or after the tool that lists it.
    Inside another tool's line (xcrun metallib a.air -o a.metallib) the other words still count."""
    return bool(entries) and (query.startswith("-") or query.split()[0] in {e[0] for e in entries})


_TARGET_FEATURES = re.compile(r"^[+-][a-z][a-z0-9.-]*(?:,[+-][a-z][a-z0-9.-]*)*$")


def feature_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """An LLVM target-feature string (+wavefrontsize64,-wavefrontsize32): clang turns each -mNAME flag
    into the feature +NAME, so the first enabled feature is read as that flag."""
    if not _TARGET_FEATURES.match(query):
        return []
    for feature in query.split(","):
        if feature.startswith("+"):
            found = option_matches(index, "-m" + feature[1:], backend)
            if found:
                return [Match(m.concept, m.score - 0.5, feature, "option", m.backend) for m in found]
    return []


def option_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """The card a listed option is about. Options of different tools that share a spelling and are
    about different things (-o, -G) answer nothing unless the line names its tool."""
    return _option_match(*option_entries(index, query), backend)


def _option_match(option: str, entries: list[list[Any]], backend: str | None) -> list[Match]:
    cards = {e[1] for e in entries}
    if backend is not None or len(cards) != 1 or None in cards:
        return []
    return [Match(str(cards.pop()), SCORE_OPTION, option, "option", None)]


def error_message(index: Index, query: str) -> list[str] | None:
    """[error name, card, API and release] of the error string a query is or quotes (`RuntimeError: CUDA
    error: an illegal memory access was encountered`). A string of four words or more is found anywhere
    in the query; a shorter one (out of memory) only as the whole query or after the word "error"."""
    cut = _ELLIPSIS.search(query)
    key = message_key(query[:cut.start()] if cut else query)
    # A quote cut short ("... was aborted..."): the end of the query may be the start of a message.
    quoted = key.split()
    starts = [" ".join(quoted[i:]) for i in range(len(quoted) - _QUOTED_START_WORDS + 1)] if cut else []
    best: list[str] | None = None
    for message, name, card, api in index.get("error_messages") or ():
        words = message.count(" ") + 1
        if words < 2 or best is not None and len(message) <= len(best[0]):
            continue
        anywhere = words >= 4 and f" {message} " in f" {key} "
        begun = any(message.startswith(start + " ") for start in starts)
        if anywhere or begun or key == message or key.endswith(f"error {message}"):
            best = [message, name, card, api]
    return best[1:] if best else None


_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026)\s*$")
_QUOTED_START_WORDS = 5  # a message's first five words are enough to be told apart from prose


def message_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """An error string: the row of the error it belongs to, else the card its vocabulary names."""
    found = error_message(index, query)
    if found is None:
        return []
    name, card, _ = found
    rows = _exact(index, name, backend)[0].values()
    return [Match(m.concept, SCORE_OPTION, name, "message", m.backend) for m in rows] or \
        ([Match(card, SCORE_OPTION - 0.5, name, "message", None)] if backend is None else [])


_HEADING_VERB = re.compile(r"^(?:using|creating|choosing|setting|selecting|managing|understanding|configuring|"
                           r"enabling|allocating|launching|synchronizing|querying|recording|capturing|"
                           r"handling|working with)\s+(?:an?\s+|the\s+)?(.+)$", re.IGNORECASE)


def heading_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    heading = _HEADING_VERB.match(query)
    if not heading:
        return []
    topic = heading.group(1)
    if all(_stem(w) in QUALIFIERS for w in _words(topic)):
        return []  # "Debugging Triton" is not about Triton as a whole
    for form in dict.fromkeys((topic, topic[:-1] if topic.endswith("s") and not topic.endswith("ss") else topic)):
        found = _exact(index, form, backend)[0]
        if found:
            return [Match(m.concept, round(SCORE_WORDS - (100.0 - m.score) / 100.0 - 0.5, 2), m.matched, "words", m.backend)
                    for m in found.values()]
    return []


SCORE_FAMILY = 88.0  # a profiler counter named by a documented prefix (smsp__..., SQ_...)
_COUNTER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*__?[A-Za-z0-9_.]*[A-Za-z0-9]$")


def name_family(index: Index, query: str) -> list[Any] | None:
    """[prefix, card, tool, unit] of the counter family whose prefix begins `query`, or None."""
    if not _COUNTER_NAME.match(query):
        return None
    for family in index.get("counter_families") or ():
        if query.startswith(family[0]) and len(query) > len(family[0]):
            return list(family)
    return None


def family_matches(index: Index, query: str) -> list[Match]:
    family = name_family(index, query)
    return [Match(family[1], SCORE_FAMILY, query, "family", None)] if family else []


SCORE_WORDS = 86.0  # every word of a several-word query is in one label ("atomic add float" lacks one)
STOPWORDS = frozenset({"a", "an", "the", "of", "on", "in", "for", "to", "with", "and", "or", "how", "what", "is",
                       "vs", "versus", "do", "i", "use", "using", "my", "over", "between", "across", "within",
                       "inside", "into", "from", "via", "by", "at", "when", "why", "does", "can"})
_SUFFIXES = ("ations", "ators", "ation", "ator", "ing", "ed", "es", "e", "s")


def _stem(word: str) -> str:
    """A word's stem for matching: "synchronizing", "synchronization" and "synchronize" meet at
    "synchroniz"; "conflicts" finds "conflict". Short words are left as they are."""
    if len(word) > 6:
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and not word.endswith("ss"):
                return word[: -len(suffix)]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _words(text: str) -> list[str]:
    """Words of a label or query, stop words dropped, each cut to its stem."""
    return [_stem(w) for w in re.split(r"[^0-9a-z]+", text.casefold()) if w and w not in STOPWORDS]


_T = TypeVar("_T")


def _once_per_index(build: Callable[[Index], _T]) -> Callable[[Index], _T]:
    """`build(index)` computed once per index: the tables lookup derives from the labels and cards. One
    index is kept at a time (a rebuilt glossary replaces it)."""
    memo: dict[str, _T] = {}

    @functools.wraps(build)
    def cached(index: Index) -> _T:
        key = index.hash or str(id(index))
        got = memo.get(key)
        if got is None:
            memo.clear()
            got = memo[key] = build(index)
        return got

    return cached


@_once_per_index
def _twin_prefixes(index: Index) -> list[tuple[str, str]]:
    """[HIP prefix, CUDA prefix] pairs by which the rows' HIP spellings differ from their CUDA names
    (hip/cuda, HIP_/CUDA_, hip/cu, hipblas/cublas, hipcub::/cub::), each shown by at least ten rows with
    the same rest of the name; longest HIP prefix first, then the pair most rows show. Learnt from the
    rows, so a family the glossary pairs brings its own."""
    hip = SIDE_ORDER.index("hip")
    names_in_order = names(index)
    counts: dict[tuple[str, str], int] = {}
    for spelling, codes in counterpart_spellings(index).items():
        for code in codes:
            if code % 8 != hip:
                continue
            cuda = names_in_order[code // 8]
            n = len(os.path.commonprefix([spelling[::-1], cuda[::-1]]))
            if n >= 3 and n < len(spelling) and n < len(cuda):
                pair = (spelling[:-n], cuda[:-n])
                counts[pair] = counts.get(pair, 0) + 1
    return [p for p, n in sorted(counts.items(), key=lambda pn: (-len(pn[0][0]), -pn[1], pn[0])) if n >= 10]


SCORE_TWIN = FUZZY_CEILING - 0.5  # a HIP name no row spells, read as its CUDA twin's row (hipStreamGetId)


def twin_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A HIP API name that no row spells (a newer release's hipStreamGetId, a flag HIPIFY's tables
    leave out) answers the row of the CUDA name it is spelled after, when such a row exists: the
    concept is that row's, and the row says what its HIP side is known to be. A name is read so only
    through a prefix pair the rows themselves show (_twin_prefixes)."""
    if backend not in (None, "hip") or not _code_like(query) or " " in query:
        return []
    found: list[tuple[int, int, str, str]] = []
    for hip_prefix, cuda_prefix in _twin_prefixes(index):
        if query.startswith(hip_prefix) and len(query) > len(hip_prefix):
            twin = cuda_prefix + query[len(hip_prefix):]
            found += [(-len(hip_prefix), FAMILY_RANK.get(row.family or "", 5), twin, row.concept)
                      for row, side in rows_for(index, twin) if side == "cuda" and row.concept]
    if not found:
        return []
    # The longest prefix read decides; among its twins the runtime's name before the driver's, as
    # find_rows orders them (hipStreamGetId: cudaStreamGetId before cuStreamGetId).
    _, _, twin, concept = min(found)
    return [Match(concept, SCORE_TWIN, twin, "twin", "cuda")]


@_once_per_index
def _headings(index: Index) -> dict[str, list[Any]]:
    """The vocabulary's names of several words (headings, debugger commands) by their case-folded
    spelling: a heading is typed in any case."""
    return {name.casefold(): entry for name, entry in (index.get("vocabulary") or {}).items() if " " in name}


@_once_per_index
def _tool_commands(index: Index) -> frozenset[str]:
    """The commands the tool vocabularies list (nvcc, rocprofv3), gathered once per index."""
    return frozenset(entry[0] for entries in (index.get("tool_options") or {}).values() for entry in entries)


@_once_per_index
def _rarity(index: Index) -> dict[str, float]:
    """How rare each label word is, 0 (in the most labels) to 1 (in one label): inverse document
    frequency over the labels, scaled; computed once per index."""
    import math

    df: dict[str, int] = {}
    for entry in index["labels"]:
        for w in set(_words(entry[0])):
            df[w] = df.get(w, 0) + 1
    top = math.log(max(df.values(), default=1) + 1.0)
    return {w: 1.0 - math.log(n) / top for w, n in df.items()}


# Words that say how a thing is asked about, not what it is ("quadgroup functions", "shuffle API"):
# a label need not carry them.
FILLER = frozenset(_stem(w) for w in ("function", "api", "behavior", "behaviour", "example", "explained", "overview",
                                     "tutorial", "question", "ops", "usage", "issue", "various"))
# The vocabulary a query is asked in ("CUDA streams", "AMD MI300X ISA"): it says where, not what.
QUALIFIERS = frozenset(_stem(w) for w in ("cuda", "hip", "rocm", "metal", "mlx", "triton", "amd", "nvidia", "apple"))
# AMD's words for a warp: a label that says warp also answers a query that says wave or wavefront.
WARP_WORDS = frozenset(_stem(w) for w in ("wave", "wavefront"))
COMMON = 0.7  # a word this common or more (rarity at most this) may be left out of a label
SCORE_SPAN = 85.0  # a term inside a longer query: a code symbol, or a name of several words
_TARGET_NAME = re.compile(r"^(?:gfx[0-9a-f]{3,4}|(?:sm|compute)_\d{2,3}[af]?)$", re.IGNORECASE)


def _head_word(phrase: str) -> str:
    """The last word of a noun phrase, which names the thing ("Floating-Point Sanitizer" is a sanitizer),
    taken before an abbreviation in brackets ("... Sanitizer (FpSan)"); stemmed as _words stems."""
    spelled = _words(re.sub(r"\s*\([^()]*\)$", "", phrase))
    return spelled[-1] if spelled else ""


def word_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """Several-word queries matched to one label by their words: every word in the label ("memory
    fence" finds the fence concepts), every word but filler ("quadgroup functions"), every word but one
    common word of three or more ("cooperative kernel launch" finds "cooperative launch", never "kernel
    launch": the word left out must not be the one that tells the concepts apart), or the whole of a label of two words or more that makes up at least half of the
    query ("warp level branch divergence" holds "warp divergence"). The label with the fewest other
    words wins, so the closest name ranks first."""
    words = set(_words(query))
    if len(words) < 2 or " " not in query.strip():
        return []  # a code spelling (simd_shuffle_down) is one name, not a phrase
    if any(_code_like(t) for t in query.split()):
        return []  # a code symbol in a phrase is a term of its own (span_matches), not a word
    content = (words - QUALIFIERS) or words
    rarity = _rarity(index)
    # The head word names the thing (_head_word): it is never the one common word a label may leave out.
    head = _head_word(query)

    def cost(missing: set[str]) -> float:
        # Leaving out a rare word ("cooperative") costs more than a common one ("kernel").
        return sum(1.0 + rarity.get(w, 1.0) for w in missing)

    found: dict[str, tuple[float, int, str, str, str | None]] = {}
    for label, cid, kind, label_backend in index["labels"]:
        if backend and label_backend and label_backend != backend:
            continue
        have = set(_words(label))
        if "warp" in have:
            have |= WARP_WORDS & words  # "wave reduction" is a warp reduction in AMD's words
        missing = words - have
        if not missing:
            score = SCORE_WORDS
        elif (core := content - FILLER) and core <= have and (len(core) >= 2 or have == core):
            score = SCORE_WORDS - 1.0 * len(content - have)
        elif not content - have and content != words and have <= words:
            score = SCORE_WORDS - 0.5  # only the vocabulary's name is left out ("Metal function constants")
        elif len(missing) == 1 and len(words) >= 3 and len(words & have) >= 2 and head not in missing \
                and rarity.get(next(iter(missing)), 1.0) <= COMMON:
            score = SCORE_WORDS - cost(missing)
        elif len(have) >= 2 and have <= words and 2 * len(have & content) >= len(content):
            score = SCORE_WORDS - 1.0 - cost(content - have)
        else:
            continue
        extra = len(have - words)
        cur = found.get(cid)
        if cur is None or (score, -extra) > (cur[0], -cur[1]):
            found[cid] = (score, extra, label, kind, label_backend)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    # Closer names first: the score drops a little with each word the label has beyond the query.
    return [Match(cid, round(score - min(extra, 5) * 0.2, 1), label, "words", b) for cid, (score, extra, label, _, b) in ranked]


_CODE_TOKEN = re.compile(r"[_.:(\d]|[a-z][A-Z]")
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]{2,}$")
_QUANTITY = re.compile(r"^\d+(?:\.\d+)?-?(?:bits?|bytes?|b|kb|kib|mb|mib|gb|gib|way|wide|lane)$", re.IGNORECASE)  # 8-bit, 48kb
_CAPS_NAME = re.compile(r"^[A-Z]{2,}[a-z]{1,2}$")  # ROCk, ROCr, HIPify-style names: capitals, then a tail
_MIXED_NAME = re.compile(r"^[A-Z]{2,}[A-Z][a-z]{3,}[A-Za-z0-9]*$")  # MPSGraph, RMSNorm, MTLBuffer: an acronym, then a word


def _code_like(token: str) -> bool:
    """A token written as code (__syncthreads, tl.constexpr, MTLBuffer, sm_80, Apple9), not a word."""
    return bool(_CODE_TOKEN.search(token)) and any(ch.isalpha() for ch in token) and token.casefold() not in QUALIFIERS \
        and not _QUANTITY.match(token)


def _term_like(token: str) -> bool:
    """A token that can name a term on its own: code, or an acronym (WMMA, PTX); the vocabularies' own
    names (CUDA, ROCm) only say where, and filler (API) says nothing."""
    folded = token.casefold()
    return _code_like(token) or ((bool(_ACRONYM.match(token)) or bool(_CAPS_NAME.match(token))
                                  or bool(_MIXED_NAME.match(token)))
                                 and folded not in QUALIFIERS and folded not in FILLER)


def _split_code(query: str) -> list[str]:
    """A query's tokens, split at spaces, commas and `=` outside brackets: a call or a template with its
    arguments (`@triton.autotune(configs=[...])`, `texture2d<float, access::read>`) stays one token."""
    tokens: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in query:
        if ch in "([<{" and (depth or (cur and (cur[-1].isalnum() or cur[-1] in "_."))):
            depth += 1  # only the arguments of a name (f(x), T<a, b>), not a bracket of its own ([[ attr ]])
        elif ch in ")]>}" and depth:
            depth -= 1
        if depth == 0 and (ch.isspace() or ch in ",="):
            tokens.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    tokens.append("".join(cur))
    return [t for t in (t.strip(":;\"'`") for t in tokens) if t]


def _tool_name(index: Index, token: str) -> bool:
    """A tool's command or a hyphenated name (nvdisasm, cuda-gdb, rocm-smi, quad-group) that a card
    spells exactly: a term inside a sentence, though no code. A plain word is one only as a symbol of a
    toolchain or profiling card: `kernel`, `device` or `grid` are symbols of other cards, and words."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*", token) or len(token) < 5:
        return False
    exact = _lookups(index, token)[0].get(token, ())
    if "-" in token:
        # A hyphenated name as a sentence writes it (Nvidia-SMI for nvidia-smi) is still that name.
        return bool(exact) or any("-" in label for label, *_ in _lookups(index, token)[1].get(token.casefold(), ()))
    if not token.islower():
        return False
    # A tool typed in lower case that a toolchain or profiling card names (omniperf for Omniperf); a
    # vocabulary's own name (metal, triton) only says where.
    folded = _lookups(index, token)[1].get(token, ()) if _stem(token) not in QUALIFIERS else ()
    return any(
        kind == "symbol" and index["concepts"][cid]["category"] in ("toolchain", "profiling")
        for _, cid, kind, _ in exact) or any(
        kind != "symbol" and label[:1].isupper() and index["concepts"][cid]["category"] in ("toolchain", "profiling")
        for label, cid, kind, _ in folded)


def _own_word(index: Index, token: str) -> bool:
    """A plain word that is by itself the whole name or alias of one card and occurs in no other label
    (hipification): a term inside a sentence, where a common word (kernel, memory) is not."""
    if not re.fullmatch(r"[a-z]{7,}", token.casefold()):
        return False
    if _rarity(index).get(_stem(token.casefold()), 0.0) < 0.99:
        return False
    entries = _lookups(index, token)[1].get(token.casefold(), ())
    return len({cid for _, cid, _, _ in entries}) == 1 and all(kind != "symbol" for _, _, kind, _ in entries)


def _exact_or_qualified(index: Index, span: str, backend: str | None) -> dict[str, Match]:
    """_exact, or failing it the qualified spellings of a bare code name (scaled_dot_product_attention)."""
    found = _exact(index, span, backend)[0] or {m.concept: m for m in package_matches(index, span, backend)}
    if found or " " in span:
        return found
    return _agreed_qualified(index, qualified_names(index, code_name(span)), backend)


def _wider_phrase_first(query: str, phrase: list[Match], spans: list[Match]) -> list[Match]:
    """Phrase and span matches together, a label whose words cover more of the query's words ranked above
    a shorter term found inside it: "Command buffer reports errors" is about command buffer errors
    (three of its words), not command buffers (two)."""
    if not phrase or not spans:
        return phrase + spans
    asked = {_stem(w) for w in _words(query)}

    def covered(m: Match) -> int:
        return len({_stem(w) for w in _words(m.matched)} & asked)

    top = max(spans, key=lambda m: m.score)
    lifted = [Match(m.concept, round(max(m.score, top.score + 0.01), 2), m.matched, m.kind, m.backend)
              if covered(m) > covered(top) and covered(m) >= 3 else m for m in phrase]
    return lifted + spans


def span_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A term written inside a longer query: a code symbol anywhere in it ("__syncthreads inside an if",
    "BLOCK_SIZE tl.constexpr"), a tool's command or a hyphenated name ("Mastering the cuda-gdb tool"), or
    a name of two words or more that makes up at least half of its words ("out of resource: shared
    memory"), or of three words or more anywhere in it. Plain single words are never taken alone: "linux
    kernel" is not a GPU kernel. A code symbol ranks above a name; a name that leaves fewer words out
    ranks higher."""
    tokens = _split_code(query)
    if len(tokens) < 2:
        return []
    content = set(_words(query))
    content = (content - QUALIFIERS - FILLER) or content
    # A name written in mixed case (MPSGraph, RMSNorm) is a term of a sentence, unless a code symbol
    # beside it names the question ("MTLDevice newLibrary source").
    coded = any(_code_like(t) for t in tokens)
    # A vendor's product name ("AMD Ryzen AI 9 HX 370"): its brand and variant words and model numbers
    # are parts of the name, not terms ("AI" is arithmetic intensity's abbreviation elsewhere).
    branded = bool({t.casefold() for t in tokens} & _VENDOR_BRANDS)
    out: list[Match] = []
    for n in range(len(tokens) - 1, 0, -1):
        for i in range(len(tokens) - n + 1):
            span = " ".join(tokens[i:i + n])
            if branded and all(t.casefold() in PRODUCT_WORDS or t.isdigit() for t in tokens[i:i + n]):
                continue
            covered = set()
            if n == 1:
                if not (_term_like(span) or _tool_name(index, span) or _own_word(index, span)):
                    continue
                if coded and not _code_like(span) and _MIXED_NAME.match(span):
                    continue
                # A code symbol names the question; a plain acronym (SIMD, PTX) is one of its words and
                # ranks below a name that covers more of them ("SIMD shuffle up/down").
                score = SCORE_SPAN if _code_like(span) else SCORE_SPAN - 0.5 * len(content - set(_words(span)))
                if _TARGET_NAME.match(span):
                    # A build target beside another term is the question's context ("gfx950 mxfp4", "unsafe
                    # atomics test for gfx90a"): the term answers, the target only when nothing else does.
                    score -= 1.5
            else:
                covered = set(_words(span)) & content
                if len(covered) < 2:
                    continue
                # A name of three words or more in a long sentence ranks below one that makes up half of
                # it, and a name of two words there lower still.
                weak = 2 * len(covered) < len(content) and len(covered) < 3
                score = SCORE_SPAN - 0.5 * len(content - covered) - (1.0 if 2 * len(covered) < len(content) else 0.0) \
                    - (1.0 if weak else 0.0)
            found = _exact_or_qualified(index, span, backend)
            if n > 1 and 2 * len(covered) < len(content) and len(found) > 1:
                continue  # a name that only part of a long sentence holds, shared by several cards: no answer
            if n > 1 and weak and any(m.kind == "symbol" for m in found.values()):
                continue  # two words of a long sentence that spell a symbol are words, not the symbol
            for m in found.values():
                out.append(Match(m.concept, round(score - (100.0 - m.score) / 100.0, 2), span, "span", m.backend))
    return out


_VENDOR_BRANDS = frozenset({"amd", "nvidia", "apple", "intel", "qualcomm"})
SCORE_PRODUCT = 84.0  # a chip the summary of an architecture or GPU-family card names
# Words around a chip's model name that say which variant or brand, not which generation.
PRODUCT_WORDS = frozenset({"amd", "nvidia", "apple", "instinct", "radeon", "geforce", "accelerator", "gpu", "apu",
                           "superchip", "grace", "max", "pro", "ultra", "sxm", "sxm5", "pcie", "nvl", "mini", "chip",
                           "mac", "studio", "macbook", "ai", "series", "xt", "xtx", "gre", "ti", "super",
                           "laptop", "notebook", "mobile", "desktop", "dgx", "hgx", "spark", "station", "air", "imac",
                           "ipad"})
# Words of a computer's name around its chip ("M2 Ultra Mac Studio", "M1 MacBook Air"): the chip decides.
_COMPUTER_WORDS = frozenset({"mac", "macbook", "studio", "mini", "air", "imac", "ipad", "laptop", "notebook", "desktop"})
# Spec words after a chip's name ("M2 Ultra, 24 cores", "H100 80GB", "M5 Max (128GB)"): a count and what it counts.
_SPEC_TAIL = re.compile(r"[,;]?\s+\(?\d+(?:\.\d+)?\s*-?(?:gpu\s+)?(?:cores?|gb|gib|tb|w|cus?|sms?)\b.*$", re.IGNORECASE)
# A consumer card is a series word and a number: "RX 9070 XT", "RTX 5090", "RTX PRO 6000", "RTX 50 series".
# A memory size before a chip's name ("48 GB M5 Pro", "36gb Mac Studio"): the configuration, not the chip.
_SPEC_HEAD = re.compile(r"^\(?\d+(?:\.\d+)?\s*-?(?:gb|gib|tb)\)?\s+(?=\S)", re.IGNORECASE)
_SERIES_PRODUCT = re.compile(r"\b(RTX|GTX|RX)\s+(?:PRO\s+)?(\d{2,4})\b")
_SERIES_WORDS = ("rtx", "gtx", "rx")
_PRODUCT_TOKEN = re.compile(r"\b(?:[A-Z]{1,3}\d{2,4}[A-Z]{0,2}|M\d)\b")
_NOT_PRODUCT = ("FP", "BF", "TF", "INT", "SM", "CC")  # number formats and targets, not chips
_GLUED_VARIANT = re.compile(r"^([a-z]{1,3}\d{1,4}[a-z]{0,2}?)(max|pro|ultra)$")


def _is_architecture(concept: dict[str, Any]) -> bool:
    """A card that is a GPU generation or family (NVIDIA Blackwell architecture, Apple GPU family), not
    a card about architectures (compute capability)."""
    return concept["category"] == "hardware" and str(concept["title"]).casefold().endswith(("architecture", "family"))


@_once_per_index
def _products(index: Index) -> dict[str, str]:
    """Chip model names (GH200, MI300A, M2) -> the architecture or GPU-family card whose summary names
    them, where the earliest mention in a summary wins (a card names its own chips first and its rivals
    last); computed once per index."""
    first: dict[str, tuple[float, str]] = {}
    for cid, c in index["concepts"].items():
        if not _is_architecture(c):
            continue
        summary = c["summary"]
        found = [(m.start(), m.group(0)) for m in _PRODUCT_TOKEN.finditer(summary)]
        found += [(m.start(), m.group(1) + m.group(2)) for m in _SERIES_PRODUCT.finditer(summary)]
        for start, token in found:
            if token.startswith(_NOT_PRODUCT):
                continue
            where = (start / max(len(summary), 1), cid)
            if token.casefold() not in first or where < first[token.casefold()]:
                first[token.casefold()] = where
    return {t: cid for t, (_, cid) in first.items()}


def product_matches(index: Index, query: str) -> list[Match]:
    """A GPU or chip that has no spec sheet but whose generation a card describes: "M2 Max", "m2max",
    "MI300A", "AMD Instinct MI300A Accelerator", "GH200" land on the Apple GPU family, CDNA3 and Hopper
    cards, which name those chips. The query must be one model name, with brand and variant words
    (AMD, Instinct, Max, Ultra, SXM ...) around it and nothing else."""
    query = _SPEC_HEAD.sub("", _SPEC_TAIL.sub("", query))
    chip = " ".join(w for w in query.split() if w.casefold() not in _COMPUTER_WORDS)
    if chip and chip != query:
        listed = vocabulary_entry(index, chip)
        if listed is not None and listed[0] is not None:
            return [Match(listed[0], SCORE_PRODUCT, chip, "product", None)]
    named = _variant_named(index, query)
    if named:
        return named
    tokens = [t for t in re.split(r"[\s(),]+", query.casefold()) if t and t not in PRODUCT_WORDS]
    products = _products(index)
    # "RTX 5090", "RX 9060": the series word and the number are one model name.
    # "5090 RTX": the same two words in the other order.
    for i in range(len(tokens) - 1):
        if tokens[i] in _SERIES_WORDS and tokens[i + 1].isdigit():
            tokens[i:i + 2] = [tokens[i] + tokens[i + 1]]
            break
        if tokens[i].isdigit() and tokens[i + 1] in _SERIES_WORDS:
            tokens[i:i + 2] = [tokens[i + 1] + tokens[i]]
            break
    arch = None
    if len(tokens) == 2:
        # "RTX PRO 6000 Blackwell": a model name with the generation it belongs to spelled out.
        generation_cards = _architecture_names(index)
        generations = [t for t in tokens if t in generation_cards]
        if len(generations) == 1:
            arch = generation_cards[generations[0]]
            tokens = [t for t in tokens if t != generations[0]]
    if len(tokens) != 1:
        return []
    token = tokens[0]
    glued = _GLUED_VARIANT.match(token)
    if glued and glued.group(1) in products:
        token = glued.group(1)
    cid = products.get(token)
    series = re.match(r"^(rtx|gtx|rx)(\d)(\d)\d\d$", token)
    if cid is None and series:
        # A model of a series the card names: RTX 5090 is of the RTX 50 series, RX 9060 of the RX 9000.
        p, a, b = series.groups()
        cid = products.get(p + a + b) or products.get(p + a + "000")
    if cid is None and arch is not None and (series or _PRODUCT_TOKEN.fullmatch(token.upper())):
        cid = arch
    return [Match(cid, SCORE_PRODUCT, token.upper(), "product", None)] if cid else []


_VARIANT = re.compile(r"\b(M\d)\s+(Max|Pro|Ultra)\b")


def _variant_named(index: Index, query: str) -> list[Match]:
    """A chip variant ("M2 Ultra") that one hardware or interconnect card's summary names in so many
    words: that card (the die-to-die card for an Ultra) before the family card that names the chip."""
    found = _VARIANT.search(query)
    if not found or set(re.split(r"[\s(),]+", _VARIANT.sub("", query).casefold())) - PRODUCT_WORDS - {""}:
        return []
    phrase = found.group(1) + " " + found.group(2)
    owners = [cid for cid, c in index["concepts"].items()
              if c["category"] in ("hardware", "interconnect") and phrase in c["summary"]]
    return [Match(owners[0], SCORE_PRODUCT, phrase, "product", None)] if len(owners) == 1 else []


@_once_per_index
def _architecture_names(index: Index) -> dict[str, str]:
    """Generation names (blackwell, cdna3, rdna4) -> their architecture card: a one-word alias or name
    of a hardware card titled as an architecture; computed once per index."""
    out: dict[str, str] = {}
    for label, cid, kind, _ in index["labels"]:
        c = index["concepts"][cid]
        if kind in ("alias", "name") and " " not in label and _is_architecture(c) and label.isalnum():
            out.setdefault(label.casefold(), cid)
    return out


SCORE_TEXT = 77.0  # an identifier no label holds, named in one card's text more than in any other
_FLAG_VALUE = re.compile(r"^-{0,2}([A-Za-z_][\w.:-]*?)(?:=.*)?$")


@_once_per_index
def _concept_texts(index: Index) -> dict[str, str]:
    """Each concept's prose (summary and every backend's caveat), joined once per index."""
    texts = {}
    for cid, c in index["concepts"].items():
        parts = [c["summary"]] + [t.get("caveat") or "" for t in c["terms"].values()]
        texts[cid] = "\n".join(parts)
    return texts


_ISA_TYPE = re.compile(r"_[bfiu](?:8|16|32|64|128)$")  # ds_swizzle_b32, v_add_f32: the operand type
_BUILTIN_PREFIX = re.compile(r"^_*(?:builtin_amdgcn_|builtin_|hip_|nvvm_|nv_)")  # __hip_readfirstlane
_MTL_CONSTANT = re.compile(r"^MTL([A-Z][a-z]+)(\w*)$")  # MTLStorageModeShared -> storageModeShared


def identifier_words(query: str) -> str:
    """A code identifier's words: camelCase, snake_case and dotted parts split apart
    (NVGPUWarpSpecializationPass -> NVGPU Warp Specialization Pass); plain words are kept."""
    out = []
    for token in query.split():
        if _code_like(token):
            token = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", token)
            token = re.sub(r"[_.:()]+", " ", token)
        out.append(token)
    return " ".join(" ".join(out).split())


_FILE_NAME = re.compile(r"^[\w-]+\.(?:py|cu|cuh|h|hpp|hip|c|cc|cpp|cxx|metal|txt|md|json|ya?ml|toml|cfg|sh|ll|s|ptx)$")


def _identifier_variants(token: str) -> list[str]:
    """The spellings under which a card's prose may name an identifier: itself, its last dotted part,
    without an AMDGPU operand-type suffix or a vendor builtin prefix, and an Objective-C Metal constant
    in its Swift spelling."""
    out = [token]
    if _FILE_NAME.match(token):
        return out  # setup.py names a file, not a setup member or a family called setup
    if "." in token:
        last = token.rsplit(".", 1)[1]
        if _code_like(last) or token.startswith(_PY_NAMESPACES):
            # mx.metal.get_peak_memory -> get_peak_memory, tl.advance -> advance (a package's function as
            # prose names it); the plain last word of another dotted name (.intrinsic) is prose
            out.append(last)
        if not token.startswith(_PY_NAMESPACES):
            out.append(token.split(".", 1)[0])  # tensormap.replace: the PTX instruction family
    out.append(_ISA_TYPE.sub("", token))
    out.append(_BUILTIN_PREFIX.sub("", token))
    mtl = _MTL_CONSTANT.match(token)
    if mtl:
        out.append(mtl.group(1).lower() + mtl.group(2))
    if _ISA_MNEMONIC.match(token) and token.isupper():
        # AMD's ISA guides spell mnemonics in capitals (V_ACCVGPR_READ_B32), assembly in lower case.
        low = token.lower()
        out += [low, _ISA_TYPE.sub("", low)]
    return out


_ISA_MNEMONIC = re.compile(r"^(?:[vs]|ds|buffer|global|flat|scratch)_[a-z0-9_]+$", re.IGNORECASE)
_ENV_ASSIGN = re.compile(r"^([A-Z][A-Z0-9]*_[A-Z0-9_]+)=\S*$")  # an environment variable set before a command
_LAUNCHERS = frozenset({"xcrun", "sudo", "env", "python", "python3", "uv", "run", "-m", "-r"})


def command_terms(query: str) -> list[str]:
    """The tokens of a command line or an instruction with operands that can name a term, most telling
    first: `nvcc --list-gpu-code` -> list-gpu-code, nvcc; `-Xptxas -v` -> Xptxas; `s_waitcnt lgkmcnt(0)`
    -> s_waitcnt; `xcrun metallib` -> metallib. Empty unless the query is such a line: a flag in it, a
    launcher (xcrun) first, or an ISA mnemonic first. Flags' values and short flags (-v) say nothing."""
    tokens = query.split()
    if len(tokens) < 2:
        return []
    if _ISA_MNEMONIC.match(tokens[0]):
        return [tokens[0]]  # the operands (vmcnt, lgkmcnt) are the instruction's, not the question
    env = _ENV_ASSIGN.match(tokens[0])
    if env:  # `HSA_XNACK=0 python train.py`, "HSA_XNACK=0 Automatic Page Migration Disabled": the variable
        return [env.group(1)]
    flags = [t for t in tokens if t.startswith("-")]
    if not flags and tokens[0].casefold() not in _LAUNCHERS:
        return []
    out = []
    for t in flags:
        name = _FLAG_VALUE.match(t)
        if name and len(name.group(1)) >= 4:
            out.append(name.group(1))
    out += [t for t in tokens if not t.startswith("-") and t.casefold() not in _LAUNCHERS and "=" not in t]
    return list(dict.fromkeys(out))


def text_mentions(index: Index, query: str) -> list[Match]:
    """An identifier that no label holds but a card's own text names: a compiler flag (-mcumode), an
    environment variable (HSA_XNACK=1), a framework call (mx.metal.get_peak_memory). The card that
    names it most often answers (a mention in the summary counts twice); a tie says nothing. Only a
    single code-like token or acronym is looked up so: plain words occur in prose everywhere."""
    token = query.strip()
    if " " in token:
        for term in command_terms(token):
            found = text_mentions(index, term)
            if found:
                return [Match(found[0].concept, found[0].score - 0.5, found[0].matched, "text", None)]
        return []
    flag = _FLAG_VALUE.match(token)
    if flag is None:
        return []
    token = flag.group(1)
    if not (_code_like(token) or _ACRONYM.match(token) or token != query.strip()):
        return []
    for spelling in dict.fromkeys(_identifier_variants(token)):
        if len(spelling) < 5:
            continue
        pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(spelling) + r"(?![A-Za-z0-9])")
        counts: dict[str, int] = {}
        for cid, text in _concept_texts(index).items():
            n = len(pattern.findall(text)) + len(pattern.findall(index["concepts"][cid]["summary"]))
            if n:
                counts[cid] = n
        if counts:
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
                return []
            return [Match(ranked[0][0], SCORE_TEXT, spelling, "text", None)]
    return []


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


def transpositions(index: Index, query: str, backend: str | None) -> list[Match]:
    """A one-word query that is a label with two neighbouring letters swapped ("shuffel", "occupnacy"):
    one slip, which plain edit similarity counts as two and so leaves below its floor. Five letters or
    more, or four for an acronym typed in capitals against a label in capitals ("VGRP" for VGPR); a
    dropped or changed letter is not a swap ("select" is not "elect")."""
    from rapidfuzz.distance import OSA, Levenshtein

    q_loose = loose(query)
    word = query.strip()
    acronym = len(q_loose) == 4 and word.isalpha() and word.isupper()
    if " " in word or (len(q_loose) < 5 and not acronym):
        return []
    out: list[Match] = []
    member = "_" in word and "." not in word and ":" not in word  # a bare member's name, with a swap in it
    precomputed = index.get("loose") or [loose(e[0]) for e in index["labels"]]
    for entry, key in zip(index["labels"], precomputed):
        label, cid, kind, label_backend = entry
        if backend and label_backend and label_backend != backend:
            continue
        if acronym and not (label.isalpha() and label.isupper()):
            continue
        if member and kind == "symbol" and ("." in label or "::" in label):
            key = loose(re.split(r"\.|::", label)[-1])  # a member typed bare: set_memroy_limit for mx.set_memory_limit
        if len(key) == len(q_loose) and OSA.distance(q_loose, key, score_cutoff=1) == 1 \
                and Levenshtein.distance(q_loose, key, score_cutoff=2) == 2:
            out.append(Match(cid, round(FUZZY_CEILING * (1.0 - 1.0 / len(q_loose)), 1), label, "transposed", label_backend))
    return sorted(out, key=lambda m: (-m.score, m.concept))


@_once_per_index
def _vocabulary(index: Index) -> frozenset[str]:
    """Every word of every label, case-folded; computed once per index."""
    text = "\n".join(entry[0] for entry in index["labels"]).casefold()
    return frozenset(re.findall(r"[0-9a-z]+", text))  # one pass over one string: a cold start pays little


def correct_words(index: Index, query: str) -> str:
    """A phrase with each word that no label holds (five letters or more) replaced by the one label word
    a single slip away: a swapped pair, a dropped, added or changed letter ("bank confilct" -> "bank
    conflict"). A word with no such neighbour, or with several, is left as it is."""
    words = query.split()
    if len(words) < 2:
        return query
    vocab = _vocabulary(index)
    out = []
    for word in words:
        folded = word.casefold()
        if len(folded) < 5 or not folded.isalpha() or folded in vocab:
            out.append(word)
            continue
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        near = [c for c, d, _ in process.extract(folded, vocab, scorer=OSA.distance, score_cutoff=1, limit=4)
                if d == 1 and c[0] == folded[0]]
        out.append(near[0] if len(near) == 1 else word)
    return " ".join(out)


def row_slip(index: Index, query: str) -> str | None:
    """The one row spelling, of any backend, that a long code identifier is a slip of (cudaMemcpyToSymbl,
    hipStreamWaitVaule32): a dropped, added, changed or swapped letter, ten characters or more, and only
    when exactly one spelling is that close."""
    near = _slip_candidates(index, query)
    return near[0] if len(near) == 1 else None


def _slip_candidates(index: Index, query: str) -> list[str]:
    """Every spelling a long code identifier is one slip away from (row_slip's candidates)."""
    token = query.strip()
    if " " in token or len(token) < 10 or not _code_like(token):
        return []
    from rapidfuzz.distance import OSA

    for long, short in _LONG_NAMESPACES:  # mlx.core.fast.layer_nrom is a slip of mx.fast.layer_norm
        if token.startswith(long):
            token = short + token[len(long):]
            break
    return sorted(n for n in _spellings_by_head(index).get(token[:3], ()) if abs(len(n) - len(token)) <= 1
                  and OSA.distance(token, n, score_cutoff=1) == 1)


@_once_per_index
def _spellings_by_head(index: Index) -> dict[str, list[str]]:
    """Every row spelling of any backend, and every name a vocabulary places on a card, by its first three
    characters: what a slip is compared with, gathered once per index rather than per query."""
    out: dict[str, list[str]] = {}
    listed = [n for n, entry in (index.get("vocabulary") or {}).items() if entry[0] and " " not in n]
    symbols = [e[0] for e in index["labels"] if e[2] == "symbol" and " " not in e[0]]  # a card's own spellings
    for n in dict.fromkeys([*names(index), *counterpart_spellings(index), *listed, *symbols]):
        out.setdefault(n[:3], []).append(n)
    return out


def row_slips(index: Index, query: str, backend: str | None) -> list[Match]:
    """The concept of the row or vocabulary name a long identifier is a slip of (row_slip)."""
    near = row_slip(index, query)
    score = round(FUZZY_CEILING * (1.0 - 1.0 / len(query.strip())), 1)
    if not near:
        # One slip from several names (tl.randin4x: tl.randint4x and tl.randn4x) that all sit on one card,
        # as vocabulary names: that card, whichever was meant.
        candidates = _slip_candidates(index, query)
        if len(candidates) < 2 or any(rows_for(index, n) for n in candidates):
            return []
        found = [package_matches(index, n, backend) for n in candidates]
        cards = {m.concept for ms in found for m in ms}
        if len(cards) != 1 or not all(found):
            return []
        return [Match(found[0][0].concept, score, candidates[0], "fuzzy", found[0][0].backend)]
    rows = rows_for(index, near)
    if not rows:  # a card's symbol (MTLFunctionConstant) or a vocabulary's name (triton.heuristics)
        return [Match(m.concept, score, near, "fuzzy", m.backend) for m in _named_exactly(index, near, backend)]
    if not rows[0][0].concept or (backend and backend != rows[0][1]):
        return []
    return [Match(rows[0][0].concept, score, near, "fuzzy", rows[0][1])]


SCORE_PREFIX = 78.0


def prefix_family(index: Index, query: str, backend: str | None) -> list[Match]:
    """A code name in no label that extends a family of names the glossary knows: one variant of
    __builtin_amdgcn_mfma_* is a warp MMA like the variants listed. The longest shared prefix (whole
    underscore-separated parts, three or more) decides, and only when one concept holds most of the
    names that start with it; otherwise nothing is said."""
    token = query.strip()
    if " " in token or not _code_like(token):
        return []
    parts = token.split("_")
    named = [i for i, part in enumerate(parts) if part]
    for keep in range(len(parts) - 1, 0, -1):
        if sum(1 for i in named if i < keep) < 3:
            break
        prefix = "_".join(parts[:keep]) + "_"
        counts: dict[str, int] = {}
        for label, cid, kind, label_backend in index["labels"]:
            if kind in ("symbol", "name") and label.startswith(prefix) and not (backend and label_backend and label_backend != backend):
                counts[cid] = counts.get(cid, 0) + 1
        if not counts:
            continue
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        total = sum(counts.values())
        top, n = ranked[0]
        if total >= 2 and 2 * n >= total and (len(ranked) == 1 or n > ranked[1][1]):
            return [Match(top, SCORE_PREFIX, prefix + "*", "prefix", backend)]
        return []  # the family is split between concepts: say nothing
    return []


SCORE_LIBRARY = SCORE_PREFIX - 1.0
# Cards a library's name can stand for when its namespace or prefix leads an unknown member's name: the
# libraries themselves, matrix libraries (CUTLASS, rocWMMA), profiling libraries (NVTX, ROCm SMI) and
# communication libraries (NVSHMEM). Not the toolchain's or the languages' cards: "hip", "metal" and "mlx"
# name whole stacks, and a member of theirs is no more about the stack card than about any other.
_LIBRARY_CATEGORIES = frozenset({"libraries", "matrix", "profiling", "interconnect"})
_LIBRARY_LEAD = re.compile(r"^(?:(?P<ns>[A-Za-z_]\w*)::[A-Za-z_~][\w:]*|(?P<c>[a-z][a-z0-9]*)_[a-z0-9]\w*|(?P<camel>[a-z][a-z0-9]{2,})[A-Z]\w*)$")


def library_prefix(index: Index, query: str, backend: str | None) -> list[Match]:
    """A member no row, list or label holds, under a library's namespace or prefix: rocwmma::load_xyz,
    hipblaslt_ext::GemmInstance (C++ namespaces), rsmi_dev_temp_metric_get (a C prefix before the first
    underscore), ncclCommFoo (the lower-case run before the first capital). The library's card answers when
    the leading part alone is a name or alias of one card, in one of the library categories; the match
    says which prefix decided. A typo of a listed member is caught earlier, by the fuzzy rules."""
    m = _LIBRARY_LEAD.match(query.strip())
    if not m:
        return []
    lead = m.group("ns") or m.group("c") or m.group("camel")
    if m.group("ns"):
        # A member a name list holds (ck_tile::TileGemmShape: TileGemmShape) is that name, whatever its
        # namespace's card.
        entry = vocabulary_entry(index, query.strip().rsplit("::", 1)[-1])
        if entry is not None and entry[0]:
            return [Match(entry[0], SCORE_LIBRARY + 0.5, entry[1], "package", backend)]
    # hipblaslt_ext:: is hipBLASLt's extension namespace: its underscore parts, longest first.
    parts = lead.split("_")
    for end in range(len(parts), 0, -1):
        found, _ = _exact(index, "_".join(parts[:end]), backend)
        named = {c: hit for c, hit in found.items() if hit.kind in ("name", "alias", "id", "symbol")}
        cards = set(named)
        if cards:
            lead = "_".join(parts[:end]) if not m.group("ns") else lead
            # ck_tile is Composable Kernel's own spelling (a symbol) and a counterpart name on the CUTLASS
            # card: the best match decides.
            top = max(hit.score for hit in named.values())
            cards = {c for c, hit in named.items() if hit.score == top}
            break
    if len(cards) > 1:
        # CuTe is also named on Composable Kernel's CUDA side, as its counterpart: the card titled by it.
        cards = {c for c in cards if loose(lead.split("_")[0]) in loose(index["concepts"][c]["title"])}
    if len(cards) != 1:
        return []
    (card,) = cards
    if index["concepts"][card].get("category") not in _LIBRARY_CATEGORIES:
        return []
    sep = "::" if m.group("ns") else ("_" if m.group("c") else "")
    library = Match(card, SCORE_LIBRARY, f"{lead}{sep}*", "prefix", found[card].backend)
    topic = _member_topic(index, query.strip()[len(lead) + len(sep):] if not m.group("ns") else query.strip().rsplit("::", 1)[-1])
    if topic is not None and topic[0] != card:
        # rocprim::device_warp_size is about the warp size first, rocPRIM second.
        return [Match(topic[0], SCORE_LIBRARY + 0.25, topic[1], "prefix", None), library]
    return [library]


def _member_topic(index: Index, member: str) -> tuple[str, str] | None:
    """The card whose name or alias of two or more words a member's own words spell in order
    (device_warp_size, deviceWarpSize: "warp size"), with that name; None where none does or two do."""
    words = [w.casefold() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", member)]
    phrases = _multiword_names(index)
    for n in range(len(words), 1, -1):
        found = {phrases[p]: p for i in range(len(words) - n + 1) if (p := " ".join(words[i:i + n])) in phrases}
        if len(found) == 1:
            return next(iter(found.items()))
        if found:
            return None
    return None


@_once_per_index
def _multiword_names(index: Index) -> dict[str, str]:
    """Names and aliases of two or more plain words -> their one card (a phrase two cards carry is left
    out); computed once per index."""
    owners: dict[str, set[str]] = {}
    for label, cid, kind, _ in index["labels"]:
        key = label.casefold()
        if kind in ("name", "alias") and re.fullmatch(r"[a-z]+(?: [a-z]+)+", key):
            owners.setdefault(key, set()).add(cid)
    return {k: next(iter(v)) for k, v in owners.items() if len(v) == 1}


@_once_per_index
def _qualified_spellings(index: Index) -> list[str]:
    """Every row name, every symbol label and every dotted package name a vocabulary places on a card:
    what a bare or shortened code name is matched against."""
    vocabulary = [spelling for spelling, entry in (index.get("vocabulary") or {}).items() if entry[0] and "." in spelling]
    return names(index) + [e[0] for e in index["labels"] if e[2] == "symbol"] + vocabulary


@_once_per_index
def _binding_forms(index: Index) -> dict[str, str]:
    """Each dotted spelling as a C binding writes it, separators as underscores (mx.fast.metal_kernel ->
    mx_fast_metal_kernel and mlx_fast_metal_kernel) -> the spelling; computed once per index."""
    out: dict[str, str] = {}
    for n in _qualified_spellings(index):
        if "." in n and re.fullmatch(r"[A-Za-z_][\w.]*", n):
            flat = n.replace(".", "_")
            out.setdefault(flat, n)
            if n.startswith("mx."):
                out.setdefault("mlx_" + flat[3:], n)
    return out


@_once_per_index
def _with_argument_forms(index: Index) -> dict[str, list[str]]:
    """Each Objective-C method a row, symbol or vocabulary spells with its first argument's name
    (heapBufferSizeAndAlignWithLength) -> by the part before `With`; computed once per index."""
    out: dict[str, list[str]] = {}
    vocabulary = [spelling for spelling, entry in (index.get("vocabulary") or {}).items() if entry[0]]
    for n in dict.fromkeys(_qualified_spellings(index) + vocabulary):
        base = _WITH_ARGUMENT.match(n)
        if base:
            out.setdefault(base.group(1), []).append(n)
    return out


def method_base_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A method named without its first argument (heapBufferSizeAndAlign): the methods spelled with one,
    when they all land on one card."""
    if not re.fullmatch(r"[a-z]+[A-Z][A-Za-z0-9]*", query):
        return []
    found: dict[str, Match] = {}
    for full in _with_argument_forms(index).get(query, ()):
        for m in _named_exactly(index, full, backend):
            found.setdefault(m.concept, Match(m.concept, round(min(m.score, SCORE_LOOSE) - 2.0, 2), full, "loose", m.backend))
    return list(found.values()) if len(found) == 1 else []


# A Swift method as Apple's documentation names it, with its argument labels: notify(_:atValue:block:).
_SWIFT_SIGNATURE = re.compile(r"^([a-z][A-Za-z0-9]*)\((?:(?:_|[a-z][A-Za-z0-9]*):)+\)$")


def swift_base_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A Swift method whose name drops the noun its Objective-C selector carries (Swift's
    notify(_:atValue:block:) is notifyListener:atValue:block:): the Metal names that are the base
    followed by one more capitalised part, when they all land on one card. A base that is a name itself
    was answered before this step."""
    swift = _SWIFT_SIGNATURE.match(query)
    if not swift or backend not in (None, "metal"):
        return []
    base = swift.group(1)

    def extends(name: str) -> bool:  # base, then one more capitalised part (notify -> notifyListener)
        rest = name[len(base):]
        return name.startswith(base) and rest[:1].isupper() and rest.isalnum()

    longer = {e[0] for e in index["labels"] if extends(e[0])} | set(filter(extends, index.get("vocabulary") or {}))
    found: dict[str, Match] = {}
    for name in sorted(longer):
        entry = vocabulary_entry(index, name)
        named = _named_exactly(index, name, backend) or _package_match(entry, name, backend)
        if entry is not None and entry[0] is None:
            return []  # one of them is a name no card covers: say nothing rather than guess
        for m in named:
            found.setdefault(m.concept, Match(m.concept, round(min(m.score, SCORE_LOOSE) - 3.0, 2), name, "loose", "metal"))
    return list(found.values()) if len(found) == 1 else []


# An LLVM target intrinsic as IR and compiler dumps print it (llvm.amdgcn.mfma.f32.32x32x4f16,
# llvm.nvvm.read.ptx.sreg.tid.x): clang names the builtin that emits it by the same parts joined with
# underscores (__builtin_amdgcn_mfma_f32_32x32x4f16, __nvvm_read_ptx_sreg_tid_x), as clang 19's IR for
# those builtins shows; an overloaded intrinsic adds its operand types (readfirstlane.i32).
# MLIR's ROCDL dialect, which Triton's and other compilers' AMD dumps print, names its ops after the same
# intrinsics (rocdl.s.setprio is llvm.amdgcn.s.setprio).
_LLVM_INTRINSIC = re.compile(r"^(?:llvm\.)?(amdgcn|nvvm|rocdl)\.([a-z0-9_]+(?:\.[a-z0-9_]+)*)$")
_INTRINSIC_BUILTIN = {"amdgcn": "__builtin_amdgcn_", "rocdl": "__builtin_amdgcn_", "nvvm": "__nvvm_"}
_OVERLOAD_TYPE = re.compile(r"^(?:[if]\d+|bf16|v\d+(?:[if]\d+|bf16)|p\d+)$")


def intrinsic_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """An LLVM AMDGPU or NVVM intrinsic: what its clang builtin names, or failing that the family of
    builtins that builtin extends (one MFMA variant among those the rows list)."""
    spelled = _LLVM_INTRINSIC.match(query)
    if not spelled:
        return []
    parts = spelled.group(2).split(".")
    while len(parts) > 1 and _OVERLOAD_TYPE.match(parts[-1]):
        parts.pop()
    builtin = _INTRINSIC_BUILTIN[spelled.group(1)] + "_".join(parts)
    spellings = [builtin]
    if spelled.group(1) == "nvvm":
        # NVVM intrinsics lower to the PTX of the same parts: a special register (read.ptx.sreg.laneid is
        # %laneid) or an instruction (shfl.sync.bfly), which the rows spell.
        sreg = parts[3:] if parts[:3] == ["read", "ptx", "sreg"] else []
        spellings += ["%" + ".".join(sreg)] if sreg else [".".join(parts)]
    for spelling in spellings:
        found = _named_exactly(index, spelling, backend)
        if found:
            return [Match(m.concept, round(min(m.score, SCORE_LOOSE) - 2.0, 2), spelling, "loose", m.backend) for m in found]
    return [Match(m.concept, m.score, builtin, m.kind, m.backend) for m in prefix_family(index, builtin, backend)]


_BINDING_NAME = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}$")


def binding_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A C binding's name of a dotted API (mlx_fast_metal_kernel_config): the longest dotted spelling
    whose underscored form the name is or begins with."""
    if not _BINDING_NAME.match(query):
        return []
    forms = _binding_forms(index)
    parts = query.split("_")
    for end in range(len(parts), 2, -1):
        full = forms.get("_".join(parts[:end]))
        if full:
            return [Match(m.concept, round(min(m.score, SCORE_LOOSE) - 2.0, 2), full, "loose", m.backend)
                    for m in _named_exactly(index, full, backend)]
    return []


# A Metal method as Rust bindings spell it: metal-rs in snake_case (generate_mipmaps), objc2 with the
# selector's colons as underscores after its camel-case head (synchronizeTexture_slice_level).
_RUST_METHOD = re.compile(r"^[a-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$")


def rust_metal_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A Metal framework method as the Rust bindings name it: metal-rs's snake_case is the camel-case
    name (generate_mipmaps is generateMipmaps, the method Objective-C spells generateMipmapsForTexture:),
    objc2's name is the selector's head (synchronizeTexture_slice_level is synchronizeTexture:slice:level:).
    Only names the Metal framework's vocabulary lists count, so a snake_case name of another API is not
    read as a Metal one."""
    if backend not in (None, "metal") or not _RUST_METHOD.match(query):
        return []
    head, *rest = query.split("_")
    name = head if any(c.isupper() for c in head) else head + "".join(p[:1].upper() + p[1:] for p in rest)
    for full in (name, *_with_argument_forms(index).get(name, ())):
        entry = vocabulary_entry(index, full)
        if entry is not None and entry[0] is not None and str(entry[1]).startswith("Metal."):
            return [Match(entry[0], round(SCORE_LOOSE - 2.0, 2), full, "loose", "metal")]
    return []


@_once_per_index
def _metal_names_folded(index: Index) -> dict[str, list[str]]:
    """Metal's C-style names (MTL...) that a label or the vocabulary spells, by their case-folded form."""
    out: dict[str, list[str]] = {}
    for name in dict.fromkeys([e[0] for e in index["labels"]] + list(index.get("vocabulary") or {})):
        if name.startswith("MTL") and name.isalnum():
            out.setdefault(name.casefold(), []).append(name)
    return out


def swift_enum_matches(index: Index, query: str, backend: str | None) -> list[Match]:
    """A Metal enumerator written Swift's way (MTLDispatchType.concurrent): the enumerator its type and
    case name together spell."""
    swift = _SWIFT_CASE.match(query)
    if not swift or backend not in (None, "metal"):
        return []
    for name in _metal_names_folded(index).get((swift.group(1) + swift.group(2)).casefold(), ()):
        found = _named_exactly(index, name, backend)
        if found:
            return [Match(m.concept, round(min(m.score, SCORE_LOOSE) - 2.0, 2), name, "loose", "metal") for m in found]
    return []


def _named_exactly(index: Index, spelling: str, backend: str | None) -> list[Match]:
    """What a full spelling names: a row, symbol, name or alias spelt so, else a package name's card, else
    a label inside it (gl.amd.cdna3.buffer_load is the listed Gluon function, not the CDNA3 card)."""
    exact = list(_exact(index, spelling, backend)[0].values())
    whole = [m for m in exact if loose(m.matched) == loose(spelling)]
    return whole or package_matches(index, spelling, backend) or exact


def _agreed_qualified(index: Index, qualified: list[str], backend: str | None) -> dict[str, Match]:
    """The cards the qualified spellings of a bare name give it, each at the score of a loose match. Where
    they disagree (async_store is a TMA store in one Gluon module and a cluster store in another), only the
    card most of them give counts; a tie gives them all and the caller keeps what it had found, if anything."""
    found: dict[str, Match] = {}
    votes: dict[str, int] = {}
    for full in qualified:
        for m in _named_exactly(index, full, backend):
            votes[m.concept] = votes.get(m.concept, 0) + 1
            if m.concept not in found or m.score > found[m.concept].score:
                found[m.concept] = Match(m.concept, SCORE_LOOSE - 1.0, full, m.kind, m.backend)
    if len(found) > 1:
        most = max(votes.values())
        leaders = [c for c, n in votes.items() if n == most]
        if len(leaders) == 1:
            return {leaders[0]: found[leaders[0]]}
    return found


@_once_per_index
def _spellings_by_leaf(index: Index) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The qualified spellings by their last part, case and underscores aside (rms_norm of
    mx.fast.rms_norm), and the underscored ones by their name without leading underscores (umulhi of
    __umulhi)."""
    leaves: dict[str, list[str]] = {}
    bare: dict[str, list[str]] = {}
    for n in _qualified_spellings(index):
        if "." in n or "::" in n:
            leaves.setdefault(loose(re.split(r"\.|::", n)[-1]), []).append(n)
        if n.startswith("_"):
            bare.setdefault(n.lstrip("_"), []).append(n)
    return leaves, bare


@_once_per_index
def _spellings_by_tail(index: Index) -> dict[str, list[str]]:
    """Each part of a qualified spelling that follows one of its separators (`metal_kernel` and
    `fast.metal_kernel` of mx.fast.metal_kernel) -> the spellings ending so; computed once per index."""
    out: dict[str, list[str]] = {}
    for n in _qualified_spellings(index):
        for m in re.finditer(r"::|\.", n):
            out.setdefault(n[m.end():], []).append(n)
    return out


def qualified_names(index: Index, query: str) -> list[str]:
    """Row names and symbols that spell a code name with a namespace before it (coalesced_group ->
    cg::coalesced_group, fast.metal_kernel -> mx.fast.metal_kernel), when the name itself is no label."""
    token = query.strip().removesuffix("...")
    if " " in token or len(token) < 4 or not re.fullmatch(r"[A-Za-z_][\w.:]*", token):
        return []
    exact, folded, loose_map = _lookups(index, token)
    if exact.get(token) or folded.get(token.casefold()) or rows_for(index, token):
        return []
    if len(token) < 5 and not _ACRONYM.match(token):
        return []
    spelled = _qualified_spellings(index)
    if _SELECTOR.match(token):
        # An Objective-C selector cut short (newFunctionWithName:constantValues:...): the selectors it begins.
        return sorted({n for n in spelled if n.startswith(token) and n != token})
    if _code_like(token) and len(token) >= 6:
        found = set(_spellings_by_tail(index).get(token, ()))
        if found:
            return sorted(found)
    if _term_like(token) and "." not in token and ":" not in token and len(token) >= 4:
        # A member's name in another case or without its underscores (RMSNorm for mx.fast.rms_norm, VMAP
        # for mx.vmap): the qualified spellings whose last part is it, case and underscores aside.
        found = set(_spellings_by_leaf(index)[0].get(loose(token), ()))
        if found:
            return sorted(found)
    # A builtin's name typed without its leading underscores (umulhi for __umulhi).
    return sorted(set(_spellings_by_leaf(index)[1].get(token, ())))


_SELECTOR = re.compile(r"^[a-z]\w*:(?:[a-z]\w*:)*$")  # newFunctionWithName:constantValues:


SCORE_PHRASE = 82.0  # a phrase told by a card's vocabulary as a whole, or by an error's name


@_once_per_index
def _label_words(index: Index) -> dict[str, dict[str, int]]:
    """Each concept's label words -> how many of its labels carry each; computed once per index."""
    out: dict[str, dict[str, int]] = {}
    for label, cid, kind, _ in index["labels"]:
        if kind == "id":
            continue
        counts = out.setdefault(cid, {})
        for w in set(_words(label)):
            counts[w] = counts.get(w, 0) + 1
    return out


def initials(index: Index, query: str, backend: str | None) -> list[Match]:
    """A phrase of three words or more that spells out an acronym a card names: "Core Partitioned
    X-celerator" is CPX, "Single Partition X-celerator" SPX."""
    tokens = query.split()
    if len(tokens) < 3 or not all(t[0].isalpha() for t in tokens):
        return []
    acronym = "".join(t[0] for t in tokens).upper()
    hits = {(cid, b) for label, cid, kind, b in index["labels"]
            if label == acronym and kind in ("name", "alias") and not (backend and b and b != backend)}
    concepts = {cid for cid, _ in hits}
    if len(concepts) != 1:
        return []
    cid = concepts.pop()
    return [Match(cid, SCORE_PHRASE, acronym, "words", min((b or "" for c, b in hits), default=None) or None)]


def error_rows(index: Index, query: str, backend: str | None) -> list[Match]:
    """An error message in words ("capturing stream has unjoined work"): the error code whose name's
    words (cudaErrorStreamCaptureUnjoined: stream, capture, unjoined) are all in it and make up at
    least half of its words; only one code may fit so well."""
    words = set(_words(query))
    if len(query.split()) < 3 or any(_code_like(t) for t in query.split()) or (backend and backend != "cuda"):
        return []
    best: list[tuple[int, str]] = []
    for name in names(index):
        if not name.startswith("cudaError"):
            continue
        have = set(_words(identifier_words(name))) - {"cuda", "error"}
        if len(have) >= 2 and have <= words and 2 * len(have) >= len(words):
            best.append((len(have), name))
    best.sort(reverse=True)
    if not best or (len(best) > 1 and best[0][0] == best[1][0]):
        return []
    rows = rows_for(index, best[0][1])
    concept = rows[0][0].concept if rows else None
    return [Match(concept, SCORE_PHRASE, best[0][1], "words", "cuda")] if concept else []


@_once_per_index
def _text_stems(index: Index) -> frozenset[str]:
    """The stem of every word of every card's text and labels; computed once per index."""
    out: set[str] = set()
    for cid, text in _concept_texts(index).items():
        out.update(_words(text + " " + index["concepts"][cid]["summary"]))
    for label, _, _, _ in index["labels"]:
        out.update(_words(label))
    return frozenset(out)


def phrase_cover(index: Index, query: str, backend: str | None, prose: bool = True) -> list[Match]:
    """A phrase of three words or more in a page's own words, no label, whose words one card's
    vocabulary holds between its names ("stream-ordered pool": stream-ordered allocator, memory pool;
    "Metal frame debugger": GPU frame capture, Xcode Metal debugger profiler): every content word, or at
    least half of them with one that no other card's labels carry ("Kernel filtering with Omniperf
    profile"). The card that holds the most wins; a tie says nothing."""
    if backend is not None or len(query.split()) < 2 or any(_code_like(t) for t in query.split()) \
            or re.search(r"\d", query):
        return []  # a code symbol is a term of its own, a model number a chip's (product_matches)
    words = set(_words(query)) - QUALIFIERS - FILLER
    if len(words) < 2 or len(_words(query)) < 3:
        return []  # two plain words are too little to tell ("linux kernel" is no GPU kernel)
    per_concept = _label_words(index)
    owners: dict[str, int] = {}
    for counts in per_concept.values():
        for w in words & counts.keys():
            owners[w] = owners.get(w, 0) + 1
    # A word that no card's text uses anywhere says the phrase may be about something else: then a card
    # must hold more than half of its words, not just half ("Do Not Sell or Share My Data" holds "share"
    # and "data" of Local Data Share, but nothing in the glossary sells).
    # Not for an identifier's words, which abbreviate (addr, mem), nor a hyphenated compound's, which build
    # new words from known ones (auto-tunable).
    unhyphenated = set(_words(" ".join(t for t in query.split() if "-" not in t and "/" not in t)))
    stranger = prose and bool((words & unhyphenated) - _text_stems(index))
    ranked = []
    for cid, counts in per_concept.items():
        have = words & counts.keys()
        own = {w for w in have if owners[w] == 1}
        enough = 2 * len(have) > len(words) if stranger else 2 * len(have) >= len(words)
        if have == words or (own and len(have) >= 2 and enough):
            ranked.append((len(have), cid))
    ranked.sort(key=lambda t: (-t[0], t[1]))
    if not ranked or (len(ranked) > 1 and ranked[0][0] == ranked[1][0]):
        return []
    n, cid = ranked[0]
    return [Match(cid, round(SCORE_PHRASE - 1.0 * (len(words) - n), 1), query, "words", None)]


def anagrams(index: Index, query: str, backend: str | None) -> list[Match]:
    """A tool or code name of seven letters or more typed with its parts in another order
    (cudumpobj for cuobjdump): the same letters as one label, and no other concept's."""
    q_loose = loose(query)
    if " " in query.strip() or len(q_loose) < 7:
        return []
    if _stem(query.strip().casefold()) in _rarity(index):
        return []  # a word the labels use ("Counters") is that word, not cuTENSOR's letters rearranged
    key = sorted(q_loose)
    precomputed = index.get("loose") or [loose(e[0]) for e in index["labels"]]
    hits = {(entry[1], entry[0], entry[3]) for entry, k in zip(index["labels"], precomputed)
            if len(k) == len(q_loose) and k != q_loose and sorted(k) == key
            and not (backend and entry[3] and entry[3] != backend)}
    if len({cid for cid, _, _ in hits}) != 1:
        return []
    # Labels of one card may carry a backend or none: order them with None as the empty string.
    cid, label, b = min(hits, key=lambda hit: (hit[0], hit[1], hit[2] or ""))
    return [Match(cid, round(FUZZY_CEILING * (1.0 - 2.0 / len(q_loose)), 1), label, "transposed", b)]


_VENDOR_PREFIXES = frozenset({"nv", "nvidia", "hsa", "amd", "mtl", "hip", "cuda", "rocm"})


def tool_prefix(index: Index, query: str, backend: str | None) -> list[Match]:
    """An identifier that starts with a tool or library a card names: an environment variable of the
    tool (NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS: Compute Sanitizer), a package of it (miopen-hip:
    MIOpen). The longest leading run of its parts, after a vendor prefix, that is a card's name."""
    token = query.strip()
    if " " in token or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+", token):
        return []
    parts = re.split(r"[_-]", token)
    while parts and parts[0].casefold() in _VENDOR_PREFIXES:
        parts = parts[1:]
    for n in range(len(parts) - 1, 0, -1):
        lead = " ".join(parts[:n])
        if len(loose(lead)) < 5 or lead.casefold() in QUALIFIERS:
            continue
        _, _, loose_map = _lookups(index, lead)
        hits = {(cid, b) for _, cid, kind, b in loose_map.get(loose(lead), ())
                if kind in ("name", "alias", "symbol") and not (backend and b and b != backend)}
        if len({cid for cid, _ in hits}) == 1:
            cid, b = min(hits, key=lambda h: h[1] or "")
            return [Match(cid, SCORE_PREFIX - 1.0, lead, "prefix", b)]
    return []


_FLAG = re.compile(r"(?<!\S)--?[a-z][a-z0-9-]+")


def flag_prefix(index: Index, query: str, backend: str | None) -> list[Match]:
    """A command-line flag no card names that extends one a card does: rocm-smi's --showtopoweight
    of its --showtopo family. The longest such flag, six characters or more, and one concept's."""
    token = query.strip()
    if not re.fullmatch(r"--?[a-z][a-z0-9-]{4,}", token):
        return []
    hits: dict[str, set[tuple[str, str | None]]] = {}
    for label, cid, _, label_backend in index["labels"]:
        if "-" not in label or (backend and label_backend and label_backend != backend):
            continue
        for flag in _FLAG.findall(label):
            if len(flag) >= 6 and flag != token and token.startswith(flag):
                hits.setdefault(flag, set()).add((cid, label_backend))
    if not hits:
        return []
    flag = max(hits, key=len)
    if len({cid for cid, _ in hits[flag]}) != 1:
        return []
    cid, b = min(hits[flag], key=lambda h: h[1] or "")
    return [Match(cid, SCORE_PREFIX - 1.0, flag, "prefix", b)]


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
