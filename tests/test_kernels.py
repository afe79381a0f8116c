"""The kernel gallery: every example on every backend this machine can show.

Fast tests check the data and the runner's plumbing. Slow tests are the verification matrix:
nvcc for sm_90a with SASS inspected, clang for gfx942/gfx90a/gfx1100 with AMDGCN inspected,
Triton in the CPU interpreter against NumPy and compiled ahead of time for both vendors, MLX on
the CPU against NumPy. Metal runs only on Apple silicon; GPU runs only where a GPU is present.
"""

from __future__ import annotations

import os

# Triton's interpreter must be chosen before Triton is first imported in this process (its own
# helpers are compiled at import); nothing in this file runs Triton on a GPU.
os.environ.setdefault("TRITON_INTERPRET", "1")

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from xlate.kernels import backends, evidence, problems, runner, specs, tools  # noqa: E402
from xlate.kernels.examples import BACKENDS, ExampleError, kernels_root, load, names  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAMES = names()
EVIDENCE = sorted((REPO / "kernels" / "evidence").glob("*.json"))


@pytest.fixture(autouse=True)
def _private_caches(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.getbasetemp()
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(base / "triton-cache"))


# --- data and plumbing (fast) -------------------------------------------------------------------


def test_at_least_eight_examples_cover_the_required_topics() -> None:
    required = {"vector-add", "reduction", "transpose", "histogram", "scan", "softmax", "rmsnorm", "gemm", "streams"}
    assert required <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_backend_has_a_file_or_a_reason(name: str) -> None:
    ex = load(name)
    for backend in BACKENDS:
        if backend in ex.absent:
            assert len(ex.absent[backend]) > 40 and not ex.source(backend).exists()
        else:
            assert ex.source(backend).is_file(), f"{name}: missing {ex.source(backend).name}"
    assert ex.teaches and ex.tolerance >= 0 and ex.metric in ("bandwidth", "compute", "host-link", "launch")
    assert ex.expect.get("sass") and ex.expect.get("amdgcn")


def test_hip_files_are_not_renamed_cuda() -> None:
    """Each HIP file is written for AMD: no CUDA runtime calls or masked shuffles, and the ones whose
    code depends on the lane count read the wavefront width rather than assuming 32 lanes."""
    import re

    wave_aware = set()
    for name in NAMES:
        text = load(name).source("hip").read_text(encoding="utf-8")
        assert not re.search(r"\bcuda[A-Z]\w*", text), f"{name}: CUDA runtime call in the HIP file"
        assert not re.search(r"__shfl\w*_sync\b", text), f"{name}: CUDA's masked shuffles in the HIP file"
        if re.search(r"warpSize|__AMDGCN_WAVEFRONT_SIZE|lane = threadIdx.x % 64", text):
            wave_aware.add(name)
    # every example whose code depends on the lane count (cross-lane work, MFMA operand layout)
    assert {"reduction", "scan", "softmax", "rmsnorm", "gemm"} <= wave_aware


def test_size_parsing() -> None:
    ex = load("transpose")
    assert ex.parse_size("64x32") == (64, 32)
    assert ex.parse_size(None, "cpu") == ex.sizes["cpu"]
    for bad in ("64", "axb", "0x4", "-1x3", "1x2x3"):
        with pytest.raises(ExampleError):
            ex.parse_size(bad)


def test_bad_requests_are_clear_errors() -> None:
    with pytest.raises(ExampleError, match="no example named"):
        runner.run("no-such-example", "cuda")
    with pytest.raises(ExampleError, match="unknown backend"):
        runner.run("reduction", "opencl")


def test_streams_has_no_triton_version_and_says_why() -> None:
    out = runner.run("streams", "triton")
    assert out.status == runner.SKIPPED and "host runtime" in out.cell


def test_bf16_rounding_is_round_to_nearest_even() -> None:
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5, 3.0e38], dtype=np.float32)
    back = problems.from_bf16_bits(problems.to_bf16_bits(x))
    assert back[0] == 1.0 and back[1] == 1.0 and back[2] == 1.015625 and back[3] == -2.5
    assert np.isfinite(back[4])


def test_comparison_rejects_nan_and_wrong_values() -> None:
    ref = {"y": np.arange(4, dtype=np.float64)}
    assert runner._compare({"y": np.arange(4, dtype=np.float32)}, ref) == (0.0, 0.0)
    assert runner._compare({"y": np.array([0, 1, np.nan, 3], dtype=np.float32)}, ref)[1] == float("inf")
    assert runner._compare({"y": np.array([0, 1, 2, 4], dtype=np.float32)}, ref)[1] > 0.2


def test_spec_sheet_lookup_reads_plain_yaml() -> None:
    from xlate import kb

    spec = specs.find("NVIDIA H200")
    sheet = kb.gpu_sheets()["h200"]  # the runner's light reader gives the sheet's own figures
    assert spec is not None and spec.id == "h200"
    assert spec.bandwidth_tbs == sheet.value("memory_bandwidth_tbs") and spec.bf16_tflops == sheet.value("bf16_dense_tflops")
    other = specs.find("NVIDIA H100 80GB HBM3")
    assert other is not None and other.id == "h100-sxm"  # the name the driver reports for the SXM part
    assert specs.find("Some Unknown GPU 9000") is None


def test_gpu_path_does_not_import_pydantic() -> None:
    code = ("import sys; import xlate.kernels.runner, xlate.kernels.commands; "
            "bad = [m for m in ('pydantic', 'rapidfuzz', 'tree_sitter', 'mlx') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- evidence stays fresh (fast) ----------------------------------------------------------------


def test_gpu_evidence_exists_for_every_cuda_and_triton_example() -> None:
    recorded = {(json.loads(p.read_text())["example"], json.loads(p.read_text())["backend"]) for p in EVIDENCE}
    for name in NAMES:
        ex = load(name)
        for backend in ("cuda", "triton"):
            if ex.has(backend):
                assert (name, backend) in recorded, f"no GPU evidence for {name} [{backend}]"


@pytest.mark.parametrize("path", EVIDENCE, ids=[p.name for p in EVIDENCE])
def test_evidence_matches_its_sources(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    assert evidence.staleness(path, record, REPO) is None, f"{path.name} is stale: re-run it on the GPU"
    assert record["device"]["name"] and record["device"].get("driver")
    if record["backend"] != "bench":
        assert record["rel_err"] <= record["tolerance"]
        assert record["time_ms_median"] > 0 and record["throughput"]["value"] > 0


BENCH = [p for p in EVIDENCE if p.name.startswith("bench--")]


@pytest.mark.parametrize("path", BENCH, ids=[p.name for p in BENCH])
def test_recorded_benchmarks_meet_the_performance_floors(path: Path) -> None:
    """Each floor compares a kernel with a reference measured in the same process on the same GPU."""
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["runs"], path.name
    for run in record["runs"]:
        if run["status"] == "skipped":
            continue
        assert run["status"] == "shown", run
        if run["floor"] is not None:
            ref = record["references"][run["reference"]]
            assert run["ratio"] == pytest.approx(run["throughput"] / ref["value"])
            assert run["ratio"] >= run["floor"], f"{run['example']} [{run['backend']}] below its floor"


def test_every_required_floor_was_measured() -> None:
    floors = {(r["example"], r["backend"]) for p in BENCH for r in json.loads(p.read_text())["runs"] if r["floor"]}
    assert {("vector-add", "cuda"), ("vector-add", "triton"), ("reduction", "cuda"), ("transpose", "cuda"),
            ("softmax", "triton"), ("rmsnorm", "triton"), ("gemm", "triton")} <= floors


def test_staleness_is_detected(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("int x;\n")
    record = {"sources": evidence.hashes([src], tmp_path)}
    assert evidence.staleness(tmp_path / "e.json", record, tmp_path) is None
    src.write_text("int y;\n")
    assert "changed" in evidence.staleness(tmp_path / "e.json", record, tmp_path)
    src.unlink()
    assert "no longer exists" in evidence.staleness(tmp_path / "e.json", record, tmp_path)


# --- the verification matrix (slow) --------------------------------------------------------------

needs_nvcc = pytest.mark.skipif(tools.nvcc() is None or tools.cuobjdump() is None, reason="nvcc and cuobjdump needed")
needs_clang = pytest.mark.skipif(tools.hip_clang() is None, reason="clang-19 with HIP headers needed")


@pytest.mark.slow
@needs_nvcc
@pytest.mark.parametrize("name", NAMES)
def test_cuda_compiles_for_sm90a_with_expected_sass(name: str) -> None:
    ex = load(name)
    sass = backends.sass(backends.cuda_cubin(ex, "90a"))
    present, missing = backends.found_instructions(sass, ex.expect["sass"])
    assert not missing, f"{name}: SASS lacks {missing}"


@pytest.mark.slow
@needs_clang
@pytest.mark.parametrize("arch", ["gfx942", "gfx90a"])
@pytest.mark.parametrize("name", NAMES)
def test_hip_compiles_for_cdna_with_expected_amdgcn(name: str, arch: str) -> None:
    ex = load(name)
    try:
        asm = backends.hip_asm(ex, arch)
    except backends.Unavailable as exc:  # a hipCUB file where the ROCm 6.4 headers are not unpacked
        pytest.skip(str(exc))
    present, missing = backends.found_instructions(asm, backends.expected_amdgcn(ex, arch))
    assert not missing, f"{name} {arch}: assembly lacks {missing}"


@pytest.mark.slow
@needs_clang
@pytest.mark.parametrize("name", NAMES)
def test_hip_host_code_type_checks_against_the_headers(name: str) -> None:
    """The HIP runtime, stream, event and graph calls are checked by clang's host pass, not only
    found as words in the file."""
    try:
        backends.hip_host_check(load(name))
    except backends.Unavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.slow
@needs_clang
def test_hip_host_check_rejects_a_misspelled_runtime_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    kernels = tmp_path / "kernels"
    shutil.copytree(REPO / "kernels" / "common", kernels / "common")
    shutil.copytree(REPO / "kernels" / "examples" / "vector-add", kernels / "examples" / "vector-add")
    src = kernels / "examples" / "vector-add" / "vector_add.hip"
    src.write_text(src.read_text().replace("hipMemcpy(", "hipMemcopy(", 1))
    monkeypatch.setenv("XLATE_KERNELS", str(kernels))
    with pytest.raises(backends.BuildError, match="hipMemcopy"):
        backends.hip_host_check(load("vector-add"))


def test_hip_files_that_include_hipcub_need_the_rocm_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ROCm 6.4 headers a hipCUB example is unavailable, with the reason, not a compile
    error; the others fall back to the system headers. With them, every file gets the same -I."""
    monkeypatch.setenv("XLATE_ROCM_INCLUDE", str(tmp_path / "nowhere"))
    with pytest.raises(backends.Unavailable, match="hipCUB/rocPRIM.*holds no hip/hip_version.h"):
        backends.hip_headers(load("scan"))
    assert backends.hip_headers(load("reduction")) == ([], "system HIP headers")
    (tmp_path / "inc" / "hip").mkdir(parents=True)
    (tmp_path / "inc" / "hip" / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n#define HIP_VERSION_PATCH 43484\n")
    monkeypatch.setenv("XLATE_ROCM_INCLUDE", str(tmp_path / "inc"))
    for name in ("scan", "reduction"):
        assert backends.hip_headers(load(name)) == (["-I", str(tmp_path / "inc")], "HIP 6.4.43484 headers")


def test_library_warp_collectives_and_cache_hints_are_asserted_in_the_amdgcn() -> None:
    """The HIP cells added for warp-reduce, warp-scan, l1-cache, l2-cache and quad each name an
    instruction the compile must show, so the link cannot outlive the code that makes it true."""
    assert {"v_mov_b32_dpp", "row_bcast:31"} <= set(load("rmsnorm").expect["amdgcn"])  # hipcub::WarpReduce
    assert {"v_mov_b32_dpp", "row_shr:2"} <= set(load("scan").expect["amdgcn"])  # hipcub::WarpScan
    grid = load("grid-sync")
    assert grid.expect["amdgcn_gfx942"] == ["off sc1"] and grid.expect["amdgcn_gfx90a"] == ["off glc"]
    add = load("vector-add")
    assert add.expect["amdgcn_gfx942"] == ["off nt"] and add.expect["amdgcn_gfx90a"] == ["off glc slc"]
    reduction = load("reduction")  # DPP quad permutes, on CDNA and on RDNA
    for key in ("amdgcn", "amdgcn_gfx1100"):
        assert {"v_add_f32_dpp", "quad_perm:[1,0,3,2]"} <= set(reduction.expect[key])
    links = {(c["concept"], ex): c["symbols"].get("hip")
             for ex in ("rmsnorm", "scan", "grid-sync", "vector-add", "reduction") for c in load(ex).concepts}
    assert links[("quad", "reduction")] == "__builtin_amdgcn_update_dpp"
    assert links[("warp-reduce", "rmsnorm")] == "hipcub::WarpReduce"
    assert links[("warp-scan", "scan")] == "hipcub::WarpScan"
    assert links[("l1-cache", "grid-sync")] == "__hip_atomic_load"  # the load that skips the vector L1, as __ldcg does (sc1 / glc)
    assert links[("l2-cache", "vector-add")] == "__builtin_nontemporal_store"


@pytest.mark.slow
@needs_clang
def test_hip_reduction_compiles_for_wave32_rdna() -> None:
    ex = load("reduction")
    asm = backends.hip_asm(ex, "gfx1100")
    assert not backends.found_instructions(asm, ex.expect["amdgcn_gfx1100"])[1]
    assert ".amdhsa_wavefront_size32 1" in asm
    assert ".amdhsa_wavefront_size32 1" not in backends.hip_asm(ex, "gfx942")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in NAMES if load(n).has("triton")])
def test_triton_interpreted_on_cpu_matches_numpy(name: str) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    out = runner.run(name, "triton", interpret=True, record=False)
    assert out.status == runner.SHOWN, out.cell
    assert out.where == "interpreted on CPU" and out.rel_err <= load(name).tolerance


@pytest.mark.slow
@pytest.mark.parametrize("target,wanted", [("cuda", "wgmma.mma_async"), ("hip", "v_mfma_f32_32x32x8")])
def test_triton_gemm_compiles_ahead_of_time_for_both_vendors(target: str, wanted: str) -> None:
    pytest.importorskip("triton")
    from xlate.kernels import triton_aot

    ex = load("gemm")
    aot = ex.raw["triton_aot"]
    text = triton_aot.compile_kernel(ex.source("triton"), aot["kernel"], aot["signature"], aot["constexprs"], target)
    assert wanted in text


@pytest.mark.slow
def test_ast_source_signature_matches_this_triton() -> None:
    triton = pytest.importorskip("triton")
    from xlate.kernels import triton_aot

    module = triton_aot._load_compiled(load("vector-add").source("triton"))
    src = triton_aot.make_source(module.add_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "n": "i32"},
                                 {"BLOCK": 1024})
    assert src.name == "add_kernel", triton.__version__



def _compile_probe(script: str, source: Path) -> Any:
    """Runs a Triton AOT compile script on one example file in a fresh process (the interpreter, once
    used, patches triton.language in the process that ran it) and returns the JSON it printed last."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(REPO / "src")
    proc = subprocess.run([sys.executable, "-c", script, str(source)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])

@pytest.mark.slow
def test_triton_num_ctas_compiles_to_a_cluster_kernel_for_sm90() -> None:
    """cluster_histogram_triton.py's thread-block-cluster cell is its num_ctas launch option: compiled
    for sm_90 with num_ctas=2 the kernel declares a two-CTA cluster and reads its cluster rank, and
    with num_ctas=1 it does neither. Compiled in a fresh process: this one runs the interpreter."""
    pytest.importorskip("triton")
    script = (
        "import sys, json\n"
        "import triton\n"
        "from pathlib import Path\n"
        "from triton.backends.compiler import GPUTarget\n"
        "from xlate.kernels.triton_aot import _load_compiled, make_source\n"
        "m = _load_compiled(Path(sys.argv[1]))\n"
        "src = make_source(m.histogram_kernel, {'keys_ptr': '*u16', 'bins_ptr': '*i32', 'n': 'i32'}, {'BLOCK': 4096})\n"
        "out = {}\n"
        "for ctas in (1, m.CLUSTER_CTAS):\n"
        "    k = triton.compile(src, target=GPUTarget('cuda', 90, 32), options={'num_ctas': ctas, 'num_warps': 8})\n"
        "    out[ctas] = k.asm['ptx']\n"
        "print(json.dumps(out))\n")
    ptx = _compile_probe(script, load("cluster-histogram").source("triton"))
    assert ".reqnctapercluster 2" in ptx["2"] and "%cluster_ctarank" in ptx["2"]
    assert ".reqnctapercluster" not in ptx["1"] and "%cluster_ctarank" not in ptx["1"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_mlx_on_cpu_matches_numpy(name: str) -> None:
    pytest.importorskip("mlx.core")
    out = runner.run(name, "mlx")
    assert out.status == runner.SHOWN, out.cell
    assert "(MLX)" in out.where and out.rel_err <= load(name).tolerance


@pytest.mark.parametrize("name", NAMES)
def test_metal_bodies_build_into_mlx_kernels(name: str) -> None:
    """Constructing the kernel object works everywhere; running it needs Metal (next test)."""
    mx = pytest.importorskip("mlx.core")
    ex = load(name)
    body = ex.source("metal").read_text(encoding="utf-8")
    if ex.native_host is not None:  # a whole library for the native host, not a body for MLX
        pytest.skip(f"{ex.source('metal').name} is loaded by {ex.native_host.name}, not by mx.fast.metal_kernel")
    assert body.strip() and "kernel void" not in body  # a body: MLX writes the signature
    kernel = mx.fast.metal_kernel(name=name.replace("-", "_"), input_names=["x"], output_names=["y"], source=body)
    assert callable(kernel)


@pytest.mark.metal
@pytest.mark.skipif(not tools.metal_available(), reason="Metal needs Apple silicon; not run on this machine")
@pytest.mark.parametrize("name", NAMES)
def test_metal_runs_and_matches_numpy(name: str) -> None:
    out = runner.run(name, "metal")
    assert out.status == runner.SHOWN, out.cell


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(tools.nvidia_device() is None, reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("name", NAMES)
def test_cuda_runs_on_the_gpu(name: str) -> None:
    out = runner.run(name, "cuda", size_text=None, record=False)
    assert out.status == runner.SHOWN, out.cell


@pytest.mark.slow
def test_verify_prints_every_cell_except_metal_and_gpu_as_shown() -> None:
    import re

    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "xlate", "kernels", "verify"], capture_output=True, text=True,
                          env=env, timeout=900, cwd=REPO)
    matrix = proc.stdout
    cells: dict[tuple[str, str], str] = {}
    example = None
    for line in matrix.splitlines():
        if line and not line.startswith(" ") and "shown," not in line:
            example = line.strip()
        elif line.startswith("  ") and example:
            backend, rest = line.split(None, 1)
            cells[(example, backend)] = rest
    assert {e for e, _ in cells} == set(NAMES), matrix
    from xlate.hip_headers import find_rocm_headers

    rocm_headers = find_rocm_headers()
    for name in NAMES:
        ex = load(name)
        assert cells[(name, "cuda")].startswith("ok   compiled sm_90a"), cells[(name, "cuda")]
        if rocm_headers is None and name in ("scan", "rmsnorm"):  # they include hipCUB
            assert cells[(name, "hip")].startswith("--   skipped: not compiled:"), cells[(name, "hip")]
        else:
            assert re.match(r"ok   compiled gfx942( \([^)]*\))?, gfx90a", cells[(name, "hip")]), cells[(name, "hip")]
        if ex.has("triton"):
            assert cells[(name, "triton")].startswith("ok   interpreted on CPU, max err"), cells[(name, "triton")]
        else:
            assert cells[(name, "triton")].startswith("--   no triton version:")
        assert cells[(name, "mlx")].startswith("ok   ran on CPU (MLX), max err"), cells[(name, "mlx")]
        assert cells[(name, "metal")].startswith("--   skipped: no Metal")
        assert "FAIL" not in cells[(name, "evidence")] and "(fresh)" in cells[(name, "evidence")]
    assert "AOT sm_90 wgmma.mma_async, gfx942 v_mfma" in cells[("gemm", "triton")]
    assert "gfx1100" in cells[("reduction", "hip")]
    assert proc.returncode == 0, matrix


@pytest.mark.slow
def test_kernels_cli_reports_bad_input_without_a_traceback() -> None:
    for args in (["run", "nope"], ["run", "gemm", "--size", "12"], ["run", "gemm", "-b", "sycl"], ["verify", "nope"],
                 ["run", "bezier", "-b", "mlx", "--size", "100x40"], ["run", "precision", "-b", "mlx", "--size", "101"]):
        proc = subprocess.run([sys.executable, "-m", "xlate", "kernels", *args], capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.startswith("error:"), proc.stderr


def test_kernels_root_is_the_repository_folder() -> None:
    assert kernels_root() == REPO / "kernels"


def test_recorded_evidence_has_every_field_and_goes_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    kernels = tmp_path / "kernels"
    shutil.copytree(REPO / "kernels" / "common", kernels / "common")
    shutil.copytree(REPO / "kernels" / "examples" / "vector-add", kernels / "examples" / "vector-add")
    monkeypatch.setenv("XLATE_KERNELS", str(kernels))
    ex = load("vector-add")
    out = runner.Outcome("vector-add", "cuda", runner.SHOWN, "", "ran on NVIDIA H200", (1024,), 0.0, 0.0, 1e-6, 0.01,
                         1200.0, "GB/s", 0.25, "NVIDIA H200 memory bandwidth")
    path = runner._record(ex, "cuda", out, seed=7)
    record = json.loads(path.read_text())
    assert path.parent == kernels / "evidence" and path.name == "vector-add--cuda--nvidia-h200.json"
    for key in ("device", "sources", "size", "max_abs_err", "rel_err", "time_ms_median", "throughput", "roofline"):
        assert key in record
    assert set(record["sources"]) == {"kernels/examples/vector-add/vector_add.cu", "kernels/common/harness.cuh"}
    assert evidence.stale(kernels) == []
    src = kernels / "examples" / "vector-add" / "vector_add.cu"
    src.write_text(src.read_text() + "\n// edited\n")
    assert [s.path.name for s in evidence.stale(kernels)] == [path.name]


@pytest.mark.slow
def test_verify_json_for_one_example() -> None:
    proc = subprocess.run([sys.executable, "-m", "xlate", "kernels", "verify", "streams", "--format", "json"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    cells = {c["backend"]: c for c in json.loads(proc.stdout)}
    assert set(cells) == {"cuda", "hip", "triton", "mlx", "metal", "evidence"}
    assert cells["triton"]["status"] == "skipped" and cells["evidence"]["status"] == "shown"


@pytest.mark.slow
@needs_nvcc
def test_tcgen05_probe_compiles_for_sm100a_only() -> None:
    """Blackwell's tcgen05 is compiled, never run: ptxas takes it for sm_100a and rejects it for sm_90a."""
    probe = REPO / "kernels" / "blackwell" / "tcgen05_probe.cu"
    out = Path(os.environ["XDG_CACHE_HOME"]) / "tcgen05.cubin"
    out.parent.mkdir(parents=True, exist_ok=True)
    ok = subprocess.run([tools.nvcc(), "-gencode=arch=compute_100a,code=sm_100a", "-cubin", "-o", str(out), str(probe)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "UTCHMMA" in backends.sass(out)
    bad = subprocess.run([tools.nvcc(), "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-o", str(out) + ".90",
                          str(probe)], capture_output=True, text=True)
    assert bad.returncode != 0 and "tcgen05" in bad.stderr


def test_new_examples_have_h200_evidence_with_same_run_references() -> None:
    """Each example added for the second round has a benchmark record whose runs were checked on the GPU."""
    for name in ("compaction", "atomics", "grid-sync", "graphs", "precision", "hopper-gemm", "bezier",
                 "cluster-histogram"):
        record = json.loads((REPO / "kernels" / "evidence" / f"bench--{name}--nvidia-h200.json").read_text())
        assert {r["backend"] for r in record["runs"] if r["status"] == "shown"} == {"cuda", "triton"}, name


def test_per_output_tolerances_apply_to_their_output_only() -> None:
    ex = load("precision")
    assert ex.raw["tolerances"] == {"mm": 5.0e-3} and ex.tolerance == 0
    assert runner._within(ex, {"h": (0.0, 0.0), "mm": (0.1, 1e-3)})
    assert not runner._within(ex, {"h": (1e-3, 1e-6), "mm": (0.1, 1e-3)})
    assert not runner._within(ex, {"h": (0.0, 0.0), "mm": (0.1, 1e-2)})


def test_compaction_outputs_are_compared_as_a_multiset() -> None:
    canonical = problems.PROBLEMS["compaction"].canonical
    out = canonical({"count": np.array([3], dtype=np.uint32), "y": np.array([3.0, 1.0, 2.0, np.nan], dtype=np.float32)})
    assert out["count"][0] == 3 and list(out["y"]) == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        canonical({"count": np.array([9], dtype=np.uint32), "y": np.zeros(4, dtype=np.float32)})


def test_fp8_reference_rounds_to_nearest_even() -> None:
    x = np.array([1.0625, 1.1875, 1.3125, 3.3], dtype=np.float32)  # 1.0625 and 1.3125 are E4M3 ties
    assert list(problems.round_mantissa(x, 3)) == [1.0, 1.25, 1.25, 3.25]


# --- the host runtime example: native Metal host, driver-API link, run-time modules (fast) ------


def test_a_native_metal_host_counts_for_metal_and_says_it_was_not_compiled() -> None:
    from xlate.examples_check import backend_files
    from xlate.kernels.examples import NATIVE_HOST_UNVERIFIED

    ex = load("runtime")
    assert ex.native_host is not None and ex.native_host.name == "runtime_host.mm"
    assert ex.native_host in backend_files(ex.folder, "metal")
    assert ex.native_host in backends.sources(ex, "metal") and ex.source("mlx") not in backends.sources(ex, "metal")
    assert load("graphs").native_host is None and load("graphs").source("mlx") in backends.sources(load("graphs"), "metal")
    library = ex.source("metal").read_text(encoding="utf-8")
    assert "kernel void stencil" in library and "[[threadgroup(0)]]" in library
    for path in (ex.native_host, ex.source("metal")):
        assert NATIVE_HOST_UNVERIFIED.casefold() in " ".join(path.read_text(encoding="utf-8").casefold().split())
    assert NATIVE_HOST_UNVERIFIED in ex.teaches
    if not tools.metal_available():
        out = runner.run("runtime", "metal")
        assert out.status == runner.SKIPPED and NATIVE_HOST_UNVERIFIED in out.cell


def test_runtime_has_no_triton_version_and_says_why() -> None:
    out = runner.run("runtime", "triton")
    assert out.status == runner.SKIPPED and "host runtime" in out.cell


def test_link_field_adds_libraries_and_falls_back_to_the_soname(monkeypatch: pytest.MonkeyPatch) -> None:
    assert backends.link_libraries(load("runtime")) == ["cuda"] and backends.link_libraries(load("graphs")) == []
    calls: list[list[str]] = []

    def fake_compile(cmd: list[str], env: dict[str, str] | None = None) -> str:
        calls.append(cmd)
        if "-lcuda" in cmd:
            raise backends.BuildError("nvcc failed:\n/usr/bin/ld: cannot find -lcuda: No such file or directory")
        return ""

    monkeypatch.setattr(backends, "_compile", fake_compile)
    monkeypatch.setattr(backends, "_soname_path", lambda lib: None)
    backends._link_with_sonames(["nvcc", "x.cu"], ["cuda", "m"])
    assert calls == [["nvcc", "x.cu", "-lcuda", "-lm"], ["nvcc", "x.cu", "-l:libcuda.so.1", "-lm"]]
    monkeypatch.setattr(backends, "_soname_path", lambda lib: f"/driver/lib{lib}.so.1")
    calls.clear()
    backends._link_with_sonames(["nvcc", "x.cu"], ["cuda"])
    assert calls[-1] == ["nvcc", "x.cu", "-Xlinker", "/driver/libcuda.so.1"]

    def other_error(cmd: list[str], env: dict[str, str] | None = None) -> str:
        raise backends.BuildError("nvcc failed:\nx.cu(3): error: identifier undefined")

    monkeypatch.setattr(backends, "_compile", other_error)
    with pytest.raises(backends.BuildError, match="identifier undefined"):
        backends._link_with_sonames(["nvcc", "x.cu"], ["cuda"])


def test_the_driver_soname_is_found_on_the_library_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A driver library mounted on LD_LIBRARY_PATH but unknown to the linker is linked by its path."""
    (tmp_path / "libxlatefake.so.1").write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", f"/nowhere:{tmp_path}")
    assert backends._soname_path("xlatefake") == str(tmp_path / "libxlatefake.so.1")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/nowhere")
    assert backends._soname_path("xlatefake") is None


def test_link_and_module_fields_reject_bad_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    kernels = tmp_path / "kernels"
    shutil.copytree(REPO / "kernels" / "examples" / "runtime", kernels / "examples" / "runtime")
    path = kernels / "examples" / "runtime" / "example.yaml"
    text = path.read_text(encoding="utf-8")
    monkeypatch.setenv("XLATE_KERNELS", str(kernels))
    assert backends.module_name(load("runtime"), "cuda") == "module.cubin"
    assert backends.module_name(load("runtime"), "hip") == "module.hsaco"
    assert backends.module_name(load("runtime"), "metal") is None
    path.write_text(text.replace("link: [cuda]", "link: [\"cuda; rm\"]"), encoding="utf-8")
    with pytest.raises(backends.BuildError, match="`link` must list library names"):
        backends.link_libraries(load("runtime"))
    path.write_text(text.replace("cuda: module.cubin", "cuda: ../module.cubin"), encoding="utf-8")
    with pytest.raises(backends.BuildError, match="plain file name"):
        backends.module_name(load("runtime"), "cuda")


def test_run_program_hands_the_program_its_module_file(tmp_path: Path) -> None:
    """The file protocol with an extra file: a stand-in program copies the module it was given to its output."""
    exe = tmp_path / "program"
    exe.write_text("#!" + sys.executable + "\n"
                   "import sys, pathlib\n"
                   "d = pathlib.Path(sys.argv[1])\n"
                   "(d / 'out_y.bin').write_bytes((d / 'module.cubin').read_bytes())\n"
                   "print('{\"ms\": 0.5}')\n", encoding="utf-8")
    exe.chmod(0o755)
    module = tmp_path / "built.cubin"
    np.arange(4, dtype=np.float32).tofile(module)
    out = backends.run_program(exe, load("runtime"), (4, 1), {"x": np.zeros(4, dtype=np.float32)}, 1, "here",
                               {"module.cubin": module})
    assert out.ms == 0.5 and list(out.outputs["y"]) == [0.0, 1.0, 2.0, 3.0]


def test_runtime_evidence_shows_every_host_path_ran_on_the_gpu() -> None:
    """The H200 run of runtime.cu went through the module lookup that must fail, one host callback
    per chunk and per replay, a captured graph of every chunk's six operations and a VMM mapping."""
    record = json.loads((REPO / "kernels" / "evidence" / "runtime--cuda--nvidia-h200.json").read_text())
    extras, chunks = record["extras"], record["size"]["chunks"]
    assert extras["expected_error"] == "CUDA_ERROR_NOT_FOUND"
    assert extras["callbacks"] >= chunks and extras["callbacks"] % chunks == 0
    assert extras["graph_nodes"] >= 6 * chunks  # copy, memset, kernel, kernel, copy, host node
    assert extras["vmm_granularity"] > 0 and extras["graph_speedup"] > 0 and extras["direct_ms"] > 0
    assert "stencil 256, finish 256 threads max" in extras["launch_bounds"]


_MAXNREG_PROBE = """
import json, sys, warnings
warnings.filterwarnings("ignore")
import triton
from pathlib import Path
from triton.backends.compiler import GPUTarget
from xlate.kernels import triton_aot
path = Path(sys.argv[1])
module = triton_aot._load_compiled(path)
sig = {name: "*fp64" for name in ("ctrl_ptr", "edges_ptr", "rule_ptr", "y_ptr", "area_ptr")}
sig.update(n="i32", degree="i32")
src = triton_aot.make_source(module.bezier_kernel, sig, {"BLOCK": module.BLOCK})
options = {"num_warps": 4, "maxnreg": module.MAXNREG}
ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options).asm["ptx"]
print(json.dumps({"maxnreg": module.MAXNREG, "ptx": ptx}))
"""


@pytest.mark.slow
def test_bezier_triton_launch_option_maxnreg_reaches_the_ptx() -> None:
    """The Triton file's launch bound: its maxnreg option becomes the PTX .maxnreg directive
    (compiled ahead of time for sm_90; the H200 run executes the same launch)."""
    pytest.importorskip("triton")
    out = _compile_probe(_MAXNREG_PROBE, load("bezier").source("triton"))
    assert f".maxnreg {out['maxnreg']}" in out["ptx"]
    assert "fma.rn.f64" in out["ptx"]  # the Horner steps run in float64


def test_bezier_reference_integrates_to_the_mean_of_the_control_points() -> None:
    """A Bernstein polynomial's integral over [0, 1] is the mean of its control points; the per-
    subinterval Gauss-Legendre integrals of the reference must add up to it."""
    p = problems.PROBLEMS["bezier"]
    x = p.make((3000, 15), np.random.default_rng(7))
    ref = p.reference(x)
    assert ref["y"].shape == (12000,) and ref["area"].shape == (3000,)
    assert ref["area"].sum() == pytest.approx(x["ctrl"].mean(), rel=1e-12, abs=1e-13)
    with pytest.raises(ValueError):
        p.make((10, problems.BEZIER_MAX_DEGREE + 1), np.random.default_rng(0))
