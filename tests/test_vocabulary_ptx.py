"""The PTX instruction list (glossary/vocabulary/names-ptx-instructions.yaml): every listed name is one the
stored extract of CUDA 13.0's cuda::ptx headers holds (tests/data/ptx_names.txt), the extract is what
scripts/list_ptx_names.py reads from the toolkit when it is installed, and every extracted name is listed,
already answered by lookup, or left out for a reason stated here."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cccl_extract_of_installed_toolkit, glossary_without_rows
from xlate import kb

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "ptx_names.txt"
NAMES_OF = "PTX instruction or cuda::ptx wrapper"
_LIST = next((n for n in glossary_without_rows().name_lists if n.names_of == NAMES_OF), None)
# Extracted names no card covers, left unlisted: lookup already answers nothing for them.
LEFT_OUT = {
    "mov": "only the special-register reads use it; their get_sreg_ wrappers answer their cards",
    "shl": "a plain shift, no GPU topic",
    "shr": "a plain shift, no GPU topic",
    "exit": "no card on ending a thread",
    "trap": "no card on aborting a kernel",
    "ld": "a generic load",
    "st": "a generic store",
    "st.bulk": "no card on bulk zeroing of shared memory",
    "clusterlaunchcontrol.try_cancel": "no card on cluster launch control",
    "clusterlaunchcontrol.query_cancel": "no card on cluster launch control",
}


def _rows() -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in DATA.read_text().splitlines(True) if not line.startswith("#")]


def _listed() -> dict[str, str | None]:
    if _LIST is None:
        pytest.skip("no PTX instruction list in this glossary")
    return {n: g.card for g in _LIST.groups for n in g.names}


def test_the_extract_names_its_toolkit_and_folder() -> None:
    head = DATA.read_text().splitlines()[:2]
    assert head[0].startswith("# CUDA 13.0") and "cccl/cuda/__ptx/instructions/generated" in head[1]


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_the_extract_is_what_the_installed_headers_give() -> None:
    assert cccl_extract_of_installed_toolkit("list_ptx_names") == _rows()


def test_every_listed_name_is_in_the_extract() -> None:
    extracted = {r[1] for r in _rows()}
    assert sorted(set(_listed()) - extracted) == []


@pytest.mark.slow
def test_every_extracted_name_is_listed_answered_or_left_out() -> None:
    listed = _listed()
    index = kb.load_index()
    missing = []
    for row in _rows():
        name = row[1]
        base = row[2] if row[0] == "wrapper" else name
        if name in listed or name in LEFT_OUT or base in LEFT_OUT:
            continue
        if not kb.search(index, name, limit=1):
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("st.async", "distributed-shared-memory"),
        ("multimem.ld_reduce", "gpu-switch"),
        ("ld.global.nc", "l1-cache"),
        ("tcgen05.alloc", "tensor-memory"),
        ("barrier.cluster.arrive", "thread-block-cluster"),
        ("cp.async.bulk.tensor", "tensor-memory-accelerator"),
        ("mbarrier.try_wait", "async-barrier"),
        ("bar.sync", "block-barrier"),
        ("atom.add", "atomic-add"),
        ("tcgen05_alloc", "tensor-memory"),
    ],
)
def test_lookup_answers_ptx_names_and_their_neighbours(name: str, card: str) -> None:
    got = kb.search(kb.load_index(), name, limit=1)
    assert got and got[0].concept == card, got


@pytest.mark.parametrize(
    "query",
    [
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32",
        "multimem.ld_reduce.relaxed.sys.global.add.f32",
        "ld.global.nc.b32",
    ],
)
def test_a_qualified_form_answers_its_base_names_card(query: str) -> None:
    got = kb.search(kb.load_index(), query, limit=1)
    assert got and got[0].kind == "package"
