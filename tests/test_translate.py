"""`xlate translate`: the command line (outputs, trees, in place, bad input) and single rewrites."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlate import kb
from xlate.translate.cli import run
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

REPO = Path(__file__).resolve().parents[1]


def tr(code: str, name: str = "k.cu", **kw) -> tuple[str, dict]:
    result = translate_source(name, code.encode(), kb.load_symbols(), Options(**kw))
    assert result.text is not None
    return result.text.decode(), result.report.as_json()


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    opts = {"launch_syntax": "chevron"}
    out_at = args.index("-o") + 1 if "-o" in args else -1
    paths = [a for i, a in enumerate(args) if not a.startswith("-") and i != out_at]
    code = run(paths, "hip", *([None] if "-o" not in args else [args[args.index("-o") + 1]]),
               in_place="--in-place" in args, keep_extension="--keep-extension" in args, options=Options(**opts),
               summary="json", jobs=1, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- rewrites -----------------------------------------------------------------------------------

def test_names_in_code_are_renamed_and_comments_and_strings_are_not() -> None:
    text, rep = tr('// cudaMalloc here\nvoid f(void** p) { cudaMalloc(p, 4); puts("cudaFree"); }\n')
    assert "hipMalloc(p, 4)" in text and "// cudaMalloc here" in text and '"cudaFree"' in text
    assert rep["rewritten"]["identifier"] == 1


def test_a_name_only_a_naming_rule_derives_is_left_and_reported_unknown() -> None:
    entry = kb.load_symbols().get("cudaSomethingNobodyListed")
    assert entry is None or entry.kind == "derived"
    text, rep = tr("void f() { cudaSomethingNobodyListed(); }\n", name="k.cpp")
    assert "cudaSomethingNobodyListed()" in text
    if entry is not None:
        assert rep["unknown"] == {"cudaSomethingNobodyListed": 1}


def test_a_name_with_no_hip_equivalent_is_left_and_counted() -> None:
    smap = kb.load_symbols()
    none = next(n for n in smap.names() if n.startswith("cuda") and smap.get(n).hip_relation == "none" and n.isidentifier())
    text, rep = tr(f"void f() {{ {none}(); }}\n", name="k.cpp")
    assert f"{none}()" in text and rep["no_hip_equivalent"] == {none: 1}


def test_macro_tests_map_when_defined_is_asked_and_stay_when_the_value_is_compared() -> None:
    text, rep = tr("#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)\n#endif\n#ifdef CUDART_VERSION\n#endif\n"
                   "#if CUDART_VERSION >= 11000\n#endif\n#if __CUDA_ARCH__ >= 800\n#endif\n", name="x.h")
    assert "#if defined(__HIPCC__) && !defined(__HIP_DEVICE_COMPILE__)" in text
    assert "#ifdef HIP_VERSION" in text
    assert "#if CUDART_VERSION >= 11000" in text and "#if __CUDA_ARCH__ >= 800" in text
    assert rep["rewritten"]["macro-condition"] == 3
    assert rep["unknown"] == {"CUDART_VERSION (value test)": 1, "__CUDA_ARCH__ (value test)": 1}


def test_duplicate_hip_header_is_dropped_keeping_the_line() -> None:
    text, rep = tr("#include <cuda.h>\n#include <cuda_runtime.h>\nint x;\n", name="a.cpp")
    assert text == "#include <hip/hip_runtime.h>\n\nint x;\n"
    assert rep["rewritten"] == {"duplicate-header": 1, "header": 1}


def test_runtime_header_added_to_a_cu_file_after_its_guard() -> None:
    text, _ = tr("// doc\n#pragma once\n__global__ void k() {}\n")
    assert text == "// doc\n#pragma once\n#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    text, _ = tr("#ifndef K_H\n#define K_H\n__global__ void k() {}\n#endif\n")
    assert text.startswith("#ifndef K_H\n#define K_H\n#include <hip/hip_runtime.h>\n")
    text, rep = tr("__global__ void k() {}\n", name="k.cuh")
    assert "hip_runtime" not in text and not rep["rewritten"]


def test_event_create_with_flags_and_malloc_host_and_symbols() -> None:
    text, rep = tr("__constant__ int c;\nvoid f(cudaEvent_t e, float** p, int* h) {\n"
                   "  cudaEventCreate(&e, cudaEventBlockingSync);\n  cudaEventCreate(&e);\n"
                   "  cudaMallocHost(p, 16);\n  cudaMallocHost(p, 16, cudaHostAllocPortable);\n"
                   "  cudaMemcpyToSymbolAsync(c, h, 4, 0, cudaMemcpyHostToDevice, 0);\n  cudaGetSymbolAddress((void**)p, c);\n}\n")
    assert "hipEventCreateWithFlags(&e, hipEventBlockingSync);" in text and "hipEventCreate(&e);" in text
    assert "hipHostMalloc(p, 16, hipHostMallocDefault);" in text
    assert "hipHostMalloc(p, 16, hipHostMallocPortable);" in text
    assert "hipMemcpyToSymbolAsync(HIP_SYMBOL(c), h, 4, 0, hipMemcpyHostToDevice, 0);" in text
    assert "hipGetSymbolAddress((void**)p, HIP_SYMBOL(c));" in text
    assert rep["rewritten"]["HIP_SYMBOL"] == 2


def test_ggl_launch_of_a_template_kernel_with_renamed_arguments() -> None:
    text, rep = tr("template <int N> __global__ void k(cudaStream_t* s) {}\n"
                   "void f(cudaStream_t s) { k<4><<<dim3(2, 2), 64, 0, s>>>((cudaStream_t*)0); }\n",
                   launch_syntax="ggl")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<4>), dim3(2, 2), dim3(64), 0, s, (hipStream_t*)0);" in text
    assert rep["rewritten"]["launch-ggl"] == 1


def test_partial_mask_is_flagged_not_fixed_and_the_fix_is_in_the_summary() -> None:
    text, rep = tr("__global__ void k(float v, unsigned m) {\n  v = __shfl_down_sync(0xffffffff, v, 1);\n"
                   "  v = __shfl_down_sync(m, v, 1);\n}\n")
    assert "v = __shfl_down(v, 1);" in text and "__shfl_down_sync(m, v, 1)" in text
    assert "// xlate: XL011 warp-sync-mask:" in text
    assert sum(rep["fixed"].values()) == 1


WARP_SYNC = "HIP_ENABLE_WARP_SYNC_BUILTINS"


def test_a_kept_sync_call_gets_the_warp_sync_opt_in_macro_before_the_first_include() -> None:
    code = ("// header comment\n#include <cstdio>\n"
            "__global__ void k(unsigned long long* o, int p) { o[0] = __activemask(); o[1] = __match_any_sync(~0ull, p); }\n")
    text, rep = tr(code)
    lines = text.splitlines()
    guard = lines.index(f"#ifndef {WARP_SYNC}")
    assert lines[guard - 1].startswith("// xlate: ROCm 6.2 to 6.4 declare the *_sync warp functions")
    assert lines[guard + 1:guard + 3] == [f"#define {WARP_SYNC}", "#endif"]
    assert guard < lines.index("#include <hip/hip_runtime.h>") < lines.index("#include <cstdio>")
    assert rep["rewritten"]["opt-in-macro"] == 1
    again = translate_source("k.cu", text.encode(), kb.load_symbols(), Options()).text.decode()
    assert again == text  # the macro is there: nothing is added twice


def test_no_opt_in_macro_when_every_sync_call_became_mask_less() -> None:
    text, rep = tr("__global__ void k(float v) { v = __shfl_xor_sync(0xffffffff, v, 1); }\n")
    assert "__shfl_xor(v, 1)" in text and WARP_SYNC not in text and "opt-in-macro" not in rep["rewritten"]
    text, _ = tr("__global__ void k(float v) { v = __shfl_xor_sync(0xffffffff, v, 1); }\n", warp_sync="mask64")
    assert f"#define {WARP_SYNC}" in text and "__shfl_xor_sync(0xffffffffffffffffull, v, 1)" in text


def test_opt_in_macro_without_annotations_has_no_comment() -> None:
    text, _ = tr("__global__ void k(unsigned long long* o) { o[0] = __activemask(); }\n", annotate=False)
    assert f"#define {WARP_SYNC}" in text and "xlate:" not in text


@pytest.mark.parametrize("body, message", [
    ("conditions: {}\n", "expected the mappings conditions, opt_in"),
    ("conditions: {X: {hip: Y, test: truth}}\nopt_in: {}\n", "conditions.X: expected exactly hip, test, pass, source"),
    ("conditions: {}\nopt_in: {M: {declares: [a b], note: n, source: s}}\n", "names must be C identifiers"),
    ("conditions: [\n", "not valid YAML"),
])
def test_a_malformed_macro_file_is_a_one_line_glossary_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             body: str, message: str) -> None:
    from xlate.errors import GlossaryError
    from xlate.translate import macros

    (tmp_path / "translate").mkdir()
    (tmp_path / "translate" / "macros.yaml").write_text(body, encoding="utf-8")
    monkeypatch.setenv("XLATE_GLOSSARY", str(tmp_path))
    macros._data.cache_clear()
    try:
        with pytest.raises(GlossaryError, match=message.replace("*", r"\*")):
            macros.table()
    finally:
        monkeypatch.delenv("XLATE_GLOSSARY")
        macros._data.cache_clear()


def test_every_macro_entry_cites_where_it_is_defined() -> None:
    from xlate.translate import macros

    assert macros.table() and macros.opt_in()
    for entry in [*macros.table().values(), *macros.opt_in().values()]:
        assert len(entry["source"]) > 20


def test_hazard_comment_inside_a_macro_goes_above_the_macro() -> None:
    code = "#define LANE() \\\n  (threadIdx.x % 32)\n__global__ void k(int* o) { o[0] = LANE(); }\n"
    text, rep = tr(code)
    lines = text.splitlines()
    define = lines.index("#define LANE() \\")
    assert lines[define + 1] == "  (threadIdx.x % 32)"  # the macro is not cut by a comment
    if rep["flagged"]:
        assert lines[define - 1].startswith("// xlate: XL001")


def test_no_annotate_counts_but_writes_no_comments() -> None:
    code = "__global__ void k(int* o) { o[threadIdx.x % 32] = __shfl_xor(o[0], 1); }\n"  # warp code: XL001
    text, rep = tr(code, annotate=False)
    assert "xlate:" not in text and rep["flagged"]


def test_unparseable_region_is_left_and_reported() -> None:
    result = translate_source("k.cpp", b"void g() { cudaFree(0); }\nint x = (;\n", kb.load_symbols(), Options())
    assert any(e["kind"] == "syntax" for e in result.errors)
    assert b"hipFree(0)" in result.text


# --- command line --------------------------------------------------------------------------------

def _tree(root: Path) -> Path:
    src = root / "proj"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "util.cuh").write_text("#include <cuda_runtime.h>\ninline void sync() { cudaDeviceSynchronize(); }\n")
    (src / "main.cu").write_text('#include "inc/util.cuh"\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); sync(); }\n')
    (src / "host.cpp").write_text("#include <cuda_runtime.h>\nvoid* a(size_t n) { void* p; cudaMalloc(&p, n); return p; }\n")
    (src / "notes.txt").write_text("cudaMalloc\n")
    (src / "empty.h").write_text("")
    return src


def test_folder_is_mirrored_with_headers_and_cu_renamed(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    code, out, err = cli(str(src), "-o", str(tmp_path / "out"))
    assert code == 0, err
    out_dir = tmp_path / "out"
    got = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*"))
    assert got == ["empty.h", "host.cpp", "inc", "inc/util.cuh", "main.hip"]
    assert "hipDeviceSynchronize" in (out_dir / "inc" / "util.cuh").read_text()
    assert '#include "inc/util.cuh"' in (out_dir / "main.hip").read_text()
    summary = json.loads(err)
    assert summary["files"] == 4 and summary["errors"] == 0
    assert not list(tmp_path.rglob("*.xlate-tmp"))


def test_keep_extension_and_single_file_output(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    code, _, err = cli(str(src), "-o", str(tmp_path / "o2"), "--keep-extension")
    assert code == 0 and (tmp_path / "o2" / "main.cu").is_file()
    code, _, _ = cli(str(src / "host.cpp"), "-o", str(tmp_path / "one.cpp"))
    assert code == 0 and "hipMalloc" in (tmp_path / "one.cpp").read_text()


def test_single_file_goes_to_stdout(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    code, out, _ = cli(str(src / "host.cpp"))
    assert code == 0 and out.startswith("#include <hip/hip_runtime.h>\n") and "hipMalloc(&p, n)" in out


def test_in_place_keeps_a_backup_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    original = (src / "host.cpp").read_text()
    code, _, err = cli(str(src), "--in-place")
    assert code == 0, err
    assert (src / "host.cpp.prehip").read_text() == original
    first = (src / "host.cpp").read_text()
    assert "hipMalloc" in first and (src / "main.cu").is_file()  # in place keeps the name
    code, _, err = cli(str(src), "--in-place")
    assert code == 0 and json.loads(err)["changed"] == 0
    assert (src / "host.cpp").read_text() == first and (src / "host.cpp.prehip").read_text() == original


def test_bad_inputs_are_reported_per_file_and_the_rest_goes_on(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    (src / "blob.cu").write_bytes(b"\x00\x01binary")
    code, _, err = cli(str(src), str(tmp_path / "missing.cu"), "-o", str(tmp_path / "out"))
    assert code == 2
    assert "missing.cu: error: no such file or directory" in err
    assert "blob.cu: error: binary file" in err
    assert (tmp_path / "out" / "proj" / "main.hip").is_file()
    assert not (tmp_path / "out" / "proj" / "blob.hip").exists()


@pytest.mark.parametrize("args, message", [
    (["--to", "metal", "x.cu"], "only hip is supported"),
    (["--to", "hip", "DIR"], "need -o OUTDIR"),
    (["--to", "hip", "DIR", "-o", "DIR"], "is the input folder itself"),
    (["--to", "hip", "DIR", "--in-place", "-o", "x"], "cannot be used together"),
])
def test_usage_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    src = _tree(tmp_path)
    args = [str(src) if a == "DIR" else a for a in args]
    from xlate.translate.cli import main

    err = io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        code = main(args)
    finally:
        sys.stderr = old
    assert code == 2 and message in err.getvalue() and "Traceback" not in err.getvalue()


@pytest.mark.slow
def test_the_installed_command_runs_through_the_fast_path(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-m", "xlate", "translate", str(src / "main.cu"), "--to", "hip",
                           "--launch-syntax", "ggl"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);" in done.stdout
    assert "rewritten:" in done.stderr


def test_elementwise_vector_compound_operators_are_kept_out_of_hip_builds_and_others_stay() -> None:
    code = ("#include <cuda_runtime.h>\n"
            "inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }\n"
            "inline __host__ __device__ void operator+=(float2 &a, float b) { a.x += b; a.y += b; }\n"
            "inline __host__ __device__ void operator-=(float2 &a, float2 b) { a.x -= b.y; a.y -= b.x; }\n"
            "inline __host__ __device__ void operator&=(float2 &a, float2 b) { a.x = 0; }\n")
    text, rep = tr(code, name="helper_math.h")
    lines = text.splitlines()
    guarded = lines.index("inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }")
    assert lines[guarded - 1].startswith("#if !defined(HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H)")
    assert lines[guarded + 1] == "#endif"
    assert text.count("#endif") == 1  # the scalar form, the swapped body and the float &= are left alone
    assert rep["fixed"] == {"vector-compound-operator (float2 += float2: HIP's vector types define it)": 1}
    again, _ = tr(text, name="helper_math.h")
    assert again == text


def test_elementwise_binary_vector_products_are_kept_out_of_hip_builds_and_others_stay() -> None:
    code = ("#include <cuda_runtime.h>\n"
            "inline __host__ __device__ float3 operator*(const float3 &a, const float3 &b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }\n"
            "inline __host__ __device__ float2 operator/(float2 a, float2 b) { return make_float2(a.y / b.y, a.x / b.x); }\n"
            "inline __host__ __device__ float2 operator*(float2 a, float b) { return make_float2(a.x * b, a.y * b); }\n"
            "inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }\n")
    text, rep = tr(code, name="helper_math.h")
    lines = text.splitlines()
    guarded = next(i for i, line in enumerate(lines) if "float3 operator*(" in line)
    assert lines[guarded - 1].startswith("#if !defined(HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H)") and lines[guarded + 1] == "#endif"
    assert text.count("#endif") == 1  # swapped components, a scalar operand and + (a HIP template) are left alone
    assert rep["fixed"] == {"vector-binary-operator (float3 * float3: HIP's vector types define it)": 1}
    assert tr(text, name="helper_math.h")[0] == text


@pytest.mark.slow
def test_worker_processes_give_the_same_tree_as_one_process(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    for i in range(6):
        (src / f"extra{i}.cu").write_text(f"__global__ void k{i}(float* x) {{ x[threadIdx.x % 32] = 0; }}\n"
                                          f"void h{i}(float** p) {{ cudaMalloc(p, 4); }}\n")
    outs = {}
    for jobs in (1, 2):
        err = io.StringIO()
        code = run([str(src)], "hip", str(tmp_path / f"out{jobs}"), options=Options(), summary="json", jobs=jobs,
                   stdout=io.StringIO(), stderr=err)
        assert code == 0, err.getvalue()
        outs[jobs] = ({p.relative_to(tmp_path / f"out{jobs}").as_posix(): p.read_bytes()
                       for p in (tmp_path / f"out{jobs}").rglob("*") if p.is_file()}, json.loads(err.getvalue()))
    assert outs[1][0] == outs[2][0] and len(outs[1][0]) == 10
    assert outs[1][1] == outs[2][1]


def test_cache_hinted_loads_become_the_loads_their_rows_name() -> None:
    # HIP declares __ldcg/__ldca/__ldcs only for __half and __half2; the rows name what compiles for
    # every type, and __ldcg's agent-scope atomic load needs its order and scope arguments.
    text, _ = tr("__global__ void k(const float* p, float* o) {\n"
                 "  o[0] = __ldcg(p) + __ldca(p + 1) + __ldcs(p + 2);\n}\n")
    assert "__hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)" in text
    assert "__ldg(p + 1)" in text and "__builtin_nontemporal_load(p + 2)" in text
    assert "__ldcg" not in text and "__ldca" not in text and "__ldcs" not in text


def test_a_rename_that_changes_behaviour_carries_the_rows_caveat_once_per_file() -> None:
    # __trap -> __builtin_trap compiles the same, but the HIP runtime ends the process: the first
    # renamed call says so; the second call of the same name gets no second note.
    text, report = tr("__global__ void k(int* c) {\n  if (c[0] < 0) __trap();\n  if (c[1] < 0) __trap();\n}\n")
    code = [ln for ln in text.splitlines() if not ln.strip().startswith("// xlate:")]
    notes = [ln for ln in text.splitlines() if ln.strip().startswith("// xlate: renamed __trap to __builtin_trap")]
    assert sum("__builtin_trap()" in ln for ln in code) == 2 and not any("__trap" in ln for ln in code)
    assert len(notes) == 1 and "abort()" in notes[0]
    assert report["flagged"] == {"renamed, with the row's caveat": 1}


def test_a_rename_whose_caveat_only_explains_the_spelling_gets_no_note() -> None:
    # atomicAdd_block's scoped builtin does what CUDA's call does; its caveat explains the spelling.
    text, report = tr("__global__ void k(int* c) { atomicAdd_block(c, 1); }\n")
    assert "__hip_atomic_fetch_add(c, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)" in text
    assert "// xlate:" not in text and not report["flagged"]


def test_every_caveat_note_is_a_proven_rename_or_a_same_name_call_of_an_approximate_row_with_a_caveat() -> None:
    from xlate.translate import calldata

    smap = kb.load_symbols()
    for name in calldata.caveat_notes():
        entry = smap.get(name)
        assert entry is not None and entry.hip_relation == "approximate", name
        is_function = entry.row is not None and entry.row.kind == "function"
        same_name = entry.hip == entry.symbol
        assert (same_name or calldata.proven_call(name) or not is_function) and (entry.hip_caveat or "").strip(), name


def test_a_same_named_call_that_rounds_otherwise_on_hip_gets_the_rows_caveat_once() -> None:
    text, _ = tr("#include <cuda_fp16.h>\n__global__ void k(const __half* h, int* o) {\n"
                 "  o[0] = __half2int_rn(h[0]);\n  o[1] = __half2int_rn(h[1]);\n  o[2] = __half2int_rz(h[2]);\n}\n")
    assert text.count("__half2int_rn keeps its name on HIP") == 1 and "truncates toward zero" in text
    assert "__half2int_rz keeps its name" not in text  # truncation is what _rz asks for
    assert text.count("o[0] = __half2int_rn(h[0]);") == 1
