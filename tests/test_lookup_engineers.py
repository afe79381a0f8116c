"""Lookup on queries in engineers' own wording (tests/data/lookup_queries_engineers.yaml): terms as they
appear in forum and Stack Overflow questions, GitHub issue titles and vendor guide headings, each with
the page it came from. Measured before lookup was changed for them: 120 of 173 right at the top
(69.4%). The set then calibrated the general rules in src/xlate/kb/_index.py (a term inside a phrase,
a version number after a term, a swapped pair of letters, a code name extending a known family, a GPU
named among other words) and the terms the glossary lacked, so it is no longer held out. The queries
that still miss are named: a fix shows up as a change here and a new miss fails the test. triton.cdiv
later reached the grid-dimensions card, whose Triton side says how the host sizes the grid with it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import wrong_queries

QUERIES = yaml.safe_load((Path(__file__).parent / "data" / "lookup_queries_engineers.yaml").read_text())["queries"]
# What the glossary does not answer yet, and why:
KNOWN_MISSES = {
    "barrier deadlock",  # no page says deadlock; the block-barrier card calls it a hang
    "s_and_saveexec_b64",  # an AMDGPU EXEC-mask instruction; no page lists ISA spellings of the mask
    "persistent kernel",  # several pages mention persistent kernels; none is about them
    "resource storage mode",  # Metal storage modes span several pages (shared, private, managed)
    "64-bit atomics",  # no page collects 64-bit atomic support
}


@pytest.mark.slow
def test_engineers_queries_land_first() -> None:
    wrong = wrong_queries(QUERIES)
    assert len(QUERIES) >= 170 and sum(1 for e in QUERIES if e["expect"] == "none") >= 8
    assert not [e["q"] for e in QUERIES if e["expect"] == "none" and e["q"] in wrong]
    assert set(wrong) == KNOWN_MISSES, (sorted(set(wrong) - KNOWN_MISSES), sorted(KNOWN_MISSES - set(wrong)))
    assert len(wrong) <= 0.05 * len(QUERIES), wrong


def test_every_query_names_where_its_wording_came_from() -> None:
    lines = [line for line in (Path(__file__).parent / "data" / "lookup_queries_engineers.yaml").read_text().splitlines()
             if line.startswith("  - {q:")]
    assert len(lines) == len(QUERIES)
    assert all("  # http" in line for line in lines), [line for line in lines if "  # http" not in line]
