"""Which CUDA spellings a CUDA toolkit's headers declare, asked of nvcc itself.

`classify` sorts a spelling the glossary gives for CUDA into something a compiler can answer (an
identifier, a qualified name, a member of a built-in variable, a header) or a reason it cannot (a PTX
instruction, a command-line tool, a name from a library the toolkit does not ship, a library whose
headers this install lacks). `probe` writes every name into one translation unit that includes the
toolkit's headers, each on a line of its own as a using-declaration (a macro is left alone: being
defined is being declared), and compiles it for the device with `-ptx` once per target in ARCHS, the
targets at the same time: device functions are declared as a GPU build of that target sees them. The
line of each "has no member" error names one undeclared spelling. A qualified name gets a second line
that names it from a struct derived from its qualifier, which answers where the qualifier is a class
(`cub::DeviceScan::ExclusiveSum`); either line compiling means declared.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from xlate.kernels import tools

__all__ = ["LOWEST_ARCH", "CudaHeaders", "Probe", "absent_reason", "classify", "find_cuda_headers", "probe"]

# CUDA 13's lowest target (`nvcc --list-gpu-arch` starts at compute_75) and Hopper's feature target: a
# device name the headers declare for neither (they declare some only from an
# architecture on: clusters from sm_90, __reduce_add_sync from sm_80) no CUDA 13 build can use.
LOWEST_ARCH = "sm_75"
ARCHS = (LOWEST_ARCH, "sm_90a")
# Where code names a member bare after a using-directive or from an object (`this_thread_block`,
# `grid_group::sync`, a cudaDeviceProp field): a bare name no target declares is tried in each.
SCOPES = ("cooperative_groups", "cooperative_groups::cluster_group", "cudaDeviceProp")

# Headers every probe includes when the install has them (nvcc adds cuda_runtime.h by itself). Library
# headers a toolkit install may lack (the pip-packaged toolkit has no cuBLAS): a spelling of such a library
# is skipped with the missing header as its reason.
_BASE_HEADERS = (
    "cuda.h", "cudaProfiler.h", "cuda_profiler_api.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h",
    "cuda_fp4.h", "cuda_awbarrier.h", "cuda_pipeline.h", "cuda_occupancy.h", "mma.h", "cuComplex.h", "math_constants.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/scan.h", "cooperative_groups/memcpy_async.h",
    "cub/cub.cuh", "cub/block/block_shuffle.cuh", "cuda/atomic", "cuda/barrier", "cuda/pipeline", "thrust/device_vector.h", "thrust/sort.h",
    "thrust/reduce.h", "thrust/transform.h", "thrust/execution_policy.h", "cupti.h", "nvtx3/nvToolsExt.h",
    "nvtx3/nvToolsExtCuda.h", "nvtx3/nvToolsExtCudaRt.h", "cuda_gl_interop.h", "cudaGL.h", "cuda_egl_interop.h", "cudaEGL.h",
    "cudaTypedefs.h",
)
# Libraries of the toolkit whose headers an install may leave out: spelling prefix -> the header that declares them.
LIBRARY_HEADERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("cublasLt", "CUBLASLT_"), "cublasLt.h"),
    (("cublasXt",), "cublasXt.h"),
    (("cublas", "CUBLAS_"), "cublas_v2.h"),
    (("cufftXt",), "cufftXt.h"),
    (("cufft", "CUFFT_"), "cufft.h"),
    (("curand", "CURAND_"), "curand_kernel.h"),
    (("cusparse", "CUSPARSE_"), "cusparse.h"),
    (("cusolverSp", "cusolverRf"), "cusolverSp.h"),
    (("cusolver", "CUSOLVER_"), "cusolverDn.h"),
    (("nvrtc", "NVRTC_"), "nvrtc.h"),
    (("nvJitLink", "NVJITLINK_"), "nvJitLink.h"),
    (("cuFile", "CU_FILE_", "cufile"), "cufile.h"),
    (("nvml", "NVML_"), "nvml.h"),
)
# Libraries NVIDIA ships apart from the toolkit: prefix (of a name, a namespace or a header) -> library.
OUTSIDE_TOOLKIT: tuple[tuple[str, str], ...] = (
    ("cudnn", "cuDNN"), ("CUDNN_", "cuDNN"), ("nccl", "NCCL"), ("NCCL_", "NCCL"), ("nvinfer1::", "TensorRT"),
    ("NvInfer", "TensorRT"), ("cutensor", "cuTENSOR"), ("CUTENSOR_", "cuTENSOR"), ("nvshmem", "NVSHMEM"),
    ("NVSHMEM_", "NVSHMEM"), ("cutlass::", "CUTLASS"), ("cute::", "CUTLASS (CuTe)"), ("torch.", "PyTorch"),
    ("cupy.", "CuPy"), ("dcgm", "DCGM"), ("pynvml", "pynvml (a Python package)"), ("KernelTma", "CUTLASS"),
)
# Namespace aliases code conventionally writes (`namespace cg = cooperative_groups;`); the probe declares them.
ALIASES = {"cg": "cooperative_groups", "wmma": "nvcuda::wmma"}
BUILTIN_VARIABLES = ("threadIdx", "blockIdx", "blockDim", "gridDim")
# Words of the language that are keywords, not declarations (nvcc's front end knows them by itself).
KEYWORDS = frozenset({"__restrict__", "__noinline__", "asm", "asm volatile", "extern __shared__", "double", "float",
                      "int", "long long", "unsigned long long"})
# NVIDIA's command-line tools and toolkit programs the cards name bare.
TOOLS = frozenset({"nvcc", "ptxas", "nvlink", "fatbinary", "cuobjdump", "nvdisasm", "ncu", "nsys", "nvprof", "trtexec",
                   "dcgmi", "cu++filt", "nvprune"})
# PTX instructions the cards name without a dot (`ldmatrix` for ldmatrix.sync.aligned...).
PTX_WORDS = frozenset({"dp4a", "dp2a", "ldmatrix", "stmatrix", "mapa", "setmaxnreg", "prmt", "movmatrix"})
# Environment variables the CUDA driver and runtime read (CUDA_MPS_* too): names of no header.
ENVIRONMENT = frozenset({"CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
                         "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_CACHE_PATH", "CUDA_CACHE_DISABLE", "CUDA_FORCE_PTX_JIT"})
_IDENT = r"[A-Za-z_]\w*"
_QUALIFIED = re.compile(rf"{_IDENT}(?:::{_IDENT})*")
_HEADER = re.compile(r"[\w/.+-]+\.(?:h|hpp|cuh)")
_PTX = re.compile(r"%\w+|[a-z][a-z0-9_]*(?:\.[a-z0-9_:]+)+")
_SASS = re.compile(r"[A-Z][A-Z0-9]{2,}")
_TARGET = re.compile(r"(?:sm|compute|lto)_\d+[af]?")
_METRIC = re.compile(r"[a-z0-9]+__[a-z0-9_]+")
_TOOL = re.compile(r"[a-z][\w.]*(?:-[\w.]+)+|[a-z][\w-]* .*")
_CCCL = ("cub/", "thrust/", "cuda/")
_NAMESPACE = re.compile(r"a namespace name is not allowed")
_ERROR = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): error: (?P<text>.*)$", re.M)
_UNDECLARED = re.compile(r'the global scope has no "|namespace ".*" has no member "|class ".*" has no member "'
                         r'|has no member "|identifier ".*" is undefined|is not a class or namespace name|name followed by "::" must be a class or namespace name')


@dataclass(frozen=True)
class CudaHeaders:
    """nvcc, the include folder beside it, and the CUDA version its cuda.h states (CUDA_VERSION 13000 -> 13.0)."""

    nvcc: str
    include: Path
    version: tuple[int, int]

    @property
    def version_text(self) -> str:
        return "{}.{}".format(*self.version)

    def has(self, header: str) -> bool:
        """Whether a header is in the toolkit's include folder or its CCCL folder."""
        return (self.include / header).is_file() or (self.include / "cccl" / header).is_file()


def find_cuda_headers() -> CudaHeaders | None:
    """nvcc on PATH (or /usr/local/cuda/bin), the include folder it passes its front end (asked with
    `--dryrun`, so a wrapper script on PATH is no obstacle), and the CUDA version that folder's cuda.h
    states; None without nvcc or a cuda.h."""
    nvcc = tools.nvcc()
    if nvcc is None:
        return None
    try:
        run = subprocess.run([nvcc, "--dryrun", "-ptx", "-x", "cu", "-o", os.devnull, os.devnull],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r'^#\$ INCLUDES="-I([^"]+)"', run.stdout + run.stderr, re.M)
    include = Path(found.group(1)).resolve() if found else Path(nvcc).resolve().parent.parent / "include"
    try:
        text = (include / "cuda.h").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    version = re.search(r"^\s*#\s*define\s+CUDA_VERSION\s+(\d+)", text, re.M)
    if version is None:
        return None
    number = int(version.group(1))
    return CudaHeaders(nvcc, include, (number // 1000, number % 1000 // 10))


def absent_reason() -> str:
    if tools.nvcc() is None:
        return "nvcc is not on PATH (install the CUDA toolkit: nvcc, the runtime, CCCL, CUPTI and NVTX headers)"
    return "nvcc was found but no cuda.h with CUDA_VERSION beside it (its ../include)"


@dataclass(frozen=True)
class Probe:
    """How to ask the compiler about one spelling: `form` is identifier, qualified, member (of a built-in
    variable) or header; or a `skip` reason where no compiler can answer."""

    spelling: str
    form: str | None = None
    skip: str | None = None


def classify(spelling: str, headers: CudaHeaders | None = None) -> Probe:
    """What kind of spelling this is, and whether a compile can say if the toolkit declares it. With
    `headers`, names of a toolkit library whose header that install lacks are skipped."""
    s = spelling.strip()
    for prefix, library in OUTSIDE_TOOLKIT:
        if s.startswith(prefix):
            return Probe(s, skip=f"{library} is not part of the CUDA toolkit")
    if s in KEYWORDS:
        return Probe(s, skip="a keyword of the language, not a declaration")
    if s == "<<<>>>":
        return Probe(s, skip="the launch syntax, not a name")
    if s.startswith("-"):
        return Probe(s, skip="a compiler option")
    if s.startswith(".") and "/" not in s:
        return Probe(s, skip="a file type or ELF section")
    if s in TOOLS or _TOOL.fullmatch(s) or s.endswith(".ko"):
        return Probe(s, skip="a command-line tool or driver module")
    if s in ENVIRONMENT or s.startswith("CUDA_MPS_"):
        return Probe(s, skip="an environment variable")
    if _HEADER.fullmatch(s):
        return _library_skip(s, headers) or Probe(s, "header")
    head = s.split(".", 1)[0]
    if "." in s and head in BUILTIN_VARIABLES and _QUALIFIED.fullmatch(s.replace(".", "::", 1)):
        return Probe(s, "member")
    if s in PTX_WORDS or _PTX.fullmatch(s) or s.startswith(("shared::", "global::")):
        return Probe(s, skip="a PTX instruction, register or state space")
    if _SASS.fullmatch(s):
        return Probe(s, skip="a SASS instruction")
    if _TARGET.fullmatch(s):
        return Probe(s, skip="a GPU target (an nvcc -arch value)")
    if _METRIC.fullmatch(s):
        return Probe(s, skip="an Nsight Compute metric")
    if re.fullmatch(r"lib\w+", s):
        return Probe(s, skip="a library file")
    if not _QUALIFIED.fullmatch(s):
        return Probe(s, skip="not an identifier")
    if re.search(r"D3D|d3d|WGL", s):
        return Probe(s, skip="Windows-only interop (Direct3D, WGL): no Linux header declares it")
    if "VDPAU" in s and not Path("/usr/include/vdpau/vdpau.h").is_file():
        return Probe(s, skip="VDPAU interop: its headers need vdpau/vdpau.h, which is not installed")
    return _library_skip(s, headers) or Probe(s, "qualified" if "::" in s else "identifier")


def _library_skip(s: str, headers: CudaHeaders | None) -> Probe | None:
    if headers is None:
        return None
    for prefixes, header in LIBRARY_HEADERS:
        if s.startswith(prefixes) and not headers.has(header):
            return Probe(s, skip=f"{header} is not in this toolkit install")
    return None


def _includes(headers: CudaHeaders, cccl: bool = True) -> list[str]:
    wanted = [h for h in _BASE_HEADERS if headers.has(h) and (cccl or not h.startswith(_CCCL))]
    wanted += [header for _, header in LIBRARY_HEADERS if header not in wanted and headers.has(header)]
    lines = [f"#include <{h}>" for h in wanted]
    lines += [f"namespace {alias} = {target};" for alias, target in ALIASES.items()]
    return lines


def _lines(name: str, i: int) -> tuple[list[str], list[str]]:
    """The probe lines for one name: (at namespace scope, in a kernel's body). A line that starts with
    `#` is a guard around the probe lines, not a probe."""
    if "." in name:  # a member of a built-in variable: threadIdx.x
        return [], [f"(void){name};"]
    using = f"namespace xlate_probe_{i} {{ using ::{name}; }}"
    if "::" not in name:
        # A macro is declared by being defined; anything else must be declared in the global namespace.
        return [f"#ifndef {name}", using, "#endif"], []
    # A namespace member answers the first form; a class member (the qualifier is a class) only the second.
    outer, _, member = name.rpartition("::")
    return [using, f"struct xlate_probe_{i}_m : ::{outer} {{ using ::{outer}::{member}; }};"], []


def _source(headers: CudaHeaders, names: list[str], cccl: bool) -> tuple[str, dict[int, str]]:
    """The translation unit, and which name each probe line (1-based) asks about."""
    out = _includes(headers, cccl)
    at: dict[int, str] = {}
    body: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        outside, inside = _lines(name, i)
        for code in outside:
            if not code.startswith("#"):
                at[len(out) + 1] = name
            out.append(code)
        body += [(code, name) for code in inside]
    out.append("__global__ void xlate_probe_kernel() {")
    for code, name in body:
        at[len(out) + 1] = name
        out.append("  " + code)
    out.append("}")
    return "\n".join(out) + "\n", at


@dataclass(frozen=True)
class ProbeResult:
    """What the compiles said: which names some target's headers declare (with those targets), which no
    target declares (with the compiler's message), and errors the probe could not tie to a missing name
    (a keyword, a header that does not compile)."""

    declared: dict[str, tuple[str, ...]]
    undeclared: dict[str, str]
    problems: dict[str, str]
    scoped: dict[str, str] = field(default_factory=dict)  # bare name -> the scoped name found declared


def _verdicts(output: str, at: dict[int, str]) -> dict[str, tuple[str, str]]:
    """name -> (verdict, message) from one compile's errors: `missing` where some probe line of the name
    says it is not declared, `error` for any other error; a name no error names is declared."""
    errors: dict[str, list[str]] = {}
    lines_with_error: dict[str, set[int]] = {}
    for m in _ERROR.finditer(output):
        line = int(m.group("line"))
        name = at.get(line)
        key = name if name is not None else f"{Path(m.group('file')).name}:{line}"
        text = m.group("text").strip()
        if name is not None and _NAMESPACE.search(text):
            continue  # `using ::cooperative_groups;`: the name is a namespace, so it is declared
        errors.setdefault(key, []).append(text)
        lines_with_error.setdefault(key, set()).add(line)
    probe_lines = Counter(at.values())
    out: dict[str, tuple[str, str]] = {}
    for key, texts in errors.items():
        if key in probe_lines and len(lines_with_error[key]) < probe_lines[key]:
            continue  # one of its forms compiled: a namespace member, or a class member
        missing = [t for t in texts if _UNDECLARED.search(t)]
        out[key] = ("missing", missing[0]) if missing else ("error", texts[0])
    return out


def _compile_all(headers: CudaHeaders, names: list[str], archs: tuple[str, ...], cccl: bool,
                 timeout: float) -> list[dict[str, tuple[str, str]]]:
    """Compile one unit for each target at the same time; the verdicts of each."""
    source, at = _source(headers, names, cccl)
    with tempfile.TemporaryDirectory(prefix="xlate-cuda-probe-") as tmp:
        path = Path(tmp) / "probe.cu"
        path.write_text(source, encoding="utf-8")
        procs = [subprocess.Popen([headers.nvcc, "-std=c++17", f"-arch={arch}", "-ptx", "-o", str(Path(tmp) / f"{arch}.ptx"),
                                   "-Xcudafe", "--error_limit=100000", str(path)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for arch in archs]
        outputs = [(proc.communicate(timeout=timeout)[0], proc.returncode) for proc in procs]
    verdicts = []
    for output, code in outputs:
        found = _verdicts(output, at)
        if code != 0 and not found:
            found["probe.cu"] = ("error", "the probe did not compile: " + output[-2000:])
        verdicts.append(found)
    return verdicts


def _sort(names: list[str], archs: tuple[str, ...], verdicts: list[dict[str, tuple[str, str]]]) -> ProbeResult:
    declared: dict[str, tuple[str, ...]] = {}
    undeclared: dict[str, str] = {}
    problems: dict[str, str] = {}
    for name in names:
        targets = tuple(arch for arch, found in zip(archs, verdicts) if name not in found)
        if targets:
            declared[name] = targets
        elif all(found[name][0] == "missing" for found in verdicts):
            undeclared[name] = verdicts[0][name][1]
        else:
            problems[name] = next(found[name][1] for found in verdicts if found[name][0] == "error")
    for found in verdicts:
        for key, (_, text) in found.items():
            if key not in names:
                problems.setdefault(key, text)
    return ProbeResult(declared, undeclared, problems)


def probe(headers: CudaHeaders, probes: list[Probe], archs: tuple[str, ...] = ARCHS, timeout: float = 300) -> ProbeResult:
    """Compile the probes' names against the toolkit's headers for each target in `archs` (at the same
    time) and sort them: a name is declared where some target's headers declare it. A name no target
    declares is tried once more in each of SCOPES (as code writes it after a using-directive)."""
    names = [p.spelling for p in probes if p.form in ("identifier", "qualified", "member")]
    result = _sort(names, archs, _compile_all(headers, names, archs, True, timeout))
    retry = {f"{scope}::{name}": name for name in result.undeclared if "." not in name and not name.startswith(SCOPES)
             for scope in SCOPES}
    scoped: dict[str, str] = {}
    if retry:
        again = _sort(list(retry), archs, _compile_all(headers, list(retry), archs, False, timeout))
        for qualified, targets in again.declared.items():
            name = retry[qualified]
            if name in result.undeclared:
                del result.undeclared[name]
                result.declared[name] = targets
                scoped[name] = qualified
    for p in probes:
        if p.form != "header":
            continue
        if headers.has(p.spelling):
            result.declared[p.spelling] = archs
        else:
            result.undeclared[p.spelling] = f"no {p.spelling} in the toolkit's include folder"
    return ProbeResult(result.declared, result.undeclared, result.problems, scoped)
