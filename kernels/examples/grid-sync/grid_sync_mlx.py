"""y = x / sum(x) in MLX: a reduction and a broadcast division. MLX arrays live in memory the CPU
and GPU share, so the total the host reads is the array itself (host_total). `run_metal` runs the
two-dispatch message-passing version in grid_sync.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("grid_sync.metal").read_text(encoding="utf-8")


def run(x: mx.array) -> dict[str, mx.array]:
    total = mx.sum(x, keepdims=True)
    return {"y": x / total, "total": total, "host_total": total}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    groups, threads = 256, 256
    partial = mx.fast.metal_kernel(name="partial_sums", input_names=["x"], output_names=["partials", "ticket", "total"],
                                   source="#define PARTIAL 1\n" + BODY, atomic_outputs=True)
    _, _, total = partial(inputs=[x], grid=(groups * threads, 1, 1), threadgroup=(threads, 1, 1),
                          output_shapes=[(groups,), (1,), (1,)], output_dtypes=[mx.float32, mx.int32, mx.float32],
                          init_value=0)
    scale = mx.fast.metal_kernel(name="scale", input_names=["x", "total"], output_names=["y"], source=BODY)
    (y,) = scale(inputs=[x, total], grid=(x.shape[0], 1, 1), threadgroup=(256, 1, 1), output_shapes=[x.shape],
                 output_dtypes=[mx.float32])
    return {"y": y, "total": total, "host_total": total}
