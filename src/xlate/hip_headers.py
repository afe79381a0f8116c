"""Where the newer ROCm development headers live, and which HIP version they hold.

Debian 12 ships HIP 5.2 headers; `scripts/install-test-deps.sh` unpacks ROCm 6.4 headers (HIP,
hipBLAS, rocBLAS, hipCUB, rocPRIM, rocThrust, hipFFT, hipSPARSE, hipRAND, rocRAND, hipSOLVER,
MIOpen) from Debian's unstable suite into a folder of its own, with the nearest builds of hipBLASLt,
RCCL and AMD SMI, which Debian has in no 6.4 release. Compile checks pass that folder to
clang with `-I` in front of the system headers, so the newer headers win; `--hip-path` would mix
the two versions (clang's HIP wrapper headers from one, the runtime headers from the other).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_ROOT", "DIR_ENV", "ENV", "NEWER_ENV", "RocmHeaders", "absent_reason", "find_newer_hip_headers",
           "find_rocm_headers", "newer_absent_reason", "read_hip_version", "unpack_root"]

ENV = "XLATE_ROCM_INCLUDE"
# A later HIP runtime's headers, for facts newer than ROCm 6.4 (`since: ROCm 7.1`): $XLATE_HIP_NEWER_INCLUDE,
# else the HIP headers the triton wheel ships for its AMD backend (triton/backends/amd/include: the
# HIP runtime headers only, no math libraries), found without importing triton.
NEWER_ENV = "XLATE_HIP_NEWER_INCLUDE"
DIR_ENV = "XLATE_ROCM_DIR"
# The install script's unpack folder unless $XLATE_ROCM_DIR says otherwise (both read the same
# variable). A fixed place, not the per-user cache folder, so that runs with any XDG_CACHE_HOME find it.
DEFAULT_ROOT = Path("/opt/xlate/rocm-6.4")
# Written by the install script next to the unpack folder when fetching failed (a pinned version
# gone from the mirror, no network); holds the one-line reason.
_ERROR_SUFFIX = ".error"

_VERSION_LINE = re.compile(rb"^\s*#\s*define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)\s*$", re.M)


@dataclass(frozen=True)
class RocmHeaders:
    """An include folder (pass it as `-I`) and the HIP version its hip/hip_version.h states."""

    include: Path
    version: tuple[int, int, int]

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    def has(self, relative: str) -> bool:
        """Whether a header (`hipblas/hipblas.h`) is in this folder."""
        return (self.include / relative).is_file()


def read_hip_version(include: Path) -> tuple[int, int, int] | None:
    """(major, minor, patch) from `include`/hip/hip_version.h; None when the file is missing or
    does not define all three."""
    try:
        text = (include / "hip" / "hip_version.h").read_bytes()
    except OSError:
        return None
    found = {m.group(1).decode(): int(m.group(2)) for m in _VERSION_LINE.finditer(text)}
    if len(found) != 3:
        return None
    return found["MAJOR"], found["MINOR"], found["PATCH"]


def unpack_root() -> Path:
    """The folder the install script unpacks the packages into: $XLATE_ROCM_DIR, else DEFAULT_ROOT."""
    env = os.environ.get(DIR_ENV)
    return Path(env) if env else DEFAULT_ROOT


def _candidate() -> Path:
    env = os.environ.get(ENV)
    return Path(env) if env else unpack_root() / "usr" / "include"


def find_rocm_headers() -> RocmHeaders | None:
    """The newer ROCm headers: $XLATE_ROCM_INCLUDE, else the install script's folder's usr/include; None when
    that folder holds no readable hip/hip_version.h (absent_reason() says why)."""
    include = _candidate()
    version = read_hip_version(include)
    return RocmHeaders(include, version) if version else None


def absent_reason() -> str:
    """One line saying why find_rocm_headers() found nothing (for a test's skip reason)."""
    include = _candidate()
    if os.environ.get(ENV):
        return f"${ENV}={include} holds no hip/hip_version.h with a HIP version"
    try:
        root = unpack_root()
        error = root.with_name(root.name + _ERROR_SUFFIX).read_text(encoding="utf-8").strip()
    except OSError:
        error = ""
    if error:
        return f"the ROCm 6.4 headers could not be fetched: {error}"
    return f"the ROCm 6.4 headers are not unpacked at {include} (run scripts/install-test-deps.sh, or set ${ENV})"


def _triton_hip_include() -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        include = Path(folder) / "backends" / "amd" / "include"
        if (include / "hip" / "hip_version.h").is_file():
            return include
    return None


def find_newer_hip_headers() -> RocmHeaders | None:
    """HIP runtime headers newer than the ROCm 6.4 set: $XLATE_HIP_NEWER_INCLUDE, else those the installed
    triton package ships; None where neither holds a hip/hip_version.h (newer_absent_reason() says why)."""
    env = os.environ.get(NEWER_ENV)
    include = Path(env) if env else _triton_hip_include()
    version = read_hip_version(include) if include else None
    return RocmHeaders(include, version) if include and version else None


def newer_absent_reason() -> str:
    env = os.environ.get(NEWER_ENV)
    if env:
        return f"${NEWER_ENV}={env} holds no hip/hip_version.h with a HIP version"
    return "no newer HIP headers: the installed triton package ships none (triton/backends/amd/include/hip)"
