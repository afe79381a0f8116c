"""The first vocabulary tables engineers learn, both directions: the card a lookup prints for the word
on one side names the word on the other (read from the text a person reads)."""

from __future__ import annotations

import io
import re

import pytest

from xlate import lookup

PAIRS = [
    # CUDA -> HIP/ROCm
    ("SM", ["CU", "Compute Unit"]),
    ("warp", ["wavefront"]),
    ("SMEM", ["LDS", "Local Data Share"]),
    ("Tensor Core", ["Matrix Core"]),
    ("mma.sync", ["MFMA"]),
    ("wgmma", ["MFMA"]),
    ("cuBLAS", ["rocBLAS"]),
    ("cuDNN", ["MIOpen"]),
    ("CUTLASS", ["Composable Kernel"]),
    ("Nsight Compute", ["rocprof"]),
    ("Nsight Compute", ["omniperf", "rocprof-compute"]),
    ("Nsight Systems", ["omnitrace", "rocprof-sys", "ROCm Systems Profiler"]),
    ("CUDA graphs", ["HIP graphs", "hipGraph"]),
    # CUDA -> Metal/MLX
    ("warp", ["SIMD-group", "SIMD group"]),
    ("block", ["threadgroup"]),
    ("SMEM", ["threadgroup memory"]),
    ("grid", ["grid"]),
    ("torch tensor on device", ["mx.array"]),
]
REVERSE = [
    ("CU", ["SM", "streaming multiprocessor"]), ("Compute Unit", ["SM"]), ("wavefront", ["warp"]),
    ("LDS", ["shared memory", "SMEM"]), ("Local Data Share", ["shared memory"]), ("Matrix Core", ["Tensor Core"]),
    ("MFMA", ["mma.sync", "wgmma"]), ("rocBLAS", ["cuBLAS"]), ("MIOpen", ["cuDNN"]),
    ("Composable Kernel", ["CUTLASS"]), ("CK", ["CUTLASS"]), ("rocprof", ["Nsight Compute", "ncu", "nsys"]),
    ("omniperf", ["Nsight Compute"]), ("omnitrace", ["Nsight Systems"]), ("HIP graphs", ["CUDA graph", "cudaGraph"]),
    ("SIMD group", ["warp"]), ("SIMD-group", ["warp"]), ("threadgroup", ["thread block", "block"]),
    ("threadgroup memory", ["shared memory"]), ("mx.array", ["torch", "tensor"]),
]


def _card(query: str) -> str:
    out = io.StringIO()
    code = lookup.run(query, out=out)
    assert code == 0, f"{query!r} found nothing"
    return out.getvalue()


def _names(text: str, words: list[str]) -> bool:
    flat = re.sub(r"[\s_-]+", " ", text.casefold())
    return any(re.sub(r"[\s_-]+", " ", w.casefold()) in flat for w in words)


@pytest.mark.parametrize(("left", "right"), PAIRS + REVERSE, ids=[p[0] + "->" + p[1][0] for p in PAIRS + REVERSE])
def test_each_side_of_the_table_names_the_other(left: str, right: list[str]) -> None:
    card = _card(left)
    assert _names(card, right), f"lookup {left!r} does not name {right}:\n{card[:600]}"
