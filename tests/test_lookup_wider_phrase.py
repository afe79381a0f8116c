"""In a phrase, a label that covers three or more of its words outranks a shorter term found inside it:
"Command buffer reports errors" is about command-buffer errors, not about command buffers."""

from __future__ import annotations

from xlate import kb
from xlate.kb import _index


def test_the_wider_label_is_lifted_above_the_span() -> None:
    index = kb.load_index()
    q = "Command buffer reports errors"
    phrase, spans = _index.word_matches(index, q, None), _index.span_matches(index, q, None)
    assert spans and max(spans, key=lambda m: m.score).concept == "stream"
    ranked = sorted(_index._wider_phrase_first(q, phrase, spans), key=lambda m: -m.score)
    assert ranked[0].concept == "error-handling", ranked
    assert kb.search(index, q, limit=1)[0].concept == "error-handling"


def test_a_two_word_label_is_not_lifted() -> None:
    # Covering two words is what the span already does: nothing changes.
    phrase = [kb.Match("a", 80.0, "bank conflicts", "words", None)]
    spans = [kb.Match("b", 84.0, "shared memory", "span", None)]
    assert _index._wider_phrase_first("shared memory bank conflicts", phrase, spans) == phrase + spans


def test_a_phrase_with_a_word_the_glossary_never_uses_needs_more_than_half_its_words_on_one_card() -> None:
    index = kb.load_index()
    # "share" and "data" are two of Local Data Share's words, but nothing in the glossary sells.
    assert kb.search(index, "Do Not Sell or Share My Data", limit=1) == []
    # A hyphenated compound builds a new word from known ones: auto-tunable still reaches autotuning.
    assert kb.search(index, "Auto-tunable kernel configurations", limit=1)[0].concept == "autotuning"
