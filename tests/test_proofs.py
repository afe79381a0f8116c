"""Every hand-written side of a symbol row is proven by a machine, not asserted:

- each HIP side that HIPIFY's tables did not give compiles against the ROCm headers exactly under the
  macros the row names, and each type's sizeof/alignof equals CUDA's published values or the row says
  how they differ;
- each Metal side is an entry of the MSL (or Metal API) table kept in glossary/symbols/specs/, with a
  consistent section, version and argument types;
- each MLX and Triton side resolves in the installed package;
- the lints over the data find the slips the audits found.

Each proof is also shown to fail: a wrong spelling, a missing macro condition and an undeclared layout
difference, planted in copies of real rows, are each reported.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from xlate import hip_headers, kb
from glossary_once import real_glossary

ROOT = Path(__file__).resolve().parents[1] / "glossary"
CLANG = shutil.which("clang++-19")
WARP = "HIP_ENABLE_WARP_SYNC_BUILTINS"


@pytest.fixture(scope="module")
def glossary() -> kb.Glossary:
    g = real_glossary()
    assert not g.problems, g.problems[:3]
    return g


def _headers() -> hip_headers.RocmHeaders:
    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    if CLANG is None:
        pytest.skip("clang++-19 is not installed (scripts/install-test-deps.sh installs it)")
    return found


@pytest.fixture(scope="module")
def hip_proof(glossary: kb.Glossary):
    found = _headers()
    return kb.probe_hip_sides(glossary.rows, ROOT, found.include, found.version, CLANG)


# --- HIP -----------------------------------------------------------------------------------------

# The HIP sides no probe can reach, each with its reason. A new row that cannot be probed fails the
# test below until it is listed here: the set only shrinks by a probe, never grows unnoticed.
WMMA = ("accumulator", "col_major", "fill_fragment", "fragment", "load_matrix_sync", "matrix_a", "matrix_b",
        "mem_col_major", "mem_row_major", "mma_sync", "row_major", "store_matrix_sync")
UNPROVEN = {
    "rocWMMA headers are not among the packaged ROCm headers: Debian's only rocWMMA package (experimental) "
    "lacks the internal/ headers rocwmma.hpp includes": {
        "mma.h -> rocwmma/rocwmma.hpp",
        *(f"{ns}{name} -> rocwmma::{name}" for ns in ("wmma::", "nvcuda::wmma::") for name in WMMA)},
    "hipTensor headers are not among the packaged ROCm headers: Debian packages no hipTensor": {
        "cutensor.h -> hiptensor/hiptensor.h", "cutensorHandle_t -> hiptensorHandle_t", "cutensorCreate -> hiptensorCreate",
        "cutensorCreatePlan -> hiptensorCreatePlan", "cutensorCreateContraction -> hiptensorCreateContraction",
        "cutensorContract -> hiptensorContract"},
    "hipFile headers are not among the packaged ROCm headers: Debian packages no hipFile": {
        "cufile.h -> hipfile.h", "cuFileDriverOpen -> hipFileDriverOpen", "cuFileHandleRegister -> hipFileHandleRegister",
        "cuFileBufRegister -> hipFileBufRegister", "cuFileRead -> hipFileRead", "cuFileWrite -> hipFileWrite"},
    "newer than": {
        *(f"__reduce_{op}_sync -> __reduce_{op}_sync" for op in ("add", "and", "max", "min", "or", "xor")),
        *(f"cublasGemm{v}Ex -> hipblasGemm{v}Ex" for v in ("", "Batched", "StridedBatched"))},
}
# Sides proven against a library release other than ROCm 6.4 (Debian has no 6.4 build of it).
OTHER_RELEASE = {"cublasLt.h -> hipblaslt/hipblaslt.h": "hipBLASLt ", "nccl.h -> rccl/rccl.h": "RCCL (NCCL API) ",
                 "nvml.h -> amd_smi/amdsmi.h": "AMD SMI ", "nvmlDeviceGetTopologyCommonAncestor -> amdsmi_topo_get_link_type": "AMD SMI "}


@pytest.mark.slow
def test_every_hand_written_hip_side_compiles_under_the_macros_its_row_names(glossary, hip_proof) -> None:
    sides = kb.hip_sides(glossary.rows)
    assert len(sides) >= 430  # overrides, curated files and API families hold that many today
    assert not hip_proof.problems, "\n".join(hip_proof.problems)
    assert hip_proof.proven + len(hip_proof.unproven) == len(sides)
    assert hip_proof.proven >= 390
    # What could not be probed is exactly the known set, each side with its reason: libraries Debian
    # does not package usably, and facts newer than the ROCm 6.4 headers.
    got: dict[str, set[str]] = {}
    for label, reason in hip_proof.unproven.items():
        key = "newer than" if reason.startswith("the row's fact is newer than HIP") else reason
        got.setdefault(key, set()).add(label)
    assert got == UNPROVEN
    # Where the headers are another release's, the proof says which (read from the headers).
    assert set(hip_proof.other_release) == set(OTHER_RELEASE)
    for label, name in OTHER_RELEASE.items():
        assert hip_proof.other_release[label].startswith(name) and hip_proof.other_release[label][len(name)].isdigit(), \
            hip_proof.other_release[label]


@pytest.mark.slow
def test_the_launch_syntax_is_probed_by_compiling_a_launch(glossary, hip_proof) -> None:
    assert any(s.symbol == "<<<>>>" for s in kb.hip_sides(glossary.rows))
    assert hip_proof.declared["none"]["<<<>>>"] and "<<<>>> -> <<<>>>" not in hip_proof.unproven


@pytest.mark.slow
def test_the_macro_condition_is_proven_both_ways(glossary, hip_proof) -> None:
    # The gated functions are declared with the macro and not without it: the row's condition is real.
    for symbol in ("__shfl_down_sync", "__activemask", "cooperative_groups::binary_partition"):
        assert hip_proof.declared["all"][symbol] and not hip_proof.declared["none"][symbol], symbol
    gated = {s.symbol for s in kb.hip_sides(glossary.rows) if WARP in s.macros}
    assert {"__shfl_sync", "__ballot_sync", "cg::binary_partition"} <= gated


@pytest.mark.slow
def test_type_layouts_match_cuda_or_the_row_says_how_they_differ(glossary, hip_proof) -> None:
    layouts = kb.cuda_layouts(ROOT)
    assert layouts["ulonglong4"] == {"size": 32, "align": 16}
    assert hip_proof.layouts["ulonglong4"] == (32, 32)
    assert hip_proof.layouts["float4"] == (16, 16) and hip_proof.layouts["char3"] == (3, 1)
    row = glossary.rows["double4"]["sides"]["hip"]
    assert row["relation"] == "approximate" and "aligned to 32" in row["caveat"]
    typed = [s for s in kb.hip_sides(glossary.rows) if s.kind == "type" and s.cuda in layouts]
    assert len(typed) >= 48 and all(s.symbol in hip_proof.layouts for s in typed)


@pytest.mark.slow
def test_planted_mistakes_in_hip_sides_are_each_reported(glossary) -> None:
    found = _headers()
    rows = {name: copy.deepcopy(glossary.rows[name]) for name in
            ("__shfl_sync", "cooperative_groups::this_thread_block", "long4", "int4", "nvmlDeviceGetTopologyCommonAncestor")}
    rows["__shfl_sync"]["sides"]["hip"].pop("macros")  # a gated function whose row forgot the macro
    rows["cooperative_groups::this_thread_block"]["sides"]["hip"]["macros"] = [WARP]  # a condition that is not one
    rows["long4"]["sides"]["hip"].update(relation="same", caveat="")  # a layout difference left unsaid
    rows["int4"]["sides"]["hip"]["symbol"] = "int4x"  # a misspelling
    rows["nvmlDeviceGetTopologyCommonAncestor"]["sides"]["hip"]["symbol"] = "amdsmi_topo_get_link_kind"  # in a library beside ROCm
    proof = kb.probe_hip_sides(rows, ROOT, found.include, found.version, CLANG)
    text = "\n".join(proof.problems)
    assert "__shfl_sync -> __shfl_sync: declared only with" in text
    assert "this_thread_block: declared without" in text
    assert "long4 -> long4: HIP sizeof/alignof 32/32, CUDA 32/16" in text
    assert "int4 -> int4x: not declared" in text
    assert "nvmlDeviceGetTopologyCommonAncestor -> amdsmi_topo_get_link_kind: not declared" in text
    assert len(proof.problems) == 5, text


# --- Metal ---------------------------------------------------------------------------------------

def test_every_metal_side_is_in_the_msl_or_metal_api_table(glossary) -> None:
    table, heads = kb.load_msl_table(ROOT)
    assert heads["msl.yaml"]["source"].startswith("https://developer.apple.com/metal/")
    assert table["simd_xor"].args and "integer" in table["simd_xor"].args
    assert table["nextafter"].msl == "3.1"
    sides = [r for r in glossary.rows.values() if (r["sides"].get("metal") or {}).get("symbol")]
    assert len(sides) >= 500
    assert kb.metal_side_problems(glossary.rows, ROOT) == []


def test_planted_mistakes_in_metal_sides_are_each_reported(glossary) -> None:
    rows = {name: copy.deepcopy(glossary.rows[name]) for name in ("__reduce_xor_sync", "__popc", "nextafterf", "sinf")}
    rows["__reduce_xor_sync"]["sides"]["metal"]["caveat"] = "MSL also accepts floating-point data here."
    rows["__popc"]["sides"]["metal"]["source"] = "https://developer.apple.com/metal/x.pdf §6.9.2"
    rows["nextafterf"]["sides"]["metal"]["since"] = "MSL 2.0"
    rows["sinf"]["sides"]["metal"]["symbol"] = "sinus"
    text = "\n".join(kb.metal_side_problems(rows, ROOT))
    assert "integer-only in the specification, but the caveat offers floating point" in text
    assert "__popc -> metal popcount: cites §6.9.2" in text
    assert "`since` says MSL 2.0, the specification MSL 3.1" in text
    assert "sinf -> metal sinus: not in the Metal Shading Language" in text


def test_msl_names_in_concept_terms_are_in_the_table_too(glossary) -> None:
    checked, problems = kb.concept_metal_problems(glossary.concepts, ROOT)
    assert checked >= 60 and problems == []
    concept = glossary.concepts["warp-shuffle"]
    term = concept.terms.metal
    bad = concept.model_copy(update={"terms": concept.terms.model_copy(update={
        "metal": term.model_copy(update={"symbols": [*term.symbols, "simd_shuffle_sideways"]})})})
    assert kb.concept_metal_problems({"warp-shuffle": bad}, ROOT)[1] == ["warp-shuffle: metal simd_shuffle_sideways: not in the Metal Shading Language table"]


# --- MLX and Triton ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["mlx", "triton"])
def test_every_mlx_and_triton_side_exists_in_the_installed_package(glossary, backend: str) -> None:
    pytest.importorskip({"mlx": "mlx.core", "triton": "triton.language"}[backend])
    checked, problems = kb.package_side_problems(glossary.rows, backend)
    assert checked >= 80
    assert problems == []
    planted = {"x": {"sides": {backend: {"symbol": {"mlx": "mx.fast.no_such_kernel", "triton": "tl.no_such_op"}[backend]}}}}
    assert len(kb.package_side_problems(planted, backend)[1]) == 1


@pytest.mark.parametrize("backend", ["mlx", "triton"])
def test_package_names_in_concept_terms_exist_too(glossary, backend: str) -> None:
    pytest.importorskip({"mlx": "mlx.core", "triton": "triton.language"}[backend])
    checked, problems = kb.concept_package_problems(glossary.concepts, backend)
    assert checked >= 40 and problems == []
    concept = glossary.concepts["warp-reduce"]
    term = getattr(concept.terms, backend)
    bad = concept.model_copy(update={"terms": concept.terms.model_copy(update={
        backend: term.model_copy(update={"symbols": [*term.symbols, {"mlx": "mx.no_such_op", "triton": "tl.no_such_op"}[backend]]})})})
    assert len(kb.concept_package_problems({"warp-reduce": bad}, backend)[1]) == 1


# --- Lints ---------------------------------------------------------------------------------------

def test_the_glossary_has_no_lint_findings(glossary) -> None:
    assert kb.row_lints(glossary.rows) == []
    assert kb.concept_lints(glossary.concepts, glossary.rows) == []


def test_each_lint_finds_its_pattern(glossary) -> None:
    rows = copy.deepcopy({name: glossary.rows[name] for name in
                          ("nearbyint", "__shfl_up_sync", "cg::binary_partition", "cooperative_groups::binary_partition",
                           "longlong4", "ulonglong4", "__nv_cvt_float_to_fp8")})
    rows["nearbyint"]["sides"]["metal"]["caveat"] = "This is the MSL function of the same name."
    rows["__shfl_up_sync"]["sides"]["hip"].pop("macros")  # its `since` still names the macro
    rows["cg::binary_partition"]["sides"]["hip"]["relation"] = "approximate"  # differs from its alias
    rows["ulonglong4"]["sides"]["hip"]["relation"] = "same"  # differs from its signed twin
    rows["__nv_cvt_float_to_fp8"]["sides"]["hip"]["relation"] = "renamed"  # its caveat describes a trap
    messages = [m for _, _, m in kb.row_lints(rows)]
    assert any("nearbyint: the metal caveat says 'same name'" in m for m in messages), messages
    assert any("__shfl_up_sync: the hip side says it needs HIP_ENABLE_WARP_SYNC_BUILTINS" in m for m in messages)
    assert any("cg::binary_partition: hip relation differs from its alias" in m for m in messages)
    assert any("longlong4 and ulonglong4: hip relations differ" in m for m in messages)
    assert any("__nv_cvt_float_to_fp8: hip is 'renamed' but its caveat describes a difference" in m for m in messages)


def test_a_concept_side_contradicted_by_its_rows_is_reported(glossary) -> None:
    rows = {"__nv_fp8_storage_t": copy.deepcopy(glossary.rows["__nv_fp8_storage_t"])}
    rows["__nv_fp8_storage_t"]["sides"]["metal"]["relation"] = "renamed"
    found = kb.concept_lints(glossary.concepts, rows)
    assert found and found[0][0] == "fp8-formats" and "metal is 'none' here" in found[0][1]


def test_glossary_check_reports_the_lints(tmp_path: Path) -> None:
    """`xlate glossary check` runs the lints: a planted 'same name' slip fails the check."""
    copy_root = tmp_path / "glossary"
    shutil.copytree(ROOT, copy_root)
    math = copy_root / "symbols" / "device-math.yaml"
    text = math.read_text(encoding="utf-8")
    assert "this is MSL's rint" in text
    math.write_text(text.replace("this is MSL's rint", "this is the MSL function of the same name", 1), encoding="utf-8")
    g, problems = kb.collect_problems(copy_root)
    assert [p for p in problems if "says 'same name'" in p.message]


# --- HIP symbols named by concepts ---------------------------------------------------------------

CONCEPT_HIP = r"^(?:hip[A-Z]\w*|__\w+|hipcub::\w+|cooperative_groups::\w+)$"
NEWER = ("newer than ROCm 6.4", "absent from ROCm 6.4", "HIP 7.1 headers", "absent from ROCm 7.0 and earlier")
# Names no ROCm 6.4 header declares for the gfx942 probe, each for a reason a probe cannot see.
NOT_A_DECLARATION = {
    "__hip_fatbin": "a symbol the compiler emits into objects for the offload bundle",
    "__HIP_PLATFORM_NVIDIA__": "predefined only when hipcc targets NVIDIA GPUs",
    "__gfx950__": "predefined for gfx950, which clang 19 predates",
    "__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4": "a gfx950 builtin; clang 19 predates gfx950",
    "__builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4": "a gfx950 builtin; clang 19 predates gfx950",
}
ARCHS = ("gfx90a", "gfx942", "gfx950", "gfx1100")


def _arch_names(symbols: list[str]) -> set[str]:
    """Which names some target declares by itself: predefined macros or builtins of one of ARCHS."""
    import re
    import subprocess

    from conftest import clang_builtins

    found = clang_builtins(CLANG, [s for s in symbols if s.startswith("__builtin")], ARCHS)
    for arch in ARCHS:
        run = subprocess.run([CLANG, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-nogpulib", "-dM", "-E", "-"],
                             input="", capture_output=True, text=True, timeout=120)
        found |= set(re.findall(r"#define (\w+)", run.stdout)) & set(symbols)
    return found


@pytest.mark.slow
def test_hip_symbols_that_concepts_name_are_declared_or_said_to_be_newer(glossary) -> None:
    """A concept's HIP symbols compile against the ROCm 6.4 headers (any macro on), exist as a target's
    builtin or predefined macro, or the term says they are newer than those headers."""
    import re

    found = _headers()
    rows, owner = {}, {}
    for concept in glossary.concepts.values():
        term = concept.terms.hip
        for sym in (term.symbols if term is not None else []):
            if re.match(CONCEPT_HIP, sym) and sym not in rows:
                rows[sym] = {"kind": None, "sides": {"hip": {"symbol": sym, "relation": "same", "origin": "concept",
                                                             "macros": [WARP]}}}
                owner[sym] = term
    assert len(rows) >= 250
    proof = kb.probe_hip_sides(rows, ROOT, found.include, found.version, CLANG)
    missing = [s for s, ok in proof.declared["all"].items() if not ok]
    missing = sorted(set(missing) - set(NOT_A_DECLARATION) - _arch_names(missing))

    def said_newer(sym: str) -> bool:
        """The term's `since` dates all its symbols; a caveat sentence must name the symbol it dates."""
        if any(mark in (owner[sym].since or "") for mark in NEWER):
            return True
        caveat = " ".join((owner[sym].caveat or "").split())
        return any(sym in part and any(mark in part for mark in NEWER) for part in re.split(r"(?<=[.;])\s+", caveat))

    unsaid = [s for s in missing if f"{s} -> {s}" not in proof.unproven and not said_newer(s)]
    assert not unsaid, f"named by a concept, not declared in HIP {found.version_text}, and not said to be newer: {unsaid}"
