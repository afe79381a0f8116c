"""Lookup on a tenth held-out set, written blind (tests/data/lookup_queries_heldout10.yaml).

The set has 200 queries chosen the way an outside reviewer would: terms taken as they came from vendor
reference indexes, glossaries and guide headings (CUDA runtime and driver API groups and the Programming
Guide, the HIP API reference and ROCm documentation, the MSL specification and Metal framework pages,
mlx.core, mlx.nn and mlx.optimizers, triton.language and Triton's documentation), about two thirds exact
API spellings and one third multi-word terms or headings. It holds 40 CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX
and 25 Triton queries, 15 GPU or product names, 10 misspellings and 15 unrelated words. Thirty-five expect
`none`. The queries and expected answers were written and committed before lookup was run on any of them.

Measured without reading its misses, twice: 157 of 200 right at the top (78.5%) when it was committed,
before the session's builtin, package, IR, macro, CMake, profiler, debugger and Metal tool vocabularies,
and 160 of 200 (80.0%) after them; all 35 `none` queries exit 1 both times. By group at the second run:
CUDA 31/40, HIP/ROCm 27/40, Metal 24/30, MLX 20/25, Triton 20/25, GPU names 15/15, misspellings 8/10,
unrelated 15/15. Most misses are section headings of API references and guides ("Unified Addressing",
"Primary Context Management", "Debug Ops", "Little's Law") whose topic a card covers under other words.

The set is no longer held out: its misses were read. Heading vocabularies derived afterwards (the CUDA and
HIP API reference groups from the headers' Doxygen groups, triton.language's and MLX's reference sections
with the card most of their functions reach, tutorial and guide titles) and a slip rule for listed names
bring it to 169; an eleventh set, written before them, measures them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout10.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 157
RIGHT_NOW = 181
# What lookup does not answer right at the top (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # exits 1: a heading or term whose words no card label carries, or a name no card or list holds
    "Unified Addressing",
    "External Resource Interoperability",
    "Driver Entry Point Access",
    "Cache Hints for Memory Operations",
    "HIP_BEGIN_MARKER",
    "Callback Activity APIs",
    "L0 scalar cache",
    "Little's Law",
    "Overhead",
    "Preprocessor Definitions",
    "Target Conditionals",
    "Pipeline state creation",
    "mlx.nn.TransformerEncoderLayer",
    "TritonGPU Dialect",
    # a wrong card answers first (first answer in brackets)
    "HIP_KERNEL_NAME",  # [kernel]
    "AMDGPU assembly",  # [kernel-driver]
    "Automatic Vectorization",  # [vectorized-memory-access]
    "Linear Algebra Ops",  # [sparse-linear-algebra]
    "staticThreadgroupMemoryLenght",  # [dynamic-shared-memory]
}


@pytest.mark.slow
def test_tenth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 35)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
