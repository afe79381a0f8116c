"""Row softmax in MLX, written out at array level (mx.softmax does the same in one call):
subtract the row maximum, exponentiate, divide by the row sum. `run_metal` runs softmax.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("softmax.metal").read_text(encoding="utf-8")


def run(x: mx.array) -> dict[str, mx.array]:
    e = mx.exp(x - mx.max(x, axis=-1, keepdims=True))
    return {"y": e / mx.sum(e, axis=-1, keepdims=True)}


def run_metal(x: mx.array) -> dict[str, mx.array]:
    rows, _ = x.shape
    kernel = mx.fast.metal_kernel(name="softmax_rows", input_names=["x"], output_names=["y"], source=BODY)
    (y,) = kernel(inputs=[x], grid=(rows * 256, 1, 1), threadgroup=(256, 1, 1),
                  output_shapes=[x.shape], output_dtypes=[mx.float32])
    return {"y": y}
