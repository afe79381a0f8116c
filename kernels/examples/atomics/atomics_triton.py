"""Per-bucket statistics with Triton's atomics. Every tl.atomic_* call works on a block of
pointers with a mask and takes the memory order (sem=) and scope (scope=) explicitly; duplicate
keys inside one block are separate atomic operations, so no pre-aggregation is needed for
correctness. tl.atomic_xchg marks a bucket as seen (only the first exchange on a bucket reads
back 0); tl.atomic_cas lets several programs race to claim each non-empty bucket, once each."""

import torch
import triton
import triton.language as tl

BUCKETS = 1024
SCALE = 1.0 / 1024.0


@triton.jit
def stats_kernel(keys_ptr, vals_ptr, n, mn_ptr, mx_ptr, band_ptr, bor_ptr, bxor_ptr, cnt_ptr, fmax_ptr,
                 seen_x_ptr, seen_c_ptr, distinct_ptr, BUCKETS: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offsets < n
    k = tl.load(keys_ptr + offsets, mask=m, other=BUCKETS)  # masked lanes aim at a spare slot
    v = tl.load(vals_ptr + offsets, mask=m, other=0)
    tl.atomic_min(mn_ptr + k, v, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_max(mx_ptr + k, v, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_and(band_ptr + k, v, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_or(bor_ptr + k, v, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_xor(bxor_ptr + k, v, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_add(cnt_ptr + k, 1, mask=m, sem="relaxed", scope="gpu")
    tl.atomic_max(fmax_ptr + k, v.to(tl.float32) * (1.0 / 1024.0), mask=m, sem="relaxed", scope="gpu")
    old = tl.atomic_xchg(seen_x_ptr + k, 1, mask=m, sem="relaxed", scope="gpu")
    first_x = tl.sum((m & (old == 0)).to(tl.int32), axis=0)
    tl.atomic_add(distinct_ptr, first_x, sem="relaxed", scope="gpu")


@triton.jit
def claim_kernel(cnt_ptr, seen_c_ptr, distinct_ptr, BUCKETS: tl.constexpr):
    # Every program races to claim every non-empty bucket; the swap 0 -> 1 succeeds for exactly one
    # of them. Addresses are distinct within a program: the interpreter, unlike a GPU, does not
    # serialise a compare-and-swap over repeated addresses in one call.
    b = tl.arange(0, BUCKETS)
    nonempty = tl.load(cnt_ptr + b) > 0
    target = tl.where(nonempty, b, BUCKETS)  # tl.atomic_cas takes no mask: empty buckets aim at a spare slot
    # compare and new values as full blocks: the interpreter mishandles scalars broadcast here
    expected = tl.zeros([BUCKETS], dtype=tl.int32)
    prev = tl.atomic_cas(seen_c_ptr + target, expected, expected + 1, sem="acq_rel", scope="gpu")
    won = tl.sum((nonempty & (prev == 0)).to(tl.int32), axis=0)
    tl.atomic_add(distinct_ptr + 1, won, sem="relaxed", scope="gpu")


def alloc(keys: torch.Tensor, vals: torch.Tensor) -> dict[str, torch.Tensor]:
    def poisoned(dtype: torch.dtype, count: int = BUCKETS) -> torch.Tensor:
        return torch.full((count,), -1, dtype=dtype, device=keys.device)

    return {"mn": poisoned(torch.int32), "mx": poisoned(torch.int32), "band": poisoned(torch.int32),
            "bor": poisoned(torch.int32), "bxor": poisoned(torch.int32), "cnt": poisoned(torch.int32),
            "fmax": torch.full((BUCKETS,), float("nan"), device=keys.device), "distinct": poisoned(torch.int32, 2)}


def launch(keys: torch.Tensor, vals: torch.Tensor, mn: torch.Tensor, mx: torch.Tensor, band: torch.Tensor,
           bor: torch.Tensor, bxor: torch.Tensor, cnt: torch.Tensor, fmax: torch.Tensor, distinct: torch.Tensor) -> None:
    mn.fill_(2**31 - 1); mx.fill_(-2**31); band.fill_(-1); bor.zero_(); bxor.zero_(); cnt.zero_()
    fmax.fill_(-torch.finfo(torch.float32).max); distinct.zero_()
    # one spare slot each for the masked lanes; part of the scratch, not of the outputs
    seen_x = torch.zeros(BUCKETS + 1, dtype=torch.int32, device=keys.device)
    seen_c = torch.zeros(BUCKETS + 1, dtype=torch.int32, device=keys.device)
    block = 2048
    stats_kernel[(triton.cdiv(keys.numel(), block),)](keys, vals, keys.numel(), mn, mx, band, bor, bxor, cnt, fmax,
                                                      seen_x, seen_c, distinct, BUCKETS=BUCKETS, BLOCK=block,
                                                      num_warps=8)
    claim_kernel[(4,)](cnt, seen_c, distinct, BUCKETS=BUCKETS, num_warps=4)
