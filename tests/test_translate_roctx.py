"""NVTX ranges become ROCTx ranges: the header is mapped together with the calls, a user's macro
named like the library (NVTX_SCOPE) does not count as an unported NVTX name, and a call ROCTx lacks
(naming a stream) keeps NVIDIA's header with a note. The translated file compiles against ROCm 6.4."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate import kb
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

from tests.translate_support import COMPILE_SKIP, ROCM, compile_hip

SOURCE = """#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#define NVTX_SCOPE(name) ScopedRange scoped_range_(name)
struct ScopedRange {
    explicit ScopedRange(const char* name) { nvtxRangePushA(name); }
    ~ScopedRange() { nvtxRangePop(); }
};
int work() {
    NVTX_SCOPE("work");
    nvtxRangeId_t id = nvtxRangeStartA("phase");
    nvtxMarkA("halfway");
    nvtxRangeEnd(id);
    return 0;
}
"""


def _translate(text: str) -> str:
    result = translate_source("t.cu", text.encode(), kb.load_symbols(), Options(rocm="6.4"))
    assert result.text is not None
    return result.text.decode()


def test_header_and_calls_move_together() -> None:
    out = _translate(SOURCE)
    assert "#include <roctracer/roctx.h>" in out and "nvToolsExt" not in out.split("#include <roctracer/roctx.h>")[1]
    for cuda, hip in (("nvtxRangePushA", "roctxRangePushA"), ("nvtxRangePop", "roctxRangePop"),
                      ("nvtxRangeStartA", "roctxRangeStartA"), ("nvtxRangeEnd", "roctxRangeStop"),
                      ("nvtxMarkA", "roctxMarkA"), ("nvtxRangeId_t", "roctx_range_id_t")):
        assert f"{hip}(" in out or f"{hip} " in out, hip
        assert f"{cuda}(" not in out and f"{cuda} " not in out, cuda
    assert "NVTX_SCOPE" in out and "no row maps NVTX_SCOPE" not in out


def test_a_stream_name_keeps_nvidias_header_with_a_note() -> None:
    out = _translate("#include <cuda_runtime.h>\n#include <nvtx3/nvToolsExtCudaRt.h>\n"
                     "void name(cudaStream_t s) { nvtxNameCudaStreamA(s, \"main\"); }\n")
    assert "#include <nvtx3/nvToolsExtCudaRt.h>" in out and "// xlate:" in out


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP)
def test_the_translated_file_compiles(tmp_path: Path) -> None:
    assert ROCM is not None
    if not (ROCM.include / "roctracer" / "roctx.h").is_file():
        pytest.skip("roctracer/roctx.h is not among the unpacked ROCm headers (scripts/install-test-deps.sh adds it)")
    src = tmp_path / "t.hip"
    src.write_text(_translate(SOURCE))
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode == 0, done.stderr[-2000:]
