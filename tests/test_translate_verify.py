"""translate --verify (compile each translated unit, attribute errors to rewrites), --rocm (version
facts from the rows), "no HIP equivalent" checked against the ROCm 6.4 headers, and notes for kept
names the target headers do not declare. Compile checks skip, with the reason, where clang-19 or
the ROCm 6.4 headers are absent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from translate_support import COMPILE_SKIP, REPO

from xlate import kb
from xlate.errors import UsageError
from xlate.translate import verify as vf
from xlate.translate import versions
from xlate.translate.engine import translate_source
from xlate.translate.options import Options

FIXTURES = REPO / "tests" / "fixtures" / "translate_verify"
needs_compiler = pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compiler present")


def _translate(name: str, rocm: str | None) -> str:
    result = translate_source(name, (FIXTURES / name).read_bytes(), versions.for_target(kb.load_symbols(), rocm),
                              Options(rocm=rocm))
    assert result.text is not None
    return result.text.decode("utf-8")


def _toolchain() -> vf.Toolchain:
    return vf.find_toolchain("gfx942", None)


def _compile(tc: vf.Toolchain, tmp: Path, name: str, text: str) -> list[vf.Diagnostic]:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return vf.run_clang(tc, path, [tmp])[0]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xlate", "translate", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src"), **(env or {})}, check=False, timeout=600)


# --- the target ROCm version ---------------------------------------------------------------------------

def test_rocm_versions_come_from_the_rows() -> None:
    smap = kb.load_symbols()
    known = versions.known(smap)
    assert {"6.4", "7.0"} <= set(known)
    assert versions.target(smap, None) == known[-1]  # the newest the rows know
    assert versions.target(smap, "6.4") == "6.4"
    with pytest.raises(UsageError, match="--rocm 6.3"):
        versions.target(smap, "6.3")


def test_rocm_picks_the_spelling_of_that_version() -> None:
    on64, on70 = _translate("gemm_batched.cu", "6.4"), _translate("gemm_batched.cu", "7.0")
    assert "hipblasGemmStridedBatchedEx_v2(" in on64
    assert "hipblasGemmStridedBatchedEx(" in on70 and "_v2" not in on70
    assert "HIP_R_32F" in on64 and "HIPBLAS_COMPUTE_32F" in on64


@pytest.mark.slow
@needs_compiler
def test_both_gemm_facts_hold_against_the_64_headers(tmp_path: Path) -> None:
    """The _v2 form compiles on ROCm 6.4; the ROCm 7.0 form (hipDataType under the plain name) does not."""
    tc = _toolchain()
    assert _compile(tc, tmp_path, "v2.hip", _translate("gemm_batched.cu", "6.4")) == []
    errors = _compile(tc, tmp_path, "plain.hip", _translate("gemm_batched.cu", "7.0"))
    assert any("hipblasGemmStridedBatchedEx" in e.message for e in errors)


def test_rocm_option_refuses_an_unknown_version_in_one_line() -> None:
    proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--rocm", "5.7")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["error: --rocm 5.7: the rows' version facts know ROCm 6.4, 7.0; pass one of those"]


# --- kept names the target headers lack get a note -------------------------------------------------------

def test_syncwarp_and_stcs_become_helpers_and_a_kept_name_gets_its_versions_note() -> None:
    text = _translate("warp_stage.cu", "6.4")
    lines = text.splitlines()
    # ROCm 6.4 declares neither __syncwarp nor CUDA's __stcs here: the compat helpers replace them, and
    # each note says what it writes.
    at = next(i for i, line in enumerate(lines) if line.strip() == "xlate_compat::syncwarp();")
    assert lines[at - 1].strip().startswith("// xlate: __syncwarp -> xlate_compat::syncwarp, a helper written into this file")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("xlate_compat::stcs("))
    assert lines[at - 1].strip().startswith("// xlate: __stcs -> xlate_compat::stcs, a helper written into this file")
    assert "XL090" not in text  # the helpers replace the generic finding on those names
    # A name with no helper that the target headers lack keeps its CUDA spelling with the version's note,
    # once, also after a second run over the output.
    kept = _translate_text("__device__ unsigned f(const float* p) { return (unsigned)__cvta_generic_to_shared(p); }\n", "6.4")
    assert "// xlate: ROCm 6.4 declares no __cvta_generic_to_shared" in kept and "__cvta_generic_to_shared(p)" in kept
    again = _translate_text(kept, "6.4", name="a.hip")
    assert again.count("declares no __cvta_generic_to_shared") == 1


def test_without_a_fact_for_the_version_the_older_note_is_given_as_such() -> None:
    code = "__device__ unsigned f(const float* p) { return (unsigned)__cvta_generic_to_shared(p); }\n"
    text = _translate_text(code, "7.0")  # the rows know nothing of it on 7.0: never silence
    assert "// xlate: nothing is known about __cvta_generic_to_shared in ROCm 7.0's headers; the rows say of an " \
        "older one: ROCm 6.4 declares no __cvta_generic_to_shared" in text
    assert "declares no __cvta_generic_to_shared" not in _translate_text(code, None)  # no target version: no version note


def _verify_translation(tmp_path: Path, name: str, original: str, rocm: str) -> tuple[str, vf.TreeResult]:
    """`original` written as the CUDA file `name`, translated for `rocm`, and the translation verified."""
    src = tmp_path / name
    src.write_text(original, encoding="utf-8")
    text = _translate_text(original, rocm, name=name)
    return text, vf.TreeVerifier(_toolchain(), [_translated(name[:-3] + ".hip", original, text, src)], []).run()


def _translate_text(code: str, rocm: str | None, name: str = "a.cu") -> str:
    smap = versions.for_target(kb.load_symbols(), rocm) if rocm else kb.load_symbols()
    out = translate_source(name, code.encode(), smap, Options(rocm=rocm)).text
    assert out is not None
    return out.decode()


@pytest.mark.slow
@needs_compiler
def test_the_notes_forms_compile_where_the_cuda_names_do_not(tmp_path: Path) -> None:
    tc = _toolchain()
    base = "#include <hip/hip_runtime.h>\n__global__ void k(float* p, float v) {{ {} }}\n"
    assert any("__syncwarp" in e.message for e in _compile(tc, tmp_path, "a.hip", base.format("__syncwarp();")))
    assert _compile(tc, tmp_path, "b.hip", base.format('__builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "agent");')) == []
    assert any("__stcs" in e.message for e in _compile(tc, tmp_path, "c.hip", base.format("__stcs(p, v);")))
    assert _compile(tc, tmp_path, "d.hip", base.format("__builtin_nontemporal_store(v, p);")) == []
    vector = "int4* q = (int4*)p; __builtin_nontemporal_store(make_int4(1, 2, 3, 4), q);"
    assert any("nontemporal" in e.message for e in _compile(tc, tmp_path, "g.hip", base.format(vector)))  # as the note warns
    loop = "int s = (int)p[0]; for (int o = warpSize / 2; o > 0; o /= 2) s += __shfl_xor(s, o); p[1] = s;"
    assert _compile(tc, tmp_path, "e.hip", base.format(loop)) == []  # the __reduce_add_sync note's loop
    assert any("__reduce_add_sync" in e.message for e in _compile(tc, tmp_path, "f.hip", base.format("p[1] = __reduce_add_sync(~0ull, 1);")))


# --- "no HIP equivalent" checked against the headers -----------------------------------------------------

# Host library headers: their calls and enumerators are no device names; the symbol proofs, the header
# test and the twin test compile those sides (tests/test_rows_hip_twins.py).
_LIBRARY_SOURCE = re.compile(r"github\.com/ROCm/hip(?:BLAS|BLASLt|FFT|SOLVER|SPARSE|RAND)/")


def _checked_rows() -> tuple[list[str], list[str]]:
    """(HIP spellings an override says ROCm 6.4 declares for device code, names a 6.4 fact says it does
    not), from the rows."""
    smap = kb.load_symbols()
    same, absent = [], []
    for name in smap.names():
        entry = smap.get(name)
        side = entry.side("hip") if entry is not None else None
        if side is None or side.origin != "override":
            continue
        src = str(side.source or "")
        if _LIBRARY_SOURCE.search(src):
            continue
        if side.relation in ("same", "renamed") and ("rocm-6.4.0" in src or "release/19.x/clang" in src):
            same.append(side.symbol)  # the HIP spelling the row writes
        elif side.relation == "approximate" and ("release/19.x/clang" in src
                                                 or ("rocm-6.4.0" in src and side.symbol == name)):
            # clang's __isnanf family (declared, returning bool where CUDA's return int); same-named
            # ROCm 6.4 functions that behave otherwise (bf16 NaN bits, half conversions that truncate)
            same.append(side.symbol)
        for f in side.rocm:
            if f.version == "6.4" and not f.symbol:
                absent.append(name)
    return same, absent


def test_the_probed_rows_are_no_longer_none() -> None:
    same, absent = _checked_rows()
    assert {"__halves2bfloat162", "__ushort_as_bfloat16", "__isnanf", "__float2bfloat16"} <= set(same)
    assert {"__syncwarp", "__stcs", "__stcg"} <= set(absent)
    assert kb.load_symbols().get("__halves2bfloat162").hip == "__halves2bfloat162"


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
@needs_compiler
def test_rows_that_say_64_declares_a_name_are_right_and_notes_are_needed() -> None:
    same, absent = _checked_rows()
    found = vf.declared(_toolchain(), same + absent)
    assert [n for n in same if not found[n]] == []  # each override names a declared function
    assert [n for n in absent if found[n]] == []  # each note is about a name 6.4 really lacks


@pytest.mark.slow
@needs_compiler
def test_probe_script_finds_what_hipify_missed() -> None:
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "probe_hip_declared.py"), "--json"], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")}, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # After the overrides, the names they settle are no longer "none" and so are not listed again.
    assert "__halves2bfloat162" not in report["declared-but-none"]
    assert not {"__syncwarp", "__reduce_add_sync"} & set(report["kept-but-undeclared"])  # rows with a 6.4 note now
    # Names ROCm 6.4 declares only behind HIP_ENABLE_WARP_SYNC_BUILTINS now say so in their rows, so the
    # probe finds none left to report; the warp shuffles are among them.
    assert report["behind-warp-sync"] == []
    side = kb.load_symbols().get("__shfl_sync").side("hip")
    assert side is not None and side.relation == "approximate" and "HIP_ENABLE_WARP_SYNC_BUILTINS" in (side.since or "")


# --- --verify: compiles, and which errors are the translator's -------------------------------------------

def _translated(rel: str, original: str, text: str, source: Path) -> vf.Translated:
    return vf.Translated(source, rel, original.encode(), text.encode())


@pytest.mark.slow
@needs_compiler
def test_attribution_charges_a_wrong_version_spelling_to_the_rewrite(tmp_path: Path) -> None:
    """ROCm 7.0's spelling compiled against 6.4: the error is on a rewritten line and the original
    spelling fails differently, so it is the translator's; an error in untouched code is not."""
    original = (FIXTURES / "gemm_batched.cu").read_text(encoding="utf-8") + "void more() { not_declared_here(); }\n"
    _, result = _verify_translation(tmp_path, "gemm_batched.cu", original, "7.0")
    unit = result.units[0]
    by_message = {e.message.split(";")[0]: e.ours for e in unit.errors}
    assert by_message["no matching function for call to 'hipblasGemmStridedBatchedEx'"] is True
    assert by_message["use of undeclared identifier 'not_declared_here'"] is False
    assert "1 from xlate's rewrites" in vf.render_text(result)


@pytest.mark.slow
@needs_compiler
def test_host_api_calls_a_rename_would_break_are_kept_and_charge_nothing(tmp_path: Path) -> None:
    """A runtime call in a kernel and a cuBLAS 10 compute type keep CUDA's spelling: their errors are the
    original code's, and the rest of the file compiles."""
    original = (FIXTURES / "host_api_shapes.cu").read_text(encoding="utf-8")
    text, result = _verify_translation(tmp_path, "host_api_shapes.cu", original, "6.4")
    errors = result.units[0].errors
    assert errors and not [e for e in errors if e.ours], [e.shown() for e in errors]
    assert {e.line for e in errors} == {i + 1 for i, line in enumerate(text.splitlines())
                                         if "cudaDeviceSynchronize();" in line or "cublasGemmEx(" in line}


@pytest.mark.slow
@needs_compiler
def test_attribution_keeps_an_error_the_original_spelling_also_has(tmp_path: Path) -> None:
    """A rewritten line that fails with the same error under its original spelling is not charged."""
    original = "#include <hip/hip_runtime.h>\nint f() { int x = undeclared_a; return x; }\n"
    text = "#include <hip/hip_runtime.h>\nint f() { long x = undeclared_a; return x; }\n"
    src = tmp_path / "same.cu"
    src.write_text(original, encoding="utf-8")
    result = vf.TreeVerifier(_toolchain(), [_translated("same.hip", original, text, src)], []).run()
    assert [e.ours for e in result.units[0].errors] == [False]


@pytest.mark.slow
@needs_compiler
def test_include_of_a_renamed_file_is_the_translators(tmp_path: Path) -> None:
    (tmp_path / "b.cu").write_text("__device__ int b() { return 1; }\n", encoding="utf-8")
    (tmp_path / "a.cu").write_text('#include "b.cu"\n', encoding="utf-8")
    files = [_translated("a.hip", '#include "b.cu"\n', '#include <hip/hip_runtime.h>\n#include "b.cu"\n', tmp_path / "a.cu"),
             _translated("b.hip", "__device__ int b() { return 1; }\n", "__device__ int b() { return 1; }\n", tmp_path / "b.cu")]
    result = vf.TreeVerifier(_toolchain(), files, []).run()
    errors = {u.path: u.errors for u in result.units}
    assert [e.ours for e in errors["a.hip"]] == [True]
    assert errors["b.hip"] == []


@pytest.mark.slow
@needs_compiler
def test_verify_on_a_tree_reports_per_file_and_the_total(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _cli("--to", "hip", str(FIXTURES / "tree"), "-o", str(out), "--verify")
    assert proc.returncode == 1, proc.stderr  # a file does not compile: the answer is "no"
    assert "  sum.hip: compiles" in proc.stderr
    assert re.search(r"  broken\.hip: 1 error\(s\), 0 from xlate's rewrites", proc.stderr)
    assert "verify: 1 of 2 files compile; 1 distinct error(s), 0 from xlate's rewrites" in proc.stderr
    assert (out / "common" / "reduce.cuh").is_file()  # the translated tree is written as without --verify


@pytest.mark.slow
@needs_compiler
def test_verify_json_and_exit_zero_when_everything_compiles(tmp_path: Path) -> None:
    proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--verify", "--rocm", "6.4", "--summary", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stderr)  # one object: the translation's summary and "verify"
    assert data["rocm"] == "6.4" and data["files"] == 1
    assert data["verify"]["units"] == 1 and data["verify"]["compile"] == 1 and data["verify"]["errors_from_rewrites"] == 0
    assert "hipblasGemmStridedBatchedEx_v2(" in proc.stdout


@pytest.mark.slow
@needs_compiler
def test_verify_uses_user_includes_and_compile_commands(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "extra.h").write_text("#define SCALE 2.0f\n", encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text('#include "extra.h"\n__global__ void k(float* p) { p[0] *= SCALE * OFFSET; }\n', encoding="utf-8")
    assert _cli("--to", "hip", str(src), "-o", str(tmp_path / "o1"), "--verify").returncode == 1
    assert _cli("--to", "hip", str(src), "-o", str(tmp_path / "o2"), "--verify", "-I", str(inc)).returncode == 1  # OFFSET
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(src), "file": "k.cu",
                               "arguments": ["nvcc", "-I", str(inc), "-DOFFSET=1.0f", "-arch=sm_80", "-c", "k.cu"]}]))
    proc = _cli("--to", "hip", str(src), "-o", str(tmp_path / "o3"), "--verify", "--compile-commands", str(db))
    assert proc.returncode == 0, proc.stderr


def test_verify_without_headers_is_one_line(tmp_path: Path) -> None:
    proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--verify", env={"XLATE_ROCM_INCLUDE": str(tmp_path)})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: --verify needs the ROCm headers: $XLATE_ROCM_INCLUDE={tmp_path} holds no hip/hip_version.h with a HIP version"]
    assert proc.stdout == ""  # nothing translated when verification cannot run


def test_verify_without_clang_is_one_line(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    os.symlink(sys.executable, bare / "python3")
    proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--verify", env={"PATH": str(bare)})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: --verify needs clang (clang++-19 or clang++ on PATH) to compile HIP; install clang-19, or translate without --verify"]


def test_verify_options_are_checked(tmp_path: Path) -> None:
    proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "-I", str(tmp_path))
    assert proc.returncode == 2 and "need --verify" in proc.stderr and "Traceback" not in proc.stderr
    if shutil.which("clang++-19") and not COMPILE_SKIP:
        proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--verify", "--arch", "sm_80")
        assert proc.returncode == 2 and proc.stderr.startswith("error: --arch 'sm_80': not an AMD GPU architecture name")
        proc = _cli("--to", "hip", str(FIXTURES / "gemm_batched.cu"), "--verify", "--compile-commands", str(tmp_path / "none.json"))
        assert proc.returncode == 2 and proc.stderr.startswith("error: --compile-commands") and "Traceback" not in proc.stderr


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
@needs_compiler
def test_verify_one_file_to_stdout_finds_the_headers_beside_it() -> None:
    """Relative paths as a user types them: the file's own folder is searched, so its CUDA header is
    found (and, untranslated, fails on its own CUDA include: translating the tree is what checks both)."""
    proc = subprocess.run([sys.executable, "-m", "xlate", "translate", "--to", "hip", "tree/sum.cu", "--verify"],
                          capture_output=True, text=True, cwd=FIXTURES, check=False, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert proc.returncode == 1
    assert "'common/reduce.cuh' file not found" not in proc.stderr
    assert re.search(r"tree/common/reduce\.cuh:3:10: 'cuda_runtime\.h' file not found", proc.stderr)
    assert "hipStreamSynchronize(stream)" in proc.stdout


@pytest.mark.slow
@needs_compiler
def test_a_project_header_named_like_a_system_header_does_not_hide_it(tmp_path: Path) -> None:
    # A Windows shim `win/unistd.h` that includes Windows-only headers sits in the tree; on Linux the
    # project includes the system's <unistd.h>. The tree's folders serve quoted includes, and angle
    # includes only after the system's folders.
    src = tmp_path / "src"
    (src / "win").mkdir(parents=True)
    (src / "lib").mkdir()
    (src / "win" / "unistd.h").write_text("#pragma once\n#include <direct.h>\n", encoding="utf-8")
    (src / "lib" / "scale.h").write_text("#pragma once\n#define SCALE 2.0f\n", encoding="utf-8")
    (src / "k.cu").write_text('#include <unistd.h>\n#include <scale.h>\n#include "win/unistd.h"\n'
                              "__global__ void k(float* p) { p[0] *= SCALE; }\n", encoding="utf-8")
    proc = _cli("--to", "hip", str(src), "-o", str(tmp_path / "out"), "--verify")
    assert "k.hip:" in proc.stderr and "direct.h" in proc.stderr  # the quoted include still reaches the shim
    (src / "k.cu").write_text('#include <unistd.h>\n#include <scale.h>\n__global__ void k(float* p) { p[0] *= SCALE; }\n',
                              encoding="utf-8")
    proc = _cli("--to", "hip", str(src), "-o", str(tmp_path / "out2"), "--verify")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
@needs_compiler
def test_a_user_include_folder_inside_the_tree_is_read_translated(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "streams.h").write_text("#pragma once\n#include <cuda_runtime.h>\ninline cudaStream_t no_stream() { return 0; }\n",
                                           encoding="utf-8")
    (src / "k.cu").write_text("#include <streams.h>\n__global__ void k(float* p) { p[0] = 1.f; }\n"
                              "void go(float* p) { k<<<1, 1, 0, no_stream()>>>(p); }\n", encoding="utf-8")
    proc = _cli("--to", "hip", str(src), "-o", str(tmp_path / "out"), "--verify", "-I", str(src / "inc"))
    assert proc.returncode == 0, proc.stderr
