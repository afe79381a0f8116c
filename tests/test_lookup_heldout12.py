"""Lookup on a twelfth held-out set, written blind (tests/data/lookup_queries_heldout12.yaml).

The set has 200 queries taken as they came from pages no earlier set used (the CUDA driver API's virtual
memory management, NCCL, the CUDA Math API, cuBLAS, cuDNN, CUTLASS and CuTe, Nsight Compute metrics; HIP
cooperative groups and math, hipBLASLt, rocWMMA, rocBLAS, AMD hardware counters, AMDGPUUsage tables, RCCL,
rocprof-compute panels; MTLResidencySet, MTLHeap, metal-cpp, Metal Performance Shaders and further MSL
sections; MLX fast, linalg, random and nn layers and its C++ API; Triton language functions, Gluon AMD
intrinsics and Proton; GPU and product names; forum and issue titles as typed). It holds 40 CUDA, 40
HIP/ROCm, 30 Metal, 25 MLX and 25 Triton queries, 15 GPU or product names, 10 misspellings and 15
unrelated words; 31 expect `none`. The queries and expected answers were committed before lookup was run
on any of them, while the classes the eleventh set's misses showed were being built.

Measured once without reading its misses, on the code those classes produced: 150 of 200 right at the
top (75.0%), and 30 of the 31 `none` queries exited 1 (the build target gfx908, which no card or list
names, was answered with a card whose text lists it among other targets). By group: CUDA 28/40, HIP/ROCm
27/40, Metal 20/30, MLX 21/25, Triton 18/25, GPU names 12/15, misspellings 9/10, unrelated 15/15.

The set is no longer held out: that one `none` miss was then read and fixed (a build target alone is not
answered from a card's prose), and the misses below are pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout12.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 150
RIGHT_NOW = 192
# What lookup does not answer right at the top (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # exits 1: a heading or term whose words no card label carries, or a name no card or list holds
    "branch_efficiency",
    "Application Replay",
    "Range Replay",
    "Metrics Decoder",
    "Unable to map memory regions to virtual address space",
    "Memory heaps",
    "TRITON_BUILD_PROTON",
    # a wrong card answers first (first answer in brackets)
    "makeBuffer(length:options:offset:)",  # [memset]
}


@pytest.mark.slow
def test_twelfth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 31)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
