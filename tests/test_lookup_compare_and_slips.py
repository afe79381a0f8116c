"""Small query shapes: "A vs B" answers the first of the two terms that a card names, when nothing
answers the whole phrase; and a package name one slip away from several listed names answers their card
when they all sit on one (tl.randin4x: tl.randint4x and tl.randn4x are both random-number functions); one
word in the plural is asked as its singular (warps)."""

from __future__ import annotations

import pytest

from xlate import kb
from xlate.kb import _index


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


def test_a_comparison_answers_its_first_named_term(index: kb.Index) -> None:
    assert kb.search(index, "Proton vs nsys", limit=1)[0].concept == kb.search(index, "Proton", limit=1)[0].concept
    assert kb.search(index, "foo vs bar", limit=1) == []


def test_a_slip_between_names_of_one_card_answers_that_card(index: kb.Index) -> None:
    assert _index._slip_candidates(index, "tl.randin4x") == ["tl.randint4x", "tl.randn4x"]
    top = kb.search(index, "tl.randin4x", limit=1)
    assert top and top[0].concept == "rng" and top[0].kind == "fuzzy", top


def test_a_slip_between_rows_still_needs_one_spelling(index: kb.Index) -> None:
    # Row spellings name exact calls: a slip that could be two different rows answers neither.
    assert _index.row_slip(index, "cudaMemcpyToSymbl") == "cudaMemcpyToSymbol"


def test_one_word_in_the_plural_is_asked_as_its_singular(index: kb.Index) -> None:
    for plural, singular in (("warps", "warp"), ("Heaps", "heap"), ("kernels", "kernel")):
        assert kb.search(index, plural, limit=1)[0].concept == kb.search(index, singular, limit=1)[0].concept, plural


def test_mlx_cpp_names_are_read_as_their_python_spelling(index: kb.Index) -> None:
    for query in ("mlx::core::fast::gated_delta_update", "mlx::core::linalg::inv"):
        cpp = kb.search(index, query, limit=1)
        py = kb.search(index, "mx." + query[len("mlx::core::"):].replace("::", "."), limit=1)
        assert cpp and py and cpp[0].concept == py[0].concept, (query, cpp, py)


def test_a_slip_in_a_long_namespace_spelling_is_read_on_its_short_form(index: kb.Index) -> None:
    top = kb.search(index, "mlx.core.fast.layer_nrom", limit=1)
    assert top and top[0].concept == "inference-kernels" and top[0].kind == "fuzzy", top
