"""Stream compaction in Triton: copy the positive elements of x to y, in any order across
programs. There is no ballot in Triton: a block-wide `tl.cumsum` of the predicate gives each kept
element its slot, `tl.sum` the program's count, and one atomic add per program claims the range."""

import torch
import triton
import triton.language as tl


@triton.jit
def compact_kernel(x_ptr, y_ptr, count_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    v = tl.load(x_ptr + offsets, mask=inside, other=0.0)
    keep = v > 0.0
    flags = keep.to(tl.int32)
    slot = tl.cumsum(flags, axis=0) - flags  # exclusive prefix of the predicate
    total = tl.sum(flags, axis=0)
    base = tl.atomic_add(count_ptr, total)  # scalar atomic: one per program
    tl.store(y_ptr + base + slot, v, mask=keep)


def alloc(x: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"y": torch.full_like(x, float("nan")), "count": torch.full((1,), -1, dtype=torch.int32, device=x.device)}


def launch(x: torch.Tensor, y: torch.Tensor, count: torch.Tensor) -> None:
    count.zero_()
    block = 4096
    compact_kernel[(triton.cdiv(x.numel(), block),)](x, y, count, x.numel(), BLOCK=block, num_warps=8)
