"""Transpose in MLX: mx.transpose returns a strided view; copying it makes the data move.
`run_metal` runs the threadgroup-memory tiled transpose in transpose.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("transpose.metal").read_text(encoding="utf-8")


def run(a: mx.array) -> dict[str, mx.array]:
    return {"t": mx.contiguous(mx.transpose(a))}


def run_metal(a: mx.array) -> dict[str, mx.array]:
    rows, cols = a.shape
    kernel = mx.fast.metal_kernel(name="transpose", input_names=["a"], output_names=["t"], source=BODY)
    tiles_x, tiles_y = (cols + 31) // 32, (rows + 31) // 32
    (t,) = kernel(inputs=[a], grid=(tiles_x * 32, tiles_y * 8, 1), threadgroup=(32, 8, 1),
                  output_shapes=[(cols, rows)], output_dtypes=[mx.float32])
    return {"t": t}
