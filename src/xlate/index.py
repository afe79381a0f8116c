"""The compact lookup index: a JSON digest of the glossary, cached by content hash.

This module is on the editor's hot path. It imports neither pydantic, networkx nor the YAML
validation unless the cache is stale; `rapidfuzz` is imported only when exact matching fails.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

INDEX_VERSION = 4
BACKENDS = ("cuda", "hip", "metal", "triton", "mlx")

# Ranking tiers (score out of 100): an exact code spelling beats an exact word, which beats a
# spelling that matches once underscores and call parentheses are ignored, which beats fuzzy.
SCORE_SYMBOL = 100.0
SCORE_NAME = 95.0
SCORE_LOOSE = 90.0
FUZZY_CEILING = 88.0
FUZZY_FLOOR = 70.0
MAX_QUERY = 200


from xlate.paths import cache_dir, content_key, glossary_root, write_cache  # noqa: E402,F401  (defined there, used here and re-exported)


def _kernels_root(root: Path) -> Path:
    return root.parent / "kernels" / "examples"


def _input_files(root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*.yaml") if "fixtures" not in p.parts)
    kernels = _kernels_root(root)
    if kernels.is_dir():
        files += sorted(kernels.glob("*/example.yaml"))
    return files


def content_hash(root: Path) -> str:
    import hashlib  # only when the content changed: a cold lookup normally needs no digest

    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(INDEX_VERSION).encode())
    for path in _input_files(root):
        digest.update(str(path.relative_to(root.parent)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def loose(text: str) -> str:
    """Spelling-insensitive form: case, underscores, punctuation and call parens ignored."""
    return re.sub(r"[\s_\-:.()<>\[\]*&,/]+", "", text.casefold())


class Match:
    """One ranked answer. A plain slotted class: a cold lookup does not pay for importing dataclasses."""

    __slots__ = ("concept", "score", "matched", "kind", "backend")

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


class IndexError_(Exception):
    """The glossary has defects, so no index could be built."""


def build(root: Path) -> dict[str, Any]:
    """Digest the validated glossary into plain JSON data."""
    from xlate import glossary as gl
    from xlate.model import REVERSE_LABEL

    g = gl.load(root)
    if g.problems:
        shown = "\n".join(str(p) for p in g.problems[:10])
        more = f"\n... and {len(g.problems) - 10} more" if len(g.problems) > 10 else ""
        raise IndexError_(f"the glossary has {len(g.problems)} problem(s); run `xlate glossary check`:\n{shown}{more}")

    concepts: dict[str, Any] = {}
    labels: list[list[Any]] = []
    related: dict[str, list[list[str]]] = {cid: [] for cid in g.concepts}
    for cid, c in g.concepts.items():
        for edge in c.relations:
            related[cid].append([edge.type.value, edge.target])
            if edge.type.value not in ("see-also", "contrasts-with"):
                related[edge.target].append([REVERSE_LABEL[edge.type], cid])
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
    gpus = {gid: {"name": s.name, "vendor": s.vendor.value, "aliases": s.aliases} for gid, s in g.gpus.items()}
    # Loose spellings precomputed once here, so a cold lookup does not run the regex over every label.
    return {"version": INDEX_VERSION, "concepts": concepts, "labels": labels, "loose": [loose(e[0]) for e in labels],
            "gpus": gpus}


def example_links(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Back-links from kernel examples to the concepts they demonstrate (example.yaml is the source)."""
    import yaml

    out: dict[str, list[dict[str, Any]]] = {}
    kernels = _kernels_root(root)
    if not kernels.is_dir():
        return out
    for path in sorted(kernels.glob("*/example.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue  # `xlate glossary check` reports broken examples; lookups keep working
        for link in data.get("concepts", []) or []:
            if isinstance(link, dict) and isinstance(link.get("concept"), str):
                symbols = {k: v for k, v in (link.get("symbols") or {}).items() if isinstance(v, str)}
                out.setdefault(link["concept"], []).append({"example": path.parent.name, "symbols": symbols})
    return out


def load_index(root: Path | None = None) -> dict[str, Any]:
    """The index for the glossary's current content, rebuilt and cached when the content changes."""
    root = root or glossary_root()
    if not root.is_dir():
        raise IndexError_(f"glossary folder not found: {root} (set XLATE_GLOSSARY)")
    key = content_key(root)
    path = cache_dir() / f"index-{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") == INDEX_VERSION:
            return data
    except (OSError, ValueError):
        pass
    data = build(root)
    write_cache(path, json.dumps(data, separators=(",", ":")), replaces="index-*.json")
    return data


def clean_query(query: str) -> str:
    """Drop control characters, fold Unicode, collapse spaces, cap the length."""
    text = unicodedata.normalize("NFKC", query)
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(text.split())[:MAX_QUERY]


_TABLES: dict[int, tuple[dict[str, Any], dict[str, list[tuple]], dict[str, list[tuple]], dict[str, list[tuple]]]] = {}


def _tables(index: dict[str, Any]) -> tuple[dict[str, list[tuple]], dict[str, list[tuple]], dict[str, list[tuple]]]:
    """Exact, case-folded and loose spellings -> label entries; built once per loaded index.

    A language server asks thousands of times against one index, so the scan over every label
    happens once, not per request.
    """
    cached = _TABLES.get(id(index))
    if cached is not None and cached[0] is index:
        return cached[1], cached[2], cached[3]
    exact: dict[str, list[tuple]] = {}
    folded: dict[str, list[tuple]] = {}
    loose_map: dict[str, list[tuple]] = {}
    precomputed = index.get("loose") or [loose(e[0]) for e in index["labels"]]
    for entry, key in zip(index["labels"], precomputed):
        label = entry[0]
        exact.setdefault(label, []).append(tuple(entry))
        folded.setdefault(label.casefold(), []).append(tuple(entry))
        if key:
            loose_map.setdefault(key, []).append(tuple(entry))
    _TABLES.clear()  # one index in use at a time; do not keep old ones alive
    _TABLES[id(index)] = (index, exact, folded, loose_map)
    return exact, folded, loose_map


_SEARCHES: dict[int, int] = {}
TABLES_AFTER = 3  # searches of one index before building its tables pays off (an editor asks thousands)


def _lookups(index: dict[str, Any], q: str) -> tuple[dict[str, list[tuple]], dict[str, list[tuple]], dict[str, list[tuple]]]:
    """The entries spelled like q, three ways. A one-off query scans the labels (cheaper than building
    tables); an index searched repeatedly gets tables."""
    count = _SEARCHES.get(id(index), 0) + 1
    _SEARCHES.clear()
    _SEARCHES[id(index)] = count
    cached = _TABLES.get(id(index))
    if count > TABLES_AFTER or (cached is not None and cached[0] is index):
        return _tables(index)
    labels = index["labels"]
    q_folded, q_loose = q.casefold(), loose(q)
    precomputed = index.get("loose") or [loose(e[0]) for e in labels]
    exact = {q: [tuple(e) for e in labels if e[0] == q]}
    folded = {q_folded: [tuple(e) for e in labels if e[0].casefold() == q_folded]}
    loose_map = {q_loose: [tuple(labels[i]) for i, key in enumerate(precomputed) if key == q_loose]} if q_loose else {}
    return exact, folded, loose_map


def search(index: dict[str, Any], query: str, backend: str | None = None, limit: int = 5) -> list[Match]:
    """Rank concepts for `query`: exact symbol > exact name/alias > loose spelling > fuzzy."""
    q = clean_query(query)
    if not q:
        return []
    best: dict[str, Match] = {}

    def offer(m: Match) -> None:
        if m.concept not in best or m.score > best[m.concept].score:
            best[m.concept] = m

    def allowed(label_backend: str | None) -> bool:
        return not (backend and label_backend and label_backend != backend)

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
        for m in fuzzy(index, q, backend, limit * 4):
            offer(m)
    ranked = sorted(best.values(), key=lambda m: (-m.score, m.concept))
    return ranked[:limit]


def fuzzy(index: dict[str, Any], query: str, backend: str | None, limit: int, floor: float = FUZZY_FLOOR) -> list[Match]:
    from rapidfuzz import fuzz, process, utils

    entries = [e for e in index["labels"] if not (backend and e[3] and e[3] != backend)]
    choices = [loose(e[0]) for e in entries]
    q = loose(query)
    if not q:
        return []
    found = process.extract(q, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=limit, score_cutoff=floor)
    out = []
    for _, score, i in found:
        label, cid, kind, label_backend = entries[i]
        out.append(Match(cid, round(min(score, 100.0) * FUZZY_CEILING / 100.0, 1), label, "fuzzy", label_backend))
    return out


def suggestions(index: dict[str, Any], query: str, limit: int = 5) -> list[str]:
    """Nearest labels for a query that matched nothing, however far."""
    ms = fuzzy(index, clean_query(query), None, limit * 3, floor=30.0)
    seen: list[str] = []
    for m in ms:
        if m.matched not in seen:
            seen.append(m.matched)
    return seen[:limit]


def match_json(index: dict[str, Any], m: Match) -> dict[str, Any]:
    concept = index["concepts"][m.concept]
    terms = {b: t["names"] + [s for s in t["symbols"] if s not in t["names"]] for b, t in concept["terms"].items()}
    return {
        "concept": m.concept,
        "title": concept["title"],
        "score": m.score,
        "matched": m.matched,
        "matched_kind": m.kind,
        "matched_backend": m.backend,
        "terms": terms,
    }
