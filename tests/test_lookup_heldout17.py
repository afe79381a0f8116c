"""Lookup on a seventeenth held-out set, written blind (tests/data/lookup_queries_heldout17.yaml).

The set has 200 queries from pages no earlier set used, taken as they came (its header names them): 40
CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX and 25 Triton queries, 15 GPU or product names, 10 misspellings and 15
unrelated words; 37 were written as `none`. It was written by a reviewer who did not run lookup or read its
code, and committed before lookup was measured on it.

Measured once without reading its misses, at commit c214214, with a script that printed only totals: 156
of 200 right at the top (78.0%, 95% interval 71.8% to 83.2%), and all 37 `none` queries exited 1. By
group: CUDA 36/40, HIP/ROCm 29/40, Metal 21/30, MLX 13/25, Triton 18/25, GPU names 15/15, misspellings
9/10, unrelated 15/15.

The set is no longer held out: its misses were then read. Added, none for one query: the keyword parameters
of triton.language's and MLX's functions (lhs_scale, communication_stream), read by introspection, and an
NSError domain as its framework's error enum (MTLLibraryErrorDomain). Most of what is left is issue and
pull-request titles (MLX's CUDA and ROCm backends, CUDA's driver error log), environment variables of other
projects (TORCH_BLAS_PREFER_HIPBLASLT), HIP-only launch calls no row holds, and Apple's Metal shader
converter, which no card names; they are pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout17.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 156
RIGHT_NOW = 160
# What lookup does not answer right at the top (its first answer, if any, after the #):
KNOWN_MISSES = {
    "CUDA_LOG_FILE",
    "Support the driver error logging system",
    "Annotate CuErrors with the driver error log",
    "Increase clarity of CUDA errors by including excerpt from logs",
    "hipExtLaunchMultiKernelMultiDevice",
    "Performing causal profiling",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "PYTORCH_TUNABLEOP_ENABLED",
    "Clock differences among XCDs",
    "MI16x16 versus MI32x32",
    "Clarifying that hipExtLaunch timing does not include cache flush time",
    "Use hipExtLaunchKernelGGL To benchmark HIP Code",
    "Mark hipCtx APIs as deprecated",
    "Avoid Ctx API in HIP backend",
    "HIP context support",
    "serialize(to:)",
    "stitched function",
    "metal-shaderconverter",
    "libmetalirconverter",
    "Get started with Metal shader converter",
    "ggml_metal_library_compile_pipeline: failed to compile pipeline: for LFM2-8B-A1B-Q8_0.gguf",
    "Compile bug: (nix) Gemma 4 models fail with kernel_mul_mv_ext_bf16_f32_r1_2 was not found in the library",
    "metal-whisper: ggml_metal_library_init fails to compile embedded Metal shader library on macOS 26.5.2 (Apple M4 Pro) — flash-attn kernel's threadgroup half4x4 array rejected",
    "mx.add(a, b, stream=mx.cpu)",
    "communication_type",
    "gradient averaging",
    "CUDA backend: random",
    "CUDA backend: argreduce",
    "cuda rope",
    "[WIP] CUDA backend",
    "[Experiment] ROCm backend",
    "MLX_BUILD_ROCM",
    "[BUG] all_reduce_grads() fails with a Transformer model for number of nodes > 1",
    "Distributed computing not utilizing GPUs",
    "nvidia.cublas.CublasLt",
    "num_consumer_groups",
    "num_buffers_warp_spec",  # register-pressure
    "Scale preshuffling on NVIDIA GPUs",
    "fp8e8m0 scales",
    "hipExtModuleLaunchKernal",  # module-loading
}


@pytest.mark.slow
def test_seventeenth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 37)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
