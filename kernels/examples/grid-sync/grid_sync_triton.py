"""y = x / sum(x) in Triton. Triton has no grid-wide barrier, so the normalisation is a second
launch; the total still comes from one launch through the "last program" pattern: each program
stores its partial sum, then takes a ticket with an acquire-release atomic at GPU scope; the
program that draws the last ticket reads every partial (bypassing L1) and writes the total.
Triton cannot store to host memory from a kernel, so host_total is the device total copied."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_kernel(x_ptr, partials_ptr, ticket_ptr, total_ptr, n, nprog, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(pid * BLOCK, n, nprog * BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    # release: the partial is visible before the ticket; acquire: the last program sees all partials
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel", scope="gpu")
    if ticket == nprog - 1:
        parts = tl.arange(0, PARTS)
        seen = tl.load(partials_ptr + parts, mask=parts < nprog, other=0.0, cache_modifier=".cg")
        tl.store(total_ptr, tl.sum(seen, axis=0))
        tl.atomic_xchg(ticket_ptr, 0, sem="relaxed", scope="gpu")  # ready for the next launch


@triton.jit
def scale_kernel(x_ptr, y_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offsets < n
    inv = 1.0 / tl.load(total_ptr)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=m) * inv, mask=m)


def alloc(x: torch.Tensor) -> dict[str, torch.Tensor]:
    nan = float("nan")
    return {"y": torch.full_like(x, nan), "total": torch.full((1,), nan, device=x.device),
            "host_total": torch.full((1,), nan, device=x.device)}


_scratch: dict[str, torch.Tensor] = {}


def launch(x: torch.Tensor, y: torch.Tensor, total: torch.Tensor, host_total: torch.Tensor) -> None:
    nprog = torch.cuda.get_device_properties(x.device).multi_processor_count * 4 if x.is_cuda else 8
    if "ticket" not in _scratch or _scratch["ticket"].device != x.device:
        _scratch["ticket"] = torch.zeros(1, dtype=torch.int32, device=x.device)
        _scratch["partials"] = torch.empty(1024, device=x.device)
    partial_kernel[(nprog,)](x, _scratch["partials"], _scratch["ticket"], total, x.numel(), nprog, BLOCK=4096,
                             PARTS=1024, num_warps=8)
    scale_kernel[(triton.cdiv(x.numel(), 4096),)](x, y, total, x.numel(), BLOCK=4096, num_warps=8)
    host_total.copy_(total)
