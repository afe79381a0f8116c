"""The first vocabulary tables engineers learn (CUDA <-> HIP/ROCm, CUDA <-> Metal/MLX) answer from either
side: a lookup of either word lands on one concept whose card names the other word on the other backend."""

from __future__ import annotations

import pytest

from conftest import GLOSSARY
from xlate import kb
from glossary_once import real_glossary

# (left word, right word, backend the right word belongs to, backend the left word belongs to)
TABLE = [
    ("SM", "Compute Unit", "hip", "cuda"),
    ("warp", "wavefront", "hip", "cuda"),
    ("SMEM", "LDS", "hip", "cuda"),
    ("SMEM", "Local Data Share", "hip", "cuda"),
    ("Tensor Core", "Matrix Core", "hip", "cuda"),
    ("mma.sync", "MFMA", "hip", "cuda"),
    ("wgmma", "MFMA", "hip", "cuda"),
    ("cuBLAS", "rocBLAS", "hip", "cuda"),
    ("cuDNN", "MIOpen", "hip", "cuda"),
    ("CUTLASS", "Composable Kernel", "hip", "cuda"),
    ("Nsight Compute", "rocprof-compute", "hip", "cuda"),
    ("Nsight Compute", "Omniperf", "hip", "cuda"),
    ("Nsight Systems", "Omnitrace", "hip", "cuda"),
    ("Nsight Systems", "rocprof-systems", "hip", "cuda"),
    ("CUDA graphs", "HIP graph", "hip", "cuda"),
    ("warp", "SIMD-group", "metal", "cuda"),
    ("block", "threadgroup", "metal", "cuda"),
    ("SMEM", "threadgroup memory", "metal", "cuda"),
    ("grid", "grid", "metal", "cuda"),
    ("torch tensor on device", "mx.array", "mlx", "cuda"),
]


@pytest.fixture(scope="module")
def index() -> dict:
    return kb.load_index(GLOSSARY)


@pytest.fixture(scope="module")
def concepts() -> dict:
    return real_glossary().concepts


def _words(concept, backend: str) -> str:
    term = getattr(concept.terms, backend)
    assert term is not None and term.relation.value != "none", f"{concept.id}: {backend} is empty or none"
    return " ".join([*term.names, *term.symbols, term.caveat or ""]).casefold()


def _top(index: dict, query: str) -> str:
    found = kb.search(index, query, limit=2)
    assert found, f"no match for {query!r}"
    return found[0].concept


def _names(card, backend: str, word: str) -> bool:
    """The card names `word` on `backend` (or, for the card's own vocabulary, in its title and aliases)."""
    own = " ".join([card.title, *card.aliases, *card.abbreviations]).casefold()
    return word.casefold() in _words(card, backend) or word.casefold() in own


@pytest.mark.parametrize(("left", "right", "right_backend", "left_backend"), TABLE)
def test_both_directions(index: dict, concepts: dict, left: str, right: str, right_backend: str, left_backend: str) -> None:
    there = concepts[_top(index, left)]
    assert _names(there, right_backend, right), f"lookup {left!r} -> {there.id}, whose {right_backend} side does not name {right!r}"
    back = concepts[_top(index, right)]
    assert _names(back, left_backend, left), f"lookup {right!r} -> {back.id}, whose {left_backend} side does not name {left!r}"
    # Both words of one row are one concept, except where the right word is the general counterpart
    # (MFMA answers for mma.sync; wgmma has its own card that names MFMA), and where each vendor's
    # library has its own card naming the other (CUTLASS and Composable Kernel).
    assert there.id == back.id or (left, right) in (("wgmma", "MFMA"), ("CUTLASS", "Composable Kernel"))


def test_counterparts_are_named_not_none(concepts: dict) -> None:
    """`none` is for no counterpart at all; these have one an engineer reaches for."""
    assert concepts["wgmma"].terms.hip.relation.value == "approximate"
    assert concepts["cutlass"].terms.hip.relation.value == "approximate"
    assert concepts["composable-kernel"].terms.cuda.relation.value == "approximate"
    assert "composable kernel" in _words(concepts["cutlass"], "hip")
    assert "cutlass" in _words(concepts["composable-kernel"], "cuda")
    assert "mfma" in _words(concepts["wgmma"], "hip")
    assert "unified memory" in _words(concepts["device-array"], "mlx")
