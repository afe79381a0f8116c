"""Sum of an array in MLX: one call, mx.sum, which MLX runs as a tree reduction on CPU or GPU.
`run_metal` runs the hand-written SIMD-group reduction in reduction.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("reduction.metal").read_text(encoding="utf-8")


def run(x: mx.array) -> dict[str, mx.array]:
    return {"sum": mx.sum(x).reshape(1)}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="reduce_sum", input_names=["x"], output_names=["sum"], source=BODY,
                                  atomic_outputs=True)
    (total,) = kernel(inputs=[x], grid=(256 * 256, 1, 1), threadgroup=(256, 1, 1),
                      output_shapes=[(1,)], output_dtypes=[mx.float32], init_value=0)
    return {"sum": total}
