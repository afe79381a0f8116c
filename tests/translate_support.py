"""Shared by the translate tests: run the translator on fixtures, compare lines, compile HIP."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from xlate import kb
from xlate.hip_headers import absent_reason, find_rocm_headers
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "translate"
CLANG = shutil.which("clang++-19")
ARCHS = ("gfx942", "gfx90a")
# The ROCm 6.4 headers the install script unpacks (hip_bf16.h, hip_fp8.h, the *_sync warp functions,
# hipBLAS, rocBLAS, hipFFT, hipCUB, rocThrust ...); compile checks need them, Debian 12's HIP 5.2
# headers are too old for much of what the translator emits. Passed as -I so they come before the
# system's HIP headers (clang's own HIP wrapper headers still come from clang-19).
ROCM = find_rocm_headers()
COMPILE_SKIP = ("clang++-19 is not installed" if CLANG is None else
                absent_reason() if ROCM is None else "")


def cases() -> dict[str, dict]:
    data = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def options_for(args: list[str]) -> Options:
    """The Options the command line would build from a case's arguments."""
    kw: dict = {}
    it = iter(args)
    for a in it:
        if a == "--roc":
            kw["roc"] = True
        elif a == "--launch-syntax":
            kw["launch_syntax"] = next(it)
        elif a == "--warp-sync":
            kw["warp_sync"] = next(it)
        elif a == "--no-annotate":
            kw["annotate"] = False
        else:
            raise ValueError(f"unknown fixture argument {a}")
    return Options(**kw)


def translate_fixture(name: str, case: dict) -> str:
    return translate_fixture_report(name, case)[0]


def translate_fixture_report(name: str, case: dict) -> tuple[str, dict[str, int]]:
    """The translation and the CUDA names it had to leave because no row gives a HIP name."""
    return _translated(name, tuple(case.get("args", [])))


@cache
def _translated(name: str, args: tuple[str, ...]) -> tuple[str, dict[str, int]]:
    path = FIXTURES / name
    result = translate_source(name, path.read_bytes(), kb.load_symbols(), options_for(list(args)))
    assert result.text is not None
    return result.text.decode("utf-8"), dict(result.report.unknown)


def expected(name: str) -> str:
    return (FIXTURES / (name.rsplit(".", 1)[0] + ".expected")).read_text(encoding="utf-8")


def matched_lines(want: str, got: str) -> tuple[int, int]:
    """(expected lines reproduced in order, expected lines): a line-by-line comparison."""
    a, b = want.splitlines(), got.splitlines()
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return sum(block.size for block in sm.get_matching_blocks()), len(a)


def diff(want: str, got: str) -> str:
    return "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "translated", lineterm="", n=1))


def hip_env() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd"}


def compile_hip(path: Path, arch: str, mode: str, include: list[Path] | None = None) -> subprocess.CompletedProcess:
    """clang-19 on translated HIP against the ROCm 6.4 headers: `device` generates AMDGCN for the
    device side (no device libraries: -nogpulib), `syntax` checks host and device code (-fsyntax-only)."""
    assert CLANG is not None and ROCM is not None
    cmd = [CLANG, "-x", "hip", f"--offload-arch={arch}", "-nogpulib", "-std=c++17", "-w"]
    for inc in [*(include or []), ROCM.include]:
        cmd += ["-I", str(inc)]
    if mode == "device":
        cmd += ["--cuda-device-only", "-O1", "-S", "-o", os.devnull, str(path)]
    else:
        cmd += ["-fsyntax-only", str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, env=hip_env(), timeout=300)
