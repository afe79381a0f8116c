"""Two ways a name that no card covers used to borrow a card through its words: a member of a class a
vocabulary lists with no card (mlx.nn.Module.apply_to_modules is not about the kernel's modules), and the
brand and variant words of a vendor's product that is no GPU (the "AI" of AMD Ryzen AI 9 is not arithmetic
intensity). Both now exit 1; the same words still answer where they are terms."""

from __future__ import annotations

import io
import json

import pytest

from xlate import lookup


def _run(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("query", ["mlx.nn.Module.apply_to_modules", "nn.Module.update_modules",
                                   "AMD Ryzen AI 9 HX 370", "AMD Ryzen AI Max+ 395"])
def test_the_name_exits_1(query: str) -> None:
    code, payload = _run(query)
    assert code == 1 and not payload["matches"] and not payload["rows"] and payload["gpu"] is None, payload


@pytest.mark.parametrize(("query", "card"), [("AI", "arithmetic-intensity"), ("arithmetic intensity (AI) of a GEMM", "arithmetic-intensity"),
                                             ("mx.fast.scaled_dot_product_attention", "inference-kernels")])
def test_the_words_still_answer_where_they_are_terms(query: str, card: str) -> None:
    code, payload = _run(query)
    assert code == 0 and payload["matches"][0]["concept"] == card, payload
