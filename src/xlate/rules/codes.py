"""The code table: every hazard rule's stable code, name, severity, backends, family module, and
which rules it silences.

One row per rule, as a linter keeps its codes in one place. A rule class names only its code; its
name, severity and backends are read from here when it registers (`registry.register`). "Silences"
says that findings of another rule (the symbol-map rules XL090 and XL091) are left out for the
symbols this rule explains in context (its `covers` set), so a user reads one finding with
specific advice instead of two.
"""

from __future__ import annotations

from typing import NamedTuple

from xlate.rules.model import Severity

__all__ = ["CODES", "Code", "by_code", "by_name"]


class Code(NamedTuple):
    code: str  # XL + three digits, never reused
    name: str  # kebab-case: the rule's page on the docs site and its name in output
    severity: Severity
    backends: tuple[str, ...]
    family: str  # the module under xlate.rules that holds the rule
    silences: tuple[str, ...] = ()  # codes whose findings on this rule's `covers` symbols it replaces


_W, _E, _I = Severity.warning, Severity.error, Severity.info
_H, _M, _HM = ("hip",), ("metal",), ("hip", "metal")
_EQ = ("XL090", "XL091")  # no-hip-equivalent, no-metal-equivalent

CODES: tuple[Code, ...] = (
    Code("XL001", "hardcoded-warp-size", _W, _H, "warp"),
    Code("XL002", "warpsize-not-constexpr", _E, _H, "warp"),
    Code("XL003", "implicit-warp-synchronous", _W, _HM, "warp"),
    Code("XL010", "lane-mask-width", _W, _H, "masks", _EQ),
    Code("XL011", "warp-sync-mask", _W, _HM, "masks", _EQ),
    Code("XL020", "inline-ptx", _E, _HM, "asm", _EQ),
    Code("XL030", "launch-bounds-semantics", _W, _H, "launch", _EQ),
    Code("XL031", "dynamic-parallelism", _E, _HM, "launch", _EQ),
    Code("XL032", "thread-block-cluster", _E, _HM, "launch", _EQ),
    Code("XL033", "cooperative-grid-sync", _W, _HM, "launch", _EQ),
    Code("XL040", "shared-memory-capacity", _W, _HM, "memory"),
    Code("XL041", "texture-object", _W, _HM, "memory", _EQ),
    Code("XL042", "l2-persistence", _I, _M, "memory", _EQ),
    Code("XL043", "cache-config-hint", _W, _HM, "runtime", _EQ),
    Code("XL044", "unsupported-device-limit", _W, _H, "runtime", _EQ),
    Code("XL050", "async-copy", _W, _HM, "sync", _EQ),
    Code("XL051", "async-barrier", _W, _HM, "sync", _EQ),
    Code("XL052", "atomic-64bit", _W, _M, "sync"),
    Code("XL053", "system-scope-atomic", _W, _M, "sync", _EQ),
    Code("XL060", "tensor-core-fragment", _W, _HM, "matrix", _EQ),
    Code("XL070", "no-fp64-metal", _W, _M, "precision", _EQ),
    Code("XL071", "half-intrinsics", _I, _M, "precision", _EQ),
    Code("XL080", "cuda-arch-macro", _W, _HM, "arch", _EQ),
    Code("XL081", "cuda-compiler-macro", _W, _H, "arch", _EQ),
    Code("XL082", "compute-capability-check", _W, _HM, "arch", _EQ),
    Code("XL090", "no-hip-equivalent", _W, _H, "equivalents"),
    Code("XL091", "no-metal-equivalent", _I, _M, "equivalents"),
    Code("XL100", "device-clock", _I, _HM, "device"),
    Code("XL101", "device-printf", _I, _M, "device"),
    Code("XL102", "device-malloc", _W, _M, "device"),
)

_BY_CODE = {c.code: c for c in CODES}
_BY_NAME = {c.name: c for c in CODES}


def by_code(code: str) -> Code | None:
    return _BY_CODE.get(code)


def by_name(name: str) -> Code | None:
    return _BY_NAME.get(name)
