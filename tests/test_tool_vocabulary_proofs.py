"""The tool and error-string vocabularies checked against the tools themselves, where this machine has
them: every option a file lists is one the tool's own help prints, and for a tool whose file says it
lists all of them, every option the help defines is listed; every error string is the one the runtime
returns for that error. A tool that is not installed is skipped with the reason."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import glossary_without_rows
from xlate import kb

_GLOSSARY = glossary_without_rows()
TOOLS = {t.tool: t for t in _GLOSSARY.tool_options}
MESSAGES = {m.messages_of: m for m in _GLOSSARY.error_messages}

# A token of help text that is an option: leading dashes, then the name up to a space, `=`, `[`, `<`,
# a comma, a closing bracket or a sentence's full stop.
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9_.+:-]*?)(?=[\s=\[<,;)\]]|\.(?:\s|$)|$)")
# A line of help that defines options (its first text is an option), not one that mentions one.
_DEFINING = re.compile(r"^\s{0,4}(?:-\w\s*\[\s*)?--?[A-Za-z0-9]")


def _sanitizer() -> str | None:
    """compute-sanitizer on PATH, else the binary the nvidia-cuda-sanitizer-api wheel installs."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in spec.submodule_search_locations or [] if spec else []:
        for candidate in Path(root).glob("cu*/bin/compute-sanitizer"):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def _nvcc() -> str:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    return nvcc


def _help(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    return proc.stdout + proc.stderr


def _listed(tool: str) -> set[str]:
    return {o for g in TOOLS[tool].groups for o in g.options}


def _defined(text: str) -> set[str]:
    """Options the help text defines: those at the head of a line that begins with one ("-h [ --help ]",
    nvcc's "--cuda   (-cuda)"), not those its descriptions mention."""
    out: set[str] = set()
    for line in text.splitlines():
        if not _DEFINING.match(line):
            continue
        chunks = re.split(r"\s{2,}", line.strip())
        heads = [chunks[0]] + [c for c in chunks[1:2] if c.startswith("(") and c.endswith(")")]
        out |= {m for head in heads for m in _OPTION.findall(head)}
    return out


def _check(tool: str, text: str, complete: bool) -> None:
    mentioned = set(_OPTION.findall(text))
    listed = _listed(tool)
    assert not listed - mentioned, f"{tool}: listed but not in its help: {sorted(listed - mentioned)[:20]}"
    if complete:
        missing = _defined(text) - listed
        assert not missing, f"{tool}: in its help but not listed: {sorted(missing)[:20]}"


@pytest.mark.slow
def test_compute_sanitizer_options_are_those_its_help_prints() -> None:
    if "compute-sanitizer" not in TOOLS:
        pytest.skip("no compute-sanitizer vocabulary")
    binary = _sanitizer()
    if binary is None:
        pytest.skip("compute-sanitizer is not installed (the nvidia-cuda-sanitizer-api wheel of the test extras)")
    text = _help([binary, "--help"])
    version = re.search(r"Version (\d+\.\d+\.\d+)", text)
    assert version and version.group(1) in TOOLS["compute-sanitizer"].version, "another release than the file lists"
    _check("compute-sanitizer", text, complete=True)


@pytest.mark.slow
def test_nvcc_options_are_all_those_its_help_prints() -> None:
    if "nvcc" not in TOOLS:
        pytest.skip("no nvcc vocabulary")
    nvcc = _nvcc()
    release = re.search(r"release (\d+\.\d+)", _help([nvcc, "--version"]))
    if not release or release.group(1) not in TOOLS["nvcc"].version:
        pytest.skip(f"nvcc here is not the release the file lists ({TOOLS['nvcc'].version})")
    _check("nvcc", _help([nvcc, "--help"]), complete=True)


@pytest.mark.slow
def test_clang_offload_options_are_options_clang_19_knows() -> None:
    """The file is a subset of clang's options (those about GPU offload): each is one that clang 19's
    help prints, or, for options without a help text, one its completion lists."""
    if "clang" not in TOOLS:
        pytest.skip("no clang vocabulary")
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed")
    known = set(_OPTION.findall(_help([clang, "--help-hidden"])))
    known |= {line.split("\t")[0].rstrip("=") for line in _help([clang, "--autocomplete=-"]).splitlines()}
    listed = _listed("clang")
    assert not listed - known, sorted(listed - known)[:20]


def _runtime_errors(nvcc: str, tmp: Path) -> dict[str, str]:
    """name -> string for every error value the CUDA runtime names, asked of the runtime itself."""
    source = tmp / "errors.cu"
    source.write_text(
        "#include <cstdio>\n#include <cstring>\n#include <cuda_runtime.h>\n"
        "int main() {\n  for (int v = 0; v < 100000; ++v) {\n"
        "    const char* name = cudaGetErrorName(static_cast<cudaError_t>(v));\n"
        "    if (std::strcmp(name, \"unrecognized error code\") == 0) continue;\n"
        "    std::printf(\"%s\\t%s\\n\", name, cudaGetErrorString(static_cast<cudaError_t>(v)));\n  }\n}\n")
    binary = tmp / "errors"
    build = subprocess.run([nvcc, "-o", str(binary), str(source)], capture_output=True, text=True, timeout=300, check=False)
    if build.returncode != 0:
        pytest.skip(f"nvcc could not build a host program here: {build.stderr.strip()[:200]}")
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=True)
    return dict(line.split("\t", 1) for line in run.stdout.splitlines())


@pytest.mark.slow
def test_cuda_runtime_error_strings_are_what_the_runtime_returns(tmp_path: Path) -> None:
    if "CUDA runtime" not in MESSAGES:
        pytest.skip("no CUDA runtime error strings")
    nvcc = _nvcc()
    listed = {e.name: e.message for e in MESSAGES["CUDA runtime"].errors}
    assert _runtime_errors(nvcc, tmp_path) == listed


def _rocm_header(name: str) -> Path:
    from xlate import hip_headers

    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    return found.include / "hip" / name


@pytest.mark.parametrize(("api", "header"), [("HIP runtime", "hip_runtime_api.h"), ("hipRTC", "hiprtc.h")])
def test_hip_error_names_are_declared_by_rocm(api: str, header: str) -> None:
    """HIP's strings are read from its source (no ROCm runtime runs here); their names must be members
    of the error enum the ROCm headers declare."""
    if api not in MESSAGES:
        pytest.skip(f"no {api} error strings")
    text = _rocm_header(header).read_text()
    missing = [e.name for e in MESSAGES[api].errors if not re.search(rf"\b{e.name}\s*=", text)]
    assert not missing, missing


NAMES = {n.names_of: n for n in _GLOSSARY.name_lists}


def _cuda_include() -> Path:
    """The include folder of the CUDA toolkit nvcc uses (nvcc may be a wrapper script elsewhere)."""
    from xlate import cuda_headers

    found = cuda_headers.find_cuda_headers()
    if found is None:
        pytest.skip(cuda_headers.absent_reason())
    return found.include


def _struct_members(header: Path, start: str, end: str) -> set[str]:
    """The member names a struct's body in a header declares (comments dropped), as a cross-check that the
    list misses none of those written in camel case."""
    text = header.read_text()
    body = text[text.index(start):text.index(end, text.index(start))]
    body = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", body, flags=re.S))
    return {m for m in re.findall(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*;", body) if any(c.isupper() for c in m[1:])}


def _members_compile(cmd: list[str], struct: str, names: list[str], include: str, tmp: Path, suffix: str) -> str:
    source = tmp / f"members{suffix}"
    source.write_text(f"#include <{include}>\n" + "".join(f"auto m{i} = &{struct}::{n};\n" for i, n in enumerate(names)))
    run = subprocess.run([*cmd, str(source)], capture_output=True, text=True, timeout=300, check=False)
    return "" if run.returncode == 0 else run.stderr[-2000:]


@pytest.mark.slow
def test_cuda_device_prop_members_are_the_structs(tmp_path: Path) -> None:
    if "cudaDeviceProp member" not in NAMES:
        pytest.skip("no cudaDeviceProp list")
    nvcc = _nvcc()
    names = [n for g in NAMES["cudaDeviceProp member"].groups for n in g.names]
    assert not _members_compile([nvcc, "-c", "-o", str(tmp_path / "m.o")], "cudaDeviceProp", names,
                                "cuda_runtime.h", tmp_path, ".cu")
    declared = _struct_members(_cuda_include() / "driver_types.h", "struct __device_builtin__ cudaDeviceProp", "};")
    assert declared <= set(names), sorted(declared - set(names))


@pytest.mark.slow
def test_hip_device_prop_members_are_the_structs(tmp_path: Path) -> None:
    if "hipDeviceProp_t member" not in NAMES:
        pytest.skip("no hipDeviceProp_t list")
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed")
    header = _rocm_header("hip_runtime_api.h")
    names = [n for g in NAMES["hipDeviceProp_t member"].groups for n in g.names]
    cmd = [clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only", "-D__HIP_PLATFORM_AMD__",
           "-I", str(header.parents[1])]
    assert not _members_compile(cmd, "hipDeviceProp_t", names, "hip/hip_runtime_api.h", tmp_path, ".hip")
    declared = _struct_members(header, "typedef struct hipDeviceProp_t", "} hipDeviceProp_t")
    assert declared - {"hipReserved"} <= set(names), sorted(declared - set(names))


def _listed_names(names_of: str) -> set[str]:
    return {n for g in NAMES[names_of].groups for n in g.names}


@pytest.mark.slow
def test_triton_environment_variables_include_every_one_triton_knobs_reads() -> None:
    """Every variable a knob descriptor of the installed triton reads, and the two refresh_knobs reads
    by name, is listed (CC, a compiler's name already a card alias, is the one left out on purpose)."""
    if "Triton environment variable" not in NAMES:
        pytest.skip("no Triton environment-variable list")
    triton = pytest.importorskip("triton")
    import inspect

    if triton.__version__ not in NAMES["Triton environment variable"].version:
        pytest.skip(f"triton {triton.__version__} is not the release the list gives")
    knobs = triton.knobs
    read = {d.key for o in vars(knobs).values() if isinstance(o, knobs.base_knobs) for d in o.knob_descriptors.values()}
    read |= set(re.findall(r'"([A-Z][A-Z0-9_]+)"', inspect.getsource(knobs.refresh_knobs)))
    missing = read - {"CC"} - _listed_names("Triton environment variable")
    assert not missing, sorted(missing)


# The prefixes whose every variable the Triton list holds.
_TRITON_ENV_PREFIX = re.compile(r"^(?:TRITON|MLIR|LLVM)_[A-Z0-9_]+$")


def _is_environ(node: object) -> bool:
    import ast

    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name) and node.id == "environ")


def _environment_reads(source: str) -> set[str]:
    """The variable names a Python source reads: the string constant passed first to os.environ.get or
    .pop, to os.getenv, triton.knobs' getenv and getenv_bool, or a knob descriptor (env_str, env_bool,
    ...; env_nvidia_tool builds its key TRITON_<TOOL>_PATH from the tool's name), looked up as
    os.environ["NAME"] or tested with "NAME" in os.environ. Assignments to os.environ are not reads."""
    import ast

    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "env_nvidia_tool" and isinstance(node.args[0].value, str):
                key = f"TRITON_{node.args[0].value.upper().replace('-', '_')}_PATH"
            elif name in ("getenv", "getenv_bool") or name.startswith("env_") or (
                    name in ("get", "pop") and isinstance(func, ast.Attribute) and _is_environ(func.value)):
                key = node.args[0].value
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environ(node.value)
              and isinstance(node.slice, ast.Constant)):
            key = node.slice.value
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and len(node.ops) == 1
              and isinstance(node.ops[0], (ast.In, ast.NotIn)) and _is_environ(node.comparators[0])):
            key = node.left.value
        if isinstance(key, str):
            out.add(key)
    return out


def _elf_rodata(path: Path) -> bytes:
    """The .rodata section of a 64-bit little-endian ELF shared library (string literals live there)."""
    import struct

    with path.open("rb") as f:
        head = f.read(64)
        assert head[:4] == b"\x7fELF" and head[4] == 2 and head[5] == 1, f"{path} is not a 64-bit little-endian ELF file"
        (shoff,) = struct.unpack_from("<Q", head, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
        f.seek(shoff)
        table = f.read(shentsize * shnum)
        headers = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
        f.seek(headers[shstrndx][4])
        names = f.read(headers[shstrndx][5])
        for name, _, _, _, offset, size in headers:
            if names[name:names.index(b"\0", name)] == b".rodata":
                f.seek(offset)
                return f.read(size)
    raise AssertionError(f"{path} has no .rodata section")


@pytest.mark.slow
def test_triton_environment_variables_are_every_triton_mlir_llvm_name_the_package_reads() -> None:
    """Every TRITON_, MLIR_ and LLVM_ variable the installed triton reads is listed, and each listed
    name of those prefixes is read: by its Python code (the reads _environment_reads finds in every .py
    file of the package) or by its compiled libraries (a NUL-terminated string in the .rodata of
    triton/_C/libtriton.so or libproton.so). A listed name of another prefix must be read by one of the
    two as well."""
    if "Triton environment variable" not in NAMES:
        pytest.skip("no Triton environment-variable list")
    triton = pytest.importorskip("triton")
    if triton.__version__ not in NAMES["Triton environment variable"].version:
        pytest.skip(f"triton {triton.__version__} is not the release the list gives")
    root = Path(triton.__file__).parent
    python_reads: set[str] = set()
    for source in sorted(root.rglob("*.py")):
        python_reads |= _environment_reads(source.read_text(encoding="utf-8"))
    libraries = [root / "_C" / lib for lib in ("libtriton.so", "libproton.so") if (root / "_C" / lib).is_file()]
    if not libraries:
        pytest.skip("the installed triton has no compiled libraries to read")
    rodata = b"\0".join(_elf_rodata(lib) for lib in libraries)
    library_names = {m.decode() for m in re.findall(rb"(?<=\0)(?:TRITON|MLIR|LLVM)_[A-Z0-9_]+(?=\0)", rodata)}
    read = {n for n in python_reads if _TRITON_ENV_PREFIX.match(n)} | library_names
    listed = _listed_names("Triton environment variable")
    assert not read - listed, f"read by triton but not listed: {sorted(read - listed)}"
    prefixed = {n for n in listed if _TRITON_ENV_PREFIX.match(n)}
    assert not prefixed - read, f"listed but not read by triton: {sorted(prefixed - read)}"
    others = {n for n in listed - prefixed if n not in python_reads and b"\0" + n.encode() + b"\0" not in rodata}
    assert not others, f"listed but not read by triton: {sorted(others)}"


@pytest.mark.slow
def test_triton_compile_options_are_the_backends_option_fields() -> None:
    if "Triton compile option" not in NAMES:
        pytest.skip("no Triton compile-option list")
    import dataclasses

    nvidia = pytest.importorskip("triton.backends.nvidia.compiler")
    amd = pytest.importorskip("triton.backends.amd.compiler")
    fields = {f.name for f in dataclasses.fields(nvidia.CUDAOptions)} | {f.name for f in dataclasses.fields(amd.HIPOptions)}
    # debug and arch are left out as plain words a query means otherwise
    assert _listed_names("Triton compile option") == fields - {"debug", "arch"}


@pytest.mark.slow
def test_mlx_environment_variables_in_the_installed_library_are_listed() -> None:
    """The list comes from MLX's source; the names the installed library's binaries carry must all be
    in it (a CPU build carries only the backend-independent ones)."""
    if "MLX environment variable" not in NAMES:
        pytest.skip("no MLX environment-variable list")
    mlx = pytest.importorskip("mlx")
    found: set[str] = set()
    for lib in Path(next(iter(mlx.__path__))).rglob("*.so"):
        found |= {m.decode() for m in re.findall(rb"(?<![A-Z0-9_])(MLX_[A-Z0-9_]{3,})(?![A-Za-z0-9_])", lib.read_bytes())}
    if not found:
        pytest.skip("the installed mlx carries no MLX_ strings")
    assert found <= _listed_names("MLX environment variable"), sorted(found - _listed_names("MLX environment variable"))


def _cuda_api_functions(include: Path) -> set[str]:
    """The functions the CUDA runtime, device runtime and driver headers declare, read as the list was."""
    runtime = (include / "cuda_runtime_api.h").read_text() + (include / "cuda_device_runtime_api.h").read_text()
    return set(re.findall(r"\b(cuda[A-Z]\w+)\s*\(", runtime)) | \
        set(re.findall(r"\bCUDAAPI\s+(cu[A-Z]\w+)\s*\(", (include / "cuda.h").read_text()))


def test_cuda_api_names_are_declared_and_every_declared_function_is_spelled_or_listed() -> None:
    if "CUDA API function no row pairs" not in NAMES:
        pytest.skip("no CUDA API name list")
    declared = _cuda_api_functions(_cuda_include())
    listed = _listed_names("CUDA API function no row pairs")
    assert listed <= declared, sorted(listed - declared)[:20]
    index = kb.load_index()
    spelled = set(kb.load_symbols().names()) | {e[0] for e in index["labels"]}
    missing = declared - spelled - listed
    assert not missing, sorted(missing)[:20]


def test_the_help_reader_finds_defined_options() -> None:
    text = ("General options:\n  -h [ --help ]                  Produce help.\n"
            "  --leak-check arg (=no)          Print leaks; see --print-limit.\n"
            "--cuda                                          (-cuda)\n        Compile to .cu.cpp.ii\n")
    assert _defined(text) == {"-h", "--help", "--leak-check", "--cuda", "-cuda"}
    assert "--print-limit" in set(_OPTION.findall(text)) and "--print-limit" not in _defined(text)


if __name__ == "__main__":  # print what the help of each installed tool defines, for writing a file
    print(sorted(_defined(_help(sys.argv[1:]))))
