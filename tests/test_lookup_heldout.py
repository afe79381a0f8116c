"""Lookup on held-out queries (tests/data/lookup_queries_heldout.yaml): at least 95% land right at the
top and every unrelated word exits 1. The queries that still miss are named, so a fix shows up as a
change here rather than as a silent improvement, and a new miss fails the test."""

from __future__ import annotations

import pytest
import yaml
from pathlib import Path

from test_lookup_queries import _answer, _right

QUERIES = yaml.safe_load((Path(__file__).parent / "data" / "lookup_queries_heldout.yaml").read_text())["queries"]
# Misses the data cannot fix: names in no row (__restrict__, __nanosleep), a version number inside a
# term, a product family word order, a dialect the glossary has no concept for, and a typo below the
# fuzzy floor.
KNOWN_MISSES = {"__restrict__", "__nanosleep", "compute capability 9.0", "GPU family Apple9", "gluon", "shuffel"}


@pytest.mark.slow
def test_held_out_queries_land_first() -> None:
    wrong = []
    for entry in QUERIES:
        code, payload = _answer(entry["q"])
        if not _right(entry["expect"], code, payload):
            wrong.append(entry["q"])
    assert len(QUERIES) >= 190 and sum(1 for e in QUERIES if e["expect"] == "none") >= 5
    assert set(wrong) <= KNOWN_MISSES, sorted(set(wrong) - KNOWN_MISSES)
    assert len(wrong) <= 0.05 * len(QUERIES), wrong
