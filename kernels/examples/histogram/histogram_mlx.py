"""256-bin histogram in MLX: a scatter-add of ones at the byte values (`.at[...].add`, which
accumulates repeated indices). `run_metal` runs the threadgroup-atomic kernel in histogram.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("histogram.metal").read_text(encoding="utf-8")


def run(data: mx.array) -> dict[str, mx.array]:
    bins = mx.zeros((256,), dtype=mx.uint32)
    return {"bins": bins.at[data.astype(mx.int32)].add(mx.ones(data.shape, dtype=mx.uint32))}


def run_metal(data: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="histogram256", input_names=["data"], output_names=["bins"], source=BODY,
                                  atomic_outputs=True)
    (bins,) = kernel(inputs=[data], grid=(256 * 128, 1, 1), threadgroup=(256, 1, 1),
                     output_shapes=[(256,)], output_dtypes=[mx.uint32], init_value=0)
    return {"bins": bins}
