"""Number formats below float32 in MLX: astype(mx.float16) and astype(mx.bfloat16) round to nearest
even; mx.to_fp8 and mx.from_fp8 convert to and from OCP E4M3 stored as uint8 (MLX has no fp8
dtype and no E5M2 conversion, so E5M2 is rounded here with integer arithmetic on the float's
bits); int8 dot products are one four-element dot product vectorised over the rows with mx.vmap; the matrix product is float32
(no tf32 mode). `run_metal` runs the half/bfloat and simdgroup-matrix kernels in precision.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("precision.metal").read_text(encoding="utf-8")


def _round_e5m2(x: mx.array) -> mx.array:
    u = x.view(mx.uint32)
    half = (1 << 20) - 1 + ((u >> 21) & 1)  # nearest even at 2 of 23 mantissa bits
    return ((u + half) & 0xFFE00000).view(mx.float32)


def _shared(x: mx.array, qa: mx.array, qb: mx.array) -> dict[str, mx.array]:
    e4 = mx.from_fp8(mx.to_fp8(x), dtype=mx.float32)
    a = qa.view(mx.int8).astype(mx.int32).reshape(-1, 4)
    b = qb.view(mx.int8).astype(mx.int32).reshape(-1, 4)
    # one four-element dot product, mapped over every row by mx.vmap
    dot4 = mx.vmap(lambda u, v: (u * v).sum())
    return {"e4": e4, "e5": _round_e5m2(x), "dot": dot4(a, b)}


def run(x: mx.array, qa: mx.array, qb: mx.array, ma: mx.array, mb: mx.array) -> dict[str, mx.array]:
    h = x.astype(mx.float16)
    out = {"h": h.astype(mx.float32), "b": x.astype(mx.bfloat16).astype(mx.float32),
           "hh": (h * h).astype(mx.float32), "mm": mx.matmul(ma, mb)}
    out.update(_shared(x, qa, qb))
    return out


def run_metal(x: mx.array, qa: mx.array, qb: mx.array, ma: mx.array, mb: mx.array) -> dict[str, mx.array]:
    convert = mx.fast.metal_kernel(name="convert", input_names=["x"], output_names=["h", "b", "hh"], source=BODY)
    h, b, hh = convert(inputs=[x], grid=(x.shape[0] // 2, 1, 1), threadgroup=(256, 1, 1), output_shapes=[x.shape] * 3,
                       output_dtypes=[mx.float32] * 3)
    matmul = mx.fast.metal_kernel(name="matmul8x8", input_names=["ma", "mb"], output_names=["mm"],
                                  source="#define MATMUL 1\n" + BODY)
    (mm,) = matmul(inputs=[ma, mb], grid=(8 * 32, 8, 1), threadgroup=(32, 1, 1), output_shapes=[ma.shape],
                   output_dtypes=[mx.float32])
    out = {"h": h, "b": b, "hh": hh, "mm": mm}
    out.update(_shared(x, qa, qb))
    return out
