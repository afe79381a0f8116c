"""A launch written with spaced chevrons (`k << <grid, block >> >(args)`, what some editors' formatters
make of it) is read by nvcc and rejected by clang: translate joins the chevrons, explain sees a launch,
and nothing else that looks alike (shifts, comments) is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate import kb
from xlate.cuda.prepare import for_parsing, spaced_launches
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

from tests.translate_support import COMPILE_SKIP, compile_hip

SOURCE = """template <int N> __global__ void fill(int* p) { p[threadIdx.x] = N; }
__global__ void add(int* p, int v) { p[threadIdx.x] += v; }
int run(int* d, dim3 grid, dim3 block) {
    int shifted = 3 << 2, other = 8 >> 1 > (2);  // add << <grid, block >> >(d, 1) in a comment
    add << <grid, block >> >(d, shifted);
    fill<64><< <grid.x / 2, block >> > (d);
    add<<<grid, block>>>(d, other);
    return 0;
}
"""


def _translate(text: str) -> str:
    result = translate_source("t.cu", text.encode(), kb.load_symbols(), Options())
    assert result.text is not None
    return result.text.decode()


def test_only_the_spaced_launches_are_found_and_parsing_keeps_offsets() -> None:
    data = SOURCE.encode()
    assert len(spaced_launches(data)) == 2
    assert len(for_parsing(data)) == len(data)


def test_translate_joins_the_chevrons_and_leaves_the_rest() -> None:
    out = _translate(SOURCE)
    assert "add <<<grid, block >>>(d, shifted);" in out
    assert "fill<64><<<grid.x / 2, block >>> (d);" in out
    assert "3 << 2, other = 8 >> 1 > (2);  // add << <grid, block >> >(d, 1) in a comment" in out


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP)
def test_the_translated_launches_compile(tmp_path: Path) -> None:
    src = tmp_path / "t.hip"
    src.write_text(_translate(SOURCE))
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode == 0, done.stderr[-2000:]
    src.write_text(SOURCE.replace("<<<grid, block>>>", "<< <grid, block >> >"))
    assert compile_hip(src, "gfx942", "syntax").returncode != 0  # clang rejects them
