"""Lookup on a sixth held-out set in engineers' own wording (tests/data/lookup_queries_heldout6.yaml).

The set has 200 queries, each a term, phrase, heading or error message copied from a public page found
through search (GitHub issue and pull-request titles and threads about CUDA, HIP and ROCm, Apple Metal,
MLX and Triton), with the page named beside every query. It leans on topics the earlier sets did not
cover: cuBLASLt, cuFFT and cuRAND host APIs, mapped pinned memory, thread block clusters and extended
launch attributes, peer access, hipFFT and rocFFT, HIPIFY scripts, gfx version overrides, hipBLASLt and
rocBLAS tools, omniperf counters, fine-grained memory, Metal SIMD-group matrices, shared events,
completion handlers and validation layers, MPS and MPSGraph matmul, MLX memory and cache limits across
its bindings, lazy evaluation and fast RMSNorm, Triton block pointers, MLIR dumps, device asserts and AMD
wave options. It holds 32 CUDA, 33 HIP/ROCm, 27 Metal, 26 MLX and 26 Triton queries (exact spellings of
APIs, types, flags and environment variables, and multi-word titles or headings), 16 GPU or product
names, 15 misspellings of a term on the cited page and 25 unrelated words from the same pages.
Thirty-two expect `none`: the 25 unrelated words and 7 GPUs that no spec sheet or architecture card
names. Expected answers were settled from the glossary before lookup was run on any query, and lookup
was not changed for it.

Held out: 144 of 200 right at the top (72.0%), every one of the 32 `none` queries exiting 1. By group
(misspellings counted apart): CUDA 28/32, HIP/ROCm 20/33, Metal 19/27, MLX 16/26, Triton 12/26, GPU
names 12/16, misspellings 12/15, unrelated 25/25. Of the 56 misses, 47 exit 1 and 9 answer a wrong card
or row first. The misses are pinned below by kind. A query that newly goes wrong fails the test; a pinned
miss that lookup now answers is reported as a warning, so it can come off the list and the floor be
raised.

Then lookup was changed for it, on half of it only: the queries at even positions (0-based, in file
order) were the calibration half, whose misses alone were looked at; the odd positions were the
validation half, measured before any change (69 of 100 at the branch's head, two block-pointer queries
having slipped since the first run) and once after (72 of 100: the honest held-out figure). Calibration
half 73 -> 93 of 100; whole set 142 -> 165 of 200 (82.5%), all 32 `none` queries still exiting 1. The
changes: a slip of a row's real spelling is answered by that row, never by a row a naming rule makes up
under the slip (cublasLtMatmulAlgoGetHeurstic); a mixed-case name inside a sentence is a term (Cache
MPSGraph instances ...); a member's name in another case or without underscores reaches its qualified
symbol (RMSNorm, VMAP); a member under a namespace no label spells is read as its own words
(tt.make_tensor_ptr); a two-word name in a long sentence answers, below longer names, when one card holds
it (fix peer sdma engine selection); a tool a profiling card names, typed in lower case (omniperf
analyze); a rare word that is one card's whole alias (hipification); a target triple names its processor
(amdgcn-amd-amdhsa--gfx1201); a swap of letters in a bare member's name (set_memroy_limit); and aliases
and symbols the glossary lacked (CUDA GPU timers, reciprocal square root, programmatic dependent launch,
HSA_FORCE_FINE_GRAIN_PCIE, padding_option, tl.device_assert, MLIR_DUMP_PATH,
nn.QuantizedLinear). One validation query newly answers a wrong card first (Enable peer access for real
device-to-device copy) and is pinned with the rest. Triton 3.9.0 has removed block pointers and no
longer exports tl.advance, so no card carries it as a symbol; the global-memory card's Triton side then
said so in its caveat (naming tl.advance, boundary_check and padding_option), which three block-pointer
queries of the set now reach through the card's text: 168 of 200. Then vocabulary the remaining misses
named, each checked (HSA_OVERRIDE_GFX_VERSION, MLIR_ENABLE_DUMP in Triton's GetEnv.h, hipMemcpyDeviceToDeviceNoCU
in ROCm 6.4's driver_types.h, tl.static_assert in Triton 3.9.0): 174 of 200. Later the collectives card took
NCCL's debug variables and profiler counters were answered by their prefix (SQ_): 176 of 200.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout6.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 144
RIGHT_NOW = 177
# What lookup does not answer right at the top, and why (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # a phrase, title or heading in the page's own words whose words no card label carries: exits 1
    "gfx908 doesn't support roofline plot",
    "Expose MLX memory management APIs",
    "Representation of lazy MLX arrays",
    "Adopt the MLX Memory API",
    "use MLX fast RMSNorm in GatedDeltaNet decode path",
    "Replace wave with warp where possible",
    "Emit llvm.amdgcn.wave.id for GFX12",
    "block ptr out-of-bound access is not handled",
    # a code fragment or a variable with its value around a known term: exits 1
    "s_waitcnt lgkmcnt(0)",
    "METAL_DEVICE_WRAPPER_TYPE=1",
    # an identifier, tool, option or environment variable that no card or row names: exits 1
    "rocm_agent_enumerator",
    "use_optimal_threadgroups",
    # a GPU name in a form no sheet or card spells: exits 1
    "9060XT 16GB",
    "Apple Silicon (M5, macOS 26.4.1)",
    "thor-U",
    "Results on mi350",
    # a misspelling that no near spelling reaches: exits 1
    # a word inside the query outranks the term, or a wrong card or row answers first (first answer in brackets)
    "Enable Mi300 Roofline",  # [cdna3]
    "simdgroup_async_copy",  # [warp]
    "thread_elements()",  # [thread]
    "MTLDebugComputeCommandEncoder",  # [kernel-launch]
    "Synchronizing Events Within a Single Device",  # [device-synchronize]
    "mlx.core.metal.set_memory_limit",  # [memory-bound-vs-compute-bound]
    "Memory.clearCache()",  # [blackwell]
}


@pytest.mark.slow
def test_sixth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 25)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
