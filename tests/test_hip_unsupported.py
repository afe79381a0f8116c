"""A symbol row whose HIP side is a call the HIP runtime refuses, or an enumerator value a HIP call rejects,
says so. tests/data/hip_unsupported_clr.yaml lists, from ROCm/clr's sources (scripts/list_hip_unsupported.py),
the hip* calls whose body only returns hipErrorNotSupported and the enumerators some calls reject; the
newest clr state in that file is the one checked. Such a side must not be `same` or `renamed`, and its
caveat must name the error (or say "not supported"), so that a port learns the call fails at run time."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from collections.abc import Sequence
from typing import NamedTuple

import yaml

from xlate import kb

DATA = Path(__file__).resolve().parent / "data" / "hip_unsupported_clr.yaml"

# Rejections that are no porting difference, each with its reason.
NOT_A_DIFFERENCE = {
    # Importing a pool from a handle of type None cannot work on CUDA either: there is no handle.
    "hipMemHandleTypeNone": "no handle to import on either platform",
}


# Rows left as they are, each with its reason (reported, to be settled by whoever owns the pinning test).
KNOWN = {
    # hipGLGetDevices refuses hipGLDeviceListNextFrame, but the enumerator is declared in hip/hip_gl_interop.h,
    # which tests/test_rows_headers.py does not include, so an overrides.yaml row for it fails that test.
    "cudaGLDeviceListNextFrame": "declared in hip_gl_interop.h, outside the header test's includes",
    "CU_GL_DEVICE_LIST_NEXT_FRAME": "declared in hip_gl_interop.h, outside the header test's includes",
}

class Refusal(NamedTuple):
    error: str  # the error the runtime returns
    where: str  # the call (and file) that refuses


@cache
def refusals() -> dict[str, Refusal]:
    """HIP spelling -> how the newest clr state in the data file refuses it."""
    states = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    newest = states[-1]
    out: dict[str, Refusal] = {}
    for u in newest["unsupported"]:
        out[u["function"]] = Refusal("hipErrorNotSupported", f"{u['function']} ({u['file']})")
    for r in newest["rejects"]:
        for name in r["enumerators"]:
            if name not in NOT_A_DIFFERENCE:
                out.setdefault(name, Refusal(r["error"], f"{r['function']} ({r['file']})"))
    return out


def _says_so(caveat: str | None, error: str) -> bool:
    return bool(caveat) and bool(re.search(rf"{error}|not supported", caveat or "", re.I))


def problems(sides: Sequence[tuple[str, str | None, str | None, str | None]]) -> list[str]:
    """(cuda, hip symbol, relation, caveat) of each row -> one message per row that hides a refusal."""
    found = refusals()
    out = []
    for cuda, symbol, relation, caveat in sides:
        refusal = found.get(symbol or "")
        if refusal is None or cuda in KNOWN:
            continue
        if relation in ("same", "renamed"):
            out.append(f"{cuda}: HIP side {symbol} is `{relation}`, but {refusal.where} returns {refusal.error} for it")
        elif not _says_so(caveat, refusal.error):
            out.append(f"{cuda}: the caveat of {symbol} does not say that {refusal.where} returns {refusal.error}")
    return out


def _hip_sides() -> list[tuple[str, str | None, str | None, str | None]]:
    smap = kb.load_symbols()
    out: list[tuple[str, str | None, str | None, str | None]] = []
    for name in smap.names():
        entry = smap.get(name)
        if entry is None or entry.row is None or entry.derived:
            continue
        side = entry.side("hip")
        if side is not None and side.symbol:
            out.append((name, side.symbol, side.relation, side.caveat))
    return out


def test_the_data_holds_the_refusals_the_rows_were_fixed_for() -> None:
    found = refusals()
    assert found["hipProfilerStart"].error == "hipErrorNotSupported"
    assert found["hipExternalSemaphoreHandleTypeTimelineSemaphoreFd"].error == "hipErrorInvalidValue"
    assert found["hipExternalMemoryHandleTypeNvSciBuf"].error == "hipErrorInvalidValue"


def test_no_row_hides_a_call_or_value_the_hip_runtime_refuses() -> None:
    assert problems(_hip_sides()) == []


def test_every_known_exception_still_hides_a_refusal() -> None:
    """An exception that no longer applies (the row was fixed, or the refusal left the data) is removed."""
    sides = {cuda: side for cuda, *side in _hip_sides()}
    for cuda in KNOWN:
        symbol, relation, _ = sides[cuda]
        assert symbol in refusals() and relation in ("same", "renamed"), cuda


def test_a_row_that_hides_a_refusal_is_reported() -> None:
    plain = [("cudaProfilerStart", "hipProfilerStart", "renamed", None)]
    silent = [("cudaExternalSemaphoreHandleTypeD3D11Fence", "hipExternalSemaphoreHandleTypeD3D11Fence", "approximate",
               "Same value as CUDA's.")]
    told = [("cudaProfilerStop", "hipProfilerStop", "approximate", "Returns hipErrorNotSupported in ROCm 6.4.")]
    assert len(problems(plain)) == 1 and "renamed" in problems(plain)[0]
    assert len(problems(silent)) == 1 and "hipErrorInvalidValue" in problems(silent)[0]
    assert problems(told) == []
