"""A Metal side of a math row must state the conditions that decide whether it gives CUDA's result.

An audit found `logbf` -> `ilogb` saying the two differ only for 0, INF and NaN, while the `ilogbf` row
beside it said what MSL's numerical-compliance chapter allows in every math mode: a subnormal argument or
result may be flushed to zero (Metal Shading Language Specification, Version 4, §8.1), and a flushed zero
has an undefined sign (§8.5). CUDA keeps subnormals unless built with -ftz=true. For some functions that
flush moves the result by no more than a subnormal; for others it changes the answer outright. These lints
cover the Metal sides of the four files that hold CUDA's device math (device-math, device-fast-math,
device-half, device-conversions), and the first also their MLX sides that MLX computes on the GPU (its Metal
kernels fall under the same rule; float64 runs on the CPU only):

1. every side whose MSL function is in FLUSH_SENSITIVE (a function whose result for a subnormal argument
   is far from its result for a zero of either sign) says so: its caveat names subnormals, denormals or
   flushing, directly or by pointing to the sibling row that does;
2. a side labelled `same` or `renamed` whose MSL function is bounded in Tables 8.1-8.3 (§8.4) by anything
   other than "0 ulp" or "correctly rounded" must be `approximate` or state the bound (ulp, accuracy, or
   the table). CUDA's own bounds are not transcribed here, so this stands in for a comparison with them:
   where MSL's bound is not exact, or differs between the precise table (8.1) and the fast one (8.2, which
   §1.6.3 makes the default), no single CUDA bound can be equal to it in every build. Functions exact in
   every table that lists them pass without a comparison with CUDA's table.

Exceptions are listed with their reason; an exception that no longer matches a side fails, and each lint is
run on a made-up side that breaks it, so a lint that stops finding anything fails too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import yaml

ROOT = Path(__file__).resolve().parents[1]
FILES = ("device-math", "device-fast-math", "device-half", "device-conversions")


class MetalSide(NamedTuple):
    file: str
    cuda: str
    symbol: str
    relation: str
    caveat: str
    backend: str = "metal"


def _metal_sides(files: Iterable[str] = FILES, backend: str = "metal") -> Iterator[MetalSide]:
    for name in files:
        data = yaml.safe_load((ROOT / "glossary" / "symbols" / f"{name}.yaml").read_text(encoding="utf-8"))
        for row in data["rows"]:
            side = row.get(backend)
            if not side or side.get("relation") == "none" or not side.get("symbol"):
                continue
            caveat = " ".join(str(side.get("caveat") or "").split())
            yield MetalSide(name, row["cuda"], side["symbol"], side["relation"], caveat, backend)


# MLX's elementwise operations whose name is not the MSL function its Metal kernel calls.
_MLX_TO_MSL = {"power": "pow", "arctan2": "atan2", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
               "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "abs": "fabs", "round": "rint"}


def _base(symbol: str) -> str:
    """The MSL function a spelling calls: metal::precise::sqrt -> sqrt, and MLX's mx.power -> pow."""
    if symbol.startswith("mx."):
        name = symbol.removeprefix("mx.")
        return _MLX_TO_MSL.get(name, name)
    return re.sub(r"^(?:metal::)?(?:fast::|precise::)?", "", symbol)


# An MLX side whose CUDA type MLX computes on the CPU only (float64): MSL's flushing does not reach it.
_MLX_CPU_ONLY = re.compile(r"float64 arrays only work with CPU", re.I)


# --- 1. subnormal flushing ---------------------------------------------------------------------------

# MSL functions (and the division operator) whose result for a subnormal argument differs from their result
# for zero by more than a subnormal, or follows a sign that §8.5 leaves undefined once the argument is
# flushed. Functions left out move by at most a subnormal when an argument or result is flushed (fabs,
# fmax, fmin, fdim, trunc, round, rint, fma, exp and the trigonometric functions near zero, ...).
FLUSH_SENSITIVE: dict[str, str] = {
    "log": "log of a subnormal is finite (about -87 to -103); log of zero is -INF",
    "log2": "finite (-126 to -149) against -INF",
    "log10": "finite (about -38 to -45) against -INF",
    "ilogb": "-127 to -149 against FP_ILOGB0",
    "frexp": "a fraction in [0.5, 1) with exponent -148 to -126, against 0 with exponent 0",
    "sqrt": "a normal number (3.7e-23 to 1.1e-19) against 0",
    "rsqrt": "a finite value (9.2e18 to 2.7e22) against INF",
    "pow": "pow(subnormal, y) against pow(0, y): 0 or INF, or a normal number for fractional y",
    "powr": "as pow",
    "ldexp": "scaling a subnormal up gives a normal number; scaling zero gives zero",
    "nextafter": "the step from zero lands on the smallest subnormal",
    "fmod": "a subnormal divisor flushed to zero leaves a zero divisor",
    "divide": "a subnormal divisor gives a finite quotient; zero gives INF",
    "/": "as divide",
    "atan2": "for x < 0 the result is +pi or -pi by the sign of y, undefined for a flushed zero (§8.5)",
    "copysign": "the result takes the sign of y, undefined for a flushed zero (§8.5)",
    "floor": "floor of a negative subnormal is -1; of zero, 0",
    "ceil": "ceil of a positive subnormal is 1; of zero, 0",
}

_FLUSH_WORDS = re.compile(r"subnormal|denormal|flush", re.I)

# (cuda, metal symbol) -> why the side needs no subnormal sentence.
FLUSH_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("__float2uint_rd", "floor"): "floor of a negative subnormal is -1, which uint conversion clamps to 0 in "
                                  "CUDA (cvt.rmi.u32.f32), the same 0 a flushed argument gives",
    ("__float2ull_rd", "floor"): "as __float2uint_rd: CUDA clamps floor(-subnormal) = -1 to 0 for ulong",
}


def flush_unstated(sides: Iterable[MetalSide]) -> list[tuple[tuple[str, str], str]]:
    out = []
    for s in sides:
        fn = _base(s.symbol)
        if fn in FLUSH_SENSITIVE and not _FLUSH_WORDS.search(s.caveat):
            out.append(((s.cuda, s.symbol),
                        f"{s.file}: {s.cuda} -> {s.symbol}: MSL may flush a subnormal argument to zero in every "
                        f"math mode (§8.1, §8.5), which changes {fn}'s result ({FLUSH_SENSITIVE[fn]}); say so, "
                        f"or point to the sibling row that does"))
    return out


def test_flush_sensitive_sides_state_subnormal_flushing() -> None:
    hits = [msg for key, msg in flush_unstated(_metal_sides()) if key not in FLUSH_EXCEPTIONS]
    assert not hits, "\n".join(hits)


def test_mlx_gpu_sides_state_subnormal_flushing() -> None:
    # MLX runs these operations on the GPU as Metal kernels, so MSL's flushing rule reaches them too.
    sides = [s for s in _metal_sides(backend="mlx") if not _MLX_CPU_ONLY.search(s.caveat)]
    hits = [msg for _, msg in flush_unstated(sides)]
    assert not hits, "\n".join(hits)


def test_flush_exceptions_are_still_needed() -> None:
    found = {key for key, _ in flush_unstated(_metal_sides())}
    stale = sorted(set(FLUSH_EXCEPTIONS) - found)
    assert not stale, f"these exceptions match no unflagged side any more; drop them: {stale}"


def test_flush_sensitive_names_are_msl_functions() -> None:
    spec = yaml.safe_load((ROOT / "glossary" / "symbols" / "specs" / "msl-spec-functions.yaml").read_text(
        encoding="utf-8"))
    names = {n for sec in spec["sections"] for n in sec.get("names") or []}
    missing = sorted(n for n in FLUSH_SENSITIVE if n not in names and n != "/")
    assert not missing, f"not a function MSL's chapter 6 tables list: {missing}"


# --- 2. exact labels on functions whose MSL bound is not exact ----------------------------------------

# MSL 4 §8.4: each function's bound in Table 8.1 (float, precise), Table 8.2 (float, fast math, the
# default) and Table 8.3 (half, Apple GPU family 4 and later), reduced to "exact" (0 ulp or correctly
# rounded) or "inexact" (an ulp or absolute bound, a formula, or undefined). None: the table does not list
# it. "/" and divide stand for x / y and 1.0 / x.
_E, _I = "exact", "inexact"
MSL_BOUNDS: dict[str, tuple[str | None, str | None, str | None]] = {
    "acos": (_I, _I, _I), "acosh": (_I, _I, _I), "asin": (_I, _I, _I), "asinh": (_I, _I, _I),
    "atan": (_I, _I, _I), "atan2": (_I, _I, _I), "atanh": (_I, _I, _I), "ceil": (_E, _E, _E),
    "copysign": (_E, _E, _E), "cos": (_I, _I, _I), "cosh": (_I, _I, _I), "cospi": (_I, _I, _I),
    "exp": (_I, _I, _I), "exp2": (_I, _I, _I), "exp10": (_I, _I, _I), "fabs": (_E, _E, _E),
    "fdim": (_E, _E, _E), "floor": (_E, _E, _E), "fma": (_E, _E, _E), "fmax": (_E, _E, _E),
    "fmin": (_E, _E, _E), "fmod": (_E, _I, _E), "fract": (_E, _E, _E), "frexp": (_E, _E, _E),
    "ilogb": (_E, _E, _E), "ldexp": (_E, _E, _E), "log": (_I, _I, _I), "log2": (_I, _I, _I),
    "log10": (_I, _I, _I), "modf": (_E, _E, _E), "nextafter": (_E, None, _E), "pow": (_I, _I, None),
    "powr": (_I, _I, None), "rint": (_E, _E, _E), "round": (_E, _E, _E), "rsqrt": (_E, _I, _E),
    "sin": (_I, _I, _I), "sincos": (_I, _I, _I), "sinh": (_I, _I, _I), "sinpi": (_I, _I, _I),
    "sqrt": (_E, _I, _E), "tan": (_I, _I, _I), "tanpi": (_I, _I, _I), "tanh": (_I, _I, _I),
    "trunc": (_E, _E, _E), "/": (_E, _I, _E), "divide": (_E, _I, _E),
}

_BOUND_WORDS = re.compile(r"\bulps?\b|accura|correctly rounded|Table 8\.[1-5]|§8\.4", re.I)

# (cuda, metal symbol) -> why an exact label stands without a stated bound. Empty: no hit so far.
BOUND_EXCEPTIONS: dict[tuple[str, str], str] = {}


def exact_label_on_inexact_bound(sides: Iterable[MetalSide]) -> list[tuple[tuple[str, str], str]]:
    out = []
    for s in sides:
        if s.relation not in ("same", "renamed"):
            continue
        fn = _base(s.symbol)
        bounds = MSL_BOUNDS.get(fn)
        if bounds is None or all(b in (None, _E) for b in bounds):
            continue
        if not _BOUND_WORDS.search(s.caveat):
            out.append(((s.cuda, s.symbol),
                        f"{s.file}: {s.cuda} -> {s.symbol} is '{s.relation}', but MSL bounds {fn} inexactly "
                        f"(§8.4 Tables 8.1-8.3: {bounds}): make it 'approximate' or state the bound"))
    return out


def test_exact_labels_state_an_inexact_msl_bound() -> None:
    hits = [msg for key, msg in exact_label_on_inexact_bound(_metal_sides()) if key not in BOUND_EXCEPTIONS]
    assert not hits, "\n".join(hits)


def test_bound_table_covers_the_flush_families() -> None:
    # Every flush-sensitive function is one §8.4 bounds, so the two lists stay in step.
    assert set(FLUSH_SENSITIVE) <= set(MSL_BOUNDS)


# --- Each lint catches what it is for ---------------------------------------------------------------------

def test_the_lints_catch_made_up_violations() -> None:
    # The audit's case, before the fix: logbf -> ilogb said only 0, INF and NaN differ.
    logbf = MetalSide("device-math", "logbf", "ilogb", "approximate",
                      "ilogb returns an int; logbf a float, and they handle 0, INF and NaN differently.")
    assert flush_unstated([logbf])
    assert flush_unstated([logbf._replace(cuda="__fsqrt_rn", symbol="precise::sqrt")])
    assert flush_unstated([logbf._replace(cuda="__hdiv", symbol="/")])
    assert not flush_unstated([logbf._replace(caveat="As on the ilogbf row, a subnormal may be flushed.")])
    assert not flush_unstated([logbf._replace(cuda="sinf", symbol="sin")])
    mlx_log = MetalSide("device-math", "logf", "mx.log", "approximate", "An elementwise array operation.", "mlx")
    assert flush_unstated([mlx_log]) and flush_unstated([mlx_log._replace(cuda="powf", symbol="mx.power")])

    sqrt_same = MetalSide("device-math", "sqrtf", "sqrt", "same", "Same function.")
    assert exact_label_on_inexact_bound([sqrt_same])
    assert exact_label_on_inexact_bound([sqrt_same._replace(cuda="__fdiv_rn", symbol="/", relation="renamed")])
    assert not exact_label_on_inexact_bound([sqrt_same._replace(relation="approximate")])
    assert not exact_label_on_inexact_bound([sqrt_same._replace(caveat="Correctly rounded only with fast math "
                                                                        "off (Table 8.1).")])
    assert not exact_label_on_inexact_bound([sqrt_same._replace(cuda="fabsf", symbol="fabs")])
