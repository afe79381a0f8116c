"""Preprocessor guards read as HIP will see them after translation (translate/guards.py): a project's
own definition of a CUDA function that HIP never compiles (an old nvcc's shim) stays as written and
protects no call, while a definition HIP does compile keeps protecting the calls that may reach it."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate.cuda import prepare
from xlate.cuda.parser import parse
from xlate.translate.cli import run
from xlate.translate.guards import compiled_out

from tests.translate_support import COMPILE_SKIP, compile_hip

CASES = """#if defined(MY_FLAG) && (__CUDACC_VER_MAJOR__ < 12) && !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))
int f1;
#endif
#ifdef __CUDACC__
int f2;
#else
int f3;
#endif
#if defined(__CUDA_ARCH__)
int f4;
#endif
#if !defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
int f5;
#endif
#if MY_FLAG
int f6;
#endif
#if 0
int f7;
#elif defined(OTHER)
int f8;
#endif
#if (1 + 1 == 2) || MY_FLAG
int f9;
#else
int f10;
#endif
"""


def test_branches_are_dead_only_where_every_unknown_leaves_them_dead() -> None:
    tree = parse(prepare.for_parsing(CASES.encode()))
    seen: dict[str, bool] = {}
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "identifier" and (n.text or b"").startswith(b"f"):
            seen[(n.text or b"").decode()] = compiled_out(n)
        stack.extend(n.children)
    # f1: false in both passes whatever MY_FLAG is; f3: __CUDACC__ becomes __HIPCC__, always defined;
    # f4: device pass only (unknown); f5: __CUDA_ARCH__ compared, left undefined: the test holds.
    assert seen == {"f1": True, "f2": False, "f3": True, "f4": False, "f5": False, "f6": False,
                    "f7": True, "f8": False, "f9": False, "f10": True}


SHIM = """#pragma once
#include <cuda_runtime.h>
// A shim for old compilers that lacked the streaming load for this type.
#if defined(MY_FLAG) && (__CUDACC_VER_MAJOR__ < 12) && !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))
__device__ float4 __ldcs(const float4* address) { return *address; }
#endif
"""
USER = """#pragma once
#include <cuda_runtime.h>
__device__ float4 __ldcs(const float4* address) { return *address; }
"""
KERNEL = """#include "{header}"
__global__ void copy(const float4* in, float4* out) {{ out[threadIdx.x] = __ldcs(&in[threadIdx.x]); }}
"""


def _translate(tmp: Path, header: str, text: str) -> Path:
    src = tmp / "src"
    src.mkdir(parents=True)
    (src / header).write_text(text, encoding="utf-8")
    (src / "k.cu").write_text(KERNEL.format(header=header), encoding="utf-8")
    out = tmp / "out"
    assert run([str(src)], out=str(out), summary="none") == 0
    return out


def test_a_shim_hip_never_compiles_protects_no_call(tmp_path: Path) -> None:
    out = _translate(tmp_path, "shim.h", SHIM)
    header = (out / "shim.h").read_text()
    assert "__device__ float4 __ldcs(const float4* address) { return *address; }" in header  # left as written
    assert "compiles this definition in neither pass" in header
    kernel = (out / "k.hip").read_text()
    assert "xlate_compat::ldcs(&in[threadIdx.x])" in kernel


def test_a_definition_hip_compiles_keeps_its_calls(tmp_path: Path) -> None:
    out = _translate(tmp_path, "mine.h", USER)
    kernel = (out / "k.hip").read_text()
    assert "__ldcs(&in[threadIdx.x])" in kernel and "xlate_compat::ldcs" not in kernel
    assert "defines its own __ldcs" in kernel


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP)
def test_both_translations_compile(tmp_path: Path) -> None:
    for name, text in (("shim.h", SHIM), ("mine.h", USER)):
        out = _translate(tmp_path / name.replace(".", "_"), name, text)
        done = compile_hip(out / "k.hip", "gfx942", "syntax", include=[out])
        assert done.returncode == 0, (name, done.stderr[-2000:])
