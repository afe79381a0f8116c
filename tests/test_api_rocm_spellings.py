"""A family's ROCm-release spelling rule (glossary/api/cublas.yaml `rocm_spellings`): hipBLAS 3.0 (ROCm 7.0)
spells the hipComplex and hipDataType forms without the _v2 that HIPIFY's ROCm 6.3 tables give. Each row
of the family gets that release's spelling as a version fact unless it states its own; translate writes it
for that release and keeps the _v2 spelling for ROCm 6.4; lookup shows it."""

from __future__ import annotations

import io

import pytest
from pydantic import ValidationError

from xlate import kb, lookup
from xlate.kb._api import VersionSpelling
from xlate.translate import versions
from xlate.translate.engine import translate_source
from xlate.translate.options import Options


@pytest.mark.parametrize(("cuda", "v2", "plain"), [
    ("cublasZsymm", "hipblasZsymm_v2", "hipblasZsymm"),
    ("cublasZsymm_64", "hipblasZsymm_v2_64", "hipblasZsymm_64"),
    ("cublasAxpyEx", "hipblasAxpyEx_v2", "hipblasAxpyEx"),
])
def test_a_v2_spelling_gets_the_rocm_7_spelling_as_a_fact(cuda: str, v2: str, plain: str) -> None:
    side = kb.load_symbols().get(cuda).row.sides["hip"]
    assert side.symbol == v2
    fact = side.rocm_fact("7.0")
    assert fact is not None and fact.symbol == plain and "HIPIFY" in (fact.source or ""), fact


def test_a_row_s_own_fact_wins_and_other_names_get_none() -> None:
    smap = kb.load_symbols()
    gemm = smap.get("cublasGemmEx").row.sides["hip"]
    assert [f.symbol for f in gemm.rocm if f.version == "7.0"] == ["hipblasGemmEx"]
    assert smap.get("cublasDgemm").row.sides["hip"].rocm_fact("7.0") is None


@pytest.mark.parametrize(("rocm", "written"), [("7.0", "hipblasZsymm("), ("6.4", "hipblasZsymm_v2(")])
def test_translate_writes_the_target_release_s_spelling(rocm: str, written: str) -> None:
    source = (b"#include <cublas_v2.h>\nvoid f(cublasHandle_t h, cuDoubleComplex* a) {\n"
              b"  cublasZsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, 2, 2, a, a, 2, a, 2, a, a, 2);\n}\n")
    result = translate_source("z.cu", source, versions.for_target(kb.load_symbols(), rocm), Options(rocm=rocm))
    assert result.text is not None and written in result.text.decode(), result.text


def test_lookup_shows_the_release_spelling() -> None:
    out = io.StringIO()
    assert lookup.run("cublasZsymm_64", out=out) == 0
    assert "ROCm 7.0: hipblasZsymm_64" in out.getvalue(), out.getvalue()


def test_a_rule_is_checked_when_it_is_read() -> None:
    rule = VersionSpelling(version="7.0", pattern=r"^(hipblas\w+?)_v2(_64)?$", replace=r"\1\2", source="https://example.com/t")
    assert (rule.spelling("hipblasCaxpy_v2_64"), rule.spelling("hipblasSgemm")) == ("hipblasCaxpy_64", None)
    with pytest.raises(ValidationError):
        VersionSpelling(version="7", pattern="(", source="https://example.com/t")
