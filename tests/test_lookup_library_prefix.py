"""A member no row, list or label holds, written under a library's namespace or prefix, answers that
library's card and says which prefix decided (rocwmma::synchronize_workgroup, hipblaslt_ext::GemmInstance,
rsmi_dev_temp_metric_get); a prefix that names a whole stack (hip, metal, cuda) or no single library says
nothing."""

from __future__ import annotations

import pytest

from xlate import kb
from xlate.kb import _index


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


@pytest.mark.parametrize(("query", "card", "prefix"), [
    ("rocwmma::synchronize_workgroup", "matrix-fragment-api", "rocwmma::*"),
    ("hipblaslt_ext::GemmInstance", "blas-lt", "hipblaslt_ext::*"),
    # CuTe is also named on Composable Kernel's CUDA side, as its counterpart: the card titled by it wins.
    ("cute::ceil_div", "cutlass", "cute::*"),
    ("cutlass::gemm::RowMajor", "cutlass", "cutlass::*"),
    # ck_tile is Composable Kernel's own symbol and a counterpart name on the CUTLASS card: the symbol wins.
    ("ck_tile::FooTileShape", "composable-kernel", "ck_tile::*"),
    ("rsmi_dev_temp_metric_get", "management-library", "rsmi_*"),
    ("rocblas_gemm_ex3", "blas", "rocblas_*"),
    ("miopenFusionPlanGetWorkspaceSize", "dnn", "miopen*"),
])
def test_a_library_member_no_list_holds_answers_the_library_card(index: kb.Index, query: str, card: str, prefix: str) -> None:
    assert _index.library_prefix(index, query, None) == [
        kb.Match(card, _index.SCORE_LIBRARY, prefix, "prefix", _index.library_prefix(index, query, None)[0].backend)]
    top = kb.search(index, query, limit=1)
    assert top and top[0].concept == card, top


@pytest.mark.parametrize("query", [
    "hipFooBarBaz",       # hip names the whole stack, not a library
    "metal::fooBarBaz",   # so does metal
    "cuda::std::span",    # cuda:: is the toolkit's namespace, no library's
    "foo_bar_baz",        # no card names foo
    "mlx_undeclared_name",
])
def test_a_stack_or_unknown_prefix_decides_nothing(index: kb.Index, query: str) -> None:
    assert _index.library_prefix(index, query, None) == []


def test_a_listed_or_spelled_name_is_answered_before_its_prefix(index: kb.Index) -> None:
    # rocwmma::mma_sync is a row: the row's card, not the namespace's guess.
    top = kb.search(index, "rocwmma::mma_sync", limit=1)
    assert top and top[0].kind != "prefix", top


def test_a_member_a_name_list_holds_answers_its_list_card_whatever_the_namespace(index: kb.Index) -> None:
    # TileGemmShape is listed on Composable Kernel's card; cute::TiledMMA on CUTLASS's.
    for query, card in (("ck_tile::TileGemmShape", "composable-kernel"), ("cute::TiledMMA", "cutlass")):
        top = kb.search(index, query, limit=1)
        assert top and top[0].concept == card and top[0].kind == "package", (query, top)


@pytest.mark.parametrize(("query", "topic", "library"), [
    ("rocprim::device_warp_size", "warp-size", "parallel-primitives"),
    ("rocprim::deviceWarpSize", "warp-size", "parallel-primitives"),
])
def test_a_member_whose_words_name_a_card_answers_that_card_before_its_library(
        index: kb.Index, query: str, topic: str, library: str) -> None:
    found = _index.library_prefix(index, query, None)
    assert [m.concept for m in found] == [topic, library], found
    assert found[0].matched == "warp size"


def test_a_member_whose_words_name_no_card_or_two_answers_the_library_alone(index: kb.Index) -> None:
    # "gemm ex" names no card; one word ("gemm") is never read as a topic.
    assert [m.concept for m in _index.library_prefix(index, "rocblas_gemm_ex3", None)] == ["blas"]
