"""Lookup on an eighth held-out set, measured once (tests/data/lookup_queries_heldout8.yaml).

The set has 200 queries taken as they came, without steering toward or away from what the glossary
covers, mostly from kinds of source the seventh set drew on little: GitHub issue and pull-request
titles and threads (error messages, tool options and vendor terms as the engineers typed them), section
headings of guides (the nvcc manual, HIP's porting, logging and RTC pages, ROCgdb's AMD GPU chapter,
Apple's Metal Best Practices Guide, MLX's usage and developer guides, the Triton tutorials) and tool
options (nsys, ncu, compute-sanitizer, rocprofv3, rocprof-compute, amdclang++, rocm-smi, xcrun metal,
metallib, mlx.launch). Each query names its page. It holds 40 CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX and
25 Triton queries, 15 GPU or product names, 10 misspellings of a term on the cited page and 15
unrelated words from the same pages. Twenty-nine expect `none`: the 15 unrelated words, 11 GPUs that no
spec sheet or architecture card names, and 3 real terms that no card is about (Metal triple buffering
and residency sets, MLX array indexing). Expected answers were settled from the glossary files and
committed before lookup was run on any query; lookup was not changed for it. "H20" was later moved
from `none` to the Hopper card: it is a Hopper part (NVIDIA GPU Operator platform table), which the
product name list now places there, so 28 expect `none` now.

First run: 124 of 200 right at the top (62.0%); all 29 `none` queries exit 1. By group (misspellings
counted apart): CUDA 21/40, HIP/ROCm 20/40, Metal 17/30, MLX 16/25, Triton 12/25, GPU names 13/15,
misspellings 10/10, unrelated 15/15. Of the 76 misses, 66 exit 1 and 10 answer a wrong card first.
They are pinned below by kind. A query that newly goes wrong fails the test; a pinned miss that lookup
now answers is reported as a warning, so it can come off the list and the figure be raised.

The set is no longer held out: its misses were read to choose the next general changes, and a ninth
set, written before those changes and measured once after them, took its place. The changes read here:
a hyphenated tool name as a sentence capitalizes it (Nvidia-SMI), system brands beside a chip's name
(DGX Spark), the early MI300 targets gfx940 and gfx941, and aliases the misses showed missing (thread
synchronization, HIP logging, persistent kernel): 130 of 200. Later vocabularies (nsys options, CMake
and compiler macros, the metal compiler's options, ROCm derived counters) brought it to 152.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout8.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 124
RIGHT_NOW = 161
# What lookup does not answer right at the top, and why (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # an identifier, flag, tool, counter, error code or environment variable that no card label or row
    # names (some appear in a card's prose or a row's caveat, which lookup does not match): exits 1
    "emit_nvtx",
    "--track-stream-ordered-races",
    "__cudaRegisterLinkedBinary",
    "TORCH_CUDA_ARCH_LIST=9.0a+PTX",
    "nv-nsight-cu-cli",
    "dcgmproftester",
    "rocpd2csv",
    "-Rpass-analysis=kernel-resource-usage",
    "ScratchSize [bytes/lane]",
    "hipExtHostRegisterCoarseGrained",
    "info dispatches",
    "HIP_PARTIALLY_SUPPORTED",
    "XPC_ERROR_CONNECTION_INTERRUPTED",
    "kIOGPUCommandBufferCallbackErrorOutOfMemory",
    "metal-dsymutil",
    ".metallibsym",
    "#pragma METAL fp contract(off)",
    "--q-bits",
    "--q-mode",
    "QuantizedBlockLoader",
    "CompileTimeAssertionFailure",
    "RewriteTensorDescriptorToPointerPass",
    "disallow_acc_multi_buffer",
    # a Metal framework name the vocabulary places under no card, though a card covers its topic: exits 1
    # a phrase, title, heading or error message whose words no card label carries: exits 1
    "TCC driver",
    "Supported Host Compilers",
    "handle smem > 48kb",
    "nvlink fatal : merge_elf failed",
    "the following reference is not handled",
    "Metal heaps and offsets/aliasing",
    "Compile Your Functions and Build Your Library at Build Time",
    "Internal Error (IOAF code 2067)",
    "quadgroup permutation",
    "RuntimeError: PassManager::run failed",
    # a misspelling that no near spelling reaches: exits 1 (none in this set)
    # a word inside the query outranks the term, or a wrong card answers first (first answer in brackets)
    "amdgcn.ballot",  # [machine-isa]
    "hip::device",  # [device-function]
    "[Primitive::output_shapes] CumSum cannot infer output shapes.",  # [parallel-primitives]
    "Group GEMM",  # [cutlass]
    "GROUP_SIZE_M",  # [warp-size]
    'How do "num_warps" and "num_stages" mean?',  # [async-copy]
    # a GPU name form that lookup does not resolve to the architecture card naming it
}


@pytest.mark.slow
def test_eighth_held_out_queries_land_first() -> None:
    # every `none` query exits 1
    check_unrelated_exit(QUERIES, 200, 28)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
