"""c = a + b in MLX. Array-level: the expression builds a lazy graph and mx.eval runs it.
`run_metal` runs the hand-written Metal body in vector_add.metal through mx.fast.metal_kernel."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("vector_add.metal").read_text(encoding="utf-8")


def run(a: mx.array, b: mx.array) -> dict[str, mx.array]:
    c = a + b
    mx.eval(c)  # nothing is computed until the graph is evaluated
    return {"c": c}


def run_metal(a: mx.array, b: mx.array) -> dict[str, mx.array]:
    kernel = mx.fast.metal_kernel(name="vector_add", input_names=["a", "b"], output_names=["c"], source=BODY)
    threads = (a.size + 3) // 4
    (c,) = kernel(inputs=[a, b], grid=(threads, 1, 1), threadgroup=(256, 1, 1),
                  output_shapes=[a.shape], output_dtypes=[mx.float32])
    return {"c": c}
