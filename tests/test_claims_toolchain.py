"""Glossary claims that this machine's toolchains can show, rerun: each test is named by an `evidence:`
entry's `test:` field, so a claim and the run that shows it cannot drift apart silently.

clang-19 with Debian's HIP headers (HIP 5.2) compiles for gfx942/gfx90a; Triton 3.9's wheel ships the
HIP 7.1 headers, read here as text (clang 19 cannot compile against them); ptxas 13 assembles PTX for
sm_90a/sm_100a/sm_120a; MLX runs on the CPU. A missing tool skips with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from xlate.kernels import tools

HIP_CLANG = tools.hip_clang()
needs_clang = pytest.mark.skipif(HIP_CLANG is None, reason="no clang++-19 (or newer) for HIP on this machine")
PTXAS = next((p for p in ("/usr/local/bin/ptxas", "/usr/local/cuda/bin/ptxas") if Path(p).is_file()), None)
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="no ptxas on this machine")


def _hip_compile(tmp_path: Path, source: str, arch: str = "gfx942", extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    src = tmp_path / "claim.hip"
    src.write_text(source)
    env = dict(os.environ, HIP_PLATFORM="amd")
    # Compiled to assembly, not just parsed: HIP defers target-feature errors of device code (a builtin
    # the processor lacks) to code generation, so -fsyntax-only would accept them.
    cmd = [HIP_CLANG, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-nogpulib", "-O1", "-S",
           "-o", str(tmp_path / "claim.s"), *extra, str(src)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def _ptxas(tmp_path: Path, target: str, body: str) -> subprocess.CompletedProcess:
    ptx = tmp_path / f"claim_{target}.ptx"
    ptx.write_text(f".version 8.8\n.target {target}\n.address_size 64\n.visible .entry k() {{\n  {body}\n  ret;\n}}\n")
    return subprocess.run([PTXAS, f"-arch={target}", str(ptx), "-o", str(tmp_path / f"{target}.cubin")],
                          capture_output=True, text=True, timeout=60)


# --- HIP device code (clang-19, gfx942 / gfx90a) ---------------------------------------------------


@pytest.mark.slow
@needs_clang
def test_hip_has_no_cuda_address_space_predicates(tmp_path: Path) -> None:
    ok = _hip_compile(tmp_path, """#include <hip/hip_runtime.h>
__global__ void k(int* p) {
  __shared__ int s[64];
  int* g = (threadIdx.x & 1) ? s : p;
  p[threadIdx.x] = __builtin_amdgcn_is_shared((const __attribute__((address_space(0))) void*)g)
                 + __builtin_amdgcn_is_private((const __attribute__((address_space(0))) void*)g);
}
""")
    assert ok.returncode == 0, ok.stderr
    for cuda_name in ("__isShared", "__isGlobal", "__cvta_generic_to_shared"):
        bad = _hip_compile(tmp_path, f"#include <hip/hip_runtime.h>\n__global__ void k(int* p) {{ p[0] = (int)(long){cuda_name}(p); }}\n")
        assert bad.returncode != 0 and f"undeclared identifier '{cuda_name}'" in bad.stderr, cuda_name


@pytest.mark.slow
@needs_clang
def test_no_async_work_group_copy_builtin(tmp_path: Path) -> None:
    run = _hip_compile(tmp_path, "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { __builtin_amdgcn_async_work_group_copy(p); }\n")
    assert run.returncode != 0
    assert "undeclared identifier '__builtin_amdgcn_async_work_group_copy'" in run.stderr


@pytest.mark.slow
@needs_clang
def test_global_load_lds_builtin_exists(tmp_path: Path) -> None:
    """With clang 19 the direct-to-LDS builtin compiles for gfx942 and is refused for gfx90a (gfx940-insts).

    That refusal is clang 19's: LLVM 21 and later gate the builtin on vmem-to-lds-load-insts, which every
    gfx9 and gfx10 target has (llvm-project PR 133055), so gfx90a accepts it there."""
    source = """__global__ void k(int* p) {
  __shared__ int s[64];
  __builtin_amdgcn_global_load_lds((__attribute__((address_space(1))) void*)p,
                                   (__attribute__((address_space(3))) void*)s, 4, 0, 0);
}
"""
    # No hip_runtime.h: clang 19 crashes in code generation when this kernel also reads the LDS tile
    # through the runtime's threadIdx, which has nothing to do with the claim.
    ok = _hip_compile(tmp_path, source, "gfx942")
    assert ok.returncode == 0, ok.stderr
    assert "global_load_lds_dword" in (tmp_path / "claim.s").read_text()
    assert HIP_CLANG is not None
    version = subprocess.run([HIP_CLANG, "--version"], capture_output=True, text=True, timeout=60).stdout
    if "clang version 19." not in version:
        return  # the gfx90a refusal is a clang 19 fact; see the docstring
    old = _hip_compile(tmp_path, source, "gfx90a")
    assert old.returncode != 0 and "needs target feature gfx940-insts" in old.stderr


@pytest.mark.slow
@needs_clang
def test_hip_5_has_no_activemask_or_match(tmp_path: Path) -> None:
    """Debian's HIP 5.2 headers predate the ROCm 6.2 warp-sync builtins: none of them is declared."""
    version = Path("/usr/include/hip/hip_version.h")
    if not version.is_file() or "#define HIP_VERSION_MAJOR 5" not in version.read_text():
        pytest.skip("this check is about HIP 5.x headers at /usr/include/hip")
    for name, call in (("__activemask", "__activemask()"), ("__match_any_sync", "__match_any_sync(0ull, p[1])"),
                       ("__any_sync", "__any_sync(0ull, p[1])")):
        run = _hip_compile(tmp_path, f"#include <hip/hip_runtime.h>\n__global__ void k(int* p) {{ p[0] = (int){call}; }}\n")
        assert run.returncode != 0 and f"undeclared identifier '{name}'" in run.stderr, name
    # The mask-free votes are older and present.
    ok = _hip_compile(tmp_path, "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = __all(p[1]) + __any(p[2]); }\n")
    assert ok.returncode == 0, ok.stderr


@pytest.mark.slow
@needs_clang
def test_code_object_names_one_processor(tmp_path: Path) -> None:
    src = tmp_path / "one.hip"
    src.write_text("__global__ void k(float* p) { p[0] *= 2.0f; }\n")
    out = tmp_path / "one.s"
    cmd = [HIP_CLANG, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib", "-S", "-o", str(out), str(src)]
    run = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"), timeout=120)
    assert run.returncode == 0, run.stderr
    targets = re.findall(r'\.amdgcn_target "([^"]+)"', out.read_text())
    assert targets == ["amdgcn-amd-amdhsa--gfx942"]


# --- HIP 7.1 headers (shipped in Triton's AMD backend), read as text -------------------------------


def _hip7_headers() -> Path | None:
    spec = importlib.util.find_spec("triton")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent / "backends" / "amd" / "include" / "hip"
    return root if (root / "hip_version.h").is_file() else None


def test_warp_sync_builtins_default_on_in_hip_7() -> None:
    root = _hip7_headers()
    if root is None:
        pytest.skip("Triton's AMD backend with HIP headers is not installed")
    version = (root / "hip_version.h").read_text()
    major = int(re.search(r"#define HIP_VERSION_MAJOR (\d+)", version).group(1))
    if major < 7:
        pytest.skip(f"bundled HIP headers are version {major}, the claim is about 7.x")
    sync = (root / "amd_detail" / "amd_warp_sync_functions.h").read_text()
    # On by default, off only with HIP_DISABLE_WARP_SYNC_BUILTINS; no opt-in macro any more.
    assert "#if !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)" in sync
    assert "HIP_ENABLE_WARP_SYNC_BUILTINS" not in sync
    assert "introduced in ROCm 6.2" in sync
    for name in ("__shfl_down_sync", "__ballot_sync", "__any_sync", "__match_any_sync", "__match_any", "__syncwarp",
                 "__reduce_add_sync", "__reduce_xor_sync"):
        assert re.search(rf"\b{name}\s*\(", sync), name
    # Masks are 64-bit on every target; the wider reduce types are opt-in.
    assert "sizeof(MaskT) == 8" in sync
    extra = sync.index("#ifdef HIP_ENABLE_EXTRA_WARP_SYNC_TYPES\n", sync.index("__reduce_xor_sync"))
    assert re.search(r"__reduce_min_sync\(MaskT mask, float val\)", sync[extra:])
    warp = (root / "amd_detail" / "amd_warp_functions.h").read_text()
    guard = warp.index("#if !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)")
    assert guard < warp.index("__activemask()") < warp.index("#endif", guard)
    assert "return __ballot(true);" in warp


# --- PTX (ptxas 13) --------------------------------------------------------------------------------


@needs_ptxas
def test_setmaxnreg_targets(tmp_path: Path) -> None:
    body = "setmaxnreg.inc.sync.aligned.u32 232;"
    for target in ("sm_90a", "sm_100a", "sm_100f", "sm_120a"):
        run = _ptxas(tmp_path, target, body)
        assert run.returncode == 0, (target, run.stderr)
    for target in ("sm_90", "sm_100"):
        run = _ptxas(tmp_path, target, body)
        assert run.returncode != 0 and "not supported on .target" in run.stderr, target


@needs_ptxas
def test_wgmma_is_sm90a_only(tmp_path: Path) -> None:
    body = "wgmma.fence.sync.aligned;"
    assert _ptxas(tmp_path, "sm_90a", body).returncode == 0
    for target in ("sm_90", "sm_100a", "sm_120a"):
        run = _ptxas(tmp_path, target, body)
        assert run.returncode != 0 and "not supported on .target" in run.stderr, target


# --- MLX on the CPU and Triton's Gluon ------------------------------------------------------------


@pytest.mark.slow
def test_mlx_mxfp8_quantized_matmul() -> None:
    mx = pytest.importorskip("mlx.core")
    assert not [d for d in dir(mx) if "float8" in d.lower()], "MLX now has an fp8 dtype: update fp8-formats"
    assert hasattr(mx, "to_fp8") and hasattr(mx, "from_fp8")
    mx.random.seed(0)
    w = mx.random.normal((64, 128))
    x = mx.random.normal((4, 128))
    wq, scales = mx.quantize(w, group_size=32, bits=8, mode="mxfp8")[:2]
    y = mx.quantized_matmul(x, wq, scales, None, transpose=True, group_size=32, bits=8, mode="mxfp8")
    ref = x @ w.T
    rel = float(mx.sqrt(mx.sum((y - ref) ** 2)) / mx.sqrt(mx.sum(ref**2)))
    assert y.shape == (4, 64) and rel < 0.1, rel  # E4M3 keeps ~2 significant digits


@pytest.mark.slow
def test_gluon_amd_modules() -> None:
    pytest.importorskip("triton")
    try:
        from triton.experimental.gluon import language as gl
        from triton.experimental.gluon.language.amd.cdna4 import async_copy
        from triton.experimental.gluon.language.amd.cdna5 import cluster, mbarrier, tdm
    except ImportError as exc:  # an older Triton without these Gluon modules
        pytest.skip(f"Gluon's AMD modules are not in this Triton: {exc}")
    assert all(hasattr(mbarrier, f) for f in ("init", "arrive", "wait"))
    assert all(hasattr(cluster, f) for f in ("arrive", "wait"))
    assert hasattr(async_copy, "global_load_to_shared") and hasattr(async_copy, "buffer_load_to_shared")
    assert tdm is not None
    for layout in ("SwizzledSharedLayout", "PaddedSharedLayout", "NVMMASharedLayout"):
        assert hasattr(gl, layout), layout


# --- every AMDGPU builtin the glossary's concepts name ---------------------------------------------

# Named in the glossary on purpose as not existing (a doc page named it; clang never had it).
BUILTINS_THAT_DO_NOT_EXIST = {"__builtin_amdgcn_async_work_group_copy"}
# gfx950 builtins that arrived after clang 19 (clang 19 does not know gfx950 at all).
# Builtins of clang releases after 19, named by cards that say so: gfx950's scaled MFMA, the buffer load
# into LDS (upstream clang's builtins-amdgcn-raw-ptr-buffer-load-lds tests) and gfx1250's Tensor Data Mover
# (upstream clang's gfx1250 Sema tests).
BUILTINS_NEWER_THAN_CLANG_19 = {"__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4", "__builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4",
                                "__builtin_amdgcn_raw_ptr_buffer_load_lds", "__builtin_amdgcn_tensor_load_to_lds",
                                "__builtin_amdgcn_tensor_store_from_lds",
                                "__builtin_amdgcn_permlane16_swap"}  # clang 20 (llvm-project PR 117260, gfx950)
CLANG_19_TARGETS = ("gfx90a", "gfx942", "gfx1100", "gfx1201")


@pytest.mark.slow
@needs_clang
def test_hip_builtins_named_in_the_glossary_exist() -> None:
    """A builtin named in any concept's prose or symbols is one clang knows for some AMD target.

    `__has_builtin` answers per target (it honours the target features), so a builtin is checked on
    the clang 19 targets and counts as existing if one of them has it.
    """
    from conftest import GLOSSARY, clang_builtins

    # The builtin name lists (glossary/vocabulary/) have their own proof, per target and wavefront size.
    text = "\n".join(p.read_text() for p in sorted(GLOSSARY.glob("*/*.yaml")) if p.parent.name not in ("api", "symbols", "vocabulary"))
    named = set(re.findall(r"__builtin_amdgcn_[A-Za-z0-9_]+", text)) - BUILTINS_NEWER_THAN_CLANG_19
    named = {n for n in named if not n.endswith("_")}  # prefixes such as __builtin_amdgcn_mfma_*
    assert len(named) > 15
    have = clang_builtins(HIP_CLANG, sorted(named), CLANG_19_TARGETS)
    assert named - have == BUILTINS_THAT_DO_NOT_EXIST


@pytest.mark.slow
def test_mlx_and_triton_names_in_the_glossary_exist() -> None:
    """Every mx.* and tl.* name in the concepts' prose and symbols resolves in the installed MLX and Triton."""
    import importlib

    from conftest import GLOSSARY

    mx = pytest.importorskip("mlx.core")
    tl = pytest.importorskip("triton.language")
    # The vocabulary files' names are proven against the packages by tests/test_vocabulary.py.
    text = "\n".join(p.read_text() for p in sorted(GLOSSARY.glob("*/*.yaml")) if p.parent.name not in ("api", "symbols", "vocabulary"))
    found = {n.rstrip(".") for n in re.findall(r"\b(?:mx|tl)\.[A-Za-z_][A-Za-z_0-9.]*", text)}
    names = {n for n in found if not n.endswith("_")}  # prefixes such as tl.atomic_*
    assert len(names) > 50
    missing = []
    for name in sorted(names):
        obj = {"mx": mx, "tl": tl}[name.split(".")[0]]
        for part in name.split(".")[1:]:
            if hasattr(obj, part):
                obj = getattr(obj, part)
                continue
            try:  # a submodule not imported by its package (mx.fast, mx.distributed ...)
                obj = importlib.import_module(f"{obj.__name__}.{part}")
            except (ImportError, AttributeError):
                missing.append(name)
                break
    assert not missing, missing


# --- claims checked in the 2026-12-01 audit --------------------------------------------------------

NVCC = tools.nvcc()


@needs_ptxas
def test_ldmatrix_stmatrix_targets(tmp_path: Path) -> None:
    """ldmatrix from sm_75 (ptxas 13's oldest target), stmatrix only from sm_90."""
    load = ".reg .b32 r<4>; .reg .b64 a; .shared .align 16 .b8 s[512]; mov.u64 a, s;\n  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0,r1,r2,r3}, [a];"
    store = ".reg .b32 r<1>; .reg .b64 a; .shared .align 16 .b8 s[512]; mov.u64 a, s; mov.b32 r0, 0;\n  stmatrix.sync.aligned.m8n8.x1.shared.b16 [a], {r0};"
    assert _ptxas(tmp_path, "sm_75", load).returncode == 0
    assert _ptxas(tmp_path, "sm_90", store).returncode == 0
    old = _ptxas(tmp_path, "sm_89", store)
    assert old.returncode != 0 and "requires .target sm_90 or higher" in old.stderr


@pytest.mark.slow
@needs_clang
def test_mfma_mnemonic_by_target(tmp_path: Path) -> None:
    source = """typedef float v16f __attribute__((ext_vector_type(16)));
typedef _Float16 v4h __attribute__((ext_vector_type(4)));
__global__ void k(v16f* o, v4h a) { o[0] = __builtin_amdgcn_mfma_f32_32x32x8f16(a, a, o[0], 0, 0, 0); }
"""
    seen = {}
    for arch in ("gfx90a", "gfx942"):
        run = _hip_compile(tmp_path, source, arch)
        assert run.returncode == 0, run.stderr
        seen[arch] = re.findall(r"\bv_mfma_\w+", (tmp_path / "claim.s").read_text())[:1]
    assert seen == {"gfx90a": ["v_mfma_f32_32x32x8f16"], "gfx942": ["v_mfma_f32_32x32x8_f16"]}


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="no nvcc on this machine")
def test_float4_copy_is_128_bit(tmp_path: Path) -> None:
    src = tmp_path / "v.cu"
    src.write_text("__global__ void k(float4* o, const float4* i) { o[threadIdx.x] = i[threadIdx.x]; }\n")
    out = tmp_path / "v.ptx"
    run = subprocess.run([NVCC, "-arch=sm_90a", "-ptx", str(src), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    ptx = out.read_text()
    assert re.search(r"ld\.global(\.nc)?\.v4\.(u32|f32|b32)", ptx) and re.search(r"st\.global\.v4\.(u32|f32|b32)", ptx)


@pytest.mark.slow
def test_mlx_quantize_modes() -> None:
    mx = pytest.importorskip("mlx.core")
    w = mx.random.normal((64, 64))
    assert len(mx.quantize(w, group_size=64, bits=4)) == 3  # affine: weights, scales, biases
    for mode in ("mxfp4", "mxfp8", "nvfp4"):
        assert len(mx.quantize(w, mode=mode)) == 2, mode  # block-scaled: weights and scales, no biases


@pytest.mark.slow
def test_triton_dot_lowers_to_mfma_and_wgmma() -> None:
    """Triton AOT (no device): tl.dot becomes MFMA for gfx942 (wave64) and wgmma for capability 9.0."""
    pytest.importorskip("triton")
    from xlate.kernels.triton_aot import compile_kernel

    src = Path(__file__).parent / "data" / "claims" / "triton_dot.py"
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"}
    amdgcn = compile_kernel(src, "dot_kernel", sig, {"BLOCK": 64}, "hip")
    assert re.search(r"\bv_mfma_f32_\w+", amdgcn)
    assert re.search(r"\.wavefront_size:\s+64\b", amdgcn)  # code object metadata: wave64
    ptx = compile_kernel(src, "dot_kernel", sig, {"BLOCK": 64}, "cuda")
    assert ".target sm_90a" in ptx and "wgmma.mma_async" in ptx


# --- on an NVIDIA GPU ------------------------------------------------------------------------------

PROPS_RECORD = Path(__file__).parent / "data" / "claims" / "h200_props.json"


def _check_hopper_props(props: dict) -> None:
    """The figures the glossary states for Hopper SMs, clusters and constant memory."""
    assert props["cc"] == 90 and props["warp"] == 32
    assert props["smemSM"] == 228 * 1024  # 228 KB of shared memory per SM
    assert props["smemOptin"] == 227 * 1024 and props["smemBlock"] == 48 * 1024  # 227 KB per block with opt-in
    assert props["regsSM"] == 64 * 1024  # 64K 32-bit registers per SM
    assert props["const"] == 64 * 1024
    assert props["thrSM"] == 2048  # 64 warps per SM
    assert props["clusterPortable"] == 8 and props["clusterNonPortable"] == 16


def _check_sheet(props: dict, sheet_id: str) -> None:
    """The glossary's spec sheet states the figures the device reported: an edit of the sheet that
    disagrees with the recorded run fails here."""
    from xlate import kb

    sheet = kb.gpu_sheets()[sheet_id]
    assert sheet.value("compute_units") == props["sms"], "compute_units"
    assert sheet.value("wave_size") == props["warp"], "wave_size"
    assert sheet.value("shared_memory_per_cu_kb") * 1024 == props["smemSM"], "shared_memory_per_cu_kb"
    assert sheet.value("l2_cache_mb") * 2**20 == props["l2"], "l2_cache_mb (MiB, as the device reports it)"


def test_recorded_h200_run_supports_the_claims() -> None:
    """The run recorded on the H200 (see the file) still says what the glossary says: the Hopper SM
    figures of the concept pages, and the H200 sheet's own figures."""
    props = json.loads(PROPS_RECORD.read_text())
    assert props["name"].startswith("NVIDIA H200")
    _check_hopper_props(props)
    _check_sheet(props, "h200")


@pytest.mark.gpu
@pytest.mark.skipif(NVCC is None, reason="no nvcc on this machine")
def test_h200_device_properties(tmp_path: Path) -> None:
    import shutil

    smi = shutil.which("nvidia-smi")
    if smi is None or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
        pytest.skip("no NVIDIA GPU on this machine")
    exe = tmp_path / "props"
    src = Path(__file__).parent / "data" / "claims" / "device_props.cu"
    subprocess.run([NVCC, "-arch=sm_90a", "-o", str(exe), str(src)], check=True, timeout=300)
    props = json.loads(subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout)
    if props["cc"] != 90:
        pytest.skip(f"{props['name']} is not a Hopper GPU")
    _check_hopper_props(props)
    if props["name"].startswith("NVIDIA H200"):
        _check_sheet(props, "h200")


@pytest.mark.slow
@needs_clang
def test_gfx942_fence_cache_maintenance(tmp_path: Path) -> None:
    """An agent-scope fence writes back and invalidates L2 on gfx942; a workgroup-scope fence adds nothing."""
    source = """__global__ void agent(int* p) { p[0] = 1; __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); p[1] = 2; }
__global__ void group(int* p) { p[0] = 1; __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); p[1] = 2; }
"""
    run = _hip_compile(tmp_path, source, "gfx942")
    assert run.returncode == 0, run.stderr
    asm = (tmp_path / "claim.s").read_text()
    agent = asm[asm.index("_Z5agentPi:"):asm.index("s_endpgm", asm.index("_Z5agentPi:"))]
    group = asm[asm.index("_Z5groupPi:"):asm.index("s_endpgm", asm.index("_Z5groupPi:"))]
    assert "buffer_wbl2 sc1" in agent and "buffer_inv sc1" in agent
    assert "buffer_wbl2" not in group and "buffer_inv" not in group


def test_hip_7_header_facts() -> None:
    """Facts the warp and fence cards take from the HIP 7.1 headers."""
    root = _hip7_headers()
    if root is None:
        pytest.skip("Triton's AMD backend with HIP headers is not installed")
    warp = (root / "amd_detail" / "amd_warp_functions.h").read_text()
    device = (root / "amd_detail" / "amd_device_functions.h").read_text()
    # warpSize is an object converting through __builtin_amdgcn_wavefrontsize(), not a constexpr int.
    assert re.search(r"operator int\(\) const noexcept \{\s*return __builtin_amdgcn_wavefrontsize\(\);\s*\}\s*\} warpSize\{\};", warp)
    assert "unsigned long long int __ballot(int predicate)" in warp
    assert "__builtin_amdgcn_ds_bpermute" in warp
    assert '__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent")' in device  # __threadfence
    assert re.search(r'__threadfence_block\(\) \{\s*__builtin_amdgcn_fence\(__ATOMIC_SEQ_CST, "workgroup"\);', device)
