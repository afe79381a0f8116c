"""Finding the toolchains and the device: nvcc, cuobjdump, clang for HIP, nvidia-smi."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xlate" / "kernels"


def _first(*candidates: str) -> str | None:
    for c in candidates:
        found = shutil.which(c) if "/" not in c else (c if Path(c).is_file() else None)
        if found:
            return found
    return None


@cache
def nvcc() -> str | None:
    return _first("nvcc", "/usr/local/cuda/bin/nvcc")


@cache
def cuobjdump() -> str | None:
    """nvcc's cuobjdump, or the copy that Triton's NVIDIA backend ships."""
    found = _first("cuobjdump", "/usr/local/cuda/bin/cuobjdump")
    if found:
        return found
    spec = importlib.util.find_spec("triton")
    if spec and spec.origin:
        bundled = Path(spec.origin).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
        if bundled.is_file():
            return str(bundled)
    return None


@cache
def hip_clang() -> str | None:
    """A clang that compiles HIP for gfx942 (clang 19 or newer, or ROCm's own)."""
    return _first("clang++-19", "clang++-20", "clang++-21", "/opt/rocm/llvm/bin/clang++")


@cache
def hipcc() -> str | None:
    return _first("hipcc", "/opt/rocm/bin/hipcc")


@dataclass(frozen=True)
class Device:
    name: str
    driver: str
    compute_capability: str  # "9.0"

    @property
    def sm(self) -> str:
        major, minor = self.compute_capability.split(".")
        arch = f"{major}{minor}"
        # sm_90a unlocks wgmma/setmaxnreg; code built for it runs only on 9.0 parts, which this is
        return arch + ("a" if arch == "90" else "")


@cache
def nvidia_device() -> Device | None:
    """The first NVIDIA GPU as nvidia-smi reports it, or None on a machine without one."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    if out.returncode != 0 or not lines:
        return None
    name, driver, cc = (part.strip() for part in lines[0].split(","))
    return Device(name, driver, cc)


@cache
def amd_gpu() -> bool:
    """True only where ROCm sees an AMD GPU (rocminfo lists a gfx agent)."""
    tool = shutil.which("rocminfo")
    if not tool:
        return False
    try:
        out = subprocess.run([tool], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "gfx" in out.stdout


def metal_available() -> bool:
    try:
        import mlx.core as mx
    except ImportError:
        return False
    try:
        return bool(mx.metal.is_available())
    except AttributeError:
        return False
