"""Per-bucket statistics in MLX. Array-level scatters apply every update for repeated indices:
`.at[keys].minimum` and `.maximum` are MLX's min/max "atomics", `.at[keys].add` the counts. MLX
has no bitwise scatter, so the and/or/xor masks are rebuilt from per-bit counts. `run_metal`
runs the device-atomic kernel in atomics.metal."""

from pathlib import Path

import mlx.core as mx

BODY = Path(__file__).with_name("atomics.metal").read_text(encoding="utf-8")
# A helper for the body: Metal functions need no qualifier; mx.fast.metal_kernel puts the header
# before the kernel it generates. Every image is above 0, the value MLX fills the outputs with.
HEADER = """
inline uint ordered_image(float v) {
  uint bits = as_type<uint>(v);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
"""
BUCKETS = 1024


def run(keys: mx.array, vals: mx.array) -> dict[str, mx.array]:
    k = keys.astype(mx.int32)
    mn = mx.full((BUCKETS,), 2**31 - 1, dtype=mx.int32).at[k].minimum(vals)
    mx_ = mx.full((BUCKETS,), -2**31, dtype=mx.int32).at[k].maximum(vals)
    cnt = mx.zeros((BUCKETS,), dtype=mx.int32).at[k].add(mx.ones_like(vals))
    scaled = vals.astype(mx.float32) * (1.0 / 1024.0)
    fmax = mx.full((BUCKETS,), -3.4028234663852886e38, dtype=mx.float32).at[k].maximum(scaled)
    u = vals.view(mx.uint32)
    shifts = mx.arange(32, dtype=mx.uint32)
    bits = ((u[:, None] >> shifts) & 1).astype(mx.int32)  # (n, 32)
    per_bit = mx.zeros((BUCKETS, 32), dtype=mx.int32).at[k].add(bits)
    weights = (mx.ones((32,), dtype=mx.uint32) << shifts)
    bor = ((per_bit > 0).astype(mx.uint32) * weights).sum(axis=1)
    band = ((per_bit == cnt[:, None]).astype(mx.uint32) * weights).sum(axis=1)
    bxor = ((per_bit % 2).astype(mx.uint32) * weights).sum(axis=1)
    distinct = (cnt > 0).astype(mx.int32).sum(keepdims=True)
    return {"mn": mn, "mx": mx_, "band": band, "bor": bor, "bxor": bxor, "cnt": cnt, "fmax": fmax,
            "distinct": mx.concatenate([distinct, distinct])}


def run_metal(keys: mx.array, vals: mx.array) -> dict[str, mx.array]:
    names = ["mn_image", "mx_image", "not_band", "bor", "bxor", "cnt", "fmax_image", "seen_x", "seen_c", "distinct"]
    kernel = mx.fast.metal_kernel(name="bucket_stats", input_names=["keys", "vals"], output_names=names, source=BODY,
                                  header=HEADER, atomic_outputs=True)
    shapes = [(BUCKETS,)] * 9 + [(2,)]
    dtypes = [mx.int32] * 6 + [mx.uint32] + [mx.int32] * 3
    outs = dict(zip(names, kernel(inputs=[keys, vals], grid=(256 * 256, 1, 1), threadgroup=(256, 1, 1),
                                  output_shapes=shapes, output_dtypes=dtypes, init_value=0)))
    offset = 1 << 21
    image = outs["fmax_image"]
    bits = mx.where(image & 0x80000000, image & 0x7FFFFFFF, ~image)
    return {"mn": offset - outs["mn_image"], "mx": outs["mx_image"] - offset, "band": ~outs["not_band"],
            "bor": outs["bor"], "bxor": outs["bxor"], "cnt": outs["cnt"], "fmax": bits.view(mx.float32),
            "distinct": outs["distinct"]}
