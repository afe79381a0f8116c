"""Inputs, NumPy references and traffic counts for every example.

Each problem turns a size tuple into fresh random inputs (NumPy arrays named as the kernels name
their buffers), computes the reference in float64 where rounding matters, and counts the bytes
that must cross device memory and the floating-point operations that must be done.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

Arrays = dict[str, np.ndarray]


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """Round float32 to the nearest bfloat16 (ties to even); return the 16-bit patterns."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


@dataclass(frozen=True)
class Problem:
    make: Callable[[tuple[int, ...], np.random.Generator], Arrays]
    reference: Callable[[Arrays], Arrays]
    bytes_moved: Callable[[tuple[int, ...]], int]
    flops: Callable[[tuple[int, ...]], int]
    # rows of a matrix output checked against the reference when it is too large to compute whole
    sample_rows: int | None = None
    # outputs whose order legitimately depends on scheduling (atomically claimed slots) are put
    # into a canonical form before the comparison
    canonical: Callable[[Arrays], Arrays] | None = None


def _vector_add(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"a": rng.random(n, dtype=np.float32), "b": rng.random(n, dtype=np.float32)}


def _reduction(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"x": rng.random(n, dtype=np.float32)}


def _matrix(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    rows, cols = size
    return {"a": rng.standard_normal((rows, cols), dtype=np.float32)}


def _histogram(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"data": rng.integers(0, 256, n, dtype=np.uint8)}


def _scan(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"x": rng.integers(-50, 51, n, dtype=np.int32)}


def _rows(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    rows, cols = size
    return {"x": rng.standard_normal((rows, cols), dtype=np.float32)}


def _rmsnorm(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    out = _rows(size, rng)
    out["w"] = rng.random(size[1], dtype=np.float32) + np.float32(0.5)
    return out


def _gemm(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    m, n, k = size
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    return {"a": to_bf16_bits(a).reshape(m, k), "b": to_bf16_bits(b).reshape(k, n)}


def _streams(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    n = size[0]
    return {"x": rng.random(n, dtype=np.float32)}


def _softmax_ref(x: Arrays) -> Arrays:
    v = x["x"].astype(np.float64)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def _rmsnorm_ref(x: Arrays) -> Arrays:
    v = x["x"].astype(np.float64)
    scale = 1.0 / np.sqrt((v * v).mean(axis=1, keepdims=True) + 1e-6)
    return {"y": v * scale * x["w"].astype(np.float64)}


def _gemm_ref(x: Arrays) -> Arrays:
    a = from_bf16_bits(x["a"]).astype(np.float64)
    b = from_bf16_bits(x["b"]).astype(np.float64)
    return {"c": a @ b}


STREAM_STEPS = 64  # must match the kernels' loop count


def _streams_ref(x: Arrays) -> Arrays:
    v = x["x"].astype(np.float64)
    for _ in range(STREAM_STEPS):
        v = v * 0.999 + 0.001
    return {"y": v}


PROBLEMS: dict[str, Problem] = {
    "vector-add": Problem(_vector_add, lambda x: {"c": x["a"].astype(np.float64) + x["b"]},
                          lambda s: 12 * s[0], lambda s: s[0]),
    "reduction": Problem(_reduction, lambda x: {"sum": np.array([x["x"].astype(np.float64).sum()])},
                         lambda s: 4 * s[0], lambda s: s[0]),
    "transpose": Problem(_matrix, lambda x: {"t": np.ascontiguousarray(x["a"].T)},
                         lambda s: 8 * s[0] * s[1], lambda s: 0),
    "histogram": Problem(_histogram, lambda x: {"bins": np.bincount(x["data"], minlength=256).astype(np.int64)},
                         lambda s: s[0], lambda s: 0),
    "scan": Problem(_scan, lambda x: {"y": np.cumsum(x["x"].astype(np.int64))},
                    lambda s: 8 * s[0], lambda s: s[0]),
    "softmax": Problem(_rows, _softmax_ref, lambda s: 8 * s[0] * s[1], lambda s: 4 * s[0] * s[1]),
    "rmsnorm": Problem(_rmsnorm, _rmsnorm_ref, lambda s: 8 * s[0] * s[1] + 4 * s[1], lambda s: 3 * s[0] * s[1]),
    "gemm": Problem(_gemm, _gemm_ref, lambda s: 2 * (s[0] * s[2] + s[2] * s[1]) + 4 * s[0] * s[1],
                    lambda s: 2 * s[0] * s[1] * s[2], sample_rows=256),
    "streams": Problem(_streams, _streams_ref, lambda s: 8 * s[0], lambda s: 2 * STREAM_STEPS * s[0]),
}


def sampled_reference(name: str, inputs: Arrays, rows: np.ndarray | None) -> Arrays:
    """The reference, restricted to `rows` of the output where the problem is checked by sampling."""
    if rows is None:
        return PROBLEMS[name].reference(inputs)
    if name not in ("gemm", "hopper-gemm"):  # only the GEMMs are sampled; the rest are cheap to check whole
        raise ValueError(f"{name} is not checked by sampling")
    part = dict(inputs)
    part["a"] = inputs["a"][rows]
    return _gemm_ref(part) if name == "gemm" else _gemm_bt_ref(part)


# --- examples added with the second round of the gallery ------------------------------------------


def _compaction(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"x": rng.standard_normal(n, dtype=np.float32)}


def _compaction_ref(x: Arrays) -> Arrays:
    kept = x["x"][x["x"] > 0]
    return {"count": np.array([kept.size]), "y": np.sort(kept).astype(np.float64)}


def _compaction_canonical(out: Arrays) -> Arrays:
    """Blocks claim their output ranges atomically, so the order across blocks is the scheduler's:
    compare the first `count` slots as a sorted multiset (a slot written twice or left unwritten
    still fails, since then a value is missing or NaN)."""
    count = int(np.asarray(out["count"]).reshape(-1)[0])
    y = np.asarray(out["y"]).reshape(-1)
    if not 0 <= count <= y.size:
        raise ValueError(f"count {count} outside 0..{y.size}")
    return {"count": np.array([count]), "y": np.sort(y[:count])}


PROBLEMS["compaction"] = Problem(_compaction, _compaction_ref, lambda s: 4 * s[0] + 2 * s[0], lambda s: 0,
                                 canonical=_compaction_canonical)


ATOMIC_BUCKETS = 1024  # must match the kernels


def _atomics(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    return {"keys": rng.integers(0, ATOMIC_BUCKETS, n, dtype=np.int32),
            "vals": rng.integers(-2**20, 2**20 + 1, n, dtype=np.int32)}


def _atomics_ref(x: Arrays) -> Arrays:
    k, v = x["keys"].astype(np.int64), x["vals"].astype(np.int64)
    order = np.argsort(k, kind="stable")
    ks, vs = k[order], v[order]
    starts = np.searchsorted(ks, np.arange(ATOMIC_BUCKETS))
    cnt = np.bincount(k, minlength=ATOMIC_BUCKETS)
    present = cnt > 0
    u = vs & 0xFFFFFFFF

    def per_bucket(ufunc: np.ufunc, values: np.ndarray, empty: int | float) -> np.ndarray:
        out = np.full(ATOMIC_BUCKETS, empty, dtype=np.float64)
        if values.size:
            red = ufunc.reduceat(values, np.minimum(starts, values.size - 1))
            out[present] = red[present]
        return out

    scaled = vs.astype(np.float64) / 1024.0
    return {"mn": per_bucket(np.minimum, vs, 2**31 - 1), "mx": per_bucket(np.maximum, vs, -2**31),
            "band": per_bucket(np.bitwise_and, u, 0xFFFFFFFF), "bor": per_bucket(np.bitwise_or, u, 0),
            "bxor": per_bucket(np.bitwise_xor, u, 0), "cnt": cnt.astype(np.float64),
            "fmax": per_bucket(np.maximum, scaled, -float(np.finfo(np.float32).max)),
            "distinct": np.array([present.sum(), present.sum()], dtype=np.float64)}


def _atomics_canonical(out: Arrays) -> Arrays:
    """Bit masks come back as int32 from Triton and MLX and as uint32 from CUDA: compare them as
    unsigned 32-bit patterns."""
    fixed = dict(out)
    for name in ("band", "bor", "bxor"):
        fixed[name] = np.asarray(out[name]).astype(np.int64) & 0xFFFFFFFF
    return fixed


PROBLEMS["atomics"] = Problem(_atomics, _atomics_ref, lambda s: 8 * s[0], lambda s: 0, canonical=_atomics_canonical)


def _grid_sync_ref(x: Arrays) -> Arrays:
    v = x["x"].astype(np.float64)
    total = v.sum()
    return {"y": v / total, "total": np.array([total]), "host_total": np.array([total])}


PROBLEMS["grid-sync"] = Problem(_reduction, _grid_sync_ref, lambda s: 12 * s[0], lambda s: 2 * s[0])


GRAPH_STEPS = 32  # must match the kernels' chain length


def _graphs_ref(x: Arrays) -> Arrays:
    v = x["x"].astype(np.float64)
    for _ in range(GRAPH_STEPS):
        v = v * 0.999 + 0.001
    return {"y": v}


# "flops" counts the kernels in one pass of the chain: the launch metric divides it by the time
PROBLEMS["graphs"] = Problem(_streams, _graphs_ref, lambda s: 8 * GRAPH_STEPS * s[0], lambda s: GRAPH_STEPS)


PRECISION_MM = 64  # the tf32 / xf32 matrix product is PRECISION_MM cubed


def round_mantissa(x: np.ndarray, keep: int) -> np.ndarray:
    """float32 -> float32 with `keep` mantissa bits, round to nearest even; exact for normal values
    whose rounded exponent stays in range (as fp16, fp8 E4M3 and E5M2 hold the values drawn here)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    drop = 23 - keep
    half = (1 << (drop - 1)) - 1 + ((u >> drop) & 1)
    return (((u + half) >> drop) << drop).astype(np.uint32).view(np.float32)


def _precision(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    (n,) = size
    if n % 4:
        raise ValueError("precision: n must be a multiple of 4")
    # normal values in [2^-6, 2^7.9]: inside the normal range of fp16, E4M3 (OCP and FNUZ) and E5M2;
    # the lowest mantissa bit is set so that no value is an exact tie of any of the roundings
    mag = np.exp2(rng.uniform(-6.0, 7.9, n)).astype(np.float32)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0).astype(np.float32)
    x = ((mag * sign).view(np.uint32) | np.uint32(1)).view(np.float32)
    q = rng.integers(-128, 128, (2, n), dtype=np.int8)
    return {"x": x, "qa": q[0].view(np.int32), "qb": q[1].view(np.int32),
            "ma": rng.standard_normal((PRECISION_MM, PRECISION_MM), dtype=np.float32),
            "mb": rng.standard_normal((PRECISION_MM, PRECISION_MM), dtype=np.float32)}


def _precision_ref(x: Arrays) -> Arrays:
    v = x["x"]
    h = v.astype(np.float16)
    qa = x["qa"].view(np.int8).astype(np.int64).reshape(-1, 4)
    qb = x["qb"].view(np.int8).astype(np.int64).reshape(-1, 4)
    return {"h": h.astype(np.float64), "b": from_bf16_bits(to_bf16_bits(v)).astype(np.float64),
            "e4": round_mantissa(v, 3).astype(np.float64), "e5": round_mantissa(v, 2).astype(np.float64),
            "hh": (h * h).astype(np.float64), "dot": (qa * qb).sum(axis=1).astype(np.float64),
            "mm": x["ma"].astype(np.float64) @ x["mb"].astype(np.float64)}


PROBLEMS["precision"] = Problem(_precision, _precision_ref, lambda s: 4 * s[0] + 2 * s[0] + 20 * s[0] + s[0],
                                lambda s: s[0])


def _gemm_bt(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    m, n, k = size
    a = rng.standard_normal((m, k), dtype=np.float32)
    bt = rng.standard_normal((n, k), dtype=np.float32)
    return {"a": to_bf16_bits(a).reshape(m, k), "bt": to_bf16_bits(bt).reshape(n, k)}


def _gemm_bt_ref(x: Arrays) -> Arrays:
    a = from_bf16_bits(x["a"]).astype(np.float64)
    bt = from_bf16_bits(x["bt"]).astype(np.float64)
    return {"c": a @ bt.T}


PROBLEMS["hopper-gemm"] = Problem(_gemm_bt, _gemm_bt_ref, lambda s: 2 * (s[0] * s[2] + s[2] * s[1]) + 4 * s[0] * s[1],
                                  lambda s: 2 * s[0] * s[1] * s[2], sample_rows=256)


BEZIER_MAX_DEGREE = 31  # the kernels' constant table holds at most 32 control points


def gauss_legendre4() -> tuple[np.ndarray, np.ndarray]:
    """The four-point Gauss-Legendre rule mapped to [0, 1]: nodes and weights (summing to 1), the
    same doubles the kernels spell out."""
    x, w = np.polynomial.legendre.leggauss(4)
    return (1.0 + x) / 2.0, w / 2.0


def _bezier(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    n, degree = size
    if degree > BEZIER_MAX_DEGREE:
        raise ValueError(f"bezier: degree {degree} is over {BEZIER_MAX_DEGREE}")
    # full float64 values, which float32 cannot hold: a backend that rounds its inputs or any
    # intermediate to float32 misses the tolerance
    edges = np.sort(rng.random(n + 1))
    edges[0], edges[-1] = 0.0, 1.0
    return {"ctrl": rng.standard_normal(degree + 1), "edges": edges}


def _bezier_ref(x: Arrays) -> Arrays:
    """The Bernstein sum term by term (the kernels use de Casteljau or Horner's scheme instead),
    in chunks of nodes so that the powers of t and 1 - t stay small."""
    import math

    ctrl, edges = x["ctrl"].astype(np.float64), x["edges"].astype(np.float64)
    degree = ctrl.size - 1
    node, weight = gauss_legendre4()
    width = np.diff(edges)
    t_all = (edges[:-1, None] + width[:, None] * node[None, :]).reshape(-1)
    y = np.empty_like(t_all)
    scale = [math.comb(degree, j) * float(ctrl[j]) for j in range(degree + 1)]
    for start in range(0, t_all.size, 1 << 18):
        t = t_all[start:start + (1 << 18)]
        s_pow = [np.ones_like(t)]
        for _ in range(degree):
            s_pow.append(s_pow[-1] * (1.0 - t))
        t_pow, acc = np.ones_like(t), np.zeros_like(t)
        for j in range(degree + 1):
            acc += scale[j] * t_pow * s_pow[degree - j]
            t_pow *= t
        y[start:start + t.size] = acc
    return {"y": y, "area": (y.reshape(-1, 4) * weight).sum(axis=1) * width}


# read: edges and control points; written: four values and one integral per subinterval
PROBLEMS["bezier"] = Problem(_bezier, _bezier_ref, lambda s: 8 * (s[0] + 1) + 8 * (s[1] + 1) + 40 * s[0],
                             lambda s: 4 * s[0] * (3 * s[1] * (s[1] + 1) // 2))


CLUSTER_BINS = 65536  # must match the kernels: one bin per 16-bit key


def _cluster_histogram(size: tuple[int, ...], rng: np.random.Generator) -> Arrays:
    """16-bit keys: three in four uniform, every fourth from a triangular bump around key 40000 (the
    sum of two uniform draws), so that the most frequent keys are a real answer rather than a tie
    among uniform counts. Integer draws only: a 2^27-key input is made in seconds."""
    (n,) = size
    keys = rng.integers(0, CLUSTER_BINS, n, dtype=np.uint16)
    hot = keys[::4].size
    bump = rng.integers(0, 600, hot, dtype=np.uint16) + rng.integers(0, 600, hot, dtype=np.uint16)
    keys[::4] = bump + np.uint16(40000 - 600)
    return {"keys": keys}


def _cluster_histogram_ref(x: Arrays) -> Arrays:
    bins = np.bincount(x["keys"], minlength=CLUSTER_BINS).astype(np.int64)
    order = np.lexsort((np.arange(CLUSTER_BINS), -bins))[:3]  # higher count first, then the smaller key
    return {"bins": bins, "top_keys": order.astype(np.int64), "top_counts": bins[order]}


PROBLEMS["cluster-histogram"] = Problem(_cluster_histogram, _cluster_histogram_ref, lambda s: 2 * s[0], lambda s: 0)


RUNTIME_COEFFS = (1.5, -0.5, 0.25, 1.0)  # must match the coefficients the runtime programs write


def _runtime_ref(x: Arrays) -> Arrays:
    c0, c1, c2, c3 = RUNTIME_COEFFS
    v = x["x"].astype(np.float64)
    t = c0 * v + c1 * np.append(v[1:], 0.0)
    return {"y": c2 * t * t + c3}


# bytes over the host link: every x uploaded, every y downloaded (the halo element adds one per chunk)
PROBLEMS["runtime"] = Problem(_streams, _runtime_ref, lambda s: 8 * s[0], lambda s: 5 * s[0])
