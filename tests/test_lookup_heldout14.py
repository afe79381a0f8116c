"""Lookup on a fourteenth held-out set, written blind (tests/data/lookup_queries_heldout14.yaml).

The set has 200 queries from pages no earlier set used, taken as they came (its header names them): 40
CUDA, 40 HIP/ROCm, 30 Metal, 25 MLX and 25 Triton queries, 15 GPU or product names, 10 misspellings and 15
unrelated words; 45 expect `none`. It was written by a reviewer who did not run lookup or read its code,
and committed before lookup was measured on it, while the classes the thirteenth set's misses showed were
being built.

Measured once without reading its misses, at commit f2fcd80, with a script that printed only totals: 161
of 200 right at the top (80.5%, 95% interval 74.5% to 85.4%), and 43 of the 45 `none` queries exited 1 (a
method of an MLX class no card covers, answered with the kernel-driver card through the word "modules",
and a laptop processor's name, answered with arithmetic intensity through its "AI"). By group: CUDA 30/40,
HIP/ROCm 37/40, Metal 21/30, MLX 18/25, Triton 19/25, GPU names 12/15, misspellings 9/10, unrelated 15/15.

The set is no longer held out: its misses were then read. Both `none` queries now exit 1 (a member of a
class a vocabulary puts on no card is not read as its words; brand and variant words of a vendor's product
name are not terms), nvJitLink's names have a list, and the rest are pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from test_lookup_queries import check_cited, check_pinned_misses, check_unrelated_exit

DATA = Path(__file__).parent / "data" / "lookup_queries_heldout14.yaml"
QUERIES = yaml.safe_load(DATA.read_text())["queries"]
RIGHT_AT_FIRST_RUN = 161
RIGHT_NOW = 169
# What lookup does not answer right at the top (its first answer, if any, in brackets):
KNOWN_MISSES = {
    # exits 1: a heading or term whose words no card label carries, or a name no card or list holds
    "Performance Metrics",
    "Memory Optimizations",
    "Instruction Optimization",
    "nvcc Compiler Switches",
    "Writing Tile Kernels",
    "Programming Systems with Multiple GPUs",
    "Fix register overload in CUDA spacepoint formation",
    "hipMemDiscardBatchAsync",
    "BAR access limits",
    "Householder reflections",
    "Confirming which counters and counter sets a GPU supports",
    "shaderWrite",
    "Performing calculations on a GPU",
    "Write a GPU function to perform calculations",
    "depth2d",
    "matrixMultiplication(primary:secondary:name:)",
    "Metal dispatches can silently fail",
    "from_embedding",
    "[Feature Request] support dtype in mlx.core's module initialization",
    "[BUG] Training FCN required to allocate 1.7TB memory",
    "Why Does Memory Error Occur During Training?",
    "Active memory continues to rise throughout training until the training run crashes",
    "fix(mlx): set memory/wired/cache limits on CUDA backend to prevent OOM during layer loading",
    "triton.runtime.cache.FileCacheManager",
    "triton.knobs.runtime.jit_cache_hook",
    "triton.runtime.driver.active.get_active_torch_device()",
    "fix: change num warps / stages in matmul tuto",
    "[Triton] Log IR dump directory for each autotune config",
    # a wrong card answers first (first answer in brackets)
    "access::read_write",  # [achieved-bandwidth]
    "compile(with:feeds:targetTensors:targetOperations:compilationDescriptor:)",  # [runtime-compilation]
    "launch_metadata",  # [kernel-launch]
}


@pytest.mark.slow
def test_fourteenth_held_out_queries_land_first() -> None:
    check_unrelated_exit(QUERIES, 200, 45)
    check_pinned_misses(QUERIES, KNOWN_MISSES, RIGHT_NOW, RIGHT_AT_FIRST_RUN)


def test_every_query_names_where_its_wording_came_from() -> None:
    check_cited(DATA, QUERIES, KNOWN_MISSES, RIGHT_NOW)
