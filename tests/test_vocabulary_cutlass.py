"""The CUTLASS and CuTe name lists (glossary/vocabulary/names-cutlass.yaml, names-cutlass-doc-sections.yaml)
against the lists scripts/list_cutlass_names.py extracted from NVIDIA/cutlass (tests/data/cutlass_names.txt,
cutlass_doc_headings.txt, each naming the repository and commit on its first line).

Nothing downloads: the proof is the stored lists. Every listed name is a name of the stored list, in the
folder its group names, on the card the topic rule below gives for its header; every extracted name is
listed, answered already with that card, or left out for one of the reasons below; every listed heading
is a heading of the stored list; and lookup answers a sample of both with their cards."""

from __future__ import annotations

import io
import json
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from conftest import glossary_without_rows
from header_name_lists import HeaderNameList
from xlate import lookup

ROOT = Path(__file__).resolve().parent.parent
NAMES_RAW = ROOT / "tests" / "data" / "cutlass_names.txt"
HEADINGS_RAW = ROOT / "tests" / "data" / "cutlass_doc_headings.txt"
COMMIT = "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"
NAMES_OF = "CUTLASS or CuTe name"
HEADINGS_OF = "CUTLASS documentation heading"
LISTS = {n.names_of: n for n in glossary_without_rows().name_lists}

# --- the topic rule: which card a name goes on -------------------------------------------------------------

# Headers whose names all belong to one card's topic, by folder and header name.
_HEADER_CARDS = [
    (
        r"include/cute/(arch/copy_sm90_tma|arch/copy_sm100_tma|arch/copy_sm90_desc"
        r"|atom/copy_traits_sm90_tma.*|atom/copy_traits_sm100_tma|atom/copy_traits_sm90_im2col"
        r"|atom/copy_traits_sm100_im2col)\.hpp",
        "tensor-memory-accelerator",
    ),
    (r"include/cute/(arch/mma_sm90.*|atom/mma_traits_sm90_gmma.*)\.hpp", "wgmma"),
    (r"include/cute/(arch/mma_sm100.*|atom/mma_traits_sm100.*)\.hpp", "tcgen05"),
    (r"include/cute/(arch/tmem_allocator_sm100|arch/copy_sm100|atom/copy_traits_sm100)\.hpp", "tensor-memory"),
    (r"include/cute/arch/cluster_sm(90|100)\.hpp", "thread-block-cluster"),
    (r"include/cute/(arch/copy_sm80|atom/copy_traits_sm80)\.hpp", "async-copy"),
    (r"include/cute/(arch/copy_sm75|arch/copy_sm90|atom/copy_traits_sm75|atom/copy_traits_sm90)\.hpp", "matrix-fragment-load"),
    (r"include/cute/(arch/mma_sm(61|70|75|80|89|120).*|atom/mma_traits_sm(61|70|75|80|89|120).*)\.hpp", "warp-mma"),
    (r"include/cutlass/pipeline/.*", "async-barrier"),
    (r"include/cutlass/arch/barrier\.h", "async-barrier"),
    (r"include/cutlass/half\.h", "fp16-format"),
    (r"include/cutlass/bfloat16\.h", "bf16-format"),
    (r"include/cutlass/tfloat32\.h", "tf32-format"),
    (r"include/cutlass/float8\.h", "fp8-formats"),
    (r"include/cutlass/float_subbyte\.h", "block-scaled-formats"),
]


def card_of(folder: str, header: str, name: str) -> str:
    """The card a name goes on: a name's own topic first (a warp-specialized schedule, an elect-one, a
    barrier, a microscaling type), then its header's, else the library's card."""
    if re.search(r"WarpSpecialized|Warpspecialized", name):
        return "warp-specialization"
    if name.startswith("elect_one"):
        return "warp-elect"
    if name == "NamedBarrier":
        return "block-barrier"
    if re.search(r"barrier", name, re.I) and folder.startswith("include/cute/arch"):
        return "async-barrier"
    if re.match(r"(mx_|nv_|type_erased_dynamic_|float_ue)", name):
        return "block-scaled-formats"
    for pattern, card in _HEADER_CARDS:
        if re.fullmatch(pattern, f"{folder}/{header}"):
            return card
    return "cutlass"


# --- the reasons a name is left out ------------------------------------------------------------------------

# One instruction shape and type of a tensor core operation (SM90_64x128x16_F32BF16BF16_SS, the GMMA op
# MMA_64x8x16_F16F16F16_SS, SM80_16x8x16_F32F16F16F32_TN): thousands, generated from one pattern.
SHAPE_VARIANT = re.compile(r"^(?:SM\d+_|G?MMA_)\d+x\d+x\d+")
# One plain word, optionally with a number or size suffix (Layout, Tensor, copy, gemm, Sm90, Matrix4x4):
# as spelled it would claim the word for CUTLASS.
ONE_WORD = re.compile(r"^(?:[A-Za-z][a-z]*|[A-Z]+)(?:\d+(?:x\d+)?)?$")
# A lower-case helper is listed only with a word of CuTe's vocabulary among its parts; the others are
# general utilities named like the C++ standard library's (tuple_size, for_each, bit_ceil, is_integral,
# make_tuple, ceil_div, atomic_add) that would capture queries about other code.
CUTE_WORDS = {
    "tma",
    "tmem",
    "umma",
    "gmma",
    "utccp",
    "tiled",
    "tile",
    "tiler",
    "layout",
    "swizzle",
    "smem",
    "gmem",
    "rmem",
    "cluster",
    "warpgroup",
    "ldsm",
    "stsm",
    "mma",
    "tensor",
    "barrier",
    "elect",
    "partition",
    "divide",
    "coord",
    "cotiled",
    "cosize",
    "im2col",
    "fragment",
    "instr",
    "desc",
    "blockscaled",
    "composed",
    "congruent",
    "colex",
    "basis",
}
_PRODUCT = re.compile(r"^(logical|blocked|raked|tiled|zipped|flat)_product$")
# Names of two words that are general terms before they are CUTLASS's (row-major storage, an activation
# function, a warp's size): lookup answers the term's card or a general question, not the library.
GENERAL_TERMS = {
    "RowMajor",
    "ColumnMajor",
    "RowVector",
    "ColumnVector",
    "LowerBound",
    "ReLu",
    "SiLu",
    "HardSwish",
    "WarpSize",
    "CpuId",
    "SharedStorage",
    "GeneralMatrix",
    "UnaryOp",
    "RealType",
    "ScaleType",
    "AccessWidth",
    "LayoutLeft",
    "LayoutRight",
}


def left_out(folder: str, header: str, name: str) -> str | None:
    """Why a name is not listed, or None."""
    if SHAPE_VARIANT.match(name):
        return "instruction shape variant"
    if ONE_WORD.match(name):
        return "one plain word"
    if name in GENERAL_TERMS:
        return "general term"
    if (
        re.fullmatch(r"[a-z0-9_]+", name)
        and card_of(folder, header, name) == "cutlass"
        and not (set(name.split("_")) & CUTE_WORDS or _PRODUCT.match(name))
    ):
        return "general helper"
    return None


# --- the stored lists --------------------------------------------------------------------------------------


@cache
def _headings() -> frozenset[str]:
    lines = HEADINGS_RAW.read_text(encoding="utf-8").splitlines()
    return frozenset(line.split("\t", 1)[1] for line in lines if not line.startswith("#"))


EXTRACT = HeaderNameList(NAMES_OF, NAMES_RAW, card_of, left_out)


def test_the_stored_lists_name_their_source() -> None:
    for raw, what in ((NAMES_RAW, "include/cute include/cutlass"), (HEADINGS_RAW, "media/docs")):
        head = raw.read_text(encoding="utf-8").splitlines()[0]
        assert head.startswith(f"# NVIDIA/cutlass {COMMIT} {what}: "), head
    assert len(EXTRACT.rows()) == len(set((f, n) for f, _, _, n in EXTRACT.rows()))
    assert {
        ("include/cute/atom", "mma_atom.hpp", "class", "TiledMMA"),
        ("include/cute/atom", "copy_atom.hpp", "function", "make_tiled_copy"),
        ("include/cutlass/gemm/device", "gemm_universal_adapter.h", "class", "GemmUniversalAdapter"),
        ("include/cutlass/gemm", "dispatch_policy.hpp", "class", "KernelTmaWarpSpecializedCooperative"),
        ("include/cute/arch", "copy_sm90_tma.hpp", "class", "SM90_TMA_LOAD"),
    } <= set(EXTRACT.rows())
    assert {"CuTe Layout Algebra", "Efficient GEMM in CUDA", "CUTLASS 3.0 GEMM API"} <= _headings()


def test_the_script_reads_declarations_at_namespace_scope() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import list_cutlass_names as script

    source = """
namespace cute {
// struct Commented {};
template <class T, class U = int>
struct TiledThing : Base<T> { using Inner = T; struct Nested {}; };
template <class T> using ThingAlias = TiledThing<T>;
namespace detail { struct Hidden {}; }
struct _Private;
template <class A>
CUTE_HOST_DEVICE constexpr
auto make_thing(A const& a) { struct Local {}; return a; }
#if defined(OTHER)
struct OnlyElsewhere {
#else
struct OnlyElsewhere : Base {
#endif
};
void TiledThing<int>::member() {}
}
"""
    assert script.declarations(source, functions=True) == [
        ("class", "TiledThing"),
        ("alias", "ThingAlias"),
        ("function", "make_thing"),
        ("class", "OnlyElsewhere"),
    ]
    assert script.declarations(source) == [("class", "TiledThing"), ("alias", "ThingAlias"), ("class", "OnlyElsewhere")]


def test_the_lists_load_without_problems() -> None:
    problems = [p for p in glossary_without_rows().problems if "names-cutlass" in str(p)]
    assert not problems, problems
    assert NAMES_OF in LISTS and HEADINGS_OF in LISTS


def test_every_listed_name_is_extracted_in_its_group_s_folder_on_the_card_its_topic_gives() -> None:
    wrong = EXTRACT.misplaced()
    assert not wrong, wrong


def test_no_listed_name_is_spelled_by_a_card_a_row_or_another_list() -> None:
    twice = EXTRACT.spelled_twice()
    assert not twice, twice


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_every_extracted_name_is_listed_answered_or_left_out_for_a_reason() -> None:
    unanswered = EXTRACT.unanswered()
    assert not unanswered, unanswered


def test_every_listed_heading_is_a_heading_of_the_documentation() -> None:
    absent = [h for g in LISTS[HEADINGS_OF].groups for h in g.names if h not in _headings()]
    assert not absent, absent


SAMPLE = [
    ("TiledMMA", "cutlass"),
    ("TiledCopy", "cutlass"),
    ("make_tiled_copy", "cutlass"),
    ("CollectiveBuilder", "cutlass"),
    ("GemmUniversalAdapter", "cutlass"),
    ("local_tile", "cutlass"),
    ("SM90_TMA_LOAD_MULTICAST", "tensor-memory-accelerator"),
    ("SM100_TMEM_LOAD_32dp32b1x", "tensor-memory"),
    ("SM100_MMA_F16BF16_SS", "tcgen05"),
    ("PipelineTmaAsync", "async-barrier"),
    ("PipelineTmaUmmaAsync", "async-barrier"),
    ("MainloopSm90TmaGmmaWarpSpecialized", "warp-specialization"),
    ("float_e4m3_t", "fp8-formats"),
    ("CuTe Layout Algebra", "cutlass"),
    ("Blocked and Raked Products", "cutlass"),
    ("CuTe TMA Tensors", "tensor-memory-accelerator"),
    ("CUTLASS 3.0 GEMM API", "cutlass"),
]


@pytest.mark.parametrize(("query", "card"), SAMPLE, ids=[q for q, _ in SAMPLE])
def test_lookup_answers_a_sample_with_its_card(query: str, card: str) -> None:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    top = payload["matches"][0] if payload["matches"] else {}
    assert code == 0 and top.get("concept") == card and top.get("matched_kind") == "package", top
