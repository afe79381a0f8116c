"""Lookup on a second held-out set in engineers' own wording (tests/data/lookup_queries_heldout2.yaml):
199 queries from GitHub issue and pull-request titles, forum and Stack Overflow questions and vendor
documentation headings, each with its page, over the five vocabularies, GPU and chip names,
misspellings, and 17 that must exit 1 (14 unrelated words, 3 GPUs no sheet or card covers).

Measured before lookup was changed for it: 146 of 199 right at the top (73.4%), every `none` exiting 1.
After the general rules in src/xlate/kb/_index.py (a chip an architecture or GPU-family card names, an
identifier a card's prose names, wave and wavefront reading as warp, a plain acronym in a phrase ranking
below a longer name, Python namespaces not cut like PTX modifiers, a Metal constant's Swift spelling, an
identifier read as its words) and ten aliases the glossary lacked: 180 of 199 (90.5%). The other sets did
not move (calibration 187/188, held-out 205/205, engineers 165/173). Then triton.autotune became a
symbol of the autotuning card (not of kernel-specialization) and mx.fast.metal_kernel one of
framework-custom-kernels; a row's other-backend spelling no longer stops lookup from trying a query's
namespace variants (mlx.core.X as mx.X); the glossary gained what the misses showed it lacked
(tl.make_block_ptr on the global-memory card, CUDA's minBlocksPerMultiprocessor, AMD's wavefront
occupancy and waves per CU, rocminfo's workgroup max size); and a swap of two letters is read in a
four-letter acronym typed in capitals (VGRP): 189 of 199 (95.0%). Having calibrated those changes, the
set is no longer held out. Later, a label that holds a code name as written breaking a tie
(offload-arch=gfx1103 lands on --offload-arch, not the alias "offload arch"): 190 of 199. A build target beside another term then became the question's context, not its answer
(gfx950 matrix core lands on the matrix core): 191 of 199. A two-word name in a long sentence then
answered when one card holds it (Unable to find code object for all current devices): 192 of 199. The
offload-target card then took HSA_OVERRIDE_GFX_VERSION as an alias: 193 of 199. The framework-custom-kernels
card then named mx.fast.precompiled_cuda_kernel, MLX 0.32's call for PTX or cubin: 194 of 199. This test pins the
misses left: a fix shows up as a change here and a new miss fails the test."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import wrong_queries

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout2.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
# What the glossary does not answer yet, and why:
KNOWN_MISSES = {
    "Parallel reduction with warp primitives",  # "parallel primitives" (the CUB-like library) covers as many words
    "pre-sm_60 hardware",  # "pre-" glued to a target; sm_60 is on no page
    "About Threadgroup Sharing",  # an Apple article title about cross-threadgroup atomics; too vague to place
    "Creating Threads and Threadgroups",  # an Apple article title; no two-word label inside it
    "Calculate the optimum sizes for threadgroups and grids",  # an Apple article title; no label covers half of it
}


@pytest.mark.slow
def test_second_held_out_queries_land_first() -> None:
    wrong = wrong_queries(QUERIES)
    assert len(QUERIES) >= 150 and sum(1 for e in QUERIES if e["expect"] == "none") >= 12
    assert not [e["q"] for e in QUERIES if e["expect"] == "none" and e["q"] in wrong]
    assert set(wrong) == KNOWN_MISSES, (sorted(set(wrong) - KNOWN_MISSES), sorted(KNOWN_MISSES - set(wrong)))
    assert len(wrong) <= 0.10 * len(QUERIES), wrong


def test_every_query_names_where_its_wording_came_from() -> None:
    lines = [line for line in DATA.read_text().splitlines() if line.startswith("  - {q:")]
    assert len(lines) == len(QUERIES)
    assert all("  # http" in line for line in lines), [line for line in lines if "  # http" not in line]
