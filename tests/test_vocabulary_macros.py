"""Macro and build-configuration name lists (glossary/vocabulary/names-cuda-macros.yaml,
names-hip-macros.yaml, names-cmake-gpu.yaml), proven against the tools that define or read them: every CUDA
macro is predefined by nvcc or tested by a conditional of the CUDA headers, every HIP macro is predefined by
clang-19 or tested by the ROCm headers (or, where its section says so, by the HIP 7.1 headers bundled with
triton, or gone from the ROCm headers), every CMake name is one the installed cmake documents unless CMake
added it later than that release; and lookup answers a few of them with their cards."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from conftest import glossary_without_rows
from xlate import kb

NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}
CUDA, HIP, CMAKE = "CUDA preprocessor macro", "HIP preprocessor macro", "CMake name for GPU builds"
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b(.*)$", re.M)


def _names(names_of: str, keep: object = None) -> set[str]:
    """The names of one list, or of the groups whose section `keep` accepts."""
    if names_of not in NAMES:
        pytest.skip(f"no {names_of} list")
    return {n for g in NAMES[names_of].groups if keep is None or keep(g.section) for n in g.names}  # type: ignore[operator]


def _run(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    return proc.stdout + proc.stderr


@cache
def _tested_in(folder: Path) -> frozenset[str]:
    """Every identifier a conditional directive under `folder` tests (comments and line splices removed)."""
    found: set[str] = set()
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                text = (Path(root) / name).read_text(errors="replace")
            except OSError:
                continue
            text = text.replace("\\\n", " ")
            for condition in _CONDITIONAL.findall(text):
                condition = re.sub(r"/\*.*?\*/|//.*", "", condition)
                found.update(re.findall(r"[A-Za-z_]\w*", condition))
    return frozenset(found)


def test_no_listed_name_is_spelled_by_a_card_or_row() -> None:
    """A name a card or row spells answers from there; listing it here too would only hide which wins."""
    present = [n for n in (CUDA, HIP, CMAKE) if n in NAMES]
    if not present:
        pytest.skip("no macro or CMake name list")
    index = kb.load_index()
    spelled = set(kb.load_symbols().names()) | {e[0] for e in index["labels"]}
    both = sorted(n for names_of in present for n in _names(names_of) if n in spelled)
    assert not both, both


# --- CUDA -----------------------------------------------------------------------------------------------

# nvcc options whose runs between them define every macro nvcc predefines for the list's groups.
_NVCC_RUNS = [[], ["-arch=sm_90a"], ["-arch=sm_100a"], ["-arch=sm_103a"], ["-arch=sm_110a"], ["-arch=sm_120a"],
              ["-arch=sm_121a"], ["-arch=sm_100f"], ["-G"], ["-rdc=true"], ["-ewp"], ["--extended-lambda"],
              ["--expt-relaxed-constexpr"], ["--default-stream", "per-thread"], ["-allow-unsupported-compiler"]]


@pytest.mark.slow
def test_every_cuda_macro_is_predefined_by_nvcc_or_tested_by_the_cuda_headers(tmp_path: Path) -> None:
    from xlate import cuda_headers

    listed = _names(CUDA)
    found = cuda_headers.find_cuda_headers()
    if found is None:
        pytest.skip(cuda_headers.absent_reason())
    source = tmp_path / "empty.cu"
    source.write_text("")
    predefined: set[str] = set()
    for options in _NVCC_RUNS:
        out = _run([found.nvcc, "--dryrun", "-c", *options, str(source), "-o", str(tmp_path / "empty.o")])
        predefined |= set(re.findall(r"(?<!\S)-D([A-Za-z_]\w*)", out))
    assert {"__CUDACC__", "__CUDA_ARCH__", "__CUDA_ARCH_FEAT_SM90_ALL"} <= predefined, "nvcc --dryrun printed no defines"
    unproven = sorted(listed - predefined - _tested_in(found.include))
    assert not unproven, unproven


# --- HIP ------------------------------------------------------------------------------------------------

def _clang_defines(clang: str, source: Path, arch: str, *options: str) -> set[str]:
    out = _run([clang, "-x", "hip", f"--offload-arch={arch}", "-nogpulib", "-nogpuinc", *options, "-E", "-dM",
                str(source)])
    return set(re.findall(r"^#define ([A-Za-z_]\w*)", out, re.M))


def _target(macro: str) -> str:
    """The offload target a per-target macro names: __gfx1151__ -> gfx1151, __gfx10_3_generic__ -> gfx10-3-generic."""
    return macro.strip("_").replace("_", "-")


def _triton_hip_include() -> Path | None:
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    include = Path(next(iter(spec.submodule_search_locations))) / "backends" / "amd" / "include"
    return include if (include / "hip").is_dir() else None


def _rocm_hip() -> Path:
    from xlate import hip_headers

    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    return found.include / "hip"


@pytest.mark.slow
def test_every_hip_macro_is_predefined_by_clang_or_tested_by_the_rocm_headers(tmp_path: Path) -> None:
    listed = _names(HIP, lambda s: not s.startswith(("removed", "feature macros")) and "HIP 7.1" not in s)
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed")
    tested = _tested_in(_rocm_hip())
    source = tmp_path / "empty.hip"
    source.write_text("")
    predefined = _clang_defines(clang, source, "gfx942", "--cuda-host-only")
    predefined |= _clang_defines(clang, source, "gfx942", "--cuda-device-only", "-munsafe-fp-atomics", "-fgpu-rdc")
    for macro in sorted(n for n in listed if re.fullmatch(r"__gfx\w+__", n)):
        predefined |= _clang_defines(clang, source, _target(macro), "--cuda-device-only")
    for family in ("gfx900", "gfx1030", "gfx1100", "gfx1201"):
        predefined |= _clang_defines(clang, source, family, "--cuda-device-only")
    assert {"__HIP__", "__HIP_DEVICE_COMPILE__", "__gfx942__"} <= predefined, "clang-19 printed no HIP defines"
    unproven = sorted(listed - predefined - tested)
    assert not unproven, unproven


@pytest.mark.slow
def test_hip_feature_macros_have_the_values_their_group_states(tmp_path: Path) -> None:
    present = _names(HIP, lambda s: s.startswith("feature macros") and "0 in both passes" not in s)
    absent = _names(HIP, lambda s: s.startswith("feature macros") and "0 in both passes" in s)
    assert present and absent, "no feature-macro groups"
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed")
    source = tmp_path / "features.hip"
    source.write_text("#include <hip/hip_runtime.h>\n")
    include = str(_rocm_hip().parent)
    values = {}
    for side in ("--cuda-device-only", "--cuda-host-only"):
        out = _run([clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-I", include, side, "-E", "-dM", str(source)])
        values[side] = dict(re.findall(r"^#define (__HIP_ARCH_HAS_\w+__) \((\d)\)$", out, re.M))
    found = {m: (values["--cuda-device-only"].get(m), values["--cuda-host-only"].get(m)) for m in present | absent}
    wrong = {m: v for m, v in found.items() if v != (("1", "0") if m in present else ("0", "0"))}
    assert not wrong, wrong


def test_hip_macros_of_newer_headers_are_tested_there_and_removed_ones_are_gone() -> None:
    newer = _names(HIP, lambda s: "HIP 7.1" in s)
    removed = _names(HIP, lambda s: s.startswith("removed"))
    rocm = _tested_in(_rocm_hip())
    assert not removed & rocm, sorted(removed & rocm)
    assert not newer & rocm, f"tested by the ROCm headers already: {sorted(newer & rocm)}"
    include = _triton_hip_include()
    if include is None:
        pytest.skip("triton with its bundled HIP headers is not installed")
    assert newer <= _tested_in(include / "hip"), sorted(newer - _tested_in(include / "hip"))


# --- CMake ----------------------------------------------------------------------------------------------

def _own_project(section: str) -> bool:
    """Names from HIP's or MLX's own CMake files, not CMake's."""
    return section.startswith(("ROCm ", "MLX "))


_ADDED = re.compile(r"added in CMake (\d+)\.(\d+)")


def _cmake_known(cmake: str) -> set[str]:
    """The names the cmake's help documents: variables, properties, policies, modules (Find<Name> also as
    <Name>), <LANG> entries for CUDA and HIP, and the variables FindCUDAToolkit and FindCUDA document."""
    known: set[str] = set()
    for kind in ("variable", "property", "policy", "module"):
        for line in _run([cmake, f"--help-{kind}-list"]).splitlines():
            entry = line.strip()
            known.add(entry)
            if kind == "module" and entry.startswith("Find"):
                known.add(entry[len("Find"):])
            if "<LANG>" in entry:
                known |= {entry.replace("<LANG>", lang) for lang in ("CUDA", "HIP")}
    for module in ("FindCUDAToolkit", "FindCUDA"):
        known |= set(re.findall(r"\b(CUDA\w+)\b", _run([cmake, "--help-module", module])))
    return known


@pytest.mark.slow
def test_every_cmake_name_is_documented_by_the_installed_cmake_unless_added_later() -> None:
    if CMAKE not in NAMES:
        pytest.skip("no CMake name list")
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed")
    version = re.search(r"cmake version (\d+)\.(\d+)", _run([cmake, "--version"]))
    assert version, "cmake --version printed no version"
    installed = (int(version[1]), int(version[2]))
    known = _cmake_known(cmake)
    assert "CMAKE_CUDA_ARCHITECTURES" in known, "cmake printed no variable list"
    unproven = []
    for group in NAMES[CMAKE].groups:
        if _own_project(group.section):
            continue
        added = _ADDED.search(group.section)
        newer = added is not None and (int(added[1]), int(added[2])) > installed
        for name in group.names:
            if name not in known and not newer:
                unproven.append(name)
    assert not unproven, f"not in cmake {installed[0]}.{installed[1]}'s help: {unproven}"


def test_names_from_hip_and_mlx_cmake_files_are_well_formed() -> None:
    if CMAKE not in NAMES:
        pytest.skip("no CMake name list")
    own = [(g.section, n) for g in NAMES[CMAKE].groups if _own_project(g.section) for n in g.names]
    assert own, "no names from HIP's or MLX's CMake files"
    bad = [(s, n) for s, n in own if not re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", n)
           or (s.startswith("MLX ") and not n.startswith("MLX_"))]
    assert not bad, bad


# --- lookup ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("query", "card"), [
    ("-DMLX_BUILD_CUDA=ON", "software-stack"),
    ("__CUDA_NO_HALF_OPERATORS__", "fp16-format"),
    ("CMAKE_HIP_ARCHITECTURES", "offload-target"),
    ("-DMLX_METAL_DEBUG=ON", "debugger"),
    ("__AMDGCN_WAVEFRONT_SIZE__", "warp-size"),
])
def test_lookup_answers_a_macro_or_cmake_name_with_its_card(query: str, card: str) -> None:
    if not {CUDA, HIP, CMAKE} <= set(NAMES):
        pytest.skip("the macro and CMake name lists are not all present")
    got = kb.search(kb.load_index(), query)
    assert got and got[0].concept == card, [(m.concept, m.kind) for m in got[:3]]
