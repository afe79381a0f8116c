"""A Bezier curve component evaluated in float64 at the four Gauss-Legendre nodes of each of n
subintervals of [0, 1] (their edges are an input), and its integral over each subinterval.
Triton has no per-thread arrays (de Casteljau's workspace in the CUDA and HIP files), so each node
is evaluated in Bernstein form by Horner's scheme in (1 - t), with the binomial factors built up as
the loop goes; the degree is a run-time argument, so the loop is not unrolled. A program handles
BLOCK subintervals as a (BLOCK, 4) tile and sums each row for the integral. The control points are
an ordinary tensor: Triton exposes no constant memory, and every program reads the same scalar.

The launch caps registers with maxnreg (the PTX .maxnreg directive), Triton's counterpart of a
launch bound; the interpreter ignores it."""

import torch
import triton
import triton.language as tl

# The four-point Gauss-Legendre rule mapped to [0, 1]: nodes and weights (summing to 1), the
# doubles NumPy's leggauss(4) gives for (1 + x) / 2 and w / 2.
NODES = (0.06943184420297371, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262)
WEIGHTS = (0.17392742256872679, 0.3260725774312732, 0.3260725774312732, 0.17392742256872679)
BLOCK = 128
MAXNREG = 128
_RULE: dict[torch.device, torch.Tensor] = {}


@triton.jit
def bezier_kernel(ctrl_ptr, edges_ptr, rule_ptr, y_ptr, area_ptr, n, degree, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    k = tl.arange(0, 4)
    node = tl.load(rule_ptr + k)  # float64, like every value below
    weight = tl.load(rule_ptr + 4 + k)
    a = tl.load(edges_ptr + i, mask=m, other=0.0)
    width = tl.load(edges_ptr + i + 1, mask=m, other=0.0) - a
    t = a[:, None] + width[:, None] * node[None, :]
    s = 1.0 - t
    # B(t) = sum_j c_j C(D, j) t^j s^(D - j) = (...((c_0 s + c_1 C(D,1) t) s + c_2 C(D,2) t^2) s ...)
    acc = tl.zeros([BLOCK, 4], dtype=tl.float64) + tl.load(ctrl_ptr)
    tj = tl.full([BLOCK, 4], 1.0, dtype=tl.float64)
    binom = tl.full([1], 1.0, dtype=tl.float64)
    for j in range(1, degree + 1):
        binom = binom * (degree - j + 1) / j  # C(D, j), exact in float64 for D <= 31
        tj = tj * t
        acc = acc * s + tl.load(ctrl_ptr + j) * binom * tj
    tl.store(y_ptr + i[:, None] * 4 + k[None, :], acc, mask=m[:, None])
    # the four-point rule: a weighted sum along each row of the (BLOCK, 4) tile
    tl.store(area_ptr + i, tl.sum(acc * weight[None, :], axis=1) * width, mask=m)


def alloc(ctrl: torch.Tensor, edges: torch.Tensor) -> dict[str, torch.Tensor]:
    n, nan = edges.numel() - 1, float("nan")
    return {"y": torch.full((4 * n,), nan, dtype=torch.float64, device=ctrl.device),
            "area": torch.full((n,), nan, dtype=torch.float64, device=ctrl.device)}


def launch(ctrl: torch.Tensor, edges: torch.Tensor, y: torch.Tensor, area: torch.Tensor) -> None:
    n, degree = edges.numel() - 1, ctrl.numel() - 1
    rule = _RULE.get(ctrl.device)
    if rule is None:  # copied to the device once, not in every timed launch
        rule = _RULE[ctrl.device] = torch.tensor(NODES + WEIGHTS, dtype=torch.float64, device=ctrl.device)
    bezier_kernel[(triton.cdiv(n, BLOCK),)](ctrl, edges, rule, y, area, n, degree, BLOCK=BLOCK, num_warps=4,
                                            maxnreg=MAXNREG)
