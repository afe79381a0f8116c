"""The site search, tuned so that the page whose own name or symbol is the query comes first.

Material's search (lunr in the browser) ranks entries by BM25 over the fields the index lists, adds a
trailing wildcard to every query term, and shows pages in the order of their best entry. After the
build this module rewrites `search/search_index.json`:

- one small entry per spelling of each concept (title, aliases, abbreviations, every backend's names
  and symbols), a section of the concept's page whose title is that spelling: `hipMalloc`,
  `__syncthreads`, `mx.eval`, `LDS`, `wavefront`. The separator in mkdocs.yml keeps such spellings
  whole; the entry also holds their pieces (`hip`, `malloc`), so a spelling is found whole as well as
  split. Its field `keys` carries a boost that outweighs any mention in running text;
- `parts` on every other entry: the pieces of the code spellings in its text, so `Malloc` also finds
  `hipMalloc` where a page only mentions it;
- a boost per spelling entry, computed here from the glossary: because of the wildcard, the query
  `hipMalloc` also matches `hipMallocManaged`, and `kernel launch` matches `kernel launch overhead`.
  Entries are boosted longest spelling first, each just enough to beat every longer spelling its own
  query also matches (scored as lunr scores them), so the exact spelling wins. The order is a DAG (a
  query only reaches spellings at least as long), so one pass settles it; a check pass reports what
  still loses (spellings two concepts share have no single answer and are left out).

Most of that work reads the page entries (their parts, and which spelling terms each of their fields
holds, for the terms' weights); it is the same work whenever it is done, so the hook does it as each
page is indexed (`annotate`, in whichever process builds the page, see docsgen/parallel.py) and the
tuning after the build reads the result instead of the text. An entry that was not annotated (or was,
for other spellings) is read here as before.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import html
import json
import math
import re
from collections import defaultdict
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Must match `plugins: search: separator:` in mkdocs.yml (the browser tokenizes with that one).
SEPARATOR = r"""[\s\-,:;!=\[\]()"'`/|<>{}+*~^#]+|\.(?!\w)|(?<!\w)\.|&[lg]t;|&amp;"""
_SEP = re.compile(SEPARATOR)
_TAG = re.compile(r"<[^>]*>")
_TRIM_L, _TRIM_R = re.compile(r"^\W+"), re.compile(r"\W+$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# A code-like token: it has an underscore, an inner dot or a lower-to-upper case change.
_SYMBOLISH = re.compile(r"(?<![\w.])(?=[\w.]*(?:_|[a-z0-9][A-Z]|\w\.\w))[A-Za-z_][\w.]*\w")
_EDGE = set("abcdefghijklmnopqrstuvwxyz0123456789_")

# `typos`: misspellings of a concept's words (a letter left out, two letters swapped), weighted far below
# a spelling's own entry and above a mention in running text (a page that quotes the misspelling), so
# `wavefrnt` finds the warp's page and no spelling's own entry is outranked.
FIELDS = {"title": 1e3, "text": 1.0, "tags": 1e6, "keys": 1e5, "keyparts": 1e3, "parts": 5.0, "typos": 10.0}
K1 = 1.2  # lunr's BM25 k1; Material sets b to 0, so field length does not matter
MAX_BOOST = 1000.0
MIN_LEAD = 1.01  # an entry must beat every rival on its own query by this factor, or be raised
PASSES = 10


def _counts(value: Any) -> dict[str, int]:
    """Each token of a field's value and how often it occurs (do not change the dict: it is shared)."""
    if not value:
        return {}
    return _text_counts(" ".join(value) if isinstance(value, list) else value)


@functools.lru_cache(maxsize=65536)
def _text_counts(text: str) -> dict[str, int]:
    # A spelling entry's fields are read for the vocabulary, the postings and the term weights: once each.
    counts: dict[str, int] = defaultdict(int)
    for t in tokens(text):
        counts[t] += 1
    return dict(counts)


# What Material's indexer reads of a page, made cheaper to read: its HTML parser walks every tag, and a
# highlighted code block is a tag per token (plus an anchor per line), a diagram a tag per shape. The
# indexer keeps none of those tags, only the text between them, so `for_indexing` drops the tags and
# keeps the text (see the function for why the entries come out the same).
_LINENOS = re.compile(r'<div class="linenodiv">.*?</div>', re.S)
_PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)
_CODE_TAG = re.compile(r"</?(?:span|a)\b[^>]*>")
_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
# A tag (quoted attribute values may hold `>`) or a run of text between tags.
_SVG_PIECE = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>|([^<]+)""")
# Markup whose reading is not plain text (comments, raw text, nested drawings) or that the indexer treats
# specially: a page holding any of it is handed over as it is.
_NOT_PLAIN = ("<!--", "<![CDATA[", "<script", "<style", "<object", "<h1", "<h2", "<h3", "<h4", "<h5", "<h6")


def for_indexing(content: str) -> str | None:
    """A page's HTML with the tags the search indexer discards taken out, or None to index it as it is.

    Material's indexer (material/plugins/search) keeps `<code>`, `<pre>`, `<p>`, list and `<sub>`/`<sup>`
    tags and the text between tags; it skips the line-number column (`div.linenodiv`) entirely. Inside a
    `<pre>` it keeps text verbatim, so the `<span>` and `<a>` tags Pygments and the line anchors put
    around each token can go: the text that was split across them is the same text joined. The numbers
    column becomes an empty `div.linenodiv` (skipped as before). An inline SVG becomes one `<i>` per run
    of text it held, so the indexer sees the same runs in the same order (whitespace between runs is
    collapsed run by run, as before). Pages with `data-search-*` attributes (which the indexer reads and
    then strips) are left alone, and so is any drawing with markup of another kind.
    """
    if "data-search-" in content or ("<pre" not in content and "<svg" not in content):
        return None
    for m in _SVG.finditer(content):
        inner = m.group(0)
        if "<svg" in inner[4:] or any(tag in inner for tag in _NOT_PLAIN):
            return None
    out = _LINENOS.sub('<div class="linenodiv"></div>', content)
    out = _PRE.sub(lambda m: _CODE_TAG.sub("", m.group(0)), out)
    return _SVG.sub(lambda m: "".join(f"<i>{t}</i>" for t in _SVG_PIECE.findall(m.group(0)) if t), out)


def _trim(piece: str) -> str:
    if piece and (piece[0] not in _EDGE or piece[-1] not in _EDGE):  # lunr's trimmer: strip non-word characters
        return _TRIM_R.sub("", _TRIM_L.sub("", piece))
    return piece


def tokens(text: str) -> list[str]:
    """Tokens as the browser makes them: markup dropped, split on the separator, lower-cased, trimmed."""
    return [t for piece in _SEP.split(_TAG.sub(" ", text).lower()) if (t := _trim(piece))]


def token_set(text: str) -> set[str]:
    """The distinct tokens of a text (as `tokens` makes them), trimming each distinct piece once."""
    return {t for piece in set(_SEP.split(_TAG.sub(" ", text).lower())) if (t := _trim(piece))}


@functools.lru_cache(maxsize=65536)
def _pieces(spelling: str) -> tuple[str, ...]:
    out: list[str] = []
    for chunk in re.split(r"[_.]+", spelling):
        out += [p.lower() for p in _CAMEL.split(chunk) if p]
    return tuple(out)


def pieces(spelling: str) -> list[str]:
    """A code spelling cut at underscores, dots and camelCase: hipMalloc -> hip, malloc."""
    return list(_pieces(spelling))  # the same spellings recur all over the site: cut each once


def _split_forms(text: str) -> list[str]:
    """The pieces of every code-like token of a text (only those that split into more than one)."""
    out: list[str] = []
    for word in _SYMBOLISH.findall(_TAG.sub(" ", text)):
        parts = pieces(word)
        if len(parts) > 1:
            out += parts
    return out


@dataclass
class ConceptKeys:
    page: str  # the concept page's location, e.g. glossary/memory/shared-memory.html
    queries: list[str]  # what a reader types for it: title, names, aliases, symbols
    claim: dict[str, int]  # how strongly it owns each spelling (lower is stronger), for spellings two concepts share
    anchors: dict[str, str] = dataclasses.field(default_factory=dict)  # where on the page a spelling leads, if not the top

RELATION_CLAIM = {"same": 1, "renamed": 1, "approximate": 2}


def concept_keys(g: Any) -> dict[str, ConceptKeys]:
    """Every concept's own spellings, from the glossary models, keyed by its page's location."""
    out: dict[str, ConceptKeys] = {}
    for c in g.concepts.values():
        # A spelling two concepts share goes to the one that names it itself (title, alias), then to the
        # one whose term maps most faithfully (same or renamed before approximate).
        claim = {s: 0 for s in [c.title, *c.aliases, *c.abbreviations]}
        for backend in ("cuda", "hip", "metal", "triton", "mlx"):
            term = getattr(c.terms, backend)
            if term is None or term.relation.value == "none":
                continue
            for s in term.names + term.symbols:
                claim[s] = min(claim.get(s, 9), RELATION_CLAIM.get(term.relation.value, 3))
        page = f"glossary/{c.category.value}/{c.id}.html"
        out[page] = ConceptKeys(page, list(claim), claim)
    # GPU names lead to the hardware page, where their spec sheets are (`M3 Ultra`, `MI300X`, `h100-sxm`).
    gpus = getattr(g, "gpus", None) or {}
    if gpus:
        claim, anchors = {}, {}
        for spec in gpus.values():
            for s, anchor in gpu_spellings(spec):
                if s not in claim:
                    claim[s], anchors[s] = 0, anchor
        out[HARDWARE_PAGE] = ConceptKeys(HARDWARE_PAGE, list(claim), claim, anchors)
    return out


HARDWARE_PAGE = "hardware.html"


def gpu_spellings(spec: Any) -> list[tuple[str, str]]:
    """A GPU's names (its name, aliases and id), each with the anchor its spelling entry leads to: one id
    per spelling (an entry's location is its key in the index), all on the GPU's column head."""
    names = list(dict.fromkeys([spec.name, *spec.aliases, spec.id]))
    return [(n, f"{ANCHOR}-gpu-{spec.id}-{k}") for k, n in enumerate(names)]
MIN_TYPO_WORD = 6  # shorter words have too many near neighbours among real words


def typos(words: list[str], real: set[str]) -> list[str]:
    """One-slip misspellings of each plain word (letters only, MIN_TYPO_WORD or longer): a letter left
    out or two neighbours swapped; none that is itself a real term of the index."""
    out: dict[str, None] = {}
    for w in words:
        w = w.casefold()
        if len(w) < MIN_TYPO_WORD or not w.isalpha():
            continue
        for i in range(len(w)):
            out.setdefault(w[:i] + w[i + 1:])
            if i + 1 < len(w) and w[i] != w[i + 1]:
                out.setdefault(w[:i] + w[i + 1] + w[i] + w[i + 2:])
    return [t for t in out if t not in real]


def query_terms(query: str) -> list[str]:
    """The terms the browser searches for when a reader types `query` (each with a trailing wildcard)."""
    return list(_query_terms(query))


@functools.lru_cache(maxsize=65536)
def _query_terms(query: str) -> tuple[str, ...]:
    # Each spelling is tokenized for its entry and twice more for the queries a concept owns: once.
    return tuple(tokens(html.escape(query)))


SPELLING_FIELDS = ("title", "keys", "keyparts", "typos")  # the fields that decide between spelling entries


def _field_terms(doc: dict[str, Any], wanted: set[str] | frozenset[str]) -> list[str]:
    """The wanted terms each field of an entry holds, once per field (lunr counts a document once per
    field it holds a term in)."""
    out: list[str] = []
    for name in FIELDS:
        value = doc.get(name)
        if value:
            out += token_set(" ".join(value) if isinstance(value, list) else value) & wanted
    return out


class Vocabulary:
    """The terms of a glossary's spelling entries, and a short name for that set (an annotation made for
    one set of spellings is not used for another, e.g. after the glossary changed under `mkdocs serve`)."""

    def __init__(self, terms: set[str]) -> None:
        self.terms = frozenset(terms)
        self.name = hashlib.sha256("\n".join(sorted(self.terms)).encode("utf-8")).hexdigest()[:16]

    @classmethod
    def of(cls, g: Any) -> Vocabulary:
        return cls(_spelling_terms(_prepared(g)[1]))


_PREPARED: dict[int, tuple[Any, dict[str, ConceptKeys], list[dict[str, Any]]]] = {}


def _prepared(g: Any) -> tuple[dict[str, ConceptKeys], list[dict[str, Any]]]:
    """The glossary's concept keys and spelling entries (fresh copies of the entries: `tune` changes them).

    Made once per glossary: the hook needs them before the pages are built and again after.
    """
    got = _PREPARED.get(id(g))
    if got is None or got[0] is not g:
        _PREPARED.clear()  # one glossary at a time (a rebuild under `mkdocs serve` loads a new one)
        keys = concept_keys(g)
        got = _PREPARED[id(g)] = (g, keys, _entries(keys))
    return got[1], [dict(e) for e in got[2]]


def _spelling_terms(entries: list[dict[str, Any]]) -> set[str]:
    return {t for doc in entries for name in SPELLING_FIELDS for t in _counts(doc.get(name))}


ANNOTATION = "_xlate_terms"  # an entry's annotation: [vocabulary name, its field terms...]; removed by `tune`


def annotate(entry: dict[str, Any], vocab: Vocabulary) -> None:
    """What `tune` reads of a page entry, computed as the page is indexed: the entry's `parts` field (set
    here, as `tune` would set it) and the spelling terms its fields hold."""
    split = _split_forms(entry.get("title", "") + " " + entry.get("text", ""))
    if split:
        entry["parts"] = " ".join(split)
    entry[ANNOTATION] = [vocab.name, *_field_terms(entry, vocab.terms)]


class Scorer:
    """lunr's scores of the spelling entries (title, keys and keyparts decide between them)."""

    def __init__(self, docs: list[dict[str, Any]], idf_docs: list[dict[str, Any]],
                 counted: list[list[str] | None] | None = None) -> None:
        """Scores `docs` (the spelling entries) with term weights computed over the whole index.

        counted: for each of `idf_docs`, the spelling terms its fields hold (see `annotate`), or None to
        read them from its text here.
        """
        self.docs = docs
        self.postings: dict[str, dict[int, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
        for i, doc in enumerate(docs):
            for name in SPELLING_FIELDS:
                counts = _counts(doc.get(name))
                for t, tf in counts.items():
                    self.postings[t][i][name] = tf
        wanted = set(self.postings)
        df: dict[str, int] = defaultdict(int)
        for k, doc in enumerate(idf_docs):
            known = counted[k] if counted is not None else None
            for t in known if known is not None else _field_terms(doc, wanted):
                df[t] += 1
        n = len(idf_docs)
        self.idf = {t: math.log(1 + abs((n - d + 0.5) / (d + 0.5))) for t, d in df.items()}
        self.vocab = sorted(self.postings)
        # Each entry's weight for each term (its fields' weights summed), before its boost (lunr rounds to
        # three decimals after boosting).
        self.weights: dict[str, list[tuple[int, float]]] = {
            t: [(doc, sum([self.idf.get(t, 0.0) * ((K1 + 1) * tf) / (K1 + tf) * FIELDS[name] for name, tf in fields.items()]))
                for doc, fields in docs_.items()]
            for t, docs_ in self.postings.items()}
        self._expanded: dict[str, list[str]] = {}

    def expand(self, term: str) -> list[str]:
        """The indexed terms a query term with a trailing wildcard matches."""
        got = self._expanded.get(term)
        if got is None:
            lo = bisect.bisect_left(self.vocab, term)
            hi = bisect.bisect_left(self.vocab, term + "\uffff")
            got = self._expanded[term] = self.vocab[lo:hi]
        return got

    def entry_scores(self, clauses: list[str], boosts: dict[str, float] | None = None) -> dict[int, float]:
        """Each matching entry's score for the query terms, Material's post-query boost included."""
        if not clauses:
            return {}
        boosts = boosts or {}
        score: dict[int, float] = defaultdict(float)
        matched: dict[int, set[int]] = defaultdict(set)
        for ci, term in enumerate(clauses):
            for t in self.expand(term):
                for doc, w in self.weights[t]:
                    b = boosts.get(self.docs[doc]["location"], 1.0) if boosts else 1.0
                    score[doc] += w * b
                    matched[doc].add(ci)
        # Spelling entries are sections (their location has a #): Material's boost is the share of the
        # query's terms they match, squared, plus one.
        return {doc: s * (1 + (len(matched[doc]) / len(clauses)) ** 2) for doc, s in score.items()}

    def raw_scores(self, clauses: list[str]) -> dict[int, float]:
        """`entry_scores` without boosts, for every entry's own query at once (the same sums in the same
        order, so the same floats, with less bookkeeping: most spellings are one term)."""
        if not clauses:
            return {}
        weights = self.weights
        score: dict[Any, float] = {}
        get = score.get
        if len(clauses) == 1:
            for t in self.expand(clauses[0]):
                for doc, w in weights[t]:
                    score[doc] = get(doc, 0.0) + w
            return {doc: s * 2.0 for doc, s in score.items()}  # 1 + (1 / 1) ** 2
        matched: dict[int, int] = {}  # a bit per query term the entry matched
        for ci, term in enumerate(clauses):
            bit = 1 << ci
            for t in self.expand(term):
                for doc, w in weights[t]:
                    score[doc] = get(doc, 0.0) + w
                    matched[doc] = matched.get(doc, 0) | bit
        n = len(clauses)
        return {doc: s * (1 + (matched[doc].bit_count() / n) ** 2) for doc, s in score.items()}

    def rank(self, query: str, boosts: dict[str, float]) -> list[tuple[float, str]]:
        """Pages in the order of their best spelling entry for the query."""
        best: dict[str, float] = {}
        for doc, s in self.entry_scores(query_terms(query), boosts).items():
            page = self.docs[doc]["location"].split("#", 1)[0]
            best[page] = max(best.get(page, 0.0), s)
        return sorted(((s, p) for p, s in best.items()), reverse=True)


_QUERY_SYNTAX = re.compile(r"^[+-]|[:^~*]")


def searchable(spelling: str) -> bool:
    """Whether typing the spelling as it is makes a plain query in Material's search.

    A leading `-` or `+` means "without" or "must have", `:` names a field, `^` and `~` set a boost
    or an edit distance: `-std=metal3.1` or `makeLibrary(source:options:)` typed verbatim ask for
    something else, so they are not counted as a concept's own queries (their entries still exist).
    """
    return not _QUERY_SYNTAX.search(spelling)


def own_queries(keys: dict[str, ConceptKeys]) -> list[tuple[str, str]]:
    """(query, page that should come first) for every spelling of a concept.

    A spelling several concepts share goes to the strongest claim (see concept_keys); where two claims
    are equally strong there is no single right answer, and the spelling is left out.
    """
    claims: dict[str, dict[str, int]] = defaultdict(dict)
    for ck in keys.values():
        for q in ck.queries:
            norm = " ".join(query_terms(q))
            if norm:
                claims[norm][ck.page] = min(claims[norm].get(ck.page, 99), ck.claim[q])
    out = []
    for ck in keys.values():
        for q in ck.queries:
            if not searchable(q):
                continue
            ranked = sorted((c, p) for p, c in claims.get(" ".join(query_terms(q)), {}).items())
            if ranked and ranked[0][1] == ck.page and (len(ranked) == 1 or ranked[0][0] < ranked[1][0]):
                out.append((q, ck.page))
    return out


@dataclass
class Tuning:
    entries: int  # spelling entries added
    queries: list[tuple[str, str]]  # (spelling, page) for every spelling one concept owns
    unresolved: list[tuple[str, str, str]]  # (spelling, its page, the page that still comes first)
    annotated: int = 0  # page entries read from their annotation (see `annotate`), not from their text


ANCHOR = "across-vendors"  # the id of a concept page's cross-vendor table: where a spelling entry leads


def _entries(keys: dict[str, ConceptKeys]) -> list[dict[str, Any]]:
    out = []
    real = {t for ck in keys.values() for q in ck.queries for t in query_terms(q)}
    # A word's misspellings go to one page: the one with the shortest spelling holding the word, the
    # strongest claim first (`wavefrnt` to the warp, `sharde` to shared memory); none where two tie.
    owner: dict[str, tuple[tuple[int, int], str | None]] = {}
    for page, ck in keys.items():
        if page == HARDWARE_PAGE:
            continue
        for q in ck.queries:
            words = [w.casefold() for w in re.split(r"[\s\-/]+", q) if w]
            rank = (ck.claim[q], len(words))
            for word in words:
                best = owner.get(word)
                if best is None or rank < best[0]:
                    owner[word] = (rank, page)
                elif rank == best[0] and best[1] != page:
                    owner[word] = (rank, None)
    mine: dict[str, list[str]] = defaultdict(list)
    for word, (_, p) in owner.items():
        if p is not None:
            mine[p].append(word)
    for page, ck in keys.items():
        # The misspellings of the concept's own words, on its first (title) entry.
        slips = typos(mine.get(page, []), real)
        for i, spelling in enumerate(ck.queries):
            toks = query_terms(spelling)
            if not toks:
                continue
            split = pieces(spelling) if len(toks) == 1 else []
            # No text: Material counts a query word found in any field of an entry as matched, so a
            # text that repeated the page's title would let every entry of the page match every word.
            entry = {"location": f"{page}#{ck.anchors.get(spelling, f'{ANCHOR}-{i}')}", "title": html.escape(spelling), "_claim": ck.claim[spelling],
                     "text": "", "keys": " ".join(toks), "keyparts": " ".join(p for p in split if p not in toks)}
            if slips:
                entry["typos"] = " ".join(slips)
                slips = []
            out.append(entry)
    return out


def tune(index: dict[str, Any], g: Any, check: bool = True) -> Tuning:
    """Add the spelling entries and the parts field, and boost the entries (in place)."""
    keys, entries = _prepared(g)
    vocab = Vocabulary(_spelling_terms(entries))
    docs = [d for d in index["docs"] if f"#{ANCHOR}-" not in d["location"]]  # idempotent
    counted: list[list[str] | None] = []
    for doc in docs:
        note = doc.pop(ANNOTATION, None)
        if note and note[0] == vocab.name:  # annotated as the page was indexed, for these spellings
            counted.append(note[1:])
        else:
            split = _split_forms(doc.get("title", "") + " " + doc.get("text", ""))
            if split:
                doc["parts"] = " ".join(split)
            counted.append(None)
        if doc["location"].split("#", 1)[0] in keys:
            doc.pop("boost", None)  # the spelling entries carry the ranking now
    index["docs"] = docs + entries
    index["config"]["fields"] = {name: {"boost": b} for name, b in FIELDS.items()}
    scorer = Scorer(entries, idf_docs=docs + entries, counted=counted + [None] * len(entries))
    queries = own_queries(keys)
    boosts = solve_entry_boosts(scorer, entries)
    for doc in entries:
        del doc["_claim"]
        if boosts.get(doc["location"], 1.0) != 1.0:
            doc["boost"] = round(boosts[doc["location"]], 4)
    left = []
    for q, want in queries if check else []:
        ranked = scorer.rank(q, boosts)
        if ranked and ranked[0][1] != want:
            left.append((q, want, ranked[0][1]))
    return Tuning(len(entries), queries, left, sum(c is not None for c in counted))


def solve_entry_boosts(scorer: Scorer, entries: list[dict[str, Any]]) -> dict[str, float]:
    """Longest spelling first, each entry's boost just above every other page's entry its own query reaches.

    A later, shorter entry (`HIP`) may then need so large a boost that it overtakes a longer one on the
    longer one's query (`HIP graphs`); a few more passes in the same order raise what lost again.
    """
    order = sorted(range(len(entries)), key=lambda i: (-len(entries[i]["keys"]), entries[i]["location"]))
    raw = {i: scorer.raw_scores(entries[i]["keys"].split()) for i in order}
    page = [e["location"].split("#", 1)[0] for e in entries]
    winner: dict[str, tuple[int, str]] = {}  # a shared spelling's owner: the strongest claim, then the page
    for i, e in enumerate(entries):
        winner[e["keys"]] = min(winner.get(e["keys"], (99, "~")), (e["_claim"], page[i]))
    # Each entry's rivals: other pages' entries its query reaches. Another page's entry with the very same
    # spelling is a rival only of the spelling's owner (else the two would raise each other without end).
    rivals = {i: [(j, sc) for j, sc in raw[i].items() if page[j] != page[i] and not (
        entries[j]["keys"] == entries[i]["keys"] and winner[entries[i]["keys"]][1] != page[i])] for i in order}
    boost = [1.0] * len(entries)
    for _ in range(PASSES):
        changed = False
        for i in order:
            own = raw[i].get(i, 0.0)
            if own <= 0:
                continue
            need = boost[i]
            for j, sc in rivals[i]:
                # A lead under 1% is raised too, not only a loss: two entries raised against the same rival
                # can end exactly tied (a spelling and another concept's title inside it), and the model
                # is not that close to lunr's arithmetic.
                if boost[j] * sc * MIN_LEAD >= boost[i] * own:
                    need = max(need, boost[j] * sc / own * 1.05)
            need = min(need, MAX_BOOST)
            if need > boost[i]:
                boost[i], changed = need, True
        if not changed:
            break
    return {entries[i]["location"]: b for i, b in enumerate(boost) if b != 1.0}


def tune_index(path: Path, g: Any, check: bool = False) -> Tuning:
    index = json.loads(path.read_text(encoding="utf-8"))
    result = tune(index, g, check)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return result
