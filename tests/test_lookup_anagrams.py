"""A tool name typed with its letters in another order (cudumpobj) answers the tool; a word the labels use
is that word, never another name's letters rearranged ("Counters" is not cuTENSOR), and lookup never fails
on labels of one card that carry a backend and labels that carry none."""

from __future__ import annotations

import io

import pytest

from xlate import kb, lookup
from xlate.kb import _index


def test_a_rearranged_tool_name_answers_the_tool() -> None:
    top = kb.search(kb.load_index(), "cudumpobj", limit=1)
    assert top and top[0].concept == "disassembler" and top[0].kind == "transposed", top


@pytest.mark.parametrize("query", ["Counters", "counters"])
def test_a_label_word_is_no_anagram(query: str) -> None:
    assert _index.anagrams(kb.load_index(), query, None) == []


def test_lookup_of_a_word_whose_anagram_labels_mix_backends_exits_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    # cuTENSOR's labels carry the cuda backend and none: ordering them once raised a TypeError.
    code = lookup.run("Counters", None, "text", 5, out=io.StringIO())
    assert code in (0, 1)
    assert "Traceback" not in capsys.readouterr().err
