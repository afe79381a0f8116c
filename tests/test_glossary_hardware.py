"""Hardware concepts: every vendor's word for a hardware unit lands on one concept, and the cards are complete."""

from __future__ import annotations

import pytest

from conftest import GLOSSARY
from xlate import kb

HARDWARE_VOCABULARY = [
    ("SM", "streaming-multiprocessor"),
    ("CU", "streaming-multiprocessor"),
    ("compute unit", "streaming-multiprocessor"),
    ("GPU core", "streaming-multiprocessor"),
    ("multiProcessorCount", "streaming-multiprocessor"),
    ("CDNA3", "cdna3"),
    ("CDNA 4", "cdna4"),
    ("RDNA4", "rdna4"),
    ("XCD", "xcd"),
    ("VGPR", "vgpr"),
    ("SGPR", "sgpr"),
    ("AccVGPR", "accvgpr"),
    ("AGPR", "accvgpr"),
    ("Tensor Core", "tensor-core"),
    ("Matrix Core", "tensor-core"),
    ("simdgroup matrix hardware", "tensor-core"),
    ("TMA", "tensor-memory-accelerator"),
    ("cp.async.bulk.tensor", "tensor-memory-accelerator"),
    ("TMEM", "tensor-memory"),
    ("WGP", "workgroup-processor"),
    ("compute capability", "compute-capability"),
    ("Apple9", "apple-gpu-family"),
    ("SMSP", "sm-sub-partition"),
    ("shader engine", "graphics-processing-cluster"),
]


@pytest.fixture(scope="module")
def index() -> dict:
    return kb.load_index(GLOSSARY)


@pytest.mark.parametrize(("query", "concept"), HARDWARE_VOCABULARY)
def test_hardware_terms_land_on_one_concept(index: dict, query: str, concept: str) -> None:
    found = kb.search(index, query, limit=2)
    assert found and found[0].concept == concept
    # No tie: a second concept at the same score would make the answer depend on sort order.
    assert len(found) == 1 or found[1].score < found[0].score


@pytest.mark.slow
def test_hardware_cards_are_complete() -> None:
    g = kb.load_glossary(GLOSSARY)
    hardware = {cid: c for cid, c in g.concepts.items() if c.category.value == "hardware"}
    assert len(hardware) >= 26
    for cid, concept in hardware.items():
        for backend in ("cuda", "hip", "metal"):
            term = getattr(concept.terms, backend)
            assert term is not None, f"{cid}: no {backend} term"
            if term.relation.value == "none":
                assert term.caveat, f"{cid}.{backend}: 'none' without a reason"
            else:
                assert term.docs, f"{cid}.{backend}: no documentation link"
    graph = g.graph()
    for cid in hardware:
        assert graph.degree(cid) > 0, f"{cid}: not linked to any other concept"
