"""The kernel chain of graphs.cu in Triton: y <- y * a + b, STEPS launches through a scratch
buffer. Triton launches from Python, where each launch costs microseconds of host time, so
the chain is captured once into a CUDA graph with torch.cuda.CUDAGraph and replayed (the graph
is a host-runtime feature: the Triton code itself is unchanged). A one-program kernel prints
from the device once, with tl.device_print, at the first launch."""

import torch
import triton
import triton.language as tl

STEPS = 32


@triton.jit
def step_kernel(in_ptr, out_ptr, n, a, b, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    x = tl.load(in_ptr + offsets, mask=inside)
    tl.store(out_ptr + offsets, x * a + b, mask=inside)


@triton.jit
def hello_kernel(x_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offsets)
    # per-element conditions are masks over the block; the compiler emits predicated code
    odd = tl.where(offsets % 2 == 1, v, 0.0)
    tl.device_print("odd-element sum", tl.sum(odd, axis=0))


def alloc(x: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"y": torch.full_like(x, float("nan"))}


def _chain(y: torch.Tensor, tmp: torch.Tensor) -> None:
    n, block = y.numel(), 1024
    grid = (triton.cdiv(n, block),)
    for _ in range(STEPS // 2):
        step_kernel[grid](y, tmp, n, 0.999, 0.001, BLOCK=block, num_warps=4)
        step_kernel[grid](tmp, y, n, 0.999, 0.001, BLOCK=block, num_warps=4)


_graphs: dict[tuple, tuple] = {}


def launch(x: torch.Tensor, y: torch.Tensor) -> None:
    """Each call computes y from x: copy, then the chain (replayed from a graph on a GPU)."""
    key = (x.data_ptr(), y.data_ptr())
    if not x.is_cuda:  # the interpreter: no graphs, run the chain directly
        hello_kernel[(1,)](x, BLOCK=16)
        y.copy_(x)
        _chain(y, torch.empty_like(y))
        return
    if key not in _graphs:
        hello_kernel[(1,)](x, BLOCK=16)
        tmp = torch.empty_like(y)
        y.copy_(x)
        _chain(y, tmp)  # compile every kernel before capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            y.copy_(x)
            _chain(y, tmp)
        _graphs[key] = (graph, tmp)
    _graphs[key][0].replay()
