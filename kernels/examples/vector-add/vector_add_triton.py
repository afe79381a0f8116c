"""c = a + b in Triton. A program instance handles one BLOCK of elements; `tl.program_id` plays
the role of the block index and `tl.arange` the thread index, and the mask guards the ragged end.
The hints say each program's offsets start at a multiple of BLOCK and run contiguously, which is
what lets the compiler use 16-byte accesses."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = tl.max_contiguous(tl.multiple_of(pid * BLOCK + tl.arange(0, BLOCK), BLOCK), BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def alloc(a: torch.Tensor, b: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"c": torch.full_like(a, float("nan"))}  # NaN poison: unwritten elements fail the check


def launch(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    n = a.numel()
    block = 2048
    add_kernel[(triton.cdiv(n, block),)](a, b, c, n, BLOCK=block, num_warps=8)
