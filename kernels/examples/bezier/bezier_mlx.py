"""A Bezier curve component at the four Gauss-Legendre nodes of each subinterval of [0, 1], and
its integral over each, in MLX. MLX has float64 on the CPU only (its GPU has no double), so `run`
computes on the CPU stream: de Casteljau's algorithm over whole arrays, the workspace being a
Python list of arrays, and the four-point rule as a weighted row sum of the (n, 4) values.

`run_metal` runs bezier.metal, which has no double either: it computes in float-float pairs. The
float64 inputs are split into hi and lo float32 arrays on the CPU, and the pairs that come back
are joined there in float64."""

from pathlib import Path

import mlx.core as mx
import numpy as np

SOURCE = Path(__file__).with_name("bezier.metal").read_text(encoding="utf-8")
HEADER, BODY = SOURCE.split("// ---- BODY ----\n")
_x, _w = np.polynomial.legendre.leggauss(4)
NODES, WEIGHTS = (1.0 + _x) / 2.0, _w / 2.0


def run(ctrl: mx.array, edges: mx.array) -> dict[str, mx.array]:
    with mx.stream(mx.cpu):
        ctrl, edges = ctrl.astype(mx.float64), edges.astype(mx.float64)
        node, weight = mx.array(NODES, dtype=mx.float64), mx.array(WEIGHTS, dtype=mx.float64)
        width = edges[1:] - edges[:-1]
        t = edges[:-1, None] + width[:, None] * node[None, :]
        b = [mx.broadcast_to(ctrl[j], t.shape) for j in range(ctrl.shape[0])]
        for r in range(len(b) - 1, 0, -1):
            b = [b[j] + t * (b[j + 1] - b[j]) for j in range(r)]
        y = b[0]
        area = (y * weight[None, :]).sum(axis=1) * width
        return {"y": y.reshape(-1), "area": area}


def _split(x: mx.array) -> tuple[mx.array, mx.array]:
    with mx.stream(mx.cpu):
        x = x.astype(mx.float64)
        hi = x.astype(mx.float32)
        return hi, (x - hi.astype(mx.float64)).astype(mx.float32)


def _join(hi: mx.array, lo: mx.array) -> mx.array:
    with mx.stream(mx.cpu):
        return hi.astype(mx.float64) + lo.astype(mx.float64)


def run_metal(ctrl: mx.array, edges: mx.array) -> dict[str, mx.array]:
    n = edges.shape[0] - 1
    kernel = mx.fast.metal_kernel(name="bezier_quads", input_names=["ctrl_hi", "ctrl_lo", "edges_hi", "edges_lo"],
                                  output_names=["y_hi", "y_lo", "area_hi", "area_lo"], source=BODY, header=HEADER,
                                  compile_options={"math_mode": "safe"})
    y_hi, y_lo, area_hi, area_lo = kernel(inputs=[*_split(ctrl), *_split(edges)], grid=(4 * n, 1, 1),
                                          threadgroup=(256, 1, 1), output_shapes=[(4 * n,), (4 * n,), (n,), (n,)],
                                          output_dtypes=[mx.float32] * 4)
    return {"y": _join(y_hi, y_lo), "area": _join(area_hi, area_lo)}
