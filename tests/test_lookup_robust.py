"""Lookup never fails, whatever it is asked: every word the glossary's labels use, as written,
capitalised, in the plural and in capitals (slow), and arbitrary text (Hypothesis)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate import kb


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=40))
def test_arbitrary_text_is_answered_or_not_without_failing(index: kb.Index, text: str) -> None:
    kb.search(index, text, limit=3)


@pytest.mark.slow
def test_every_label_word_in_four_spellings_is_answered_or_not_without_failing(index: kb.Index) -> None:
    words = sorted({w for label, _, _, _ in index["labels"] for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", label)})
    failed = []
    for word in words:
        for query in (word, word.capitalize(), word + "s", word.upper()):
            try:
                kb.search(index, query, limit=3)
            except Exception as exc:  # noqa: BLE001 - the test reports every failure, of any kind
                failed.append((query, repr(exc)))
    assert not failed, failed[:20]
