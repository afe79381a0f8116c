"""C = A @ B in MLX: mx.matmul on bf16 arrays (mx.bfloat16), returned as float32.
`run_metal` runs the simdgroup_matrix kernel in gemm.metal on float32 copies of the inputs."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("gemm.metal").read_text(encoding="utf-8")
HEADER = "#include <metal_simdgroup_matrix>\n"


def run(a: mx.array, b: mx.array) -> dict[str, mx.array]:
    if a.dtype != mx.bfloat16 or b.dtype != mx.bfloat16:
        raise TypeError("this example multiplies bf16 matrices")
    return {"c": mx.matmul(a, b).astype(mx.float32)}


def run_metal(a: mx.array, b: mx.array) -> dict[str, mx.array]:
    m, k = a.shape
    _, n = b.shape
    if m % 8 or n % 8 or k % 8:
        raise ValueError("M, N and K must be multiples of 8")
    kernel = mx.fast.metal_kernel(name="gemm_simdgroup", input_names=["a", "b"], output_names=["c"], source=BODY,
                                  header=HEADER)
    (c,) = kernel(inputs=[a.astype(mx.float32), b.astype(mx.float32)], grid=(n // 8 * 32, m // 8, 1),
                  threadgroup=(32, 1, 1), output_shapes=[(m, n)], output_dtypes=[mx.float32])
    return {"c": c}
