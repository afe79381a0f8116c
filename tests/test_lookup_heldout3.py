"""Lookup on a third held-out set in engineers' own wording (tests/data/lookup_queries_heldout3.yaml).

The set has 200 queries, each a term or short phrase copied from a public page: GitHub issue and
pull-request titles and threads, NVIDIA forum threads, tutorials and vendor API reference pages, with
the page named beside every query. They cover CUDA (53), HIP and ROCm (40), Metal (24), MLX (14),
Triton (16) and GPU or product names (22), plus 16 misspellings of terms on the cited pages and 15
unrelated words from the same pages. Twenty-six queries expect `none`: the 15 unrelated words and 11
GPUs that no spec sheet or card names. Three of those (H800, H800 SXM, H20 GPUs) were later moved to
the Hopper card, which covers Hopper parts; the product name list places them there.

The expected answers were settled by reading the glossary before lookup was run on any query. The set
was held out at 152 of 200 right at the top (76.0%), every `none` exiting 1. The 48 misses fell into a
few kinds: a flag, instruction, environment variable or API name that a card mentions only in its prose
or that no card mentions; a multi-word phrase that is no alias; a token or namespace prefix that
outranks the term (sm_120a on the Hopper card, air.* on the virtual-ISA card); GPUs that an
architecture card names only in prose; and misspellings not recovered.

Lookup was then changed by general rules, not per query, and the set calibrated on, so it is no longer
held out:
- a command line (a flag in it, or a launcher such as xcrun first) is looked up by its flag names in
  the cards' prose, then by its tool or operand exactly; an AMD ISA mnemonic with operands by its
  mnemonic, and one in capitals (V_ACCVGPR_READ_B32) also in lower case;
- code punctuation is read through: `#if defined(X)` names X, `cmem[0]` names cmem, an AIR intrinsic
  (air.simd_sum.f32) names its Metal function, and a PTX-style dotted name is also named in prose by
  its leading part;
- an architecture-specific target (sm_120a, compute_100f) also tries the plain target;
- a chip of a series (RTX 5090, RX 9060 XT, "RTX 50 series") is one model name, landing on the
  architecture card that names it or its series; a model name with its generation spelled out
  (RTX PRO 6000 Blackwell) lands on that generation's card; only cards titled as an architecture or
  GPU family name chips (not the compute-capability card);
- a capitalised name with a lower-case tail (ROCk) counts as a term inside a phrase; a number with a
  unit (8-bit, 48kb) is a word, not code; "ops" is filler; a phrase that is a label plus only a
  vendor's name ("Metal function constants") matches that label;
- one slip inside a phrase ("LDS bank confilct") is corrected against the labels' words before any
  word is taken alone, and a long identifier one slip from a row's name (cudaMemcpyToSymbl) finds that
  row.
The glossary gained the missing vocabulary (each checked against vendor documentation or the installed
mlx 0.32.4 and triton 3.9): GB300 with B300 as Blackwell Ultra and the RTX 50 series on the Blackwell
card; ptxas -v spellings, "register spillage" and the launch error's wording on register pressure;
cmem on constant memory; Triton's tl.multiple_of, tl.max_contiguous, tl.max_constancy hints; mlx.launch,
the ring and JACCL backends on collectives; mx.set_wired_limit; Metal's private storage mode on global
memory; AMDGCN_ENABLE_DUMP; tensormap.replace; kpack and the other AMD Triton config options;
texture references, 8-bit integer dot product, warp-aggregated atomics, dynamic smem and custom VJP as
aliases. Measured after: 191 of 200 (95.5%); every `none` still exits 1. The fourth set's rules (a
phrase whose words one card's vocabulary holds) then answered "dump ttgir files": 192 of 200 (96.0%).

The misses are pinned below. A query that newly goes wrong fails the test; a pinned miss that lookup
now answers is reported as a warning, so it can be taken off the list and the floor raised.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout3.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 152
RIGHT_NOW = 192
# What lookup still does not answer right at the top (48 at first run, 8 now), and why:
KNOWN_MISSES = {
    # a flag, instruction, environment variable or tool that no card names, or that several name alike
    "KMDUMPISA",
    "extractkernel",
    "-mwavefront64",
    "s_waitcnt lgkmcnt",  # s_waitcnt is named by three cards equally
    "metal-objdump",
    # a multi-word phrase that is no alias
    "smem > 48kb",
    "Modular Chiplet Platform",
    # an AIR intrinsic whose Metal function has another name (simdgroup_load)
    "air.simdgroup_matrix_8x8_load",
}


@pytest.mark.slow
def test_third_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 160, 15)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
