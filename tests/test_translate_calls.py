"""Argument-aware rewrites read from glossary/translate/calls.yaml: scoped atomics, cache-hinted
loads by pointee type, kernels passed as `const void*`, CUDA 12/13 call forms, erased macros."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from xlate import kb
from xlate.translate import calldata
from xlate.translate.engine import translate_source
from xlate.translate.names import hip_name
from xlate.translate.options import Options


def tr(code: str, name: str = "k.cu") -> tuple[str, dict]:
    result = translate_source(name, code.encode(), kb.load_symbols(), Options())
    assert result.text is not None
    return result.text.decode(), result.report.as_json()


def test_every_appended_call_names_the_hip_spelling_its_row_gives() -> None:
    smap = kb.load_symbols()
    for cuda, spec in calldata.append().items():
        entry = smap.get(cuda)
        assert entry is not None, f"{cuda}: no symbol row"
        assert hip_name(entry, Options(), smap)[0] == spec["hip"], f"{cuda}: the row no longer gives {spec['hip']}"
    for cuda in calldata.erase():
        entry = smap.get(cuda)
        assert entry is not None and entry.hip_relation == "none", f"{cuda}: erased, so its row must say HIP has none"


@pytest.mark.skipif(shutil.which("clang++-19") is None, reason="clang++-19 is not installed")
def test_appended_arguments_are_macros_clang_predefines_for_hip() -> None:
    run = subprocess.run(["clang++-19", "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib", "-dM",
                          "-E", "-"], input="", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-1000:]
    defined = {line.split()[1] for line in run.stdout.splitlines() if line.startswith("#define ")}
    wanted = {a for spec in calldata.append().values() for a in spec["arguments"]}
    assert wanted and wanted <= defined, sorted(wanted - defined)


def test_block_atomics_become_work_group_scoped_builtins() -> None:
    text, rep = tr("__global__ void k(unsigned* p, int* q) {\n  atomicAdd_block(p, 1u);\n  atomicMax_block(q, 3);\n"
                   "  atomicCAS_block(p, 0u, 1u);\n}\n")
    assert "__hip_atomic_fetch_add(p, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);" in text
    assert "__hip_atomic_fetch_max(q, 3, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);" in text
    assert "atomicCAS(p, 0u, 1u);" in text  # device scope: wider, still atomic among the block
    assert rep["rewritten"]["__hip_atomic_fetch_add-arguments"] == 1


def test_a_call_with_other_arguments_gets_no_appended_ones() -> None:
    # A macro-like use with the wrong arity: the name follows the row, nothing is appended blindly.
    text, _ = tr("__global__ void k(unsigned* p) { atomicAdd_block(p); }\n")
    assert "__HIP_MEMORY_SCOPE_WORKGROUP" not in text


@pytest.mark.parametrize("decl, kept", [("const __half* p", True), ("const half2* p", True), ("const float* p", False)])
def test_cache_hinted_loads_follow_the_declared_pointee_type(decl: str, kept: bool) -> None:
    text, rep = tr(f"#include <cuda_fp16.h>\n__global__ void k({decl}, float* o) {{ o[0] = (float)__ldcg(p + 1); }}\n")
    if kept:
        assert "__ldcg(p + 1)" in text and "__hip_atomic_load" not in text
    else:
        assert "__hip_atomic_load(p + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)" in text


def test_a_load_no_row_spelling_compiles_for_gets_the_compat_helper() -> None:
    text, rep = tr("__global__ void k(const float4* v, float4* o) { o[0] = __ldcs(&v[1]); o[1] = __ldca(v); }\n")
    # HIP's __ldg takes float4 (the row's proven spelling stays); the builtin does not: the helper
    assert "xlate_compat::ldcs(&v[1])" in text and "__ldg(v)" in text
    assert rep["rewritten"]["compat helper xlate_compat::ldcs"] == 1 and not rep["unknown"]


def test_an_undeclared_pointee_gets_the_helper_whose_template_takes_any_type() -> None:
    # A member's type is not read; the compat helper, a template, is right for whatever type it is.
    text, rep = tr("struct S { const float* p; };\n__global__ void k(S s, float* o) { o[0] = __ldcg(s.p); }\n")
    assert "__global__ void k(S s, float* o) { o[0] = xlate_compat::ldcg(s.p); }" in text
    assert "// xlate: __ldcg -> xlate_compat::ldcg, a helper written into this file" in text
    assert "kept: call not proven for its types" not in rep["flagged"]


def test_a_shadowed_name_is_unknown_not_guessed() -> None:
    from xlate.cuda.parser import parse
    from xlate.translate.pointee import Pointees

    src = b"__global__ void k(const float* p) {\n  { const __half* p = 0; }\n  __ldcg(p);\n}\n"
    tree = parse(src)
    call = tree.root_node.named_children[0].child_by_field_name("body").named_children[1].named_children[0]
    assert call.type == "call_expression"
    assert Pointees().of_argument(call.child_by_field_name("arguments").named_children[0]) is None


def test_kernels_passed_to_cudafunc_calls_become_const_void_pointers() -> None:
    text, rep = tr("__global__ void g() {}\nvoid h() {\n  cudaFuncSetAttribute(g, cudaFuncAttributeMaxDynamicSharedMemorySize, 1);\n"
                   "  cudaFuncSetCacheConfig((const void*)g, cudaFuncCachePreferL1);\n}\n")
    assert "hipFuncSetAttribute(reinterpret_cast<const void*>(g), hipFuncAttributeMaxDynamicSharedMemorySize, 1);" in text
    assert "hipFuncSetCacheConfig((const void*)g, hipFuncCachePreferL1);" in text  # cast by hand already
    assert rep["rewritten"]["kernel-as-const-void*"] == 1


def test_graph_instantiate_takes_the_with_flags_form_only_for_cuda_12_calls() -> None:
    text, _ = tr("void h(cudaGraph_t g, cudaGraphExec_t* e, cudaGraphNode_t* n, char* log) {\n"
                 "  cudaGraphInstantiate(e, g);\n  cudaGraphInstantiate(e, g, 1);\n"
                 "  cudaGraphInstantiate(e, g, n, log, 64);\n}\n", name="k.cpp")
    assert "hipGraphInstantiateWithFlags(e, g, 0);" in text and "hipGraphInstantiateWithFlags(e, g, 1);" in text
    assert "hipGraphInstantiate(e, g, n, log, 64);" in text


def test_cuda_13_memory_locations_become_device_numbers() -> None:
    text, _ = tr("void h(float* p, size_t n, cudaStream_t s, int dev) {\n  cudaMemLocation loc{};\n"
                 "  cudaMemPrefetchAsync(p, n, loc, 0, s);\n  cudaMemPrefetchAsync(p, n, dev, s);\n"
                 "  cudaMemPrefetchAsync(p, n, loc, flags, s);\n"
                 "  cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, loc);\n  cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev);\n}\n",
                 name="k.cpp")
    device = "(loc.type == hipMemLocationTypeDevice ? loc.id : hipCpuDeviceId)"
    assert f"hipMemPrefetchAsync(p, n, {device}, s);" in text
    assert "hipMemPrefetchAsync(p, n, dev, s);" in text  # CUDA 12's form: a device number already
    assert "hipMemPrefetchAsync(p, n, loc, flags, s);" in text  # flags not provably 0: left for the compiler to flag
    assert f"hipMemAdvise(p, n, hipMemAdviseSetReadMostly, {device});" in text
    assert "hipMemAdvise(p, n, hipMemAdviseSetReadMostly, dev);" in text


def test_cudart_cb_is_removed_from_code_only() -> None:
    text, rep = tr('// CUDART_CB stays here\nstatic void CUDART_CB cb(void* d) { puts("CUDART_CB"); }\n', name="k.cpp")
    assert "static void cb(void* d)" in text and "// CUDART_CB stays here" in text and '"CUDART_CB"' in text
    assert rep["rewritten"]["CUDART_CB-removed"] == 1


def test_the_new_rewrites_are_idempotent() -> None:
    code = ("#include <cuda_fp16.h>\n__global__ void k(const __half* h, unsigned* p, float* o) {\n"
            "  atomicOr_block(p, 1u); o[0] = __half2float(__ldcg(h)) + __ldcg(o + 1);\n}\n"
            "static void CUDART_CB cb(void*) {}\nvoid f(cudaGraph_t g, cudaGraphExec_t* e) { cudaGraphInstantiate(e, g); "
            "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1); }\n")
    once, _ = tr(code)
    twice, _ = tr(once)
    assert twice == once


@pytest.mark.parametrize("body, message", [
    ("append: {}\n", "expected the mappings"),
    ("append: {x: {hip: y, arity: 1, arguments: [], source: s}}\ntyped: {}\nmaskless: {}\nsame_shape: {}\nerase: {}\n"
     "function_address: {}\ndevice_construction: {}\nargument_types: {}\nhost_api_families: {}\ncaveat_notes: {}\n", None),
    ("append: {x: {hip: y, arity: 1}}\ntyped: {}\nmaskless: {}\nsame_shape: {}\nerase: {}\nfunction_address: {}\ndevice_construction: {}\nargument_types: {}\nhost_api_families: {}\ncaveat_notes: {}\n",
     "append.x: expected exactly"),
    ("append: {}\ntyped: {p: {keep: ['a;b'], accepts: [], any_cuda_type: false, source: s}}\nmaskless: {}\nsame_shape: {}\nerase: {}\n"
     "function_address: {}\ndevice_construction: {}\nargument_types: {}\nhost_api_families: {}\ncaveat_notes: {}\n", "must be C spellings"),
    ("append: {}\ntyped: {p: {keep: [], accepts: [int], any_cuda_type: maybe, source: s}}\nmaskless: {}\nsame_shape: {}\nerase: {}\n"
     "function_address: {}\ndevice_construction: {}\nargument_types: {}\nhost_api_families: {}\ncaveat_notes: {}\n", "typed.p: .*any_cuda_type"),
    ("append: [\n", "not valid YAML"),
])
def test_a_malformed_calls_file_is_a_one_line_glossary_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             body: str, message: str | None) -> None:
    from xlate.errors import GlossaryError

    (tmp_path / "translate").mkdir()
    (tmp_path / "translate" / "calls.yaml").write_text(body, encoding="utf-8")
    monkeypatch.setenv("XLATE_GLOSSARY", str(tmp_path))
    calldata._data.cache_clear()
    try:
        if message is None:
            assert calldata.append()["x"]["hip"] == "y"
        else:
            with pytest.raises(GlossaryError, match=message) as info:
                calldata.append()
            assert "\n" not in str(info.value)
    finally:
        monkeypatch.delenv("XLATE_GLOSSARY")
        calldata._data.cache_clear()


def test_a_lane_mask_variable_read_only_by_bit_counts_is_widened() -> None:
    text, rep = tr("__global__ void k(const int* f, int* o) {\n  unsigned votes = __ballot_sync(0xffffffff, f[threadIdx.x] != 0);\n"
                   "  o[0] = __popc(votes) + __ffs(votes);\n}\n")
    assert "unsigned long long votes = __ballot(f[threadIdx.x] != 0);" in text
    assert "o[0] = __popcll(votes) + __ffsll(votes);" in text
    assert "XL010" not in text  # every finding on the variable is settled by the fix
    assert any(k.startswith("XL010 lane-mask-width (32-bit lane-mask variable widened") for k in rep["fixed"])


@pytest.mark.parametrize("use", ["o[0] = votes;", "o[0] = __popc(votes) + (votes >> 1);", "o[0] = __clz(votes);"])
def test_a_lane_mask_variable_used_otherwise_is_left_flagged(use: str) -> None:
    text, rep = tr("__global__ void k(const int* f, unsigned* o) {\n  unsigned votes = __ballot_sync(0xffffffff, f[threadIdx.x] != 0);\n"
                   f"  {use}\n}}\n")
    assert "unsigned votes = " in text and "unsigned long long votes" not in text
    assert "XL010 lane-mask-width: a lane mask stored in 32-bit 'unsigned'" in text
