"""C = A x B^T in MLX: mx.matmul on bf16 arrays with the second one transposed (a view, no copy),
returned as float32. `run_metal` runs the threadgroup-tiled simdgroup_matrix kernel in
hopper_gemm.metal on float32 copies."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("hopper_gemm.metal").read_text(encoding="utf-8")
HEADER = "#include <metal_simdgroup_matrix>\n"


def run(a: mx.array, bt: mx.array) -> dict[str, mx.array]:
    if a.dtype != mx.bfloat16 or bt.dtype != mx.bfloat16:
        raise TypeError("this example multiplies bf16 matrices")
    return {"c": mx.matmul(a, bt.T).astype(mx.float32)}


def run_metal(a: mx.array, bt: mx.array) -> dict[str, mx.array]:
    m, k = a.shape
    n = bt.shape[0]
    if m % 32 or n % 32 or k % 32:
        raise ValueError("M, N and K must be multiples of 32")
    kernel = mx.fast.metal_kernel(name="gemm_bt_simdgroup", input_names=["a", "bt"], output_names=["c"], source=BODY,
                                  header=HEADER)
    (c,) = kernel(inputs=[a.astype(mx.float32), bt.astype(mx.float32)], grid=(n // 32 * 128, m // 32, 1),
                  threadgroup=(128, 1, 1), output_shapes=[(m, n)], output_dtypes=[mx.float32])
    return {"c": c}
