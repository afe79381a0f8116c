"""65536-bin histogram of 16-bit keys and the three most frequent keys, in Triton.

Thread block clusters: `num_ctas=` is a launch option of every Triton kernel. With num_ctas=2 on
Hopper the compiler lays each program's block out over two CTAs, and the launcher starts
grid x num_ctas CTAs with a cluster-dimension attribute of num_ctas, so the two halves of a
program run as one cluster on neighbouring SMs. The kernel code does not see the cluster:
Triton exposes neither the cluster rank nor distributed shared memory, so the bins stay in
global memory and the counts are global atomic adds (the CUDA version keeps them in the
cluster's shared memory instead). Before Hopper, and in the CPU interpreter, a launch with
num_ctas > 1 is refused or ignored, so the launch asks for it only on an SM90+ GPU.

The top three keys come from one program that packs (count, key) into one int64 per bin, so
that a larger packed value ranks higher (higher count, then the smaller key), and takes three
successive maxima, each below the previous one. No lock is needed there: Triton code has no
lanes that could contend for one."""

import torch
import triton
import triton.language as tl

BINS = 65536
CLUSTER_CTAS = 2


@triton.jit
def histogram_kernel(keys_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    keys = tl.load(keys_ptr + offsets, mask=mask, other=0).to(tl.int32)
    tl.atomic_add(bins_ptr + keys, 1, mask=mask, sem="relaxed", scope="gpu")


@triton.jit
def top3_kernel(bins_ptr, top_keys_ptr, top_counts_ptr, BINS: tl.constexpr, CHUNK: tl.constexpr):
    above = tl.full([CHUNK], 1 << 62, dtype=tl.int64)  # every packed value ranks below this
    for r in tl.static_range(3):
        best = tl.full([CHUNK], -1, dtype=tl.int64)
        for start in range(0, BINS, CHUNK):
            b = start + tl.arange(0, CHUNK)
            packed = tl.load(bins_ptr + b).to(tl.int64) * BINS + (BINS - 1 - b)
            best = tl.maximum(best, tl.where(packed < above, packed, -1))
        top = tl.max(best, axis=0)
        tl.store(top_keys_ptr + r, (BINS - 1 - top % BINS).to(tl.int32))
        tl.store(top_counts_ptr + r, (top // BINS).to(tl.int32))
        above = tl.full([CHUNK], 0, dtype=tl.int64) + top


def alloc(keys: torch.Tensor) -> dict[str, torch.Tensor]:
    def poisoned(count: int) -> torch.Tensor:
        return torch.full((count,), -1, dtype=torch.int32, device=keys.device)

    return {"bins": poisoned(BINS), "top_keys": poisoned(3), "top_counts": poisoned(3)}


def cluster_ctas(device: torch.device) -> int:
    """CTAs per program: a cluster of CLUSTER_CTAS on SM90+ (Hopper), one elsewhere."""
    if device.type != "cuda" or torch.cuda.get_device_capability(device)[0] < 9:
        return 1
    return CLUSTER_CTAS


def launch(keys: torch.Tensor, bins: torch.Tensor, top_keys: torch.Tensor, top_counts: torch.Tensor) -> None:
    bins.zero_()  # the histogram accumulates atomically
    n = keys.numel()
    block = 4096
    histogram_kernel[(triton.cdiv(n, block),)](keys, bins, n, BLOCK=block, num_warps=8,
                                               num_ctas=cluster_ctas(keys.device))
    top3_kernel[(1,)](bins, top_keys, top_counts, BINS=BINS, CHUNK=4096, num_warps=8)
