"""The libcu++ name list (glossary/vocabulary/names-libcudacxx.yaml): every listed name is one the stored
extract of CUDA 13.0's include/cccl/cuda/ headers holds (tests/data/libcudacxx_names.txt), the extract is
what scripts/list_libcudacxx_names.py reads from the toolkit when it is installed, and every extracted name
is listed, already answered by lookup, or left out for a reason stated here."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cccl_extract_of_installed_toolkit, glossary_without_rows
from xlate import kb

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "libcudacxx_names.txt"
NAMES_OF = "libcu++ name in namespace cuda"
_LIST = next((n for n in glossary_without_rows().name_lists if n.names_of == NAMES_OF), None)
# Public headers whose names no card covers, left unlisted.
LEFT_OUT_HEADERS = {
    "cuda/bit": "bit-field helpers, no GPU topic",
    "cuda/cmath": "integer rounding and logarithms, no GPU topic",
    "cuda/functional": "function objects and call wrappers, no GPU topic",
    "cuda/mdspan": "restrict-qualified mdspan views, no card on mdspan",
    "cuda/memory_resource": "the memory-resource interface, no card on allocator interfaces",
    "cuda/numeric": "overflow-checked casts, no GPU topic",
    "cuda/type_traits": "a type trait, no GPU topic",
    "cuda/latch": "a latch, no card on it",
    "cuda/semaphore": "semaphores, no card on them",
    "cuda/work_stealing": "no card on cluster launch control",
}
# Single names left unlisted.
LEFT_OUT = {
    "cuda::none": "an enumerator of async_contract_fulfillment, too generic a word to list bare",
    "cuda::async": "an enumerator of async_contract_fulfillment, too generic a word to list bare",
    "cuda::atomic_signal_fence": "a compiler-only fence between a thread and its signal handler, no card",
    "cuda::stream_ref": "a non-owning stream handle; bare stream_ref is too generic a word to list",
}


def _rows() -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in DATA.read_text().splitlines(True) if not line.startswith("#")]


def _listed() -> dict[str, str | None]:
    if _LIST is None:
        pytest.skip("no libcu++ name list in this glossary")
    return {n: g.card for g in _LIST.groups for n in g.names}


def _bare(qualified: str) -> str:
    return qualified.rsplit("::", 1)[-1]


def test_the_extract_names_its_toolkit_and_folder() -> None:
    head = DATA.read_text().splitlines()[:2]
    assert head[0].startswith("# CUDA 13.0") and "include/cccl/cuda/" in head[1]


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_the_extract_is_what_the_installed_headers_give() -> None:
    assert cccl_extract_of_installed_toolkit("list_libcudacxx_names") == _rows()


def test_every_listed_name_is_in_the_extract() -> None:
    extracted = {_bare(r[0]) for r in _rows()}
    assert sorted(set(_listed()) - extracted) == []


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_every_extracted_name_is_listed_answered_or_left_out() -> None:
    listed = _listed()
    index = kb.load_index()
    missing = []
    for qualified, header, _ in _rows():
        if _bare(qualified) in listed or qualified in LEFT_OUT or header in LEFT_OUT_HEADERS:
            continue
        if not kb.search(index, qualified, limit=1):
            missing.append(qualified)
    assert missing == []


def test_lookup_answers_each_listed_name_bare_and_with_template_arguments() -> None:
    index = kb.load_index()
    wrong = []
    for name, card in _listed().items():
        for query in (name, f"{name}<int>"):
            got = kb.search(index, query, limit=1)
            if not got or got[0].concept != card:
                wrong.append((query, got[0].concept if got else None))
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("cuda::atomic_ref", "scoped-atomics"),
        ("cuda::barrier<cuda::thread_scope_block>", "async-barrier"),
        ("cuda::memcpy_async", "async-copy"),
        ("cuda::thread_scope_block", "scoped-atomics"),
        ("memcpy_async", "async-copy"),
        ("cp.async", "async-copy"),
        ("mbarrier", "async-barrier"),
        ("__pipeline_commit", "async-copy"),
        ("annotated_ptr<int, cuda::access_property::streaming>", "l2-cache"),
    ],
)
def test_lookup_answers_libcudacxx_names_and_their_neighbours(name: str, card: str) -> None:
    got = kb.search(kb.load_index(), name, limit=1)
    assert got and got[0].concept == card, got


@pytest.mark.parametrize("name", ["cuda::annotated_ptr", "cuda::pipeline_producer_commit", "cuda::aligned_size_t"])
def test_lookup_answers_a_listed_name_under_cuda(name: str) -> None:
    got = kb.search(kb.load_index(), name, limit=1)
    assert got and got[0].concept == _listed()[_bare(name)], got
