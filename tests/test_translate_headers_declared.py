"""HIP headers that hip_runtime.h does not include are added where the translation writes a name only
they declare (nvcc's implicit cuda_runtime.h makes __nv_bfloat16 visible; HIP-Clang's runtime header
does not make __hip_bfloat16 visible), and the data saying which header declares what is proven
against the ROCm headers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from xlate import kb
from xlate.hip_headers import absent_reason, find_rocm_headers
from xlate.translate import headers
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

ROCM = find_rocm_headers()
CLANG = shutil.which("clang++-19")
SKIP = None if ROCM and CLANG else ("clang++-19 is not installed" if not CLANG else absent_reason())
# Spellings the translator writes for CUDA's bf16 and fp8 types (rows of glossary/symbols).
CANDIDATES = ["__hip_bfloat16", "__hip_bfloat162", "__hip_fp8_e4m3_fnuz", "__hip_fp8_e5m2_fnuz", "__hip_fp8x2_e4m3_fnuz"]


def _translate(text: str) -> str:
    result = translate_source("t.cu", text.encode(), kb.load_symbols(), Options())
    assert result.text is not None
    return result.text.decode()


def test_a_bf16_type_reached_through_the_runtime_header_gets_its_hip_header() -> None:
    out = _translate('#include "common.h"\ntypedef __nv_bfloat16 floatX;\n__global__ void k(floatX* p) { p[0] = p[1]; }\n')
    assert "typedef __hip_bfloat16 floatX;" in out
    assert out.count("#include <hip/hip_bf16.h>") == 1
    assert out.index("#include <hip/hip_runtime.h>") < out.index("#include <hip/hip_bf16.h>") < out.index('#include "common.h"')


def test_no_second_include_where_the_file_includes_the_header() -> None:
    out = _translate("#include <cuda_bf16.h>\n__device__ __nv_bfloat16 twice(__nv_bfloat16 x) { return x; }\n")
    assert out.count("hip/hip_bf16.h") == 1


def test_a_file_that_writes_no_such_name_gets_no_header() -> None:
    out = _translate("__global__ void k(float* p) { p[threadIdx.x] = 0.f; }\n")
    assert "hip_bf16" not in out and "hip_fp8" not in out


def _compiles(tmp_path: Path, text: str) -> bool:
    assert ROCM is not None and CLANG is not None
    src = tmp_path / "probe.hip"
    src.write_text(text)
    cmd = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-w", "-fsyntax-only",
           "-I", str(ROCM.include), str(src)]
    return subprocess.run(cmd, capture_output=True, env={"HIP_PLATFORM": "amd", "PATH": "/usr/bin:/bin"}, timeout=120).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_each_declaring_header_is_needed_and_enough(tmp_path: Path) -> None:
    for header, pattern in headers.declared_by().items():
        names = [n for n in CANDIDATES if pattern.match(n)]
        assert names, f"no known spelling matches {header}'s pattern"
        uses = "".join(f"{n} v{i};\n" for i, n in enumerate(names))
        assert not _compiles(tmp_path, "#include <hip/hip_runtime.h>\n" + uses), f"hip_runtime.h alone declares {names}"
        assert _compiles(tmp_path, f"#include <hip/hip_runtime.h>\n#include <{header}>\n" + uses), f"{header} does not declare {names}"


@pytest.mark.slow
@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_the_translated_file_compiles(tmp_path: Path) -> None:
    (tmp_path / "common.h").write_text("#pragma once\n")
    out = _translate('#include "common.h"\ntypedef __nv_bfloat16 floatX;\n__global__ void k(floatX* p) { p[0] = p[1]; }\n')
    assert ROCM is not None and CLANG is not None
    src = tmp_path / "t.hip"
    src.write_text(out)
    cmd = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-w", "-fsyntax-only",
           "-I", str(ROCM.include), "-I", str(tmp_path), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, env={"HIP_PLATFORM": "amd", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


# A host function template calling the C99 classification functions unqualified, as CUDA code does
# (nvcc's implicit runtime header declares them for the host in the global namespace).
HOST_CLASSIFY = ("#include <cuda_runtime.h>\n#include <cmath>\n"
                 "template <class T> int count_bad(const T* r, int n) {\n  int c = 0;\n"
                 "  for (int i = 0; i < n; i++) if (!isfinite(r[i]) || isnan(r[i])) c++;\n  return c;\n}\n"
                 "int run(const float* r) { return count_bad(r, 4); }\n")


def test_a_host_call_of_isfinite_gets_math_h_once() -> None:
    out = _translate(HOST_CLASSIFY)
    assert out.count("#include <math.h>") == 1
    assert out.index("#include <hip/hip_runtime.h>") < out.index("#include <math.h>") < out.index("#include <cmath>")


def test_qualified_calls_and_a_file_with_math_h_get_nothing() -> None:
    assert "<math.h>" not in _translate("#include <cmath>\nbool f(float x) { return std::isfinite(x); }\n"
                                        "__global__ void k(float* p) { p[0] = 1.f; }\n")
    assert _translate("#include <math.h>\n" + HOST_CLASSIFY).count("<math.h>") == 1


@pytest.mark.slow
@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_each_host_header_is_needed_and_enough(tmp_path: Path) -> None:
    calls = ("isfinite", "isinf", "isnan", "signbit", "isnormal", "fpclassify")
    values = ("FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX", "DBL_MIN", "DBL_EPSILON", "FLT_TRUE_MIN")
    for header, pattern in headers.host_uses().items():
        names = [n for n in calls + values if pattern.match(n)]
        assert names, f"no known name matches {header}'s pattern"
        for name in names:
            use = (f"template <class T> bool f(T x) {{ return {name}(x); }}\nbool g() {{ return f(1.5f) && f(2.5); }}\n"
                   if name in calls else f"__global__ void k(double* o) {{ o[0] = {name}; }}\ndouble h() {{ return {name}; }}\n")
            assert not _compiles(tmp_path, "#include <hip/hip_runtime.h>\n#include <cmath>\n" + use), f"{name} compiles without {header}"
            assert _compiles(tmp_path, f"#include <hip/hip_runtime.h>\n#include <{header}>\n" + use), f"{header} does not declare {name}"
    out = _translate(HOST_CLASSIFY)
    assert _compiles(tmp_path, out), out


def test_a_float_limit_used_as_a_value_gets_float_h_unless_cfloat_is_there() -> None:
    code = "#include <cuda_runtime.h>\n__global__ void k(float* o) { o[0] = -FLT_MAX; }\n"
    out = translate_source("k.cu", code.encode(), kb.load_symbols(), Options()).text
    assert out is not None and out.decode().count("#include <float.h>") == 1
    kept = translate_source("k.cu", ("#include <cfloat>\n" + code).encode(), kb.load_symbols(), Options()).text
    assert kept is not None and b"float.h" not in kept


def test_a_header_that_includes_the_runtime_gets_math_h_too() -> None:
    result = translate_source("common.h", ("#pragma once\n" + HOST_CLASSIFY).encode(), kb.load_symbols(), Options())
    assert result.text is not None and result.text.decode().count("#include <math.h>") == 1
    plain = translate_source("util.h", b"#pragma once\nbool ok(float x) { return isfinite(x); }\n", kb.load_symbols(), Options())
    assert plain.text is not None and b"math.h" not in plain.text  # no CUDA here: nothing is added
