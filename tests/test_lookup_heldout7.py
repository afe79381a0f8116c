"""Lookup on a seventh held-out set, measured once (tests/data/lookup_queries_heldout7.yaml).

The set has 200 queries taken as they came, without steering toward or away from what the glossary
covers, from pages found through search: vendor documentation and API reference indexes (CUDA runtime
stream and graph references, the CUDA and HIP environment-variable tables, HIP runtime reference
sections and hip_ext.h, HIPIFY tables, Apple's Metal symbol and article pages, MLX usage and API pages,
triton-lang.org's Config page, index and Gluon API), binding docs (cuda-python, MLX-C and its Rust
wrappers, emlx) and GitHub issue and pull-request titles and threads. Each query names its page. It holds
40 CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX and 25 Triton queries (exact spellings of APIs, types, flags,
attributes, environment variables and metrics, and multi-word titles, headings and error messages), 15
GPU or product names, 10 misspellings of a term on the cited page and 15 unrelated words from the same
pages. Thirty-six expect `none`: the 15 unrelated words, 13 GPUs that no spec sheet or architecture card
names, and 8 real terms that no card is about (argument-buffer residency and MTLResourceUsage, MLX weight
saving and optimizers, triton.testing's assert_close). Expected answers were settled from the glossary
files and committed before lookup was run on any query; lookup was not changed for it.

First run: 136 of 200 right at the top (68.0%); 35 of the 36 `none` queries exit 1 (MTLResourceUsage
answers a card). By group (misspellings counted apart): CUDA 29/40, HIP/ROCm 26/40, Metal 18/30, MLX
14/25, Triton 10/25, GPU names 15/15, misspellings 9/10, unrelated 15/15. Of the 64 misses, 49 exit 1
and 15 answer a wrong card or row first. They are pinned below by kind. A query that newly goes wrong
fails the test; a pinned miss that lookup now answers is reported as a warning, so it can come off the
list and the figure be raised.

Then lookup was changed, calibrating on half of the set only: the queries at even positions (0-based, in
file order) were the calibration half, whose misses alone were read; the odd positions were the
validation half, not read. The package vocabularies (every public name of triton.language, Gluon's
language module, the triton package and mlx.core with its submodules, placed on a card or marked as
covered by none) and the environment-variable aliases had been written before either half was run.
Calibration half 61 -> 78 of 100; validation half 74 -> 78 of 100 (the honest held-out gain of the
general changes); whole set 156 of 200 (78.0%). The changes: profiler counter names by their documented
prefix families (smsp__, lts__, SQ_, TCC_ ...); a documentation heading that opens with a verb ("Using
Streams") read as its topic; a bare member name reaching a package vocabulary's spelling; a C binding's
underscored name (mlx_fast_metal_kernel_config) reaching the dotted API; triton.autotune's and
triton.Config's keyword parameters; a sentence that names another backend's spelling leading with that
spelling's concept; and aliases the calibration misses showed missing (bindless textures, kernel replay,
stream memory operations, conditional graph nodes, vector-Jacobian products). The set is no longer held
out. Afterwards the Metal framework vocabulary (every public name of the macOS 26 SDK's Metal headers,
read from metal-cpp, each placed on its card or under none), the fat-binary card's HIP runtime messages
and rocminfo on the device-properties card: 164 of 200. One validation query then went wrong:
maxTotalThreadsPerMeshThreadgroup, a mesh-shader limit the Metal vocabulary places under no card. An LLVM
intrinsic read as its clang builtin (llvm.amdgcn.mfma.* as __builtin_amdgcn_mfma_*): 165.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout7.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 136
# One first-run hit was a coincidence: tl.assume reached fast-math-intrinsics through the word "assume"
# in a sentence about fast math. The package vocabulary (glossary/vocabulary) lists tl.assume as a
# compiler hint no card covers, so lookup now says what it is and exits 1.
RIGHT_NOW = 173
# What lookup does not answer right at the top, and why (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # an identifier, flag, tool, metric or environment variable that no card or row names: exits 1
    "TORCH_USE_CUDA_DSA",
    "warp_execution_efficiency",
    "HSA_CU_MASK",
    "ROC_GLOBAL_CU_MASK",
    "HIP_FORCE_QUEUE_PROFILING",
    "HIPCC_VERBOSE",
    "AMD_COMGR_ACTION_COMPILE_SOURCE_TO_BC",
    "MTLStorageModeMemoryless",
    "useHeap(_:)",
    "--q-group-size",
    "triton.testing.Benchmark",
    "tt.divisibility",
    "tritonamdgpu-block-pingpong",
    "triton.runtime.errors.OutOfResources",
    # a known term inside a code fragment: exits 1
    "code=700(cudaErrorIllegalAddress)",
    "pipe.commit_and_wait()",
    # a phrase, title, heading or error message whose words no card label carries: exits 1
    "Error polling for event status: failed to query event",
    "Choosing a resource storage mode for Apple GPUs",
    "Setting resource storage modes",
    "Copying data to a private resource",
    "Exporting Functions",
    "Grouped Query Attention",
    # a misspelling that no near spelling reaches: exits 1
    # a word inside the query outranks the term, or a wrong card or row answers first (first answer in brackets)
    "nvprof --query-metrics",  # [rocprof]
    "Setting the number of compute units",  # [streaming-multiprocessor]
    "#triton_gpu.blocked",  # [global-memory]
    # a package name the vocabulary places under no card (the expected cards do not discuss it): exits 1
    "tl.assume",
    # a graphics-only Metal name the vocabulary places under no card (mesh shaders): exits 1
    "maxTotalThreadsPerMeshThreadgroup",
}


@pytest.mark.slow
def test_seventh_held_out_queries_land_first() -> None:
    # every `none` query exits 1 (MTLResourceUsage, the one that answered a card at first, now does too)
    check_unrelated_exit(QUERIES, 200, 36)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
