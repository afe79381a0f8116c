"""The gallery page's mapping table links each symbol to a line that uses it, not to prose about it."""

from __future__ import annotations

from pathlib import Path

from xlate.docsgen import kernels


def test_python_docstrings_and_comments_are_skipped(tmp_path: Path) -> None:
    src = tmp_path / "k_triton.py"
    src.write_text('"""Sums with tl.dot over tiles,\nthen tl.dot again."""\n# tl.dot here is a comment\n'
                   "def f(a, b):\n    '''tl.dot in a function docstring'''\n    return tl.dot(a, b)\n", encoding="utf-8")
    assert kernels._line_of(src, "tl.dot") == 6


def test_c_block_and_line_comments_are_skipped(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("/* atomicAdd in a block comment\n * atomicAdd again */\n// atomicAdd\n"
                   "__global__ void k(int* p) { *p = 1; /* atomicAdd */ atomicAdd(p, 1); }\n", encoding="utf-8")
    assert kernels._line_of(src, "atomicAdd") == 4


def test_a_string_that_is_code_still_counts(tmp_path: Path) -> None:
    src = tmp_path / "k_mlx.py"
    src.write_text('"""Docstring."""\nSOURCE = """\nthreadgroup float tile[32];\n"""\n', encoding="utf-8")
    assert kernels._line_of(src, "threadgroup") == 3


def test_a_symbol_only_in_prose_has_no_line(tmp_path: Path) -> None:
    src = tmp_path / "k_triton.py"
    src.write_text('"""Uses tl.histogram."""\nx = 1  # tl.histogram\n', encoding="utf-8")
    assert kernels._line_of(src, "tl.histogram") is None
