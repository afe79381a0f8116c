"""Inclusive prefix sum of int32 values in Triton, in three launches: sum each block, scan the
block totals in one program carrying a running sum, then scan each block with `tl.cumsum`
starting from the total of the blocks before it. The input is read twice and the output
written once (3 bytes of traffic per byte of output; scanning first and adding the offsets in a
third pass would write the output twice and read it back, 4 per byte)."""

import torch
import triton
import triton.language as tl


@triton.jit
def block_totals(x_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def scan_totals(totals_ptr, count, BLOCK: tl.constexpr):
    carry = tl.zeros([], dtype=tl.int32)
    for start in range(0, count, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        t = tl.load(totals_ptr + offsets, mask=offsets < count, other=0)
        tl.store(totals_ptr + offsets, tl.cumsum(t, axis=0) + carry, mask=offsets < count)
        carry += tl.sum(t, axis=0)


@triton.jit
def scan_blocks(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    before = tl.load(totals_ptr + pid - 1, mask=pid > 0, other=0)  # inclusive total of the blocks before
    tl.store(y_ptr + offsets, tl.cumsum(x, axis=0) + before, mask=offsets < n)


@triton.jit
def scan_then_add_blocks(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0)
    tl.store(y_ptr + offsets, tl.cumsum(x, axis=0), mask=offsets < n)
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def add_offsets(y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0) + 1  # block 0 has nothing before it
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    before = tl.load(totals_ptr + pid - 1)
    y = tl.load(y_ptr + offsets, mask=offsets < n)
    tl.store(y_ptr + offsets, y + before, mask=offsets < n)


BLOCK = 4096


def alloc(x: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"y": torch.full_like(x, -1)}


def launch(x: torch.Tensor, y: torch.Tensor, block: int = BLOCK, warps: int = 8) -> None:
    n = x.numel()
    blocks = triton.cdiv(n, block)
    totals = torch.empty(blocks, dtype=torch.int32, device=x.device)
    block_totals[(blocks,)](x, totals, n, BLOCK=block, num_warps=warps)
    scan_totals[(1,)](totals, blocks, BLOCK=1024, num_warps=8)
    scan_blocks[(blocks,)](x, y, totals, n, BLOCK=block, num_warps=warps)


def launch_scan_then_add(x: torch.Tensor, y: torch.Tensor, block: int = BLOCK, warps: int = 8) -> None:
    """The previous scheme, kept for the comparison: scan blocks, scan totals, add offsets."""
    n = x.numel()
    blocks = triton.cdiv(n, block)
    totals = torch.empty(blocks, dtype=torch.int32, device=x.device)
    scan_then_add_blocks[(blocks,)](x, y, totals, n, BLOCK=block, num_warps=warps)
    scan_totals[(1,)](totals, blocks, BLOCK=1024, num_warps=8)
    if blocks > 1:
        add_offsets[(blocks - 1,)](y, totals, n, BLOCK=block, num_warps=warps)
