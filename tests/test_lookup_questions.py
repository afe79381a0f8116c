"""A term asked about as a question ("LDS?", "What is a warp?", "what does SIMT mean") answers as the term
does: question marks belong to no term (unless a label keeps them), and the words that ask for a
definition are not words of the term. An unrelated word asked about still exits 1."""

from __future__ import annotations

import io
import json

import pytest

from xlate import lookup


def _lead(query: str) -> tuple[int, str | None]:
    out = io.StringIO()
    code = lookup.run(query, None, "json", 3, out=out)
    matches = json.loads(out.getvalue())["matches"]
    return code, (matches[0]["concept"] if matches else None)


@pytest.mark.parametrize(("query", "card"), [
    ("LDS?", "shared-memory"), ("What is LDS?", "shared-memory"), ("What's LDS?", "shared-memory"),
    ("what is a warp", "warp"), ("What is a wavefront?", "warp"), ("what are warps", "warp"),
    ("what does SIMT mean?", "simt"), ("define occupancy", "occupancy"), ("What is ROCR?", "driver-api"),
    ("what is the warp size?", "warp-size"), ("HBM!", "hbm"),
])
def test_a_question_about_a_term_answers_as_the_term(query: str, card: str) -> None:
    assert _lead(query) == (0, card)


@pytest.mark.parametrize("query", ["What is a banana?", "what is an invoice", "Why?", "?", "define bicycle"])
def test_a_question_about_no_gpu_term_exits_1(query: str) -> None:
    assert _lead(query) == (1, None)
