"""HIP sides the glossary adds beyond HIPIFY's tables (overrides.yaml and the curated HIP files) are
checked against real headers: every such HIP spelling is declared in the ROCm headers the install
script unpacks. A row whose fact is newer than those headers says so in its `since` and is left out."""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

from conftest import clang_builtins
from xlate import hip_headers

GLOSSARY = Path(__file__).resolve().parents[1] / "glossary" / "symbols"
# The curated files with HIP sides, and the header folders their spellings live in (overrides.yaml gives
# library prefix twins too: hipblasLtGetVersion, hipfftXt*, hipsolverSp*). rocWMMA rows are left out:
# rocWMMA is not among the packaged headers (the rows cite its documentation).
FILES = {"overrides.yaml": ("hip", "hipblas", "hipblaslt", "hipfft", "hipsolver", "hipcub"), "hip-extras.yaml": ("hip",), "hip-coop-groups.yaml": ("hip", "hipcub"),
         "device-texture.yaml": ("hip",), "hip-scoped-atomics.yaml": ("hip",)}
NOT_PACKAGED = ("rocwmma::",)
NEWER = re.compile(r"ROCm 7|hipBLAS 3")


def _hip_sides() -> list[tuple[str, str, str]]:
    out = []
    for name in FILES:
        data = yaml.safe_load((GLOSSARY / name).read_text(encoding="utf-8"))
        for row in data["rows"]:
            hip = row.get("hip") or {}
            symbol = hip.get("symbol")
            if not symbol or symbol.startswith(NOT_PACKAGED):
                continue
            if NEWER.search(str(hip.get("since", ""))) and not str(hip.get("since", "")).startswith("ROCm 6"):
                continue
            out.append((name, row["cuda"], symbol))
    return out


# The HIP headers declare many names through macros (make_float4 and the other vector constructors),
# so the HIP side is read from the preprocessor's output, with the opt-in warp _sync functions on.
HIP_INCLUDES = ("hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h", "hip/hip_fp8.h", "hip/hip_cooperative_groups.h")


@cache
def _declared(include: Path, folder: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", _header_text(include, folder)))


def _header_text(include: Path, folder: str) -> str:
    if folder != "hip":
        parts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((include / folder).rglob("*"))
                 if p.suffix in (".h", ".hpp", ".cuh") and p.is_file()]
        return "\n".join(parts)
    clang = shutil.which("clang++-19")
    if clang is None:
        pytest.skip("clang++-19 is not installed (scripts/install-test-deps.sh installs it)")
    source = "#define HIP_ENABLE_WARP_SYNC_BUILTINS 1\n" + "".join(f"#include <{h}>\n" for h in HIP_INCLUDES)
    out = []
    # The preprocessed text holds what the headers declare; -dM adds the macros they define (a macro such
    # as __launch_bounds__ is gone from the preprocessed text).
    for mode in (["-E"], ["-E", "-dM"]):
        run = subprocess.run([clang, "-x", "hip", "--offload-arch=gfx90a", "--cuda-device-only", "-nogpulib", "-std=c++17",
                              "-I", str(include), *mode, "-"], input=source, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        out.append(run.stdout)
    return "\n".join(out)


@pytest.mark.slow
def test_every_added_hip_spelling_is_declared_in_the_rocm_headers() -> None:
    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    sides = _hip_sides()
    assert len(sides) >= 150  # the files above hold that many HIP sides today; a parse slip would drop them
    missing = []
    for name, cuda, symbol in sides:
        word = symbol.split("::")[-1]
        if not any(word in _declared(found.include, folder) for folder in FILES[name]):
            missing.append((name, cuda, symbol))
    # A spelling that is a compiler builtin (__builtin_nontemporal_load, __hip_atomic_load) is declared
    # by clang, not by a header.
    clang = shutil.which("clang++-19")
    candidates = sorted({s for _, _, s in missing if s.startswith("__")})
    builtins = clang_builtins(clang, candidates, ("gfx942",)) if clang else set()
    missing = [f"{name}: {cuda} -> {symbol}" for name, cuda, symbol in missing if symbol not in builtins]
    assert not missing, f"not declared in the ROCm {found.version_text} headers: {missing}"
