"""Lookup on a thirteenth held-out set, written blind (tests/data/lookup_queries_heldout13.yaml).

The set has 200 queries from pages no earlier set used, taken as they came (its header names them): 40
CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX and 25 Triton queries, 15 GPU or product names, 10 misspellings and 15
unrelated words; 33 expect `none`. It was written by a reviewer who did not run lookup or read its code,
and committed before lookup was measured on it, while the classes the twelfth set's misses showed were
being built.

Measured once without reading its misses, at commit 2043f0f, with a script that printed only totals: 160
of 200 right at the top (80.0%, 95% interval 73.9% to 85.0%), and 32 of the 33 `none` queries exited 1
(an unrelated phrase, a web page's privacy link, was answered with the shared-memory card). By group: CUDA
33/40, HIP/ROCm 27/40, Metal 27/30, MLX 16/25, Triton 23/25, GPU names 12/15, misspellings 8/10,
unrelated 14/15.

The set is no longer held out: its misses were then read. The unrelated phrase now exits 1 (a phrase with
a word no card's text uses needs a card that holds more than half of its words), and the rest are pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout13.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 160
RIGHT_NOW = 174
# What lookup does not answer right at the top (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # exits 1: a heading or term whose words no card label carries, or a name no card or list holds
    "Plan Initialization Time",
    "Skip-Ahead",
    "Bit Generation with Philox_4x32_10 generator",
    "clusterlaunchcontrol.try_cancel",
    "Memory Consistency Model",
    "Transform Iterators and Sort By Key",
    "Annotated Pointer",
    "Adjacent Find",
    "Find and Immediate Mode",
    "User Guide for AMDGPU Backend",
    "Add test for mixing hip and openmp when using xnack (usm mode).",
    "Tensor Coordinate Transformation",
    "CK Tile intrawave and interwave scheduling",
    "Support for memory and control barriers",
    "Fix shapeless export to throw on dim mismatch",
    "[BUG] shapeless matmul isn't",
    "[BUG] compile seems broken in latest mlx version 0.30.0",
    "[BUG] Compiled functions return the same number of outputs and types",
    "compile: output_shapes overrides for Slice/Scan/SDPA (unblocks shapeless whole-step compile)",
    "[Primitive::output_shapes] Slice cannot infer output shapes.",
    "Prompt Process Speed",
    "test_block_scale_fp4",
    "sm_89",
    "MTLFunctionConstnat",
    # a wrong card answers first (first answer in brackets)
    "hip::memcpy_async",  # [memcpy]
    "Forward of Flash Attention produces incorrect results in fp32 with tl.dot(allow_tf32=False)",  # [warp-mma]
}


@pytest.mark.slow
def test_thirteenth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 33)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
