"""What a translation run may do: the command-line choices, in one small value.

A NamedTuple, not a dataclass: importing dataclasses (and the inspect module it loads) would cost
every `xlate translate` start several milliseconds, and this value needs nothing a tuple lacks."""

from __future__ import annotations

from typing import NamedTuple


class Options(NamedTuple):
    roc: bool = False  # prefer rocBLAS/rocSPARSE/rocSOLVER/rocRAND names where a row has them
    launch_syntax: str = "chevron"  # "chevron" keeps <<<>>>; "ggl" writes hipLaunchKernelGGL(...)
    # How a *_sync warp call with a provably full 32-bit mask is fixed: "legacy" drops the mask and
    # calls the mask-less HIP function (every ROCm has it), "mask64" keeps the _sync call with a
    # 64-bit all-lanes mask (ROCm 6.2 and later, which check, unless NDEBUG, that a _sync mask equals the
    # active lanes, HIP 7.1 still does; so it suits full wavefronts), "keep" changes nothing and only flags it.
    warp_sync: str = "legacy"
    annotate: bool = True  # put `// xlate: XL### ...` above lines that need a human
    runtime_include: bool = True  # add #include <hip/hip_runtime.h> to CUDA sources that lack it
    # The ROCm version written for (major.minor): a row's version fact for it picks the spelling that
    # version's headers declare. None until the command line settles it (the newest the rows know).
    rocm: str | None = None
