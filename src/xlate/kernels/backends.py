"""Building, inspecting and running one example on one backend.

Each backend returns raw outputs (NumPy arrays) and a time; checking against the reference and
turning times into throughput happen in `runner`, the same way for every backend.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from xlate.kernels import tools
from xlate.kernels.examples import NATIVE_HOST_UNVERIFIED, Example, kernels_root

HIP_ARCHS = ("gfx942", "gfx90a")
SM_DEFAULT = "90a"


class Unavailable(Exception):
    """This machine lacks the tool or device a backend needs (reported as skipped, with why)."""


class BuildError(Exception):
    """The compiler rejected the source (reported as failed, with the compiler's message)."""


@dataclass
class Execution:
    outputs: dict[str, np.ndarray]
    ms: float | None
    where: str
    extras: dict[str, Any] = field(default_factory=dict)


def harness_files(backend: str) -> list[Path]:
    common = kernels_root() / "common"
    return {"cuda": [common / "harness.cuh"], "hip": [common / "harness_hip.h", common / "hip_cg.h"]}.get(backend, [])


def sources(ex: Example, backend: str) -> list[Path]:
    files = [ex.source(backend)] + [p for p in harness_files(backend) if p.is_file()]
    if backend == "metal":
        if ex.native_host is not None:  # the native host that compiles the .metal library itself
            files.append(ex.native_host)
        else:
            files.append(ex.source("mlx"))  # the host side that hands the body to mx.fast.metal_kernel
    return files


def _digest(files: list[Path], *extra: str) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    for e in extra:
        h.update(e.encode())
    return h.hexdigest()[:20]


def _compile(cmd: list[str], env: dict[str, str] | None = None) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    except OSError as exc:
        raise BuildError(f"cannot start {cmd[0]}: {exc}") from None
    except subprocess.TimeoutExpired:
        raise BuildError(f"{cmd[0]} took longer than 10 minutes") from None
    if proc.returncode != 0:
        raise BuildError(f"{Path(cmd[0]).name} failed:\n{proc.stderr.strip()[-3000:]}")
    return proc.stdout


# --- CUDA ------------------------------------------------------------------------------------


def _nvcc() -> str:
    nvcc = tools.nvcc()
    if not nvcc:
        raise Unavailable("nvcc not found")
    return nvcc


def _gencode(sm: str) -> str:
    return f"-gencode=arch=compute_{sm},code=sm_{sm}"


def cuda_cubin(ex: Example, sm: str = SM_DEFAULT) -> Path:
    """Compile the example's device code for one architecture (no GPU needed)."""
    nvcc = _nvcc()
    src = ex.source("cuda")
    out = tools.cache_dir() / f"{ex.name}-sm{sm}-{_digest(sources(ex, 'cuda'), sm)}.cubin"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        _compile([nvcc, _gencode(sm), "-cubin", "-O3", "-std=c++17", "-o", str(out), str(src)])
    return out


def sass(cubin: Path) -> str:
    tool = tools.cuobjdump()
    if not tool:
        raise Unavailable("cuobjdump not found (install the CUDA toolkit or Triton, which ships one)")
    return _compile([tool, "--dump-sass", str(cubin)])


def link_libraries(ex: Example) -> list[str]:
    """Libraries the example's compiled program links besides the runtime (example.yaml `link:`,
    e.g. [cuda] for the driver API)."""
    value = ex.raw.get("link") or []
    if not isinstance(value, list) or not all(isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_+.-]+", v) for v in value):
        raise BuildError(f"{ex.folder / 'example.yaml'}: `link` must list library names, e.g. [cuda]")
    return list(value)


def _soname_path(lib: str) -> str | None:
    """Where lib<lib>.so.1 is: the dynamic linker's cache, then LD_LIBRARY_PATH (where a container
    runtime may mount the driver's libraries without telling the linker's search path)."""
    name = f"lib{lib}.so.1"
    try:
        cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        cache = ""
    for line in cache.splitlines():
        if line.strip().startswith(name + " ") and "=>" in line:
            return line.split("=>", 1)[1].strip()
    for folder in filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":")):
        if (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    return None


def _link_with_sonames(cmd: list[str], libs: list[str]) -> None:
    """Link with -l<lib>; where the linker finds no lib<lib>.so, link the driver's lib<lib>.so.1 by
    its path, or by its soname where no path is known (libcuda.so without a version comes only with
    the toolkit's stubs, which not every installation has)."""
    try:
        _compile(cmd + [f"-l{lib}" for lib in libs])
    except BuildError as exc:
        missing = [lib for lib in libs if f"cannot find -l{lib}" in str(exc)]
        if not missing:
            raise
        flags: list[str] = []
        for lib in libs:
            path = _soname_path(lib) if lib in missing else None
            # nvcc sorts its inputs by suffix and rejects ".so.1": the path goes to the host linker as is
            flags += ["-Xlinker", path] if path else [f"-l:lib{lib}.so.1" if lib in missing else f"-l{lib}"]
        _compile(cmd + flags)


def cuda_binary(ex: Example, sm: str) -> Path:
    nvcc = _nvcc()
    libs = link_libraries(ex)
    out = tools.cache_dir() / f"{ex.name}-sm{sm}-{_digest(sources(ex, 'cuda'), sm, 'exe', *libs)}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        _link_with_sonames([nvcc, _gencode(sm), "-O3", "-std=c++17", "-o", str(tmp), str(ex.source("cuda"))], libs)
        os.replace(tmp, out)
    return out


def module_name(ex: Example, backend: str) -> str | None:
    """The file name under which the runner hands a program its own device code, compiled alone
    (a cubin for CUDA, a code object for HIP), to load at run time (example.yaml `module:`)."""
    value = (ex.raw.get("module") or {}).get(backend)
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
        raise BuildError(f"{ex.folder / 'example.yaml'}: `module: {{{backend}: NAME}}` must be a plain file name")
    return value


def run_program(exe: Path, ex: Example, size: tuple[int, ...], inputs: dict[str, np.ndarray],
                iters: int, where: str, files: dict[str, Path] | None = None) -> Execution:
    """Run a compiled example through the file protocol of kernels/common/harness.cuh; `files`
    are copied into the run folder under their names (a module the program loads)."""
    with tempfile.TemporaryDirectory(prefix="xlate-run-") as tmp:
        for name, arr in inputs.items():
            np.ascontiguousarray(arr).tofile(Path(tmp) / f"in_{name}.bin")
        for name, path in (files or {}).items():
            (Path(tmp) / name).write_bytes(path.read_bytes())
        cmd = [str(exe), tmp, str(iters)] + [str(s) for s in size]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise BuildError(f"{exe.name} ran longer than 10 minutes") from None
        if proc.returncode != 0:
            raise BuildError(f"{exe.name} exited with {proc.returncode}:\n{proc.stderr.strip()[-3000:]}")
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise BuildError(f"{exe.name} printed no timing line:\n{proc.stdout[-2000:]}")
        report = json.loads(lines[-1])
        outputs = {}
        for name, dtype in ex.outputs.items():
            path = Path(tmp) / f"out_{name}.bin"
            if not path.is_file():
                raise BuildError(f"{exe.name} wrote no output {name!r}")
            outputs[name] = np.fromfile(path, dtype=np.dtype(dtype))
    ms = float(report.pop("ms"))
    return Execution(outputs, ms, where, report)


def run_cuda(ex: Example, size: tuple[int, ...], inputs: dict[str, np.ndarray], iters: int) -> Execution:
    device = tools.nvidia_device()
    if device is None:
        raise Unavailable("no NVIDIA GPU here")
    exe = cuda_binary(ex, device.sm)
    module = module_name(ex, "cuda")
    files = {module: cuda_cubin(ex, device.sm)} if module else None
    return run_program(exe, ex, size, inputs, iters, f"ran on {device.name}", files)


# --- HIP -------------------------------------------------------------------------------------


# A HIP file that includes one of these needs the ROCm 6.4 headers: Debian 12's HIP 5.2 has neither.
_ROCM_LIBRARY_INCLUDE = re.compile(r"^\s*#\s*include\s*<(hipcub|rocprim)/", re.M)


def hip_headers(ex: Example) -> tuple[list[str], str]:
    """The clang include flags for the example's HIP file and the headers' name ("HIP 6.4.3
    headers", or "system HIP headers"). The ROCm 6.4 headers win when they are unpacked (`-I` in
    front of the system folder; --hip-path would mix the two versions); a file that includes
    hipCUB or rocPRIM cannot compile without them."""
    from xlate.hip_headers import absent_reason, find_rocm_headers

    found = find_rocm_headers()
    if found is not None:
        return ["-I", str(found.include)], f"HIP {found.version_text} headers"
    if _ROCM_LIBRARY_INCLUDE.search(ex.source("hip").read_text(encoding="utf-8", errors="replace")):
        raise Unavailable(f"{ex.source('hip').name} includes hipCUB/rocPRIM, and {absent_reason()}")
    return [], "system HIP headers"


def hip_asm(ex: Example, arch: str) -> str:
    """AMDGCN assembly of the example's device code, compiled with clang for `arch`."""
    clang = tools.hip_clang()
    if not clang:
        raise Unavailable("no clang with HIP support (clang-19 or ROCm's) found")
    include, headers = hip_headers(ex)
    out = tools.cache_dir() / f"{ex.name}-{arch}-{_digest(sources(ex, 'hip'), arch, *include, headers)}.s"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, HIP_PLATFORM="amd")
        # rocPRIM's headers trip clang 19 warnings (storage class on explicit specialisations,
        # its own deprecations); they say nothing about the example's code.
        quiet = ["-Wno-explicit-specialization-storage-class", "-Wno-deprecated-declarations"] if include else []
        cmd = [clang, "-x", "hip", *include, f"--offload-arch={arch}", "--cuda-device-only", "-nogpulib", "-O3",
               "-S", "-std=c++17", "-Wno-unused-result", *quiet, "-o", str(out), str(ex.source("hip"))]
        _compile(cmd, env)
    return out.read_text(encoding="utf-8", errors="replace")


def hip_host_check(ex: Example) -> None:
    """Type-check the host side of the example's HIP program (runtime calls, launches, graph and
    stream API) against the same headers as its device code: clang's host pass only, with
    -fsyntax-only, since nothing here links against the HIP runtime. Raises BuildError when the
    host code does not compile."""
    clang = tools.hip_clang()
    if not clang:
        raise Unavailable("no clang with HIP support (clang-19 or ROCm's) found")
    include, headers = hip_headers(ex)
    done = tools.cache_dir() / f"{ex.name}-host-{_digest(sources(ex, 'hip'), *include, headers)}.ok"
    if done.is_file():
        return
    env = dict(os.environ, HIP_PLATFORM="amd")
    quiet = ["-Wno-explicit-specialization-storage-class", "-Wno-deprecated-declarations"] if include else []
    _compile([clang, "-x", "hip", *include, f"--offload-arch={HIP_ARCHS[0]}", "--cuda-host-only", "-nogpulib",
              "-fsyntax-only", "-std=c++17", "-Wno-unused-result", *quiet, str(ex.source("hip"))], env)
    done.parent.mkdir(parents=True, exist_ok=True)
    done.write_text(headers + "\n", encoding="utf-8")


def run_hip(ex: Example, size: tuple[int, ...], inputs: dict[str, np.ndarray], iters: int) -> Execution:
    if not (tools.hipcc() and tools.amd_gpu()):
        raise Unavailable("no AMD GPU with ROCm here")
    exe = tools.cache_dir() / f"{ex.name}-hip-{_digest(sources(ex, 'hip'), 'exe')}"
    if not exe.is_file():
        exe.parent.mkdir(parents=True, exist_ok=True)
        _compile([str(tools.hipcc()), "-O3", "-std=c++17", "-o", str(exe), str(ex.source("hip"))])
    files = None
    module = module_name(ex, "hip")
    if module:  # the file's device code alone, as a code object for hipModuleLoadData
        code = exe.with_suffix(".hsaco")
        if not code.is_file():
            _compile([str(tools.hipcc()), "--genco", "-O3", "-std=c++17", "-o", str(code), str(ex.source("hip"))])
        files = {module: code}
    return run_program(exe, ex, size, inputs, iters, "ran on an AMD GPU", files)


# --- Python-hosted backends ----------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:500]


def load_module(path: Path, tag: str) -> ModuleType:
    name = f"xlate_example_{tag}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _to_torch(arr: np.ndarray, ex: Example, name: str, device: str) -> Any:
    import torch

    if ex.raw.get("bf16_inputs") and name in ex.raw["bf16_inputs"]:
        t = torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
        # The interpreter computes through NumPy, which has no bfloat16: hand it the same values
        # widened (exactly) to float32.
        return t.float() if device == "cpu" else t.to(device)
    return torch.from_numpy(np.ascontiguousarray(arr)).to(device)


def _from_torch(t: Any) -> np.ndarray:
    import torch

    if t.dtype == torch.bfloat16:
        t = t.float()
    arr: np.ndarray = t.detach().cpu().numpy()
    return arr


def run_triton(ex: Example, inputs: dict[str, np.ndarray], interpret: bool, iters: int) -> Execution:
    if interpret:
        if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
            # triton.language's own helpers were compiled for a GPU when Triton was imported, and
            # the interpreter cannot call them: interpreting needs the variable set before import.
            raise BuildError("Triton was imported before TRITON_INTERPRET=1 was set; interpret in a fresh process")
        os.environ["TRITON_INTERPRET"] = "1"
        os.environ.setdefault("TRITON_CACHE_DIR", str(Path(tempfile.gettempdir()) / "xlate-triton-cache"))
    import warnings

    warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")  # a 3.9 notice, not about this run
    try:
        import torch
        import triton  # noqa: F401
    except ImportError as exc:
        raise Unavailable(f"Triton needs torch and triton: {exc}") from None
    device = "cpu" if interpret else "cuda"
    if not interpret and not torch.cuda.is_available():
        raise Unavailable("no CUDA GPU visible to torch")
    try:
        module = load_module(ex.source("triton"), "interp" if interpret else "gpu")
        args = {k: _to_torch(v, ex, k, device) for k, v in inputs.items()}
        outs = module.alloc(**args)
        module.launch(**args, **outs)
    except Exception as exc:  # noqa: BLE001 - a compile or interpreter error in the example, reported as a failure
        raise BuildError(_one_line(exc)) from None
    if interpret:
        outputs = {k: _from_torch(v) for k, v in outs.items()}
        extras = {"note": "bf16 inputs widened to float32 for the interpreter"} if ex.raw.get("bf16_inputs") else {}
        return Execution(outputs, None, "interpreted on CPU", extras)
    torch.cuda.synchronize()
    outputs = {k: _from_torch(v) for k, v in outs.items()}
    from triton.testing import do_bench

    ms = float(do_bench(lambda: module.launch(**args, **outs), warmup=50, rep=max(100, iters * 10),
                        return_mode="median"))
    return Execution(outputs, ms, f"ran on {torch.cuda.get_device_name()}")


def _mlx_inputs(ex: Example, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    import mlx.core as mx

    out = {}
    for k, v in inputs.items():
        if ex.raw.get("bf16_inputs") and k in ex.raw["bf16_inputs"]:
            out[k] = mx.array(v.view(np.uint16)).view(mx.bfloat16)
        elif v.dtype == np.float64:
            # mx.array turns a float64 NumPy array into float32 unless told otherwise; MLX keeps
            # float64 on its CPU stream (its GPU has no double), where the example computes
            out[k] = mx.array(v, dtype=mx.float64)
        else:
            out[k] = mx.array(v)
    return out


def _mlx_outputs(outs: dict[str, Any]) -> dict[str, np.ndarray]:
    import mlx.core as mx

    return {k: np.array(v.astype(mx.float32) if v.dtype == mx.bfloat16 else v) for k, v in outs.items()}


def run_mlx(ex: Example, inputs: dict[str, np.ndarray], iters: int, metal: bool = False) -> Execution:
    try:
        import mlx.core as mx
    except ImportError as exc:
        raise Unavailable(f"mlx is not installed ({exc}); on Linux install mlx[cpu]") from None
    if metal and not tools.metal_available():
        raise Unavailable("no Metal (needs Apple silicon)")
    try:
        module = load_module(ex.source("mlx"), "metal" if metal else "mlx")
        fn = module.run_metal if metal else module.run
        args = _mlx_inputs(ex, inputs)
        outs = fn(**args)
        mx.eval(*outs.values())
    except Exception as exc:  # noqa: BLE001 - reported as a failure of this example, not a crash
        raise BuildError(_one_line(exc)) from None
    outputs = _mlx_outputs(outs)
    times = []
    for _ in range(max(3, min(iters, 10))):
        t0 = time.perf_counter()
        mx.eval(*fn(**args).values())
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    device = "GPU (Metal)" if metal else ("GPU" if mx.default_device() == mx.gpu else "CPU")
    return Execution(outputs, times[len(times) // 2], f"ran on {device} (MLX)")


def run_metal_host(ex: Example, size: tuple[int, ...], inputs: dict[str, np.ndarray], iters: int) -> Execution:
    """Build the example's native Metal host with Apple's clang and run it through the file
    protocol, with its .metal library source copied into the run folder (the host compiles it at
    run time). Needs macOS with the Xcode command-line tools; nowhere else can it even be built."""
    host = ex.native_host
    assert host is not None
    xcrun = shutil.which("xcrun") if sys.platform == "darwin" else None
    if not xcrun or not tools.metal_available():
        raise Unavailable(f"no Metal here; {host.name} and {ex.source('metal').name} are {NATIVE_HOST_UNVERIFIED}")
    exe = tools.cache_dir() / f"{ex.name}-metal-host-{_digest([host], 'exe')}"
    if not exe.is_file():
        exe.parent.mkdir(parents=True, exist_ok=True)
        _compile([xcrun, "clang++", "-std=c++17", "-fobjc-arc", "-O2", "-framework", "Foundation",
                  "-framework", "Metal", "-o", str(exe), str(host)])
    return run_program(exe, ex, size, inputs, iters, "ran on Apple silicon (Metal)",
                       {ex.source("metal").name: ex.source("metal")})


# --- Instruction checks ----------------------------------------------------------------------------


def expected_amdgcn(ex: Example, arch: str) -> list[str]:
    """The instructions an example's AMDGCN must contain for one target: `amdgcn` for every CDNA
    target plus `amdgcn_<arch>` for that one (fp8 and xf32 exist on gfx942 only); gfx1100 (RDNA,
    wave32) has only its own list."""
    if arch == "gfx1100":
        return list(ex.expect.get("amdgcn_gfx1100", []))
    return list(ex.expect.get("amdgcn", [])) + list(ex.expect.get(f"amdgcn_{arch}", []))


def found_instructions(asm: str, wanted: list[str]) -> tuple[list[str], list[str]]:
    """Which of the wanted mnemonics (prefix match on a word boundary) occur in the assembly."""
    present: list[str] = []
    missing: list[str] = []
    for w in wanted:
        pattern = re.compile(r"(?<![A-Za-z0-9_.])" + re.escape(w))
        (present if pattern.search(asm) else missing).append(w)
    return present, missing
