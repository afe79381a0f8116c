"""The Metal vocabularies (glossary/vocabulary/tool-metal.yaml, names-metal-env.yaml, names-metal-mpp.yaml):
the metal compiler's options from the MSL specification's section 1.6, the environment variables Apple's
pages and MetalValidation(1) document, and the names of Metal Performance Primitives. No Metal compiler or
Metal device is available to prove them against, so the proof is the text each file cites; here the files
are checked for form, for not repeating a spelling a card already holds, and for what lookup answers."""

from __future__ import annotations

import re

import pytest

from conftest import glossary_without_rows
from xlate import kb

_GLOSSARY = glossary_without_rows()
METAL = next((t for t in _GLOSSARY.tool_options if t.tool == "metal"), None)
NAME_LISTS = {n.names_of: n for n in _GLOSSARY.name_lists}
ENV = NAME_LISTS.get("Metal environment variable")
MPP = NAME_LISTS.get("Metal Performance Primitives name")


def test_the_three_files_load() -> None:
    assert METAL is not None and ENV is not None and MPP is not None
    assert not [p for p in _GLOSSARY.problems if "metal" in str(p).lower()]


def test_every_metal_option_is_a_flag_without_its_value() -> None:
    assert METAL is not None
    options = [o for g in METAL.groups for o in g.options]
    assert options and all(re.fullmatch(r"-[A-Za-z][A-Za-z0-9_-]*", o) for o in options), options
    assert "-std" in options and "-fmetal-math-mode" in options


def test_environment_names_are_upper_case_metal_variables() -> None:
    assert ENV is not None
    names = [n for g in ENV.groups for n in g.names]
    assert names and all(re.fullmatch(r"MTL_[A-Z0-9_]+", n) for n in names), names


def test_mpp_names_are_identifiers() -> None:
    assert MPP is not None
    names = [n for g in MPP.groups for n in g.names]
    assert names and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names), names


def test_no_listed_name_is_a_spelling_a_card_already_holds() -> None:
    """A card's symbol, name or alias answers before a list does, so listing it again says nothing."""
    index = kb.load_index()
    labels = {entry[0] for entry in index["labels"]}
    listed = [n for names in (ENV, MPP) if names for g in names.groups for n in g.names]
    assert not [n for n in listed if n in labels]


@pytest.mark.parametrize(("query", "card"), [
    # tool-metal.yaml: an option, with its value, on the tool's command line or alone
    ("metal -std=metal4.0", "offload-target"),
    ("xcrun metal -std=metal3.2 -c k.metal -o k.air", "offload-target"),
    ("-frecord-sources", "debugger"),
    ("-fmax-total-threads-per-threadgroup=256", "launch-bounds"),
    ("-ftexture-write-rounding-mode=rte", "texture-memory"),
    ("xcrun metal -gpu-family=apple9 k.metal", "offload-target"),
    ("-fmetal-math-fp32-functions=precise", "fast-math-intrinsics"),
    ("-fmetal-math-mode=fast", "fast-math-intrinsics"),  # an alias of the card answers first
    # names-metal-env.yaml: a variable, set or bare
    ("MTL_HUD_ENABLED=1", "timeline-profiler"),
    ("MTL_HUD_REPORT_URL", "timeline-profiler"),
    ("MTL_DEBUG_LAYER_ERROR_MODE=nslog", "sanitizer"),
    ("MTL_SHADER_VALIDATION_REPORT_TO_STDERR=1", "sanitizer"),
    ("MTL_CAPTURE_ENABLED=1", "debugger"),
    ("MTL_LOG_LEVEL", "device-printf"),
    # names-metal-mpp.yaml
    ("tensor_ops", "warp-mma"),
    ("matmul2d", "warp-mma"),
    ("matmul2d_descriptor", "warp-mma"),
    ("execution_simdgroup", "warp-mma"),
    ("execution_simdgroups", "warpgroup"),
    ("convolution2d", "dnn"),
    ("cooperative_tensor", "matrix-fragment-api"),
    ("get_destination_cooperative_tensor", "matrix-fragment-api"),
])
def test_lookup_answers_each_group_with_its_card(query: str, card: str) -> None:
    got = kb.search(kb.load_index(), query)
    assert got and got[0].concept == card, [(m.concept, m.kind) for m in got[:2]]


@pytest.mark.parametrize(("query", "card"), [
    ("-std=metal4.0", "offload-target"),  # -std is nvcc's too: the value names the metal compiler
    ("mpp::tensor_ops", "warp-mma"),  # the namespace's members are listed bare
    ("mpp::tensor_ops::matmul2d", "warp-mma"),
])
def test_a_value_or_namespace_that_names_the_metal_spelling_reaches_its_card(query: str, card: str) -> None:
    got = kb.search(kb.load_index(), query)
    assert got and got[0].concept == card
