"""Compat helpers (glossary/translate/compat.yaml, src/xlate/translate/compat.py): portable templates
the translator writes into a file for CUDA calls HIP lacks (cooperative_groups::reduce and its
function objects, the cache-hinted loads and stores), each call replaced only where the helper is
right for it, the rest kept with a note. The compile probes (slow) instantiate every helper for
every type the data says it is proven for, and compile the translated fixtures."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from translate_support import COMPILE_SKIP, REPO, compile_hip

from xlate import kb
from xlate.errors import GlossaryError
from xlate.translate import compat
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

FIXTURES = REPO / "tests" / "fixtures" / "translate_compat"
needs_compiler = pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compiler present")


def tr(code: str, name: str = "k.cu", options: Options | None = None) -> tuple[str, dict]:
    result = translate_source(name, code.encode(), kb.load_symbols(), options or Options())
    assert result.text is not None
    return result.text.decode(), result.report.as_json()


def fixture(rel: str) -> tuple[str, dict]:
    return tr((FIXTURES / rel).read_text(encoding="utf-8"), name=Path(rel).name)


def code_of(text: str) -> str:
    """The translation without its helper block and notes: the lines of the user's code."""
    out, skip = [], False
    for line in text.splitlines():
        if line.startswith("// xlate compat helpers:"):
            skip = True
        elif skip and line.startswith("#endif  // XLATE_COMPAT_") and not _more_blocks(text, line):
            skip = False
            continue
        if not skip and not line.lstrip().startswith("// xlate:"):
            out.append(line)
    return "\n".join(out)


def _more_blocks(text: str, line: str) -> bool:
    rest = text.split(line, 1)[1]
    return rest.lstrip("\n").startswith("#ifndef XLATE_COMPAT_")


# --- the data ---------------------------------------------------------------------------------------

def test_every_helper_names_a_snippet_whose_code_defines_its_spelling() -> None:
    for name, helper in compat.helpers().items():
        code = "".join(kb.translate_snippet(s) for s in compat.ordered({helper["snippet"]}))
        short = helper["spelling"].split("::", 1)[1]
        assert re.search(rf"\b(?:struct|T|auto|type)\s+{short}\b|\b{short}\(", code), name
        assert helper["proven"], f"{name}: a helper no probe compiles"
        assert "{written}" in helper["note"]


def test_snippets_come_after_what_they_need() -> None:
    assert compat.ordered({"ldcs", "stcg"}) == ["memory", "ldcs", "stcg"]
    assert compat.ordered({"reduce", "functors"}) == ["functors", "reduce"]
    block = compat.block({"ldcs"}).decode()
    assert block.index("#ifndef XLATE_COMPAT_MEMORY") < block.index("#ifndef XLATE_COMPAT_LDCS")
    assert block.count("#endif  // XLATE_COMPAT_") == 2


def test_the_snippets_use_no_cuda_name_a_second_translation_would_rewrite() -> None:
    """The block survives a second run unchanged: it names nothing the rows map to another spelling."""
    code = compat.block(set(compat.snippets())).decode()
    again, rep = tr(code, name="helpers.h")
    assert again == code and not rep["rewritten"]


@pytest.mark.parametrize("edit, message", [
    (("note: >-\n      {written} -> xlate_compat::ldcs,", "note: >-\n      xlate_compat::ldcs,"), "must name the call it replaces"),
    (("snippet: ldcs\n", "snippet: nowhere\n"), "unknown snippet nowhere"),
    (("  ldcs: &one-helper\n    needs: [memory]", "  ldcs: &one-helper\n    needs: [ldcs]"), "needs itself"),
    (("spelling: xlate_compat::ldcs", "spelling: ldcs2"), "helpers.__ldcs"),
])
def test_a_malformed_compat_file_is_one_line_naming_the_entry(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    folder = tmp_path / "glossary" / "translate"
    shutil.copytree(kb.translate_data_path("compat"), folder / "compat")
    text = kb.translate_data_path("compat.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    (folder / "compat.yaml").write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    with pytest.raises(GlossaryError, match=re.escape(message)) as err:
        kb.translate_data("compat.yaml", tmp_path / "glossary")
    assert "\n" not in str(err.value)


def test_a_snippet_name_that_is_not_one_is_refused() -> None:
    with pytest.raises(GlossaryError, match="not a snippet name"):
        kb.translate_snippet("../calls")


# --- cooperative_groups::reduce -------------------------------------------------------------------------

def test_reduce_on_a_tile_through_an_alias_becomes_the_helper_with_its_function_objects() -> None:
    text, rep = fixture("tree/norms.cu")
    code = code_of(text)
    assert "sq = xlate_compat::reduce(tile, sq, xlate_compat::plus<float>{});" in code
    assert "peak = xlate_compat::reduce(tile, peak, xlate_compat::greater<float>());" in code
    assert "cg::reduce" not in code and "cg::plus" not in code
    assert rep["rewritten"]["compat helper xlate_compat::reduce"] == 2
    assert "// xlate: cg::reduce -> xlate_compat::reduce, a helper written into this file" in text
    assert text.count("#ifndef XLATE_COMPAT_REDUCE") == 1 and text.count("#ifndef XLATE_COMPAT_FUNCTORS") == 1


def test_reduce_after_a_using_directive_becomes_the_helper() -> None:
    text, rep = fixture("tree/counts.cu")
    code = code_of(text)
    assert "unsigned a = xlate_compat::reduce(tile, f, xlate_compat::bit_or<unsigned>());" in code
    assert "int low = xlate_compat::reduce(tile, (int)f, xlate_compat::less<int>());" in code
    assert "Pair p = xlate_compat::reduce(tile, Pair{x, x}, [](Pair l, Pair r)" in code  # a lambda stays as it is
    assert rep["rewritten"]["compat helper xlate_compat::reduce"] == 4


@pytest.mark.parametrize("group, declaration", [
    ("active", "cg::coalesced_group active = cg::coalesced_threads();"),
    ("block", "cg::thread_block block = cg::this_thread_block();"),
    ("part", "auto part = cg::tiled_partition(cg::this_thread_block(), 8);"),
    ("g", ""),  # declared nowhere the syntax shows: unknown
])
def test_reduce_on_a_group_that_is_not_shown_to_be_a_tile_keeps_the_call_with_a_note(group: str, declaration: str) -> None:
    text, rep = tr("namespace cg = cooperative_groups;\n__device__ float s(float v) {\n"
                   f"  {declaration}\n  return cg::reduce({group}, v, cg::plus<float>());\n}}\n")
    assert f"  return cg::reduce({group}, v, xlate_compat::plus<float>());" in text
    assert f"// xlate: kept cg::reduce: the group {group} is " in text
    assert "#ifndef XLATE_COMPAT_REDUCE" not in text  # only the function object's snippet
    assert rep["flagged"]["kept: reduce on a group that is not a tile"] == 1


def test_a_tile_parameter_and_a_tile_made_in_the_call_are_tiles() -> None:
    text, _ = tr("namespace cg = cooperative_groups;\n"
                 "__device__ float a(const cg::thread_block_tile<32>& warp, float v) {\n"
                 "  return cg::reduce(warp, v, cg::plus<float>());\n}\n"
                 "__device__ float b(float v) {\n"
                 "  return cooperative_groups::reduce(cg::tiled_partition<8>(cg::this_thread_block()), v,\n"
                 "                                    cooperative_groups::less<float>());\n}\n")
    assert "return xlate_compat::reduce(warp, v, xlate_compat::plus<float>());" in text
    assert "return xlate_compat::reduce(cg::tiled_partition<8>(cg::this_thread_block()), v," in text
    assert "xlate_compat::less<float>());" in text


def test_an_unqualified_reduce_the_file_defines_itself_is_left_alone() -> None:
    text, rep = tr("using namespace cooperative_groups;\n"
                   "template <class G> __device__ float reduce(G g, float v, int) { return v; }\n"
                   "__device__ float s(float v) {\n  thread_block_tile<32> t = tiled_partition<32>(this_thread_block());\n"
                   "  return reduce(t, v, 0);\n}\n")
    assert "return reduce(t, v, 0);" in text and "xlate_compat" not in text
    assert not any(k.startswith("compat") for k in rep["rewritten"])


def test_the_reduce_header_include_is_replaced_by_a_note() -> None:
    text, rep = fixture("kept.cu")
    assert "\n#include <cooperative_groups/reduce.h>" not in text
    assert "// xlate: removed #include <cooperative_groups/reduce.h>: HIP has no such header" in text
    assert "cooperative_groups/reduce.h (header)" not in rep["unknown"]
    assert "#include <cooperative_groups/reduce.h>" in tr("// #include <cooperative_groups/reduce.h>\n")[0]


# --- cache-hinted loads and stores ------------------------------------------------------------------

@pytest.mark.parametrize("decl, call, written", [
    ("const int4* p", "__ldcs(p)", "xlate_compat::ldcs(p)"),
    ("const float4* p", "__ldcs(p + 1)", "xlate_compat::ldcs(p + 1)"),
    ("const float* p", "__ldcs(p)", "__builtin_nontemporal_load(p)"),     # proven by calls.yaml: kept as it was
    ("const __half* p", "__ldcs(p)", "__ldcs(p)"),                        # HIP declares it for __half
    ("const __nv_bfloat16* p", "__ldcs(p)", "xlate_compat::ldcs(p)"),
    ("const float* p", "__ldcs(reinterpret_cast<const int4*>(p))", "xlate_compat::ldcs(reinterpret_cast<const int4*>(p))"),
    ("int4* p", "__stcs(p, make_int4(1, 2, 3, 4))", "xlate_compat::stcs(p, make_int4(1, 2, 3, 4))"),
    ("float* p", "__stcs(p + 2, 1.0)", "xlate_compat::stcs(p + 2, 1.0)"),
    ("__half* p", "__stcs(p, __float2half(1.f))", "xlate_compat::stcs(p, __float2half(1.f))"),
    ("__nv_bfloat16* p", "__stcs(p, __float2bfloat16(1.f))", "xlate_compat::stcs(p, __float2bfloat16(1.f))"),
    ("const float* p", "__ldcg(p)", "__hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)"),
    ("const int4* p", "__ldcg(p)", "xlate_compat::ldcg(p)"),
    ("const int4* p", "__ldca(p)", "__ldg(p)"),                           # proven by calls.yaml
    ("const __nv_bfloat16* p", "__ldca(p)", "xlate_compat::ldca(p)"),
    ("const float* p", "__ldlu(p)", "xlate_compat::ldlu(p)"),
    ("const double2* p", "__ldcv(p)", "xlate_compat::ldcv(p)"),
    ("float* p", "__stwb(p, 1.f)", "xlate_compat::stwb(p, 1.f)"),
    ("float4* p", "__stcg(p, make_float4(0, 0, 0, 0))", "xlate_compat::stcg(p, make_float4(0, 0, 0, 0))"),
    ("double* p", "__stwt(p, 1.0)", "xlate_compat::stwt(p, 1.0)"),
])
def test_each_load_and_store_takes_the_proven_spelling_else_the_helper(decl: str, call: str, written: str) -> None:
    text, _ = tr(f"#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n__global__ void k({decl}) {{\n  auto r = ({call}, 0);\n}}\n")
    assert f"  auto r = ({written}, 0);" in text
    assert ("#ifndef XLATE_COMPAT_MEMORY" in text) == written.startswith("xlate_compat::")


def test_a_pointee_the_file_defines_as_its_own_type_keeps_the_name() -> None:
    text, rep = fixture("kept.cu")
    assert "  return __ldcs(cells);" in text
    assert "// xlate: kept __ldcs: Cell is a type this file defines, and CUDA declares __ldcs for no such type" in text
    assert rep["flagged"]["kept: call reaches a project function"] == 1


def test_a_users_own_ldcs_is_left_alone() -> None:
    text, rep = fixture("own.cu")
    assert "out[threadIdx.x] = __ldcs(in + threadIdx.x);" in text and "xlate_compat" not in text
    assert rep["flagged"]["kept: user-defined function"] == 1


def test_a_call_on_a_type_cuda_declares_is_not_the_projects_overload() -> None:
    """A project overload for its own type (as llm.c's bf16 shim): a call on an int4 (CUDA declares
    __ldcs for it, so no project overload can take it) gets the helper; a call on the project's
    type, or on a type the syntax does not show, keeps the name."""
    text, _ = tr("typedef __nv_bfloat16 floatX;\n__device__ floatX __ldcs(const floatX* a) { return *a; }\n"
                 "struct S { const floatX* p; };\n"
                 "__global__ void k(const floatX* x, const float* f, float* o, S s, int4* q) {\n"
                 "  int4 v = __ldcs(reinterpret_cast<const int4*>(f));\n  __stcs(q, v);\n"
                 "  o[1] = (float)__ldcs(x);\n  o[2] = (float)__ldcs(s.p);\n}\n")
    assert "int4 v = xlate_compat::ldcs(reinterpret_cast<const int4*>(f));" in text
    assert "o[1] = (float)__ldcs(x);" in text and "o[2] = (float)__ldcs(s.p);" in text


def test_the_note_about_a_headers_own_function_goes_above_a_call_that_keeps_the_name(tmp_path: Path) -> None:
    from xlate.translate.cli import run

    src = tmp_path / "src"
    src.mkdir()
    (src / "shim.cuh").write_text("#pragma once\ntypedef __nv_bfloat16 floatX;\n"
                                  "__device__ floatX __ldcs(const floatX* a) { return *a; }\n", encoding="utf-8")
    (src / "k.cu").write_text('#include "shim.cuh"\n__global__ void k(const int4* v, int4* o, const floatX* x, float* f) {\n'
                              "  *o = __ldcs(v);\n  *f = (float)__ldcs(x);\n}\n", encoding="utf-8")
    assert run([str(src)], out=str(tmp_path / "out"), summary="none") == 0
    lines = (tmp_path / "out" / "k.hip").read_text(encoding="utf-8").splitlines()
    helped = lines.index("  *o = xlate_compat::ldcs(v);")
    kept = lines.index("  *f = (float)__ldcs(x);")
    assert lines[kept - 1].startswith("  // xlate: kept __ldcs: shim.cuh defines its own __ldcs")
    assert not any("kept __ldcs" in line for line in lines[:helped])


def test_a_call_in_a_macro_body_gets_the_helper_whatever_the_type() -> None:
    text, _ = tr("#define LOAD(p) __ldcs(p)\n__global__ void k(const int4* a, int4* b) { *b = LOAD(a); }\n")
    assert "#define LOAD(p) xlate_compat::ldcs(p)" in text
    assert text.index("#ifndef XLATE_COMPAT_LDCS") < text.index("#define LOAD")


def test_pointer_arithmetic_chains_read_the_leftmost_pointer() -> None:
    text, _ = tr("__global__ void k(const float* x, float* out, int i, int T) {\n"
                 "  out[0] = __ldcs(x + i * T + 1);\n}\n")
    assert "__builtin_nontemporal_load(x + i * T + 1)" in text  # float: calls.yaml's proven builtin


# --- where the block goes -------------------------------------------------------------------------

def test_the_block_goes_after_the_includes_and_before_the_first_use_inside_the_include_guard() -> None:
    text, _ = fixture("tree/common/stream.cuh")
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("// xlate compat helpers:"))
    assert lines.index("#define STREAM_CUH") < lines.index("#include <hip/hip_bf16.h>") < lines.index("struct Wide {") < head
    assert lines[head - 1] == ""
    # the comment that introduces the first function using a helper stays with it, below the block
    assert lines.index("// 16 bytes at a time, through an int4 view of any element type.") > head
    assert text.rstrip().endswith("#endif")  # the guard's own #endif still ends the file


def test_uses_in_a_namespace_get_the_block_above_the_namespace() -> None:
    text, _ = tr("namespace app {\n__global__ void k(const int4* a, int4* b) { *b = __ldcs(a); }\n}\n")
    assert text.index("#endif  // XLATE_COMPAT_LDCS") < text.index("namespace app {")


def test_uses_under_different_conditions_share_one_block_outside_them() -> None:
    text, _ = tr("#ifdef A\n__global__ void k(const int4* a, int4* b) { *b = __ldcs(a); }\n#else\n"
                 "__global__ void k(const int4* a, int4* b) { __stcs(b, *a); }\n#endif\n")
    assert text.count("// xlate compat helpers:") == 1
    assert text.index("#endif  // XLATE_COMPAT_STCS") < text.index("#ifdef A")


def test_a_second_translation_changes_nothing() -> None:
    for rel in ("tree/norms.cu", "tree/counts.cu", "tree/common/stream.cuh", "kept.cu"):
        once, _ = fixture(rel)
        twice, _ = tr(once, name=Path(rel).name)
        assert twice == once, rel


@pytest.mark.parametrize("mode", ["tree", "stdout", "in-place"])
def test_every_output_mode_writes_the_helpers_with_the_calls(mode: str, tmp_path: Path) -> None:
    import io

    from xlate.translate.cli import run

    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "tree", src)
    out = io.StringIO()
    if mode == "tree":
        assert run([str(src)], out=str(tmp_path / "out"), summary="none") == 0
        text = (tmp_path / "out" / "norms.hip").read_text(encoding="utf-8")
    elif mode == "stdout":
        assert run([str(src / "norms.cu")], summary="none", stdout=out) == 0
        text = out.getvalue()
    else:
        assert run([str(src)], in_place=True, summary="none") == 0
        text = (src / "norms.cu").read_text(encoding="utf-8")
    assert "xlate_compat::reduce(tile, sq, xlate_compat::plus<float>{});" in text
    assert "#ifndef XLATE_COMPAT_REDUCE" in text and "#ifndef XLATE_COMPAT_STCS" in text


# --- compile probes -------------------------------------------------------------------------------

_HEADERS = "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n"
_PROJECT_STRUCT = "struct xlate_probe_pair { float a, b; };\n"
_LOAD = {"ldcs", "ldlu", "ldca", "ldcg", "ldcv"}


def _probe(body: str, names: set[str]) -> str:
    return _HEADERS + compat.block(names).decode() + _PROJECT_STRUCT + body


@needs_compiler
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, h in compat.helpers().items() if h["argument"] == "pointer"])
def test_each_load_and_store_helper_compiles_for_every_proven_type(name: str, tmp_path: Path) -> None:
    helper = compat.helpers()[name]
    types = [*helper["proven"], "xlate_probe_pair"]
    short = helper["spelling"]
    lines = []
    for i, t in enumerate(types):
        alias = f"probe_t{i}"
        lines.append(f"typedef {t} {alias};\n")
        if short.split("::")[1] in _LOAD:
            lines.append(f"__global__ void k{i}(const {alias}* p, {alias}* q) {{ *q = {short}(p + threadIdx.x); }}\n")
        else:
            lines.append(f"__global__ void k{i}(const {alias}* p, {alias}* q) {{ {short}(q + threadIdx.x, *p); }}\n")
    src = tmp_path / "probe.hip"
    src.write_text(_probe("".join(lines), {helper["snippet"]}), encoding="utf-8")
    done = compile_hip(src, "gfx942", "device")
    assert done.returncode == 0, done.stderr[-3000:]


@needs_compiler
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, h in compat.helpers().items() if h["argument"] == "function"])
def test_each_function_helper_compiles_where_it_runs_and_returns_cudas_type(name: str, tmp_path: Path) -> None:
    helper = compat.helpers()[name]
    assert helper["returns"] and helper["runs_on"] in ("host", "device"), f"{name}: a function helper says what " \
        "CUDA's function returns and where it runs"
    lines = ["#include <type_traits>\n#include <cstddef>\nusing std::size_t;\n"]
    qualifier = "__global__" if helper["runs_on"] == "device" else ""
    for i, args in enumerate(helper["proven"]):
        params = args[1:-1].strip()
        names = ", ".join(f"a{j}" for j in range(len(params.split(",")))) if params else ""
        decl = ", ".join(f"{t.strip()} a{j}" for j, t in enumerate(params.split(","))) if params else ""
        call = f"{helper['spelling']}({names})"
        lines.append(f"{qualifier} void probe{i}({decl}) {{\n  {call};\n"
                     f"  static_assert(std::is_same<decltype({call}), {helper['returns']}>::value, \"return type\");\n}}\n")
    src = tmp_path / "probe.hip"
    src.write_text(_probe("".join(lines), {helper["snippet"]}), encoding="utf-8")
    done = compile_hip(src, "gfx942", "device" if helper["runs_on"] == "device" else "syntax")
    assert done.returncode == 0, done.stderr[-3000:]


def test_syncwarp_becomes_the_helper_with_any_mask() -> None:
    text, rep = tr("__global__ void k(float* s) {\n  s[threadIdx.x] = 1.f;\n  __syncwarp();\n"
                   "  __syncwarp(0xffffffff);\n  s[0] += s[1];\n}\n")
    assert "  xlate_compat::syncwarp();\n" in text and "  xlate_compat::syncwarp(0xffffffff);\n" in text
    assert "#ifndef XLATE_COMPAT_SYNCWARP" in text and rep["rewritten"]["compat helper xlate_compat::syncwarp"] == 2


def test_a_function_helper_replaces_the_name_in_a_macro_body_and_in_code() -> None:
    text, rep = tr("#include <cublas_v2.h>\n#define REPORT() printf(\"%zu\\n\", cublasGetCudartVersion())\n"
                   "size_t v() { return cublasGetCudartVersion(); }\n", name="a.cpp")
    assert "cublasGetCudartVersion" not in text.replace("// xlate: cublasGetCudartVersion", "")
    assert "cublasGetCudartVersion())" not in text and "return xlate_compat::cudart_version(); }" in text
    assert "#ifndef XLATE_COMPAT_CUDART_VERSION" in text
    assert rep["rewritten"]["compat helper xlate_compat::cudart_version"] == 2
    assert "not a CUDA version" in text


@needs_compiler
@pytest.mark.slow
def test_reduce_and_the_function_objects_compile_for_every_proven_type(tmp_path: Path) -> None:
    lines = ["namespace cg = cooperative_groups;\n"]
    for i, t in enumerate(compat.helpers()["cooperative_groups::reduce"]["proven"]):
        lines.append(f"typedef {t} probe_r{i};\n__global__ void r{i}(const probe_r{i}* p, probe_r{i}* q) {{\n"
                     "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
                     "  cg::thread_block_tile<64> all = cg::tiled_partition<64>(cg::this_thread_block());\n"
                     f"  q[0] = xlate_compat::reduce(w, p[threadIdx.x], [](probe_r{i} a, probe_r{i} b) {{ return a; }});\n"
                     f"  q[1] = xlate_compat::reduce(all, p[threadIdx.x], [](probe_r{i} a, probe_r{i} b) {{ return b; }});\n}}\n")
    for helper in compat.helpers().values():
        if helper["argument"] != "name":
            continue
        for j, t in enumerate(helper["proven"]):
            lines.append(f"__global__ void f_{helper['spelling'].split('::')[1]}{j}(const {t}* p, {t}* q) {{\n"
                         "  auto w = cg::tiled_partition<16>(cg::this_thread_block());\n"
                         f"  q[0] = xlate_compat::reduce(w, p[threadIdx.x], {helper['spelling']}<{t}>());\n}}\n")
    lines.append("__global__ void pairs(xlate_probe_pair* q) {\n"
                 "  auto w = cg::tiled_partition<4>(cg::this_thread_block());\n"
                 "  q[1] = xlate_compat::reduce(w, q[0], [](xlate_probe_pair a, xlate_probe_pair b) {\n"
                 "    return xlate_probe_pair{a.a + b.a, a.b < b.b ? b.b : a.b}; });\n}\n")
    src = tmp_path / "probe.hip"
    src.write_text(_probe("".join(lines), {"reduce", "functors"}), encoding="utf-8")
    done = compile_hip(src, "gfx942", "device")
    assert done.returncode == 0, done.stderr[-3000:]


@needs_compiler
@pytest.mark.slow
@pytest.mark.parametrize("body, rejected", [
    ("__device__ float s(float v) { cg::coalesced_group g = cg::coalesced_threads();\n"
     "  return xlate_compat::reduce(g, v, xlate_compat::plus<float>()); }\n", "no matching function for call to 'reduce'"),
    ("__device__ float s(float v) { cg::thread_block g = cg::this_thread_block();\n"
     "  return xlate_compat::reduce(g, v, xlate_compat::plus<float>()); }\n", "no matching function for call to 'reduce'"),
    ("__device__ float s(float v) { cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 8);\n"
     "  return xlate_compat::reduce(g, v, xlate_compat::plus<float>()); }\n", "no matching function for call to 'reduce'"),
    ("__device__ float s(volatile float* p) { return xlate_compat::ldcs(p); }\n", "no matching function for call to 'ldcs'"),
    ("__device__ void s(const float* p) { xlate_compat::stcs(p, 1.f); }\n", "no matching function for call to 'stcs'"),
])
def test_the_helpers_take_no_call_they_would_get_wrong(body: str, rejected: str, tmp_path: Path) -> None:
    """A group that is not a tile, a volatile or const pointer (none of which CUDA's functions take):
    the call does not compile, as the CUDA call did not on HIP; nothing is reduced or stored wrongly."""
    src = tmp_path / "reject.hip"
    src.write_text(_probe("namespace cg = cooperative_groups;\n" + body, {"reduce", "functors", "ldcs", "stcs"}),
                   encoding="utf-8")
    done = compile_hip(src, "gfx942", "syntax")
    assert done.returncode != 0 and rejected in done.stderr, done.stderr[-2000:]


@needs_compiler
@pytest.mark.slow
def test_the_streaming_and_scoped_forms_keep_their_cache_bits_on_gfx942(tmp_path: Path) -> None:
    """What the notes say is kept, read off the instructions: `nt` on the streaming load and store of
    an int4 (through its `data`), sc1 on an agent-scope load, sc0 sc1 on a system-scope store, and a
    tile-32 reduce that is five exchanges."""
    import subprocess

    from translate_support import CLANG, ROCM, hip_env

    body = ("__global__ void a(const int4* p, int4* q) { int i = threadIdx.x; xlate_compat::stcs(q + i, xlate_compat::ldcs(p + i)); }\n"
            "__global__ void b(const float* p, double* q) { int i = threadIdx.x; xlate_compat::stwt(q + i, (double)xlate_compat::ldcg(p + i)); }\n"
            "__global__ void c(const float* p, float* q) {\n  auto w = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());\n"
            "  q[threadIdx.x] = xlate_compat::reduce(w, p[threadIdx.x], xlate_compat::plus<float>()); }\n")
    src = tmp_path / "bits.hip"
    src.write_text(_probe(body, {"ldcs", "stcs", "ldcg", "stwt", "reduce", "functors"}), encoding="utf-8")
    assert CLANG is not None and ROCM is not None
    asm = tmp_path / "bits.s"
    done = subprocess.run([CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-std=c++17", "-w", "-I", str(ROCM.include),
                           "--cuda-device-only", "-O2", "-S", "-o", str(asm), str(src)], capture_output=True, text=True,
                          env=hip_env(), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = asm.read_text(encoding="utf-8")
    kernels = {m.group(1): m.group(2) for m in re.finditer(r"^(_Z1\w+):.*?\n(.*?)s_endpgm", text, re.S | re.M)}
    a, b, c = (next(v for k, v in kernels.items() if k.startswith(f"_Z1{x}")) for x in "abc")
    assert re.search(r"global_load_dwordx4 .* nt$", a, re.M) and re.search(r"global_store_dwordx4 .* nt$", a, re.M)
    assert re.search(r"global_load_dword .* sc1$", b, re.M) and re.search(r"global_store_dwordx2 .* sc0 sc1$", b, re.M)
    assert len(re.findall(r"ds_bpermute_b32|ds_swizzle|_dpp", c)) == 5


@needs_compiler
@pytest.mark.slow
def test_the_translated_fixtures_compile_and_verify_charges_nothing_to_the_helpers(tmp_path: Path) -> None:
    from translate_support import CLANG  # noqa: F401 (needs_compiler checked it)

    from xlate.translate import verify as vf

    out = tmp_path / "out"
    from xlate.translate.cli import run

    assert run([str(FIXTURES / "tree")], out=str(out), summary="none") == 0
    for unit in ("norms.hip", "counts.hip"):
        done = compile_hip(out / unit, "gfx942", "syntax", include=[out])
        assert done.returncode == 0, done.stderr[-3000:]
    # The kept calls fail as the CUDA ones do on HIP; none of the errors is the translator's.
    originals = [FIXTURES / "kept.cu", FIXTURES / "own.cu"]
    files = []
    for path in originals:
        original = path.read_text(encoding="utf-8")
        text = translate_source(path.name, original.encode(), kb.load_symbols(), Options()).text
        assert text is not None
        files.append(vf.Translated(path, path.stem + ".hip", original.encode(), text))
    result = vf.TreeVerifier(vf.find_toolchain("gfx942", None), files, []).run()
    errors = {u.path: u.errors for u in result.units}
    assert errors["own.hip"] == []
    assert errors["kept.hip"] and not any(e.ours for e in errors["kept.hip"])
