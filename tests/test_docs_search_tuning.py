"""The search tuning after the build: the same index whether the page entries were annotated as they
were indexed or are read from their text afterwards, and the same entry scores on the faster path."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_glossary
from xlate import kb
from xlate.docsgen import search


def _index(g: kb.Glossary) -> dict:
    docs = []
    for c in g.concepts.values():
        page = f"glossary/{c.category.value}/{c.id}.html"
        docs.append({"location": page, "title": c.title, "text": f"<p>{c.summary} uses <code>hipMallocManaged</code></p>"})
        docs.append({"location": f"{page}#notes", "title": "Notes", "text": "see __syncthreads and mx.eval", "tags": ["x"]})
    docs.append({"location": "index.html", "title": "Home", "text": "threadIdx.x and cudaMemcpyAsync", "boost": 2})
    return {"config": {"separator": search.SEPARATOR, "pipeline": ["trimmer"], "lang": ["en"]}, "docs": docs}


def _dump(index: dict) -> str:
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))


def test_annotated_entries_give_the_same_index_as_entries_read_afterwards(tmp_path: Path) -> None:
    g = kb.load_glossary(write_glossary(tmp_path))
    plain, annotated = _index(g), _index(g)
    vocab = search.Vocabulary.of(g)
    for entry in annotated["docs"]:
        search.annotate(entry, vocab)
    assert any("parts" in e for e in annotated["docs"])
    # The annotation travels through the JSON Material writes, as it does in a build.
    annotated = json.loads(_dump(annotated))
    got_plain, got_annotated = search.tune(plain, g), search.tune(annotated, g)
    assert got_annotated.annotated == len(_index(g)["docs"]) and got_plain.annotated == 0
    assert _dump(annotated) == _dump(plain)
    assert search.ANNOTATION not in _dump(annotated)
    assert got_annotated.queries == got_plain.queries and got_annotated.unresolved == got_plain.unresolved == []


def test_an_annotation_for_other_spellings_is_not_used(tmp_path: Path) -> None:
    g = kb.load_glossary(write_glossary(tmp_path))
    plain, stale = _index(g), _index(g)
    other = search.Vocabulary({"nothing", "else"})
    for entry in stale["docs"]:
        search.annotate(entry, other)
    result = search.tune(stale, g)
    assert result.annotated == 0
    search.tune(plain, g)
    assert _dump(stale) == _dump(plain)


def test_raw_scores_are_the_entry_scores_without_boosts(tmp_path: Path) -> None:
    g = kb.load_glossary(write_glossary(tmp_path))
    index = _index(g)
    search.tune(index, g)
    entries = [d for d in index["docs"] if "#across-vendors-" in d["location"]]
    scorer = search.Scorer(entries, idf_docs=index["docs"])
    queries = [e["keys"].split() for e in entries] + [["thread", "block"], ["hip", "malloc", "managed"], []]
    assert any(len(q) > 1 for q in queries)
    for clauses in queries:
        assert scorer.raw_scores(clauses) == scorer.entry_scores(clauses)  # equal floats, not close ones
