"""Stream compaction in MLX: a cumulative sum of the predicate gives each kept element its slot,
and a scatter writes the kept values there (the rest go to one spare slot that is cut off).
`run_metal` runs the SIMD-group ballot kernel in compaction.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("compaction.metal").read_text(encoding="utf-8")


def run(x: mx.array) -> dict[str, mx.array]:
    n = x.shape[0]
    keep = x > 0
    slot = mx.cumsum(keep.astype(mx.int32)) - 1
    target = mx.where(keep, slot, n)  # dropped elements all land in slot n
    y = mx.zeros((n + 1,), dtype=x.dtype).at[target].add(mx.where(keep, x, 0.0))
    count = keep.astype(mx.uint32).sum(keepdims=True)
    return {"y": y[:n], "count": count}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="compact", input_names=["x"], output_names=["y", "count"], source=BODY,
                                  atomic_outputs=True)
    y, count = kernel(inputs=[x], grid=(32 * 1024, 1, 1), threadgroup=(256, 1, 1),
                      output_shapes=[x.shape, (1,)], output_dtypes=[mx.float32, mx.uint32], init_value=0)
    return {"y": y, "count": count}
