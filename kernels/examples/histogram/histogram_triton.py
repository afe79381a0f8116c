"""256-bin histogram in Triton. Each program of a persistent grid accumulates a private
histogram of its blocks in registers with `tl.histogram`, then merges it into the global bins
with one vector of atomic adds, the Triton form of "count privately, merge atomically".

Each tl.histogram call clears a histogram in shared memory, counts into it with shared-memory
atomics and reads it back, with barriers in between, so its fixed cost is paid per call: the
blocks are large (many bytes per call), full blocks are counted without a mask, and only the
last program counts the ragged tail. On a GPU the block size, warps and programs per SM are
tuned once per size by triton.autotune, which zeroes the bins before each trial.

How fast this runs depends on the Triton release, because the lowering of tl.histogram changed.
Compiled for sm_90, Triton 3.6 builds each warp's counts from eight ballots per element (512 VOTE
and about 1,700 LOP3 instructions in this kernel's SASS), so it is bound by arithmetic; Triton 3.9
increments the shared-memory bin once per element (ATOMS.POPC.INC), as the CUDA version does. On
the H200 the same source ran at 0.15x the CUDA histogram's speed under 3.6 and 0.96x under 3.9,
each against the CUDA histogram timed in the same run."""

import torch
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(data_ptr, bins_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr, PROGRAMS_PER_SM: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    local = tl.zeros([BINS], dtype=tl.int32)
    n_full = (n // BLOCK) * BLOCK
    for start in range(pid * BLOCK, n_full, nprog * BLOCK):
        values = tl.load(data_ptr + start + tl.arange(0, BLOCK)).to(tl.int32)
        local += tl.histogram(values, BINS)
    if pid == nprog - 1:
        offsets = n_full + tl.arange(0, BLOCK)
        mask = offsets < n
        values = tl.load(data_ptr + offsets, mask=mask, other=0).to(tl.int32)
        # masked-off lanes read 0 and were counted in bin 0: take them back out
        missing = BLOCK - tl.sum(mask.to(tl.int32), axis=0)
        local += tl.histogram(values, BINS) - tl.where(tl.arange(0, BINS) == 0, missing, 0)
    tl.atomic_add(bins_ptr + tl.arange(0, BINS), local)


CONFIGS = [triton.Config({"BLOCK": block, "PROGRAMS_PER_SM": per_sm}, num_warps=warps)
           for block, warps in ((8192, 8), (16384, 8), (16384, 16), (32768, 16), (65536, 32))
           for per_sm in (2, 4)]
tuned_histogram = triton.autotune(CONFIGS, key=["n"], reset_to_zero=["bins_ptr"])(histogram_kernel)


def alloc(data: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"bins": torch.full((256,), -1, dtype=torch.int32, device=data.device)}


def launch(data: torch.Tensor, bins: torch.Tensor) -> None:
    bins.zero_()  # the kernel accumulates atomically
    n = data.numel()
    if not data.is_cuda:  # the interpreter: one fixed configuration, a few programs
        histogram_kernel[(4,)](data, bins, n, BLOCK=4096, BINS=256, PROGRAMS_PER_SM=1, num_warps=8)
        return
    sms = torch.cuda.get_device_properties(data.device).multi_processor_count
    grid = lambda meta: (sms * meta["PROGRAMS_PER_SM"],)  # noqa: E731
    if n not in _tuned:
        # the first call for a size benchmarks every configuration and leaves a trial's counts
        # behind: tune on scratch bins, then count for real with the chosen configuration
        tuned_histogram[grid](data, torch.zeros_like(bins), n, BINS=256)
        _tuned.add(n)
    tuned_histogram[grid](data, bins, n, BINS=256)


_tuned: set[int] = set()
