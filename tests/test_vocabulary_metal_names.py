"""The Metal Performance Shaders class list (glossary/vocabulary/names-mps.yaml) against the stored list of
every class the SDK headers declare (tests/data/names-mps.txt, written by scripts/list_metal_names.py).

Nothing downloads: the proof is the stored list. Every listed class is a class of it, under the framework
part its group names; every class it holds is either listed or spelled by a card or row (so lookup answers
it from that card); each class sits on the card the header rule gives; and lookup answers a sample with
its card."""

from __future__ import annotations

import io
import json
import sys
from functools import cache
from pathlib import Path

import pytest

from conftest import glossary_without_rows
from xlate import kb, lookup

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "tests" / "data" / "names-mps.txt"
MPS = "Metal Performance Shaders class"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}
PARTS = (
    "MPSCore",
    "MPSImage",
    "MPSMatrix",
    "MPSNDArray",
    "MPSNeuralNetwork",
    "MPSRayIntersector",
    "MetalPerformanceShadersGraph",
)


@cache
def _raw() -> list[tuple[str, str, str]]:
    lines = RAW.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if not line.startswith("#")]  # type: ignore[misc]


def _listed() -> dict[str, str | None]:
    return {n: g.card for g in NAMES[MPS].groups for n in g.names}


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _spelled(name: str) -> bool:
    labels = {label.casefold() for label, _, _, _ in _index()["labels"]}
    return name.casefold() in labels or bool(kb.find_rows(_index(), name, None))


def _card(part: str, header: str, name: str) -> str:
    """The card a class goes on: its header's topic where that has a card, else its framework part's."""
    if name.endswith("MatrixMultiplication") or header in ("MPSMatrix.h", "MPSMatrixMultiplication.h"):
        return "blas"
    by_header = {
        "MPSMatrixDecomposition.h": "solver",
        "MPSMatrixSolve.h": "solver",
        "MPSMatrixRandom.h": "rng",
        "MPSGraphRandomOps.h": "rng",
        "MPSMatrixSoftMax.h": "dnn",
        "MPSGraphFourierTransformOps.h": "fft",
        "MPSGraphSparseOps.h": "sparse-linear-algebra",
    }
    if header in by_header:
        return by_header[header]
    return {"MPSNeuralNetwork": "dnn", "MetalPerformanceShadersGraph": "mpsgraph"}.get(part, "metal-performance-shaders")


def test_the_stored_list_names_its_source_and_is_whole() -> None:
    head = RAW.read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith("# madsmtm/objc2-generated 4d183fc9b85c788a629c31419a23ecdddb317bcc: ")
    assert "Xcode 26.5" in head and f": {len(_raw())} " in head
    assert {part for part, _, _ in _raw()} == set(PARTS)
    names = [name for _, _, name in _raw()]
    assert len(names) == len(set(names))
    assert all(name.startswith("MPS") and header.endswith(".h") for _, header, name in _raw())
    # The classes the task's users ask for, each under the header that declares it.
    assert {
        ("MPSCore", "MPSMatrix.h", "MPSTemporaryMatrix"),
        ("MPSImage", "MPSImageConvolution.h", "MPSImageGaussianBlur"),
        ("MPSNeuralNetwork", "MPSCNNGroupNormalization.h", "MPSCNNGroupNormalization"),
        ("MetalPerformanceShadersGraph", "MPSGraph.h", "MPSGraph"),
    } <= set(_raw())


def test_the_script_reads_the_classes_of_a_generated_file() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import list_metal_names as script

    source = (
        "extern_class!(\n    /// doc\n    #[unsafe(super(MPSKernel, NSObject))]\n    pub struct MPSImageHistogram;\n);\n"
        "extern_protocol!(\n    pub unsafe trait MPSImageSizeEncodingState {}\n);\n"
        "extern_class!(\n    pub struct MPSImageHistogramEqualization;\n);\n"
    )
    assert script.classes(source) == ["MPSImageHistogram", "MPSImageHistogramEqualization"]
    assert script.where("MetalPerformanceShaders/MPSImage/MPSImageHistogram.rs") == ("MPSImage", "MPSImageHistogram.h")
    assert script.where("MetalPerformanceShadersGraph/MPSGraph.rs") == ("MetalPerformanceShadersGraph", "MPSGraph.h")
    assert script.where("MetalPerformanceShaders/MPSImage/mod.rs") is None


def test_the_list_loads_without_problems() -> None:
    problems = [p for p in glossary_without_rows().problems if "names-mps" in str(p)]
    assert not problems, problems
    assert _listed()


def test_every_listed_class_is_a_class_of_the_stored_list_under_its_group_s_part() -> None:
    part_of = {name: part for part, _, name in _raw()}
    wrong = []
    for g in NAMES[MPS].groups:
        wrong += [(n, g.section) for n in g.names if n not in part_of or not g.section.startswith(part_of[n])]
    assert not wrong, wrong


def test_every_class_of_the_stored_list_is_listed_or_spelled_and_never_both() -> None:
    listed = _listed()
    missing = [name for _, _, name in _raw() if name not in listed and not _spelled(name)]
    twice = [name for name in listed if _spelled(name)]
    assert not missing, missing
    assert not twice, twice


def test_each_class_is_on_the_card_its_header_gives() -> None:
    listed = _listed()
    wrong = {
        name: (listed[name], _card(part, header, name))
        for part, header, name in _raw()
        if name in listed and listed[name] != _card(part, header, name)
    }
    assert not wrong, wrong


def test_a_spelled_class_answers_the_card_the_rule_would_give() -> None:
    """The rule agrees with the cards where a card already spells a class (MPSGraphFFTDescriptor on the
    FFT card, MPSMatrixSolveLU on the solver card)."""
    wrong = {}
    for part, header, name in _raw():
        if _spelled(name):
            top = kb.search(_index(), name, limit=1)
            if not top or top[0].concept != _card(part, header, name):
                wrong[name] = (top[0].concept if top else None, _card(part, header, name))
    assert not wrong, wrong


def _answer(query: str) -> dict:
    out = io.StringIO()
    lookup.run(query, fmt="json", out=out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize(
    "name",
    [
        "MPSTemporaryMatrix",
        "MPSImageGaussianBlur",
        "MPSImageHistogram",
        "MPSCNNGroupNormalization",
        "MPSNNGraph",
        "MPSMatrixSoftMax",
        "MPSMatrixRandomPhilox",
        "MPSTriangleAccelerationStructure",
        "MPSGraphLSTMDescriptor",
    ],
)
def test_lookup_answers_a_listed_class_with_its_card(name: str) -> None:
    top = (_answer(name)["matches"] or [{}])[0]
    assert top.get("concept") == _listed()[name] and top.get("matched_kind") == "package", top
