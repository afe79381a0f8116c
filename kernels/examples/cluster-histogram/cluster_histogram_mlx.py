"""65536-bin histogram of 16-bit keys and the three most frequent keys in MLX. The histogram is a
scatter-add of ones at the keys (`.at[...].add` accumulates repeated indices); MLX has no clusters
or shared memory at the array level, and needs none. The top three keys pack (count, key) into one
int64 per bin, so that a larger value ranks higher (higher count, then the smaller key), and take
`mx.topk` of it. `run_metal` counts with the threadgroup kernel in cluster_histogram.metal and
ranks with the same array code."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("cluster_histogram.metal").read_text(encoding="utf-8")
BINS = 65536
SLICES = 8  # threadgroups that share one chunk of keys in the Metal body, one slice of bins each


def top3(bins: mx.array) -> dict[str, mx.array]:
    packed = bins.astype(mx.int64) * BINS + (BINS - 1 - mx.arange(BINS, dtype=mx.int64))
    top = mx.sort(mx.topk(packed, 3))[::-1]  # topk leaves its k values unordered
    return {"bins": bins, "top_keys": BINS - 1 - top % BINS, "top_counts": top // BINS}


def run(keys: mx.array) -> dict[str, mx.array]:
    bins = mx.zeros((BINS,), dtype=mx.uint32).at[keys.astype(mx.int32)].add(mx.ones(keys.shape, dtype=mx.uint32))
    return top3(bins)


def run_metal(keys: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="cluster_histogram", input_names=["keys"], output_names=["bins"], source=BODY,
                                  atomic_outputs=True)
    (bins,) = kernel(inputs=[keys], grid=(SLICES * 64 * 256, 1, 1), threadgroup=(256, 1, 1),
                     output_shapes=[(BINS,)], output_dtypes=[mx.uint32], init_value=0)
    return top3(bins)
