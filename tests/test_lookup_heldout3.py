"""Lookup on a third held-out set in engineers' own wording (tests/data/lookup_queries_heldout3.yaml).

The set has 200 queries, each a term or short phrase copied from a public page: GitHub issue and
pull-request titles and threads, NVIDIA forum threads, tutorials and vendor API reference pages, with
the page named beside every query. They cover CUDA (53), HIP and ROCm (40), Metal (24), MLX (14),
Triton (16) and GPU or product names (22), plus 16 misspellings of terms on the cited pages and 15
unrelated words from the same pages. Twenty-six queries expect `none`: the 15 unrelated words and 11
GPUs that no spec sheet or card names.

The expected answers were settled by reading the glossary before lookup was run on any query, and
lookup was not changed for the set: this measures, it does not tune. Measured on first run: 152 of
200 right at the top (76.0%); every `none` exits 1. The 48 misses fall into a few kinds: a flag,
instruction, environment variable or API name that a card mentions only in its prose or that no card
mentions; a multi-word phrase that is no alias; a token or namespace prefix that outranks the term
(sm_120a on the Hopper card, air.* on the virtual-ISA card); GPUs that an architecture card names only
in prose; and misspellings not recovered.

The misses are pinned below. A query that newly goes wrong fails the test; a pinned miss that lookup
now answers is reported as a warning, so it can be taken off the list and the floor raised.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import yaml

from test_lookup_queries import wrong_queries

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout3.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 152
# What lookup did not answer right at the top when the set was first run, and why:
KNOWN_MISSES = {
    # a flag, instruction, environment variable or API name found only in prose, or on no page
    "-Xptxas -v",
    "--ptxas-options=-v",
    "cmem[0]",
    "tensormap.replace",
    "nvcc --list-gpu-code",
    "KMDUMPISA",
    "extractkernel",
    "-mwavefront64",
    "V_ACCVGPR_READ_B32",
    "s_waitcnt lgkmcnt",
    "MTLStorageModePrivate",
    "metal-objdump",
    "mx.set_wired_limit",
    "mlx.launch --backend jaccl",
    "tl.multiple_of",
    "kpack",
    "AMDGCN_ENABLE_DUMP",
    # a multi-word phrase that is no alias
    "too many resources requested",
    "8-bit dot product",
    "warp-aggregated atomics",
    "smem > 48kb",
    "big dynamic smem",
    "texture references",
    "ROCk module",
    "Modular Chiplet Platform",
    "#if defined(__HIP_PLATFORM_AMD__)",
    "xcrun metallib",
    "Ring distributed backend",
    "Custom VJP and checkpointing",
    "contiguity hint",
    "dump ttgir files",
    "direct-to-lds ops",
    # a token or prefix outranks the term: the wrong card comes first
    "sm_120a",  # lands on hopper, not blackwell
    "air.simd_sum.f32",  # the AIR prefix lands on virtual-isa
    "air.simdgroup_matrix_8x8_load",  # the AIR prefix lands on virtual-isa
    "Metal function constants",  # "constants" lands on constant-memory
    "tl.max_contiguous",  # lands on warp-reduce
    # a GPU that an architecture card names only in its prose
    "RTX 5090",
    "RTX 50 Series",
    "RTX PRO 6000 Blackwell",
    "GB300",
    "Radeon AI PRO R9700",
    "RX 9060 XT",
    "RX 9070",
    # a misspelling not recovered
    "cudaMemcpyToSymbl",
    "register spilage",
    "tl.mutliple_of",
    "LDS bank confilct",  # LDS alone lands on shared-memory
}


@pytest.mark.slow
def test_third_held_out_queries_land_first() -> None:
    wrong = set(wrong_queries(QUERIES))
    assert len(QUERIES) >= 160 and sum(1 for e in QUERIES if e["expect"] == "none") >= 15
    assert not [e["q"] for e in QUERIES if e["expect"] == "none" and e["q"] in wrong]
    new = sorted(wrong - KNOWN_MISSES)
    assert not new, f"queries that newly land wrong: {new}"
    fixed = sorted(KNOWN_MISSES - wrong)
    if fixed:
        warnings.warn(f"known misses now answered right (take them off KNOWN_MISSES): {fixed}", stacklevel=1)
    assert len(QUERIES) - len(wrong) >= RIGHT_AT_FIRST_RUN


def test_every_query_names_where_its_wording_came_from() -> None:
    lines = [line for line in DATA.read_text().splitlines() if line.startswith("  - {q:")]
    assert len(lines) == len(QUERIES)
    assert all("  # http" in line for line in lines), [line for line in lines if "  # http" not in line]
    assert KNOWN_MISSES <= {e["q"] for e in QUERIES}
