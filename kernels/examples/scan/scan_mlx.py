"""Inclusive prefix sum in MLX: mx.cumsum. `run_metal` scans 1024-element tiles with the Metal
body in scan.metal, then finishes at array level: cumsum of the tile totals, added per tile."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("scan.metal").read_text(encoding="utf-8")
TILE = 1024


def run(x: mx.array) -> dict[str, mx.array]:
    return {"y": mx.cumsum(x)}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    n = x.size
    tiles = (n + TILE - 1) // TILE
    kernel = mx.fast.metal_kernel(name="scan_tiles", input_names=["x"], output_names=["y", "totals"], source=BODY)
    y, totals = kernel(inputs=[x], grid=(tiles * 256, 1, 1), threadgroup=(256, 1, 1),
                       output_shapes=[(n,), (tiles,)], output_dtypes=[mx.int32, mx.int32])
    before = mx.concatenate([mx.zeros((1,), dtype=mx.int32), mx.cumsum(totals)[:-1]])
    offsets = mx.repeat(before, TILE)[:n]
    return {"y": y + offsets}
