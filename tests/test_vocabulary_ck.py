"""The Composable Kernel name lists (glossary/vocabulary/names-composable-kernel.yaml,
names-composable-kernel-doc-sections.yaml) and the rocPRIM, rocThrust and hipCUB documentation headings
(names-rocprim-doc-sections.yaml), against the lists extracted from the repositories and kept in tests/data/
(ck_names.txt by scripts/list_ck_names.py; ck_doc_headings.txt, rocprim_doc_headings.txt,
rocprim_rocthrust_doc_headings.txt and rocprim_hipcub_doc_headings.txt by scripts/list_doc_headings.py),
each naming its repository and commit on its first line.

Nothing downloads: the proof is the stored lists. Every listed name is a name of the stored list, in the
folder its group names, on the card the topic rule below gives; every extracted name is listed, answered
already with that card, or left out for one of the reasons below; every listed heading is a heading of the
stored lists; and lookup answers a sample of each with its card."""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path

import pytest

import heading_lists
from conftest import glossary_without_rows
from header_name_lists import HeaderNameList
from scripts_loader import load_script
from xlate import lookup

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
NAMES_RAW = DATA / "ck_names.txt"
CK_COMMIT = "8e22e1ae31bbf7086f69d8724e027676791d351a"
HEADING_FILES = {
    "ck_doc_headings.txt": ("ROCm/composable_kernel", CK_COMMIT),
    "rocprim_doc_headings.txt": ("ROCm/rocPRIM", "0ce43c037bd90b88b90ac15ebf697307ca5a932d"),
    "rocprim_rocthrust_doc_headings.txt": ("ROCm/rocThrust", "8e71e3d26b11cb5e86ee33c714f97953d2ca5364"),
    "rocprim_hipcub_doc_headings.txt": ("ROCm/hipCUB", "84d9c1c6a96d5f03cd82a6f3348ae59a21eddb5e"),
}
NAMES_OF = "Composable Kernel name"
CK_HEADINGS_OF = "Composable Kernel documentation heading"
PRIM_HEADINGS_OF = "rocPRIM, rocThrust or hipCUB documentation heading"
LISTS = {n.names_of: n for n in glossary_without_rows().name_lists}

# --- the topic rule: which card a name goes on -------------------------------------------------------------

_HEADER_CARDS = [
    (r"include/ck/utility/amd_smfmac\.hpp|include/ck/tensor_operation/gpu/warp/smfmac_xdlops_gemm\.hpp", "sparse-mma"),
    (
        r"include/ck/utility/amd_(xdlops|wmma)\.hpp|include/ck/tensor_operation/gpu/warp/(xdlops|wmma)_gemm\.hpp"
        r"|include/ck_tile/ops/gemm/warp/.*",
        "warp-mma",
    ),
]


def card_of(folder: str, header: str, name: str) -> str:
    """The card a name goes on: a warp-size query's, else its header's topic (the MFMA, WMMA and SMFMAC
    intrinsic wrappers and warp GEMMs), else the library's card."""
    if re.search(r"warp_size|WarpSize", name):
        return "warp-size"
    for pattern, card in _HEADER_CARDS:
        if re.fullmatch(pattern, f"{folder}/{header}"):
            return card
    return "composable-kernel"


# --- the reasons a name is left out ------------------------------------------------------------------------

# One plain word, optionally with a number suffix (Tensor, Layout, Sequence, tuple, sqrt, NHWC, GNHWC,
# Relu): as spelled it would claim the word, a math function or a tensor layout tag for CK.
ONE_WORD = re.compile(r"^(?:[A-Za-z][a-z]*|[A-Z]+)(?:\d+(?:x\d+)?)?$")
# A lower-case helper is listed only with a word of CK's own vocabulary among its parts; the others are
# general utilities and type names (make_tuple, bit_cast, type_convert, fp16_t, float_to_bf16, is_same,
# integer_divide_ceil, static_for, get_thread_id) that would capture queries about other code.
CK_WORDS = {
    "tile",
    "tensor",
    "descriptor",
    "adaptor",
    "distribution",
    "distributed",
    "window",
    "sweep",
    "xdl",
    "xdlops",
    "mfma",
    "smfmac",
    "wmma",
    "lds",
    "dpp",
    "blockwise",
    "gemm",
    "welford",
    "cshuffle",
    "dlops",
}
# Names of two words that are general terms before they are CK's (row-major storage, an activation
# function, an environment variable, a command-line parser, a math function, a tensor descriptor as TMA
# uses the term): lookup answers the term, not the library.
GENERAL_TERMS = {
    "ASinH",
    "ACosH",
    "ATanH",
    "TensorDescriptor",
    "tensor_descriptor",
    "RowMajor",
    "ColumnMajor",
    "ArgParser",
    "DeviceMem",
    "EnvVar",
    "EnvValue",
    "EnvUnset",
    "LeakyRelu",
    "ClippedRelu",
    "FastGelu",
    "SoftRelu",
    "PassThrough",
    "NumericLimits",
    "NumericUtils",
    "LogRange",
    "LeftPad",
    "RightPad",
    "UnaryAbs",
    "UnarySqrt",
    "UnarySquare",
    "UnaryDivide",
    "HostTensor",
    "BaseArgument",
    "BaseInvoker",
    "BaseOperator",
    "LongNumber",
    "MagicDivision",
}


def left_out(folder: str, header: str, name: str) -> str | None:
    """Why a name is not listed, or None."""
    if ONE_WORD.match(name):
        return "one plain word"
    if name in GENERAL_TERMS:
        return "general term"
    if re.fullmatch(r"[a-z0-9_]+", name) and card_of(folder, header, name) == "composable-kernel":
        if not set(name.split("_")) & CK_WORDS:
            return "general helper"
    return None


# --- the stored lists --------------------------------------------------------------------------------------


@cache
def _headings(*files: str) -> frozenset[str]:
    out: set[str] = set()
    for file in files:
        lines = (DATA / file).read_text(encoding="utf-8").splitlines()
        out |= {line.split("\t", 1)[1] for line in lines if not line.startswith("#")}
    return frozenset(out)


EXTRACT = HeaderNameList(NAMES_OF, NAMES_RAW, card_of, left_out)


def test_the_stored_lists_name_their_source() -> None:
    head = NAMES_RAW.read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith(f"# ROCm/composable_kernel {CK_COMMIT} include/ck include/ck_tile: "), head
    for file, (repo, commit) in HEADING_FILES.items():
        head = (DATA / file).read_text(encoding="utf-8").splitlines()[0]
        assert head == f"# {repo} {commit} docs", head
    assert len(EXTRACT.rows()) == len(set((f, n) for f, _, _, n in EXTRACT.rows()))
    assert {
        ("include/ck_tile/ops/gemm/pipeline", "tile_gemm_shape.hpp", "class", "TileGemmShape"),
        ("include/ck/tensor_operation/gpu/device/impl", "device_gemm_xdl_cshuffle.hpp", "class", "DeviceGemm_Xdl_CShuffle"),
        ("include/ck/tensor_operation/gpu/warp", "xdlops_gemm.hpp", "class", "XdlopsGemm"),
    } <= set(EXTRACT.rows())
    assert {"CK Datatypes", "Radix Key Encoder/Decoder", "Partial Sort", "Fancy Iterators"} <= _headings(*HEADING_FILES)


def test_the_script_reads_ck_declarations() -> None:
    script = load_script("list_cutlass_names")  # list_ck_names.py reads with CUTLASS's header reader
    source = """
namespace ck_tile {
template <typename A, typename B>
struct TileThing { using Inner = A; };
namespace detail { struct Hidden {}; }
template <typename T>
CK_TILE_HOST_DEVICE constexpr auto make_tile_thing(const T& t) { return t; }
__host__ __device__ constexpr auto get_thing() { return 1; }
}
"""
    assert script.declarations(source, functions=True) == [("class", "TileThing"), ("function", "make_tile_thing"), ("function", "get_thing")]


def test_the_lists_load_without_problems() -> None:
    problems = [p for p in glossary_without_rows().problems if "names-composable-kernel" in str(p) or "names-rocprim" in str(p)]
    assert not problems, problems
    assert {NAMES_OF, CK_HEADINGS_OF, PRIM_HEADINGS_OF} <= set(LISTS)


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


@pytest.mark.parametrize(
    ("names_of", "files"),
    [(CK_HEADINGS_OF, ("ck_doc_headings.txt",)), (PRIM_HEADINGS_OF, tuple(f for f in HEADING_FILES if f.startswith("rocprim")))],
)
def test_every_listed_heading_is_a_heading_of_the_documentation(names_of: str, files: tuple[str, ...]) -> None:
    absent = [h for h in heading_lists.headings(names_of) if h not in _headings(*files)]
    assert not absent, absent
    heading_lists.check_several_words_and_no_card_label(names_of)
    heading_lists.check_in_no_other_list(names_of)
    heading_lists.check_lookup_answers_one_heading_per_group(names_of)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("names_of", "file"),
    [(CK_HEADINGS_OF, "names-composable-kernel-doc-sections.yaml"), (PRIM_HEADINGS_OF, "names-rocprim-doc-sections.yaml")],
)
def test_each_carded_heading_needs_the_list(names_of: str, file: str, tmp_path: Path) -> None:
    heading_lists.check_each_carded_heading_needs_the_list(names_of, file, tmp_path)


SAMPLE = [
    ("TileGemmShape", "composable-kernel"),
    ("DeviceGemm_Xdl_CShuffle", "composable-kernel"),
    ("make_naive_tensor_descriptor", "composable-kernel"),
    ("XdlopsGemm", "warp-mma"),
    ("intrin_mfma_f32_32x32x8f16", "warp-mma"),
    ("CK Datatypes", "composable-kernel"),
    ("Radix Key Encoder/Decoder", "parallel-primitives"),
    ("Partial Sort", "parallel-primitives"),
    ("Fancy Iterators", "parallel-algorithms"),
]


@pytest.mark.parametrize(("query", "card"), SAMPLE, ids=[q for q, _ in SAMPLE])
def test_lookup_answers_a_sample_with_its_card(query: str, card: str) -> None:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    top = payload["matches"][0] if payload["matches"] else {}
    assert code == 0 and top.get("concept") == card and top.get("matched_kind") == "package", top
