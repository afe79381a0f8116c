"""Rewrites proven, or not made: call shapes and builtins only where the data proves them for the
pointee type at the site (and the data's claims compiled with clang-19 against the ROCm 6.4
headers), preprocessor guards that keep their meaning in both compilation passes (compiled), user
functions never renamed, a translated tree whose includes still fit together."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.translate_support import CLANG, COMPILE_SKIP, ROCM, compile_hip, hip_env
from xlate import kb
from xlate.translate import calldata, compat
from xlate.translate.engine import translate_source
from xlate.translate.names import hip_name, shape_unproven
from xlate.translate.options import Options


def tr(code: str, name: str = "k.cu", options: Options | None = None) -> tuple[str, dict]:
    result = translate_source(name, code.encode(), kb.load_symbols(), options or Options())
    assert result.text is not None
    return result.text.decode(), result.report.as_json()


# --- class 1: call shapes and builtins ---------------------------------------------------------------

def _approximate_function_rows() -> list[str]:
    smap = kb.load_symbols()
    out = []
    for name in smap.names():
        entry = smap.get(name)
        if entry is None or entry.row is None or entry.row.kind != "function":
            continue
        if entry.hip_relation == "approximate" and hip_name(entry, Options(), smap)[1] == "ok":
            out.append(name)
    return sorted(out)


def _nullary_builtin_renames() -> dict[str, str]:
    """`same_shape` rows whose HIP side is a clang builtin: the CUDA function takes no arguments, so there
    is no argument type to prove; the compile test below proves the builtin takes none either."""
    smap = kb.load_symbols()
    out = {}
    for name in calldata.same_shape():
        entry = smap.get(name)
        target = (hip_name(entry, Options(), smap)[0] or "") if entry is not None else ""
        if target.startswith("__builtin_"):
            out[name] = target
    return out


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compilers present")
def test_builtins_renamed_as_the_same_call_compile_with_no_arguments(tmp_path: Path) -> None:
    """CUDA declares each of these as taking no arguments; the builtin written for it must take none too."""
    renames = _nullary_builtin_renames()
    assert renames, "the data lists no builtin renamed as the same call"
    body = "\n".join(f"__global__ void k{i}(int x) {{ if (x) {t}(); }}" for i, t in enumerate(renames.values()))
    src = tmp_path / "nullary.hip"
    src.write_text("#include <hip/hip_runtime.h>\n" + body + "\n")
    run = compile_hip(src, "gfx942", "device")
    assert run.returncode == 0, run.stderr[-2000:]


def _nullary_host_renames() -> dict[str, str]:
    """`same_shape` rows whose HIP side is a runtime function (hip*), not a builtin or a namespace member."""
    smap = kb.load_symbols()
    out = {}
    for name in calldata.same_shape():
        entry = smap.get(name)
        target = (hip_name(entry, Options(), smap)[0] or "") if entry is not None else ""
        if target.startswith("hip") and "::" not in name:
            out[name] = target
    return out


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP) or shutil.which("nvcc") is None,
                    reason=COMPILE_SKIP or "nvcc is not installed")
def test_runtime_calls_renamed_as_the_same_call_take_no_arguments_on_either_side(tmp_path: Path) -> None:
    """Each CUDA runtime or driver call listed as renamed unchanged is called with no arguments under nvcc,
    and the HIP function written for it compiles with none under clang: the rename is the whole port."""
    renames = _nullary_host_renames()
    assert {"cudaProfilerStart", "cuCtxSynchronize"} <= set(renames), renames
    cuda = tmp_path / "calls.cu"
    cuda.write_text("#include <cuda.h>\n#include <cudaProfiler.h>\n#include <cuda_profiler_api.h>\n"
                    "void f() {\n" + "".join(f"  (void){n}();\n" for n in renames) + "}\n")
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    done = subprocess.run([nvcc, "-x", "cu", "-std=c++17", "-cuda", str(cuda), "-o", str(tmp_path / "a.ii")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    hip = tmp_path / "calls.hip"
    hip.write_text("#include <hip/hip_runtime.h>\nvoid f() {\n" + "".join(f"  (void){t}();\n" for t in renames.values()) + "}\n")
    run = compile_hip(hip, "gfx942", "syntax")
    assert run.returncode == 0, run.stderr[-2000:]


# `same_shape` device conversions taking one float: (CUDA header, HIP header) for the compile test below.
_UNARY_FLOAT_CONVERSIONS = {"__float2bfloat16_rn": ("cuda_bf16.h", "hip/hip_bf16.h")}


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP) or shutil.which("nvcc") is None,
                    reason=COMPILE_SKIP or "nvcc is not installed")
def test_device_conversions_renamed_as_the_same_call_take_one_float_on_either_side(tmp_path: Path) -> None:
    """Each float conversion listed as renamed unchanged compiles on one float in device code under nvcc,
    and the HIP function written for it does under clang for gfx942."""
    smap = kb.load_symbols()
    listed = {n for n in calldata.same_shape() if n.startswith("__float2")}
    assert listed == set(_UNARY_FLOAT_CONVERSIONS), listed
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    for name, (cuda_header, hip_header) in _UNARY_FLOAT_CONVERSIONS.items():
        target = hip_name(smap.get(name), Options(), smap)[0]
        cuda = tmp_path / f"{name}.cu"
        cuda.write_text(f"#include <{cuda_header}>\n__global__ void k(const float* x, void* y) {{\n"
                        f"  auto r = {name}(x[0]);\n  __builtin_memcpy(y, &r, sizeof r);\n}}\n")
        done = subprocess.run([nvcc, "-arch=sm_90", "-std=c++17", "-ptx", str(cuda), "-o", str(tmp_path / "a.ptx")],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        hip = tmp_path / f"{name}.hip"
        hip.write_text(f"#include <hip/hip_runtime.h>\n#include <{hip_header}>\n__global__ void k(const float* x, void* y) {{\n"
                       f"  auto r = {target}(x[0]);\n  __builtin_memcpy(y, &r, sizeof r);\n}}\n")
        run = compile_hip(hip, "gfx942", "device")
        assert run.returncode == 0, run.stderr[-2000:]


def test_every_builtin_a_row_writes_is_typed_in_the_data() -> None:
    """A row whose HIP side is a clang builtin takes only some argument types: it must say which."""
    smap = kb.load_symbols()
    typed = calldata.typed()
    for name in _approximate_function_rows():
        target = hip_name(smap.get(name), Options(), smap)[0]
        if target.startswith(("__builtin_", "__hip_atomic_")):
            proven = name in typed or name in _nullary_builtin_renames()
            assert proven, f"{name} -> {target}: a builtin with no proven pointee types"
    assert set(calldata.append()) <= set(typed), "an appended-argument rewrite without proven types"


@pytest.mark.parametrize("name", [n for n in _approximate_function_rows()
                                  if not calldata.proven_call(n) and compat.helper_for(n) is None])
def test_an_approximate_row_with_another_call_shape_is_never_a_plain_rename(name: str) -> None:
    smap = kb.load_symbols()
    entry = smap.get(name)
    assert shape_unproven(entry)
    target = hip_name(entry, Options(), smap)[0]
    text, rep = tr(f"__global__ void k(float* p) {{\n  {name}(p, 1);\n}}\n")
    assert f"  {name}(p, 1);" in text and f"{target}(" not in text.split("\n  " + name)[1]
    # A host API's row is kept for an earlier reason in this device-code probe; either way, not renamed.
    assert f"// xlate: kept {name}: HIP's nearest is {target}, not proven to take this call's arguments as they are" in text \
        or f"// xlate: kept {name}: called in device code" in text
    assert rep["flagged"].get("kept: call shape differs", 0) + rep["flagged"].get("kept: host API in device code", 0) == 1


def test_cg_reduce_is_never_a_class_template_called_as_a_function() -> None:
    """On a tile the compat helper replaces the call (tests/test_translate_compat.py); on a group the
    syntax does not show to be a tile, the call stays with a note, never hipCUB's class template."""
    tile, _ = tr("namespace cg = cooperative_groups;\n__global__ void k(float* f) {\n"
                 "  auto warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
                 "  f[0] = cg::reduce(warp, f[1], cg::greater<float>{});\n}\n")
    assert "hipcub::WarpReduce(" not in tile
    assert "  f[0] = xlate_compat::reduce(warp, f[1], xlate_compat::greater<float>{});" in tile
    text, _ = tr("namespace cg = cooperative_groups;\ntemplate <class G> __device__ void k(G warp, float* f) {\n"
                 "  f[0] = cg::reduce(warp, f[1], cg::greater<float>{});\n}\n")
    assert "hipcub::WarpReduce(" not in text
    assert "  f[0] = cg::reduce(warp, f[1], xlate_compat::greater<float>{});" in text
    assert "// xlate: kept cg::reduce: the group warp is not shown by the syntax to be a thread_block_tile" in text


@pytest.mark.parametrize("decl, arg, written", [
    ("const float* p", "p + 1", "__builtin_nontemporal_load"),  # declared and proven
    ("const int4* p", "p + 1", "xlate_compat::ldcs"),           # declared, a struct the builtin rejects
    ("const __half* p", "p", "__ldcs"),                         # HIP declares __ldcs for __half: the name stays
    ("S s", "s.p", "xlate_compat::ldcs"),                       # a member: the type is not read from syntax
    ("const float* p", "(const int4*)p", "xlate_compat::ldcs"),  # a cast names the type: int4 again
])
def test_ldcs_becomes_the_nontemporal_builtin_only_where_the_pointee_is_proven(decl: str, arg: str, written: str) -> None:
    """Elsewhere the compat helper (a template: the compiler picks what the type allows), or, where
    HIP declares the name for the type, the name itself."""
    text, _ = tr(f"#include <cuda_fp16.h>\nstruct S {{ const int4* p; }};\n__global__ void k({decl}, float* o) {{\n"
                 f"  auto v = __ldcs({arg});\n}}\n")
    assert f"auto v = {written}({arg});" in text
    if written != "__builtin_nontemporal_load":
        assert "__builtin_nontemporal_load(" not in text.split("__global__")[1]


def test_a_proven_atomic_for_every_cuda_type_is_rewritten_where_the_type_is_unknown() -> None:
    text, _ = tr("struct S { unsigned* m; };\n__global__ void k(S s) {\n  atomicOr_block(s.m, 1u);\n  atomicAdd_block(s.m, 1u);\n}\n")
    assert "__hip_atomic_fetch_or(s.m, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);" in text
    # atomicAdd_block also takes __half2 in CUDA, which the builtin does not: unknown type, kept.
    assert "  atomicAdd_block(s.m, 1u);" in text and "// xlate: kept atomicAdd_block" in text


# Extra arguments of each typed call after the pointer (the CUDA form's arity).
_EXTRA = {"atomicCAS_block": 2, "__ldcg": 0, "__ldcs": 0, "__ldca": 0}
_TYPEDEFS = "#include <stdint.h>\n#include <stddef.h>\n#include <cuda_fp16.h>\n"


def _proof_source(name: str, types: list[str]) -> str:
    """A CUDA kernel calling `name` once per type, on a pointer declared with that pointee type."""
    extra = _EXTRA.get(name, 1)
    loads = extra == 0
    params, body = [], []
    for i, t in enumerate(types):
        params.append(f"{'const ' if loads else ''}{t}* p{i}")
        args = [f"p{i}"] + [f"*(p{i} + {j + 1})" for j in range(extra)]
        body.append(f"  auto r{i} = {name}({', '.join(args)});\n  (void)r{i};\n")
    return f"{_TYPEDEFS}__global__ void proof({', '.join(params)}) {{\n{''.join(body)}}}\n"


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
@pytest.mark.parametrize("name", sorted(calldata.typed()))
def test_each_accepted_pointee_type_compiles_with_the_rows_spelling(name: str, tmp_path: Path) -> None:
    """The data's claim, checked: translated for every type it accepts, the call is the row's
    spelling and the file generates gfx942 device code with the ROCm 6.4 headers."""
    smap = kb.load_symbols()
    target = hip_name(smap.get(name), Options(), smap)[0]
    types = calldata.typed()[name]["accepts"]
    text, _ = tr(_proof_source(name, types))
    assert text.count(f"{target}(") == len(types), text
    assert "// xlate: kept" not in text
    src = tmp_path / "proof.hip"
    src.write_text(text, encoding="utf-8")
    done = compile_hip(src, "gfx942", "device")
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
@pytest.mark.parametrize("builtin, pointee", [("__builtin_nontemporal_load(p)", "int4"),
                                              ("__builtin_nontemporal_load(p)", "float4"),
                                              ("__builtin_nontemporal_load(p)", "__half"),
                                              ("__hip_atomic_fetch_add(q, *p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)", "__half2")])
def test_the_builtins_reject_the_types_the_data_leaves_out(builtin: str, pointee: str, tmp_path: Path) -> None:
    """Why `accepts` stops where it does: clang rejects these (HIP's vector and half types are structs)."""
    src = tmp_path / "reject.hip"
    src.write_text("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n"
                   f"__global__ void k(const {pointee}* p, {pointee}* q) {{ auto r = {builtin}; (void)r; }}\n", encoding="utf-8")
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode != 0 and "error:" in done.stderr
    for name, spec in calldata.typed().items():
        assert pointee not in spec["accepts"] or not builtin.startswith(f"{hip_name(kb.load_symbols().get(name), Options())[0]}(")


# --- class 2: guards keep their meaning; user functions keep their names -----------------------------

_CONDITIONS = [
    "#ifdef __CUDA_ARCH__", "#ifndef __CUDA_ARCH__", "#if defined(__CUDA_ARCH__)", "#if !defined(__CUDA_ARCH__)",
    "#if __CUDA_ARCH__", "#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)", "#if !(defined(__CUDA_ARCH__) || 0)",
    "#if defined __CUDA_ARCH__ && defined __CUDACC__",
]
_VALUE_CONDITIONS = ["#if !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))",
                     "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700"]


def _marked(conditions: list[str]) -> str:
    return "".join(f"{c}\nint mark{i};\n#endif\n" for i, c in enumerate(conditions))


def _marks(cmd: list[str], text: str) -> set[int]:
    done = subprocess.run([*cmd, "-E", "-P", "-"], input=text, capture_output=True, text=True, env=hip_env(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {int(m) for m in re.findall(r"\bint mark(\d+);", done.stdout)}


@pytest.mark.skipif(CLANG is None, reason="clang++-19 is not installed")
def test_host_and_device_guards_select_the_same_code_in_each_pass_after_translation() -> None:
    """Each condition is evaluated as nvcc's passes see it (__CUDA_ARCH__ defined in the device pass
    only) and, translated, by clang-19's own HIP host and device passes: the same marks survive."""
    original = _marked(_CONDITIONS)
    text, _ = tr(original, name="guards.h", options=Options(runtime_include=False, annotate=False))
    assert "__CUDA_ARCH__" not in text
    assert CLANG is not None
    cuda = {"device": [CLANG, "-x", "c++", "-D__CUDACC__", "-D__CUDA_ARCH__=800"], "host": [CLANG, "-x", "c++", "-D__CUDACC__"]}
    hip = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-nogpuinc"]
    for side, flag in (("device", "--cuda-device-only"), ("host", "--cuda-host-only")):
        want = _marks(cuda[side], original)
        assert _marks([*hip, flag], text) == want, f"{side} pass: the translated guards select other code"
    assert _marks(cuda["device"], original) != _marks(cuda["host"], original)  # the cases do tell the passes apart


def test_each_mapped_pass_test_says_which_pass_it_selects() -> None:
    text, rep = tr("#ifndef __CUDA_ARCH__\nint host_only;\n#endif\n#ifdef __CUDA_ARCH__\nint device_only;\n#endif\n", name="g.h")
    assert "this test selects the host compilation pass" in text.split("#ifndef")[0]
    assert "this test selects the device compilation pass" in text.split("#ifdef")[0].split("#endif")[-1]
    assert rep["flagged"]["kept: pass test mapped, meaning kept"] == 2


def test_a_condition_that_compares_the_arch_value_keeps_every_test_of_it() -> None:
    """`!((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))` is false in both of nvcc's passes on sm_80;
    mapping only the defined() test made it true in HIP's device pass (the comparison reads 0)."""
    text, rep = tr(_marked(_VALUE_CONDITIONS), name="g.h")
    for c in _VALUE_CONDITIONS:
        assert c in text
    assert text.count("// xlate: kept __CUDA_ARCH__: its value is compared in this condition") == 2
    assert rep["unknown"]["__CUDA_ARCH__ (value test)"] == 2


def test_an_elif_keeps_the_macro_its_if_compares() -> None:
    """`#if __CUDA_ARCH__ >= 800 / #elif defined(__CUDA_ARCH__)`: under HIP the comparison reads 0, so
    a mapped #elif would take sm_80's device code into its own branch; the chain is kept whole."""
    text, _ = tr("#if __CUDA_ARCH__ >= 800\nint a;\n#elif defined(__CUDA_ARCH__)\nint b;\n#endif\n"
                 "#ifdef __CUDA_ARCH__\nint d;\n#endif\n", name="g.h")
    assert "#elif defined(__CUDA_ARCH__)" in text and "#ifdef __HIP_DEVICE_COMPILE__" in text
    assert "(or its #if/#elif chain)" in text


@pytest.mark.parametrize("definition", [
    "__device__ float __ldcs(const float* p) { return *p; }",
    "template <class T> __device__ T __ldcs(const T* p) { return *p; }",
    "__device__ float __ldcs(const float* p);",
    "#define __ldcs(p) (*(p))",
])
def test_a_users_own_function_keeps_its_name_and_its_calls_too(definition: str) -> None:
    text, rep = tr(f"{definition}\n__global__ void k(const float* f, float* o) {{ o[0] = __ldcs(f); }}\n")
    assert definition in text and "o[0] = __ldcs(f);" in text and "__builtin_nontemporal_load" not in text
    assert "// xlate: kept __ldcs: this file defines its own __ldcs" in text
    assert rep["flagged"]["kept: user-defined function"] == 1


def test_a_call_that_cannot_reach_the_users_overload_is_still_proven_and_rewritten() -> None:
    """A project overload of __ldcs for its own type (under a guard, as compatibility shims are): a
    call on a float pointer is CUDA's own (nvcc would reject a project overload for float as a
    redefinition), so the proven builtin is written there; a call on the project's type, or on a
    type the syntax does not show, keeps the name."""
    # (A guard HIP never compiles would leave the overload out altogether: tests/test_translate_guards.py.)
    text, _ = tr("typedef __nv_bfloat16 floatX;\n#if defined(NEED_BF16_SHIM)\n"
                 "__device__ floatX __ldcs(const floatX* a) { return *a; }\n#endif\n"
                 "struct S { const floatX* p; };\n"
                 "__global__ void k(const floatX* x, const float* f, float* o, S s) {\n"
                 "  o[0] = __ldcs(f);\n  o[1] = (float)__ldcs(x);\n  o[2] = (float)__ldcs(s.p);\n}\n")
    assert "__device__ floatX __ldcs(const floatX* a)" in text
    assert "o[0] = __builtin_nontemporal_load(f);" in text
    assert "o[1] = (float)__ldcs(x);" in text and "o[2] = (float)__ldcs(s.p);" in text


def test_without_a_users_definition_the_same_call_is_rewritten() -> None:
    text, _ = tr("__global__ void k(const float* f, float* o) { o[0] = __ldcs(f); }\n")
    assert "o[0] = __builtin_nontemporal_load(f);" in text


def test_a_local_variable_initialised_with_parentheses_is_not_a_definition() -> None:
    from xlate.cuda.parser import parse  # noqa: F401 (the engine parses; this checks the distinction)

    text, _ = tr("__global__ void k(const float* f, float* o) { dim3 grid(4); o[0] = __ldcs(f); }\n")
    assert "__builtin_nontemporal_load(f)" in text


def test_translating_the_kept_code_again_changes_nothing() -> None:
    code = ("#if !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))\n__device__ float __ldcs(const float* p) { return *p; }\n"
            "#endif\n#ifndef __CUDA_ARCH__\nint h;\n#endif\nstruct S { const float* p; };\n"
            "__global__ void k(S s, float* o) {\n  o[0] = __ldcg(s.p);\n  o[1] = cg::reduce(w, o[2], cg::plus<float>{});\n}\n")
    once, _ = tr(code)
    twice, _ = tr(once)
    assert twice == once


# --- class 3: the tree fits together ---------------------------------------------------------------

def _tree(root: Path) -> None:
    (root / "kernels").mkdir(parents=True)
    (root / "main.cu").write_text('#include "common.cuh"\n#include "kernels/scale.cu"\n#include "missing.cu"\n'
                                  "int main() { return 0; }\n", encoding="utf-8")
    (root / "common.cuh").write_text("#pragma once\n__device__ inline float twice(float x) { return 2 * x; }\n", encoding="utf-8")
    (root / "kernels" / "scale.cu").write_text('#include "../common.cuh"\n#include "kernels/util.cu"\n'
                                               "__global__ void scale(float* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n",
                                               encoding="utf-8")
    (root / "kernels" / "util.cu").write_text("__device__ inline float one() { return 1; }\n", encoding="utf-8")


def test_includes_of_renamed_cu_files_follow_the_rename(tmp_path: Path) -> None:
    from xlate.translate.cli import run

    _tree(tmp_path / "src")
    out = tmp_path / "out"
    assert run([str(tmp_path / "src")], out=str(out), summary="none") == 0
    main = (out / "main.hip").read_text(encoding="utf-8")
    assert '#include "kernels/scale.hip"' in main and '#include "common.cuh"' in main
    assert '#include "missing.cu"' in main  # not in the translated set: left as written
    scale = (out / "kernels" / "scale.hip").read_text(encoding="utf-8")
    assert '#include "kernels/util.hip"' in scale  # resolved from the input root, not the including folder


def test_keep_extension_keeps_the_includes_as_written(tmp_path: Path) -> None:
    from xlate.translate.cli import run

    _tree(tmp_path / "src")
    out = tmp_path / "out"
    assert run([str(tmp_path / "src")], out=str(out), keep_extension=True, summary="none") == 0
    assert '#include "kernels/scale.cu"' in (out / "main.cu").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_the_translated_tree_compiles_through_its_renamed_includes(tmp_path: Path) -> None:
    from xlate.translate.cli import run

    _tree(tmp_path / "src")
    (tmp_path / "src" / "main.cu").write_text('#include "common.cuh"\n#include "kernels/scale.cu"\nint main() { return 0; }\n',
                                              encoding="utf-8")
    out = tmp_path / "out"
    assert run([str(tmp_path / "src")], out=str(out), summary="none") == 0
    done = compile_hip(out / "main.hip", "gfx942", "syntax", include=[out])
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_library_header_is_mapped_only_with_its_api() -> None:
    mapped, _ = tr("#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasDestroy(h); }\n", name="a.cpp")
    assert "#include <hipblas/hipblas.h>" in mapped
    left, rep = tr("#include <nvml.h>\nint f() { return nvmlInit_v2(); }\n", name="b.cpp")
    assert "#include <nvml.h>" in left and "amd_smi" not in left.replace("// xlate", "\n").split("#include")[1]
    assert "// xlate: kept <nvml.h>: no row maps nvmlInit_v2 to HIP" in left
    assert rep["flagged"]["kept: header kept with its API"] == 1
    guarded, _ = tr("#include <nvml.h>\n#if __has_include(<nvml.h>)\n#define HAVE 1\n#endif\n", name="c.cpp")
    assert "#include <nvml.h>" in guarded and "a __has_include test names <nvml.h>" in guarded


def test_a_header_whose_api_is_partly_mapped_is_mapped_with_a_note_naming_the_rest() -> None:
    text, rep = tr("#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasDestroy(h); cublasNotARealCall(h); }\n",
                   name="a.cpp")
    assert "#include <hipblas/hipblas.h>" in text
    assert "no row maps cublasNotARealCall to HIP: those calls still need porting" in text
    assert rep["flagged"]["kept: header mapped, some of its API left"] == 1


def test_a_device_construction_of_an_fp8_type_keeps_its_cuda_spelling_with_the_caveat() -> None:
    # HIP's OCP fp8 types have host-only float constructors on gfx942 (e4m3 takes a float through its
    # short one): in device code the construction stays CUDA's, so the port fails where a person must look.
    text, rep = tr("#include <cuda_fp8.h>\n__global__ void k(const float* in, __nv_fp8_e4m3* o) {\n"
                   "  o[0] = __nv_fp8_e4m3(in[0]);\n  o[1] = __nv_fp8_e4m3(in[1]);\n}\n")
    assert "__global__ void k(const float* in, __hip_fp8_e4m3* o)" in text  # the declaration is renamed
    assert text.count("o[0] = __nv_fp8_e4m3(in[0]);") == 1 and text.count("o[1] = __nv_fp8_e4m3(in[1]);") == 1
    assert text.count("// xlate: kept __nv_fp8_e4m3(...)") == 2 and text.count("FloatingToIntegral") == 1  # the caveat once
    assert rep["flagged"]["kept: approximate type constructed"] == 2
    # A lambda may be a device lambda: kept too. Host code gets the rename and the caveat once.
    lam, _ = tr("#include <cuda_fp8.h>\nvoid h(float x) { auto f = [=] __device__ () { return __nv_fp8_e5m2(x); }; }\n",
                name="a.cu")
    assert "return __nv_fp8_e5m2(x);" in lam and "// xlate: kept __nv_fp8_e5m2(...)" in lam
    host, _ = tr("#include <cuda_fp8.h>\nvoid h(float x, __nv_fp8_e5m2* o) { o[0] = __nv_fp8_e5m2(x); }\n", name="a.cu")
    assert "o[0] = __hip_fp8_e5m2(x);" in host
    assert "// xlate: __nv_fp8_e5m2(...) -> __hip_fp8_e5m2(...), which is not the same type" in host
    plain, _ = tr("__global__ void k(float4* o) { o[0] = make_float4(1.f, 2.f, 3.f, 4.f); }\n")
    assert "not the same type" not in plain and "kept" not in plain


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_the_fp8_constructions_kept_in_device_code_are_those_hip_does_not_take_there(tmp_path: Path) -> None:
    # calls.yaml's device_construction: each listed type's HIP side is constructed from its float form
    # in host code (compiles) and in gfx942 device code (rejected, or for e4m3 only through an integer
    # constructor, which clang's AST shows).
    args = {"": "float", "x2": "float2", "x4": "float4"}
    for cuda in calldata.device_construction():
        width = cuda.removeprefix("__nv_fp8").split("_")[0]
        entry = kb.load_symbols().get(cuda)
        assert entry is not None, cuda
        hip = hip_name(entry, Options(), None)[0]
        src = tmp_path / f"{cuda}.hip"
        src.write_text(f"#include <hip/hip_runtime.h>\n#include <hip/hip_fp8.h>\n"
                       f"void host({args[width]} v) {{ {hip} h = {hip}(v); (void)h; }}\n"
                       f"__global__ void k({args[width]} v, {hip}* o) {{ o[0] = {hip}(v); }}\n")
        run = compile_hip(src, "gfx942", "syntax")
        lines = {int(m.group(1)) for m in re.finditer(r":(\d+):\d+: error", run.stderr)}
        assert 3 not in lines, (cuda, run.stderr)  # host code takes it
        if cuda != "__nv_fp8_e4m3":
            assert 4 in lines, (cuda, run.stderr)  # device code does not
            continue
        assert run.returncode == 0, run.stderr
        ast = subprocess.run([str(CLANG), "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-w",
                              "--cuda-device-only", "-I", str(ROCM.include), "-fsyntax-only", "-Xclang", "-ast-dump",
                              "-Xclang", "-ast-dump-filter=k", str(src)],
                             capture_output=True, text=True, env=hip_env(), timeout=300)
        assert "FloatingToIntegral" in ast.stdout, "e4m3 in device code no longer goes through an integer constructor"


def test_a_users_names_shaped_unlike_the_api_do_not_count_as_unported() -> None:
    # The project's own macro and variables named after the library are not cuBLAS names.
    text, _ = tr("#include <cublas_v2.h>\n#define CUBLAS_CHECK(x) (x)\nsize_t cublas_workspace_size = 0;\n"
                 "void f(cublasHandle_t h) { CUBLAS_CHECK(cublasDestroy(h)); }\n", name="a.cpp")
    assert "#include <hipblas/hipblas.h>" in text and "no row maps" not in text


def test_a_name_of_the_api_in_a_comment_or_string_does_not_keep_the_header() -> None:
    text, _ = tr('#include <cublas_v2.h>\n// cublasFutureCall is not used\nconst char* s = "cublasOther";\n'
                 "void f(cublasHandle_t h) { cublasDestroy(h); }\n", name="a.cpp")
    assert "#include <hipblas/hipblas.h>" in text


def test_the_header_apis_agree_with_the_api_families() -> None:
    """glossary/translate/headers.yaml repeats each family's `match` (read at translate time without
    loading the family models); it must stay what glossary/api/ says."""
    from xlate.translate.headers import apis

    tables = kb.load_families(kb.glossary_root())
    families = {h: f for f in tables.families for h in f.headers}
    for header, pattern in apis().items():
        if header in families:
            assert families[header].match == pattern.pattern, header
            assert families[header].headers[header] is not None, header
    library = {h for f in tables.families for h, t in f.headers.items() if t and not t.startswith("hip/") and f.match}
    assert library <= set(apis()), sorted(library - set(apis()))


def test_a_function_defined_in_a_projects_header_keeps_its_name_in_the_files_including_it(tmp_path: Path) -> None:
    from xlate.translate.cli import run

    src = tmp_path / "src"
    (src / "include").mkdir(parents=True)
    (src / "include" / "compat.cuh").write_text(
        "#pragma once\ntemplate <class T> __device__ T __ldcs(const T* p) { return *p; }\n", encoding="utf-8")
    (src / "kernel.cu").write_text('#include "include/compat.cuh"\n'
                                   "__global__ void k(const float* f, float* o) { o[0] = __ldcs(f); }\n", encoding="utf-8")
    (src / "other.cu").write_text("__global__ void k(const float* f, float* o) { o[0] = __ldcs(f); }\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run([str(src)], out=str(out), summary="none") == 0
    kernel = (out / "kernel.hip").read_text(encoding="utf-8")
    assert "o[0] = __ldcs(f);" in kernel and "// xlate: kept __ldcs: include/compat.cuh defines its own __ldcs" in kernel
    assert "template <class T> __device__ T __ldcs(const T* p)" in (out / "include" / "compat.cuh").read_text(encoding="utf-8")
    assert "o[0] = __builtin_nontemporal_load(f);" in (out / "other.hip").read_text(encoding="utf-8")  # no such header


def test_a_full_mask_shuffle_loses_its_mask_only_for_a_value_type_the_mask_less_form_takes() -> None:
    """HIP's mask-less shuffles have no __hip_bfloat16 overload (the call is ambiguous); the _sync
    template with a 64-bit mask takes it, and any type a template parameter may stand for."""
    text, _ = tr("template <class T> __device__ T sum(T v) {\n  return v + __shfl_down_sync(0xffffffff, v, 1);\n}\n"
                 "__global__ void k(float* f, __nv_bfloat16* b) {\n  float x = f[0];\n  __nv_bfloat16 y = b[0];\n"
                 "  f[1] = __shfl_xor_sync(0xffffffff, x, 1);\n  b[1] = __shfl_xor_sync(0xffffffff, y, 1);\n"
                 "  f[2] = __ballot_sync(0xffffffff, f[3] > 0);\n}\n")
    assert "return v + __shfl_down_sync(0xffffffffffffffffull, v, 1);" in text
    assert "f[1] = __shfl_xor(x, 1);" in text and "b[1] = __shfl_xor_sync(0xffffffffffffffffull, y, 1);" in text
    assert "f[2] = __ballot(f[3] > 0);" in text  # a vote's value is a predicate: always the mask-less form
    assert "#define HIP_ENABLE_WARP_SYNC_BUILTINS" in text  # the _sync calls left need the opt-in


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
@pytest.mark.parametrize("name", sorted(calldata.maskless()))
def test_each_value_type_the_mask_less_shuffles_accept_compiles(name: str, tmp_path: Path) -> None:
    types = calldata.maskless()[name]["accepts"]
    body = "".join(f"  {t} v{i} = *({t}*)(p + {i});\n  *({t}*)(p + {i}) = {name}(0xffffffff, v{i}, 1);\n"
                   for i, t in enumerate(types))
    text, _ = tr(f"{_TYPEDEFS}__global__ void proof(double* p) {{\n{body}}}\n")
    assert f"{name}(" not in text, text  # every call became the mask-less form
    src = tmp_path / "proof.hip"
    src.write_text(text, encoding="utf-8")
    done = compile_hip(src, "gfx942", "device")
    assert done.returncode == 0, done.stderr[-3000:]
    # And the one CUDA value type left out: the mask-less form rejects it, the 64-bit template takes it.
    bf = tmp_path / "bf16.hip"
    mask_less = name.replace("_sync", "")
    bf.write_text("#include <hip/hip_runtime.h>\n#include <hip/hip_bf16.h>\n"
                  f"__global__ void k(__hip_bfloat16* p) {{ p[0] = {mask_less}(p[1], 1); }}\n", encoding="utf-8")
    assert compile_hip(bf, "gfx942", "syntax").returncode != 0


def test_a_runtime_call_in_device_code_keeps_its_cuda_name_with_a_note() -> None:
    # CUDA's device runtime (dynamic parallelism): HIP's runtime functions are host-only.
    text, rep = tr("__global__ void child(int* a) { a[0] = 1; }\n"
                   "__global__ void k(int* a) {\n  child<<<1, 1>>>(a);\n  cudaDeviceSynchronize();\n"
                   "  cudaDeviceSynchronize();\n  cudaError_t e = cudaGetLastError();\n}\n"
                   "__host__ __device__ void hd() { cudaDeviceSynchronize(); }\n"
                   "int main() { cudaDeviceSynchronize(); return 0; }\n")
    kernel = text.split("__host__ __device__")[0]
    assert kernel.count("  cudaDeviceSynchronize();") == 2 and "cudaGetLastError()" in kernel
    assert "hipError_t e" in kernel  # a type is not a call: renamed as usual
    assert kernel.count("// xlate: kept cudaDeviceSynchronize") == 1 and "// xlate: kept cudaGetLastError" in kernel
    assert "void hd() { hipDeviceSynchronize(); }" in text and "int main() { hipDeviceSynchronize();" in text
    assert rep["flagged"]["kept: host API in device code"] == 2


def test_a_cuda_10_compute_type_keeps_the_gemm_call_with_a_note() -> None:
    # cuBLAS's C++ overloads still take a cudaDataType compute type; hipBLAS takes hipblasComputeType_t only.
    head = ("#include <cublas_v2.h>\nvoid f(cublasHandle_t h, const void* A, void* C, int n, const float* s) {\n"
            "  cudaDataType ct = CUDA_R_32F;\n")
    call = "  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, s, A, CUDA_R_16F, n, A, CUDA_R_16F, n, s, C, CUDA_R_32F, n, {}, CUBLAS_GEMM_DEFAULT);\n"
    text, rep = tr(head + call.format("ct") + call.format("CUDA_R_32F") + call.format("CUBLAS_COMPUTE_32F") + "}\n",
                   name="a.cpp")
    assert text.count("  cublasGemmEx(h,") == 2 and len(re.findall(r"hipblasGemmEx(?:_v2)?\(h,", text)) == 1
    assert text.count("// xlate: kept cublasGemmEx: HIP's form takes, as argument 18, a compute type") == 2
    assert rep["flagged"]["kept: argument type HIP does not take"] == 2


def test_a_member_of_a_renamed_class_follows_the_class_and_the_header_comes_with_it() -> None:
    # cub::DeviceRadixSort has a row; its static members are in no row: the class is renamed and the
    # member kept as written, and the header is mapped because its API is ported.
    text, rep = tr("#include <cub/cub.cuh>\nvoid f(float* k, void* t, size_t& n, int c) {\n"
                   "  cub::DeviceRadixSort::SortKeys(t, n, k, k, c);\n  cub::NotAClass::f();\n}\n", name="a.cu")
    assert "  hipcub::DeviceRadixSort::SortKeys(t, n, k, k, c);" in text and "#include <hipcub/hipcub.hpp>" in text
    assert "  cub::NotAClass::f();" in text  # no row for the class: unknown stays unknown
    assert rep["unknown"]["cub::NotAClass::f"] == 1


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_the_device_primitive_members_real_code_calls_compile_after_the_class_rename(tmp_path: Path) -> None:
    calls = ["cub::DeviceRadixSort::SortPairs(t, n, k, k, v, v, c)", "cub::DeviceRadixSort::SortPairsDescending(t, n, k, k, v, v, c)",
             "cub::DeviceRadixSort::SortKeys(t, n, k, k, c)", "cub::DeviceReduce::Sum(t, n, k, k, c)",
             "cub::DeviceReduce::Max(t, n, k, k, c)", "cub::DeviceScan::InclusiveSum(t, n, k, k, c)",
             "cub::DeviceScan::ExclusiveSum(t, n, k, k, c)", "cub::DeviceSelect::Flagged(t, n, k, v, k, v, c)"]
    body = "".join(f"  {c};\n" for c in calls)
    text, _ = tr("#include <cub/cub.cuh>\nvoid f(float* k, int* v, void* t, size_t& n, int c) {\n" + body + "}\n", name="a.cu")
    assert "cub::Device" not in text.replace("hipcub::Device", "")
    src = tmp_path / "a.hip"
    src.write_text(text, encoding="utf-8")
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode == 0, done.stderr[-3000:]


# CUB's two-phase device calls, one or more for each calls.yaml `same_shape` entry with `when: two_phase`
# (CUB's parameters in CUB's order; the stream given or left to its default).
_CUB_TWO_PHASE = (
    '#include <cub/cub.cuh>' "\n"
    'struct Less { __host__ __device__ bool operator()(float a, float b) const { return a < b; } };' "\n"
    'struct Positive { template <class T> __host__ __device__ bool operator()(T a) const { return a > T(0); } };' "\n"
    'struct Add { __host__ __device__ float operator()(float a, float b) const { return a + b; } };' "\n"
    'struct Sub { __host__ __device__ float operator()(float a, float b) const { return a - b; } };' "\n"
    'void f(void* t, size_t& n, float* k, float* k2, int* v, int* v2, int* off, int* num, char* flags, int c, int segs,' "\n"
    '       float** ins, float** outs, int* sizes, int* hist, unsigned char* px,' "\n"
    '       int* hists[3], int levels[3], int lower[3], int upper[3], const int* lvls[3], const int* lv,' "\n"
    '       cub::KeyValuePair<int, float>* kv, cudaStream_t s) {' "\n"
    '  cub::DeviceReduce::Sum(t, n, k, k2, c, s);' "\n"
    '  cub::DeviceReduce::Max(t, n, k, k2, c);' "\n"
    '  cub::DeviceScan::InclusiveSum(t, n, k, k2, c, s);' "\n"
    '  cub::DeviceScan::InclusiveSum(t, n, k, c);' "\n"
    '  cub::DeviceScan::ExclusiveSum(t, n, k, k2, c);' "\n"
    '  cub::DeviceScan::ExclusiveSum(t, n, k, c, s);' "\n"
    '  cub::DeviceAdjacentDifference::SubtractLeft(t, n, k, c);' "\n"
    '  cub::DeviceAdjacentDifference::SubtractLeftCopy(t, n, k, k2, c, Sub{}, s);' "\n"
    '  cub::DeviceAdjacentDifference::SubtractRight(t, n, k, c);' "\n"
    '  cub::DeviceAdjacentDifference::SubtractRightCopy(t, n, k, k2, c);' "\n"
    '  cub::DeviceCopy::Batched(t, n, ins, outs, sizes, c, s);' "\n"
    '  cub::DeviceHistogram::HistogramEven(t, n, k, hist, 11, 0.0f, 1.0f, c, s);' "\n"
    '  cub::DeviceHistogram::HistogramRange(t, n, k, hist, 11, k2, c);' "\n"
    '  cub::DeviceHistogram::MultiHistogramEven<4, 3>(t, n, px, hists, levels, lower, upper, c);' "\n"
    '  cub::DeviceHistogram::MultiHistogramRange<4, 3>(t, n, px, hists, levels, lvls, c, s);' "\n"
    '  cub::DeviceMergeSort::SortKeys(t, n, k, c, Less{});' "\n"
    '  cub::DeviceMergeSort::SortKeysCopy(t, n, k, k2, c, Less{}, s);' "\n"
    '  cub::DeviceMergeSort::SortPairs(t, n, k, v, c, Less{});' "\n"
    '  cub::DeviceMergeSort::SortPairsCopy(t, n, k, v, k2, v2, c, Less{});' "\n"
    '  cub::DeviceMergeSort::StableSortKeys(t, n, k, c, Less{});' "\n"
    '  cub::DeviceMergeSort::StableSortKeysCopy(t, n, k, k2, c, Less{});' "\n"
    '  cub::DeviceMergeSort::StableSortPairs(t, n, k, v, c, Less{}, s);' "\n"
    '  cub::DevicePartition::Flagged(t, n, k, flags, k2, num, c);' "\n"
    '  cub::DevicePartition::If(t, n, k, k2, num, c, Positive{}, s);' "\n"
    '  cub::DeviceRadixSort::SortKeys(t, n, k, k2, c);' "\n"
    '  cub::DeviceRadixSort::SortKeysDescending(t, n, k, k2, c, 0, 32, s);' "\n"
    '  cub::DeviceRadixSort::SortPairs(t, n, k, k2, v, v2, c);' "\n"
    '  cub::DeviceRadixSort::SortPairsDescending(t, n, k, k2, v, v2, c);' "\n"
    '  cub::DeviceRunLengthEncode::Encode(t, n, v, v2, off, num, c);' "\n"
    '  cub::DeviceRunLengthEncode::NonTrivialRuns(t, n, v, off, v2, num, c, s);' "\n"
    '  cub::DeviceSegmentedRadixSort::SortKeys(t, n, k, k2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedRadixSort::SortKeysDescending(t, n, k, k2, c, segs, off, off + 1, 0, 32, s);' "\n"
    '  cub::DeviceSegmentedRadixSort::SortPairs(t, n, k, k2, v, v2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedRadixSort::SortPairsDescending(t, n, k, k2, v, v2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedReduce::Reduce(t, n, k, k2, segs, off, off + 1, Add{}, 0.0f, s);' "\n"
    '  cub::DeviceSegmentedReduce::Sum(t, n, k, k2, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedReduce::Min(t, n, k, k2, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedReduce::Max(t, n, k, k2, segs, off, off + 1, s);' "\n"
    '  cub::DeviceSegmentedReduce::ArgMin(t, n, k, kv, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedReduce::ArgMax(t, n, k, kv, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::SortKeys(t, n, k, k2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::SortKeysDescending(t, n, k, k2, c, segs, off, off + 1, s);' "\n"
    '  cub::DeviceSegmentedSort::SortPairs(t, n, k, k2, v, v2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::SortPairsDescending(t, n, k, k2, v, v2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::StableSortKeys(t, n, k, k2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::StableSortKeysDescending(t, n, k, k2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSegmentedSort::StableSortPairs(t, n, k, k2, v, v2, c, segs, off, off + 1, s);' "\n"
    '  cub::DeviceSegmentedSort::StableSortPairsDescending(t, n, k, k2, v, v2, c, segs, off, off + 1);' "\n"
    '  cub::DeviceSelect::Flagged(t, n, k, flags, k2, num, c);' "\n"
    '  cub::DeviceSelect::FlaggedIf(t, n, k, flags, k2, num, c, Positive{});' "\n"
    '  cub::DeviceSelect::If(t, n, k, k2, num, c, Positive{}, s);' "\n"
    '  cub::DeviceSelect::Unique(t, n, v, v2, num, c);' "\n"
    '  cub::DeviceSelect::UniqueByKey(t, n, v, k, v2, k2, num, c);' "\n"
    '}' "\n"
)


def _two_phase_entries() -> list[str]:
    return sorted(n for n in calldata.same_shape() if calldata.two_phase(n))


def test_each_two_phase_entry_has_a_call_in_the_proof() -> None:
    called = set(re.findall(r"(cub::Device\w+::\w+)(?:<[^>]*>)?\(", _CUB_TWO_PHASE))
    assert called == set(_two_phase_entries())


def test_cub_two_phase_calls_port_and_the_single_call_env_form_keeps_its_name() -> None:
    # CUB 3.1-3.4's single-call overloads take an execution environment where the temporary storage
    # and the stream were; hipCUB (ROCm 6.4) has none: only a call whose first two arguments the file
    # shows to be the storage (void*, nullptr, NULL) and its size_t byte count is renamed.
    text, rep = tr("#include <cub/cub.cuh>\nstruct W { void* p; size_t bytes; };\n"
                   "void f(float* k, float* o, int* v, int c, void* t, size_t& n, W ws, cudaStream_t s) {\n"
                   "  auto env = cuda::std::execution::env{};\n"
                   "  cub::DeviceReduce::Sum(k, o, c, env);\n"
                   "  cub::DeviceRadixSort::SortKeys(k, o, c, env);\n"
                   "  cub::DeviceScan::InclusiveSum(k, n, env);\n"
                   "  cub::DeviceReduce::Sum(t, n, k, o, c, s);\n"
                   "  void* tmp = nullptr;\n  size_t bytes = 0;\n"
                   "  cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, o, c);\n"
                   "  cub::DeviceRadixSort::SortKeys(tmp, bytes, k, o, c);\n"
                   "  cub::DeviceScan::ExclusiveSum(NULL, (bytes), k, c);\n"
                   "  cub::DeviceSelect::Unique(static_cast<void*>(o), bytes, v, v, v, c);\n"
                   "  cub::DeviceRadixSort::SortKeys(ws.p, ws.bytes, k, o, c);\n"
                   "  cub::DeviceCopy::Copy(t, n, k, o);\n  cub::DeviceMemcpy::Batched(t, n, &t, &t, &n, 1);\n}\n",
                   name="a.cu")
    assert "#include <hipcub/hipcub.hpp>" in text
    assert "  cub::DeviceReduce::Sum(k, o, c, env);" in text and "  cub::DeviceRadixSort::SortKeys(k, o, c, env);" in text
    assert "  cub::DeviceScan::InclusiveSum(k, n, env);" in text  # a size_t second argument alone proves nothing
    assert "// xlate: kept cub::DeviceReduce::Sum: HIP's nearest is hipcub::DeviceReduce::Sum, not proven to take " \
           "this call's arguments as they are (The two-phase call" in text
    assert "// xlate: kept cub::DeviceRadixSort::SortKeys: HIP's nearest is hipcub::DeviceRadixSort::SortKeys" in text
    assert "  hipcub::DeviceReduce::Sum(t, n, k, o, c, s);" in text
    assert "  hipcub::DeviceRadixSort::SortKeys(nullptr, bytes, k, o, c);" in text
    assert "  hipcub::DeviceRadixSort::SortKeys(tmp, bytes, k, o, c);" in text
    assert "  hipcub::DeviceScan::ExclusiveSum(NULL, (bytes), k, c);" in text
    assert "  hipcub::DeviceSelect::Unique(static_cast<void*>(o), bytes, v, v, v, c);" in text
    assert "  cub::DeviceRadixSort::SortKeys(ws.p, ws.bytes, k, o, c);" in text  # members: not shown, kept
    assert "  cub::DeviceCopy::Copy(t, n, k, o);" in text  # hipCUB (ROCm 6.4) has no DeviceCopy::Copy
    assert rep["unknown"]["cub::DeviceCopy::Copy"] == 1
    # hipCUB's Batched does not take void* buffers (CUB's own example): not listed, so never renamed
    assert "  cub::DeviceMemcpy::Batched(t, n, &t, &t, &n, 1);" in text
    assert rep["flagged"]["kept: call shape differs"] == 4
    again, _ = tr(text, name="a.cu")
    assert again == text


@pytest.mark.slow
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
def test_the_two_phase_cub_calls_compile_under_hipcub_after_the_translation(tmp_path: Path) -> None:
    text, _ = tr(_CUB_TWO_PHASE, name="a.cu")
    assert "cub::Device" not in text.replace("hipcub::Device", ""), text
    # No row maps cub::KeyValuePair (the segmented ArgMin/ArgMax output) yet; hipCUB's is hipcub::KeyValuePair.
    text = text.replace("cub::KeyValuePair", "hipcub::KeyValuePair").replace("hiphipcub::", "hipcub::")
    src = tmp_path / "a.hip"
    src.write_text(text, encoding="utf-8")
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_two_phase_cub_calls_are_cubs_own(tmp_path: Path) -> None:
    # The same source under nvcc and its CUB (CUDA 13.0: CUB 3.0): the calls are CUB's, not hipCUB's.
    src = tmp_path / "a.cu"
    src.write_text(_CUB_TWO_PHASE, encoding="utf-8")
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    done = subprocess.run([nvcc, "-x", "cu", "-std=c++17", "-arch=sm_90", "-cuda", str(src), "-o", str(tmp_path / "a.ii")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
