"""The fixture suite: each CUDA input has its expected HIP text (names from HIPIFY's tables),
compared line by line; the translations compile for gfx942 and gfx90a with clang-19 against the
ROCm 6.4 headers that scripts/install-test-deps.sh unpacks (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.translate_support import (ARCHS, CLANG, COMPILE_SKIP, FIXTURES, ROCM, cases, compile_hip, diff, expected,
                                     matched_lines, translate_fixture, translate_fixture_report)
from xlate import kb

CASES = cases()


def _rows_have_roc() -> bool:
    from xlate.translate.names import roc_name

    entry = kb.load_symbols().get("cublasCreate")
    return entry is not None and roc_name(entry) is not None


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_matches_expected(name: str) -> None:
    case = CASES[name]
    if "--roc" in case.get("args", []) and not _rows_have_roc():
        pytest.xfail("the symbol rows carry no rocBLAS-style `roc` answers yet: --roc falls back to the HIP names")
    want, (got, unknown) = expected(name), translate_fixture_report(name, case)
    if got != want and _missing_rows(unknown):
        # The expectation is HIPIFY's; the map does not list these names yet. Once it does, the
        # translation must match exactly (this branch no longer applies).
        pytest.xfail(f"no symbol row gives a HIP name for: {', '.join(sorted(_missing_rows(unknown)))}")
    assert got == want, diff(want, got)


def _missing_rows(unknown: dict[str, int]) -> set[str]:
    """Names left for want of a row (value tests of macros are left on purpose, not for want of one)."""
    return {n for n in unknown if not n.endswith("(value test)")}


def test_fixture_suite_reproduces_99_percent_of_lines() -> None:
    matched = total = 0
    missing: set[str] = set()
    for name, case in CASES.items():
        got, unknown = translate_fixture_report(name, case)
        m, n = matched_lines(expected(name), got)
        matched, total = matched + m, total + n
        if m < n:
            missing |= _missing_rows(unknown)
    assert total > 400  # the suite is not trivially small
    if matched / total < 0.99 and missing:
        pytest.xfail(f"{matched}/{total} lines; no symbol row yet for: {', '.join(sorted(missing))}")
    assert matched / total >= 0.99, f"{matched}/{total} expected lines reproduced"


def test_every_fixture_has_expected_text_and_a_compile_decision() -> None:
    inputs = {p.name for p in FIXTURES.iterdir() if p.suffix in (".cu", ".cpp", ".h", ".cuh")}
    assert inputs == set(CASES)
    for name, case in CASES.items():
        assert (FIXTURES / (name.rsplit(".", 1)[0] + ".expected")).is_file(), name
        assert "compile" in case or "skip" in case, name


def test_translating_a_translation_changes_nothing() -> None:
    from xlate.translate.engine import translate_source
    from tests.translate_support import options_for

    for name, case in CASES.items():
        once = translate_fixture(name, case).encode()
        twice = translate_source(name, once, kb.load_symbols(), options_for(case.get("args", []))).text
        assert twice == once, f"{name}: second run changed the text"


COMPILED = sorted(n for n, c in CASES.items() if c.get("compile") in ("device", "syntax"))
SKIPPED = sorted(n for n, c in CASES.items() if "skip" in c and "fails_with" not in c)


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", COMPILED)
def test_fixture_translation_compiles(name: str, arch: str, tmp_path: Path) -> None:
    case = CASES[name]
    why_not = case.get("skip_arch", {}).get(arch) or case.get("skip")
    assert ROCM is not None
    for header in _library_headers(expected(name)):
        assert ROCM.has(header), f"{header} is not in {ROCM.include}: the install script's package list lacks it"
    for other in [name, *case.get("with", [])]:
        out = tmp_path / (other if not other.endswith(".cu") else other[:-3] + ".hip")
        out.write_text(translate_fixture(other, CASES[other]), encoding="utf-8")
    main = tmp_path / (name if not name.endswith(".cu") else name[:-3] + ".hip")
    modes = ["syntax"] if case["compile"] == "syntax" else ["syntax", "device"]
    for mode in modes:
        done = compile_hip(main, arch, mode, include=[tmp_path])
        if why_not:
            # A compile that must still fail, for the reason the case states; once it passes, the
            # skip is out of date and this fails.
            assert done.returncode != 0, f"{name} now compiles for {arch} ({mode}): drop its skip"
            assert case["fails_with"] in done.stderr, done.stderr[-3000:]
            pytest.skip(f"{name} for {arch}: {why_not}")
        assert done.returncode == 0, f"{mode} compile for {arch} failed:\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("name", SKIPPED)
def test_fixture_compile_skipped_with_reason(name: str) -> None:
    pytest.skip(f"{name}: {CASES[name]['skip']}")


def _library_headers(text: str) -> list[str]:
    """The HIP library headers (<hipblas/hipblas.h> ...) a translation includes."""
    import re

    return [m for m in re.findall(r"#\s*include\s*<([\w.+-]+/[\w./+-]+)>", text) if not m.startswith("hip/")]


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_every_hip_macro_the_condition_table_names_is_defined_by_the_hip_headers(tmp_path: Path) -> None:
    """Each HIP macro of glossary/translate/macros.yaml is defined after including the ROCm 6.4 headers
    and, where a second header set is installed (Debian 12's HIP 5.2), by those too; the device-pass
    macro is defined in the device pass and not on the host, as __CUDA_ARCH__ is."""
    import subprocess

    from tests.translate_support import hip_env
    from xlate.translate.macros import table

    device_only = {"__HIP_DEVICE_COMPILE__"}
    lines = ["#include <hip/hip_runtime.h>", "#include <hipsparse/hipsparse.h>", "#include <hiprand/hiprand.h>"]
    for entry in table().values():
        name = entry["hip"]
        if name in device_only:
            lines += [f"#if defined(__HIP_DEVICE_ONLY_CHECK) != defined({name})", f"#error {name} wrong for this pass", "#endif"]
        else:
            lines += [f"#ifndef {name}", f"#error {name} is not defined", "#endif"]
    src = tmp_path / "macros.hip"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert ROCM is not None
    header_sets = [["-I", str(ROCM.include)]] + ([[]] if Path("/usr/include/hip/hip_version.h").is_file() else [])
    for headers in header_sets:
        base = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only", *headers, str(src)]
        for extra in (["--cuda-device-only", "-D__HIP_DEVICE_ONLY_CHECK"], ["--cuda-host-only"]):
            done = subprocess.run(base + extra, capture_output=True, text=True, env=hip_env(), timeout=300)
            assert done.returncode == 0, f"headers {headers or 'of the system'}: {done.stderr[-2000:]}"


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_each_opt_in_macro_declares_exactly_its_names_in_the_rocm_headers(tmp_path: Path) -> None:
    """The ROCm 6.4 headers declare every name of an opt_in entry when its macro is defined before
    hip_runtime.h, and none of them when it is not: the translator's reason to define it."""
    import subprocess

    from tests.translate_support import hip_env
    from xlate.translate.macros import opt_in

    assert ROCM is not None
    for macro, entry in opt_in().items():
        names = entry["declares"]
        src = tmp_path / f"{macro}.hip"
        # A using-declaration fails for a name that is not declared, function or template alike.
        src.write_text("#include <hip/hip_runtime.h>\nnamespace check {\n"
                       + "".join(f"using ::{n};\n" for n in names) + "}\n", encoding="utf-8")
        base = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only", "--cuda-device-only",
                "-I", str(ROCM.include), str(src)]
        done = subprocess.run([*base, f"-D{macro}"], capture_output=True, text=True, env=hip_env(), timeout=300)
        assert done.returncode == 0, f"with {macro}: {done.stderr[-2000:]}"
        done = subprocess.run(base, capture_output=True, text=True, env=hip_env(), timeout=300)
        missing = {n for n in names if f"'{n}'" in done.stderr}
        assert missing == set(names), f"declared without {macro}: {sorted(set(names) - missing)}"
