"""Every hand-written side of a symbol row is proven by a machine, not asserted:

- each HIP side that HIPIFY's tables did not give compiles against the ROCm headers exactly under the
  macros the row names, and each type's sizeof/alignof equals CUDA's published values or the row says
  how they differ;
- each Metal side is an entry of the MSL (or Metal API) table kept in glossary/symbols/specs/, with a
  consistent section, version and argument types, and is used by compiled Metal code (msl-attested.yaml)
  or listed there with the reason it is not;
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
import yaml

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


def _newer() -> tuple[Path, tuple[int, int, int], str]:
    """The later HIP runtime headers (the triton wheel's) as probe_hip_sides takes them."""
    found = hip_headers.find_newer_hip_headers()
    if found is None:
        pytest.skip(hip_headers.newer_absent_reason())
    return found.include, found.version, f"HIP {found.version_text} (the HIP runtime headers triton {_triton_version()} ships)"


def _triton_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        return "(version unknown)"


@pytest.fixture(scope="module")
def hip_proof(glossary: kb.Glossary):
    found = _headers()
    return kb.probe_hip_sides(glossary.rows, ROOT, found.include, found.version, CLANG, _newer())


# --- HIP -----------------------------------------------------------------------------------------

# The HIP sides no probe can reach, each with its reason. A new row that cannot be probed fails the
# test below until it is listed here: the set only shrinks by a probe, never grows unnoticed.
WMMA = ("accumulator", "col_major", "fill_fragment", "fragment", "load_matrix_sync", "matrix_a", "matrix_b",
        "mem_col_major", "mem_row_major", "mma_sync", "row_major", "store_matrix_sync")
# A row naming a release the declared-names table does not hold would be listed here with its reason;
# none does today (the hipBLAS 3 and hipTensor 2 sides are settled from the rocm-libraries releases in
# the table). A new one fails the test below until it is listed or the table holds its release.
UNPROVEN: dict[str, set[str]] = {}
# Sides proven from the names the pinned releases declare (symbols/specs/declared-outside-rocm64.yaml),
# each with the library and version the release reads.
FROM_TABLE = {
    **{"mma.h -> rocwmma/rocwmma.hpp": "rocWMMA 1.5.0"},
    **{f"{ns}{name} -> rocwmma::{name}": "rocWMMA 1.5.0" for ns in ("wmma::", "nvcuda::wmma::") for name in WMMA},
    "cutensorHandle_t -> hiptensorHandle_t": "hipTensor 1.3.0", "cutensorCreate -> hiptensorCreate": "hipTensor 1.3.0",
    **{f"{c} -> {h}": "hipFile 0.2.0" for c, h in (
        ("cufile.h", "hipfile.h"), ("cuFileDriverOpen", "hipFileDriverOpen"), ("cuFileHandleRegister", "hipFileHandleRegister"),
        ("cuFileBufRegister", "hipFileBufRegister"), ("cuFileRead", "hipFileRead"), ("cuFileWrite", "hipFileWrite"))},
    **{f"{c} -> {h}": "ROCprofiler-SDK 0.4.0" for c, h in (
        ("nvtxNameCudaStreamA", "roctxNameHipStream"), ("nvtxNameCudaDeviceA", "roctxNameHipDevice"),
        ("nvtx3/nvToolsExtCudaRt.h", "rocprofiler-sdk-roctx/roctx.h"))},
    # hipBLAS 3 and hipTensor 2 headers read in ROCm/rocm-libraries at one commit each; their versions
    # are series (see the file's header): the rows' "hipBLAS 3.0" and "hipTensor 2.x" compare on the major.
    **{f"cublasGemm{v}Ex -> hipblasGemm{v}Ex": "hipBLAS 3.x" for v in ("", "Batched", "StridedBatched")},
    **{f"{c} -> {h}": "hipTensor 2.x" for c, h in (
        ("cutensor.h", "hiptensor/hiptensor.h"), ("cutensorCreatePlan", "hiptensorCreatePlan"),
        ("cutensorCreateContraction", "hiptensorCreateContraction"), ("cutensorContract", "hiptensorContract"))},
}
# Sides whose row names a later HIP runtime (ROCm 7.1), compiled against the later headers triton ships.
NEWER_HIP = {*(f"__reduce_{op}_sync -> __reduce_{op}_sync" for op in ("add", "and", "max", "min", "or", "xor")),
             "__syncwarp -> __syncwarp"}
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
    # What could not be probed is exactly the known set, each side with its reason: rows naming a
    # release the declared-names table does not hold.
    got: dict[str, set[str]] = {}
    for label, reason in hip_proof.unproven.items():
        key = reason.split(" in symbols/specs/")[0] if reason.startswith("no release of ") else reason
        got.setdefault(key, set()).add(label)
    assert got == UNPROVEN
    # Where the headers are another release's, the proof says which (read from the headers).
    assert set(hip_proof.other_release) == set(OTHER_RELEASE) | set(FROM_TABLE) | set(NEWER_HIP)
    for label in NEWER_HIP:  # compiled against the later HIP runtime the row names
        assert hip_proof.other_release[label].startswith("HIP 7.1."), hip_proof.other_release[label]
    for label, name in FROM_TABLE.items():
        assert hip_proof.other_release[label].startswith(name + " (ROCm/"), hip_proof.other_release[label]
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


@pytest.mark.slow
def test_planted_mistakes_in_sides_of_a_later_hip_are_each_reported(glossary) -> None:
    """Sides whose row names ROCm 7.1 are compiled against the later headers: a misspelling and a macro
    condition those headers do not have are reported there; a row naming a release later than those
    headers is left to the declared-names table."""
    found, newer = _headers(), _newer()
    rows = _copies(glossary, "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_or_sync")
    rows["__reduce_min_sync"]["sides"]["hip"]["symbol"] = "__reduce_mim_sync"  # a misspelling
    rows["__reduce_max_sync"]["sides"]["hip"]["macros"] = [WARP]  # a condition the declaration does not have
    rows["__reduce_or_sync"]["sides"]["hip"]["since"] = "ROCm 9.9"  # later than any headers at hand
    proof = kb.probe_hip_sides(rows, ROOT, found.include, found.version, CLANG, newer)
    text = "\n".join(proof.problems)
    assert f"__reduce_min_sync -> __reduce_mim_sync: not declared in the {newer[2]} headers" in text
    assert f"__reduce_max_sync -> __reduce_max_sync: declared without {WARP}" in text
    assert len(proof.problems) == 2, text
    assert proof.proven == 1 and proof.other_release["__reduce_add_sync -> __reduce_add_sync"] == newer[2]
    assert proof.unproven["__reduce_or_sync -> __reduce_or_sync"].startswith("no release of ROCm 9.9")


def test_the_declared_outside_table_is_pinned_and_every_absent_name_has_a_reason(glossary) -> None:
    assert kb.declared_outside_problems(glossary.rows, ROOT) == []
    data = kb.load_declared_outside(ROOT)
    assert {r["library"] for r in data["releases"]} == {"rocWMMA", "hipTensor", "hipFile", "ROCprofiler-SDK", "hipBLAS"}
    assert {e["name"] for e in data["declared"]} >= {"rocwmma::mma_sync", "rocwmma::mem_row_major", "hipFileRead",
                                                     "roctxNameHipStream", "roctxNameHipDevice"}
    # Each release carries the version read from it, which rows' version facts are checked against.
    assert {(r["library"], r["version"]) for r in data["releases"]} == {("rocWMMA", "1.5.0"), ("hipTensor", "1.3.0"), ("hipFile", "0.2.0"),
                                                                         ("ROCprofiler-SDK", "0.4.0"), ("hipBLAS", "3.x"),
                                                                         ("hipTensor", "2.x")}
    # A release given as a series says how the series was established; each of its names says where.
    series = [r for r in data["releases"] if str(r["version"]).endswith(".x")]
    assert series and all(r.get("version_from") and r["repo"] == "ROCm/rocm-libraries" for r in series)
    assert not data["not_declared"]
    # The table is to settle the sides of those libraries and the sides whose rows name a later release.
    wanted = kb.table_spellings(glossary.rows)
    assert {wanted[f"__reduce_{op}_sync"] for op in ("add", "and", "max", "min", "or", "xor")} == {"HIP"}
    assert wanted["hipblasGemmEx"] == "hipBLAS" and wanted["hiptensorCreatePlan"] == "hipTensor"
    assert "__shfl_sync" not in wanted and "hipblasGemmEx_v2" not in wanted
    # ROCprofiler-SDK's naming calls come from its table release; roctracer's ROCTx calls are compiled.
    assert wanted["roctxNameHipStream"] == wanted["roctxNameHipDevice"] == "ROCprofiler-SDK"
    assert "roctxRangePushA" not in wanted and "roctracer/roctx.h" not in wanted


def _plant_table(root: Path, releases: list[tuple[str, str, str, str]], declared: list[tuple[str, str, str, tuple[str, ...]]]) -> None:
    """A copy of the declared-names table under `root` with releases (library, version, repo, tag) and
    declarations (name, library, version, macros) added."""
    specs = root / "symbols" / "specs"
    specs.mkdir(parents=True)
    data = kb.load_declared_outside(ROOT)
    # Without the table's own rocm-libraries releases, so that the planted ones alone settle those sides.
    mine = {(r["library"], r["version"]) for r in data["releases"] if r["repo"] == "ROCm/rocm-libraries"}
    data["releases"] = [r for r in data["releases"] if (r["library"], r["version"]) not in mine]
    data["declared"] = [e for e in data["declared"] if (e["library"], e["version"]) not in mine]
    data["releases"] += [{"library": lib, "version": v, "repo": repo, "tag": tag, "commit": "0" * 40, "include": "x"}
                         for lib, v, repo, tag in releases]
    data["declared"] += [{"name": n, "library": lib, "version": v, "kind": "function", "at": "x/h.h:1",
                          **({"macros": list(m)} if m else {})} for n, lib, v, m in declared]
    (specs / "declared-outside-rocm64.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def _copies(glossary, *names: str) -> dict:
    return {name: copy.deepcopy(glossary.rows[name]) for name in names}


def test_planted_mistakes_against_the_releases_rows_name_are_each_reported(glossary, tmp_path: Path) -> None:
    """The HIP 7.1 and hipBLAS 3.0 sides are settled by the release their row names: a misspelling, a
    release of that version lacking the name, an older release already declaring it, and a macro
    condition the release contradicts are each reported; the right rows are proven by that release."""
    hip71, hip70, blas = "HIP 7.1 (ROCm/rocm-systems rocm-7.1.0", "HIP 7.0.2 (ROCm/rocm-systems rocm-7.0.2", \
        "hipBLAS 3.0.0 (ROCm/rocm-libraries rocm-7.0.0"
    _plant_table(tmp_path, [("HIP", "7.1", "ROCm/rocm-systems", "rocm-7.1.0"), ("HIP", "7.0.2", "ROCm/rocm-systems", "rocm-7.0.2"),
                            ("hipBLAS", "3.0.0", "ROCm/rocm-libraries", "rocm-7.0.0")], [
        *((f"__reduce_{op}_sync", "HIP", "7.1", ()) for op in ("add", "min", "max", "xor")),
        ("__reduce_and_sync", "HIP", "7.1", ("HIP_ENABLE_EXTRA_WARP_SYNC_TYPES",)),  # gated, the row says nothing
        ("__reduce_max_sync", "HIP", "7.0.2", ()),  # an older HIP already has it, the row says 7.1
        ("hipblasGemmEx", "hipBLAS", "3.0.0", ()), ("hipblasGemmStridedBatchedEx", "hipBLAS", "3.0.0", ())])
    rows = _copies(glossary, *(f"__reduce_{op}_sync" for op in ("add", "min", "max", "and", "or", "xor")),
                   "cublasGemmEx", "cublasGemmBatchedEx", "cublasGemmStridedBatchedEx")
    assert rows["__reduce_add_sync"]["sides"]["hip"]["since"] == "ROCm 7.1"
    rows["__reduce_min_sync"]["sides"]["hip"]["symbol"] = "__reduce_mim_sync"  # a misspelling
    rows["__reduce_or_sync"]["sides"]["hip"]["since"] = "ROCm 7.0"  # a release that lacks it
    rows["__reduce_xor_sync"]["sides"]["hip"]["since"] = "ROCm 7.2"  # later than the release that has it
    rows["gated"] = copy.deepcopy(rows["__reduce_add_sync"])
    rows["gated"]["sides"]["hip"]["macros"] = [WARP]  # a condition the declaration does not have
    rows["cublasGemmBatchedEx"]["sides"]["hip"]["symbol"] = "hipblasGemmBatchedExx"  # a misspelling
    rows["cublasGemmStridedBatchedEx"]["sides"]["hip"]["since"] = "hipBLAS 3.1 (ROCm 7.1)"  # later than hipBLAS 3.0
    proof = kb.probe_hip_sides(rows, tmp_path, tmp_path, (6, 4, 3), "false")
    text = "\n".join(proof.problems)
    assert f"__reduce_min_sync -> __reduce_mim_sync: not declared in {hip71}" in text
    assert f"__reduce_max_sync -> __reduce_max_sync: the row says ROCm 7.1, but the older {hip70}" in text
    assert f"__reduce_and_sync -> __reduce_and_sync: declared only under HIP_ENABLE_EXTRA_WARP_SYNC_TYPES in {hip71}" in text
    assert f"__reduce_or_sync -> __reduce_or_sync: not declared in {hip70}" in text and "names (ROCm 7.0)" in text
    assert f"__reduce_xor_sync -> __reduce_xor_sync: the row says ROCm 7.2, but the older {hip71}" in text
    assert f"gated -> __reduce_add_sync: declared without {WARP} in {hip71}" in text
    assert f"cublasGemmBatchedEx -> hipblasGemmBatchedExx: not declared in {blas}" in text
    assert f"cublasGemmStridedBatchedEx -> hipblasGemmStridedBatchedEx: the row says hipBLAS 3.1, ROCm 7.1, but the older {blas}" in text
    assert len(proof.problems) == 8, text
    assert proof.proven == 2 and not proof.unproven
    assert proof.other_release["__reduce_add_sync -> __reduce_add_sync"].startswith(hip71)
    assert proof.other_release["cublasGemmEx -> hipblasGemmEx"].startswith(blas)


def test_planted_mistakes_against_the_library_releases_are_each_reported(glossary, tmp_path: Path) -> None:
    """rocWMMA and hipTensor sides, whose headers the ROCm 6.4 set lacks, are settled from the table:
    a compiler that does not run ("false") proves nothing, so each goes there. A hipTensor 2.x side is
    proven only by a hipTensor 2 release; a side without a version fact by any release of its library."""
    two, one = "hipTensor 2.0.0 (ROCm/rocm-libraries rocm-7.0.0", "hipTensor 1.3.0 (ROCm/hipTensor rocm-6.2.2"
    two_two = "hipTensor 2.2.0 (ROCm/rocm-libraries rocm-7.2.0"  # the C header arrived in 2.2 (the row says so)
    _plant_table(tmp_path, [("hipTensor", "2.0.0", "ROCm/rocm-libraries", "rocm-7.0.0"),
                            ("hipTensor", "2.2.0", "ROCm/rocm-libraries", "rocm-7.2.0")], [
        ("hiptensor/hiptensor.h", "hipTensor", "2.2.0", ()), ("hiptensorCreatePlan", "hipTensor", "2.0.0", ()),
        ("hiptensorContract", "hipTensor", "2.0.0", ()), ("hiptensorCreateContraction", "hipTensor", "2.0.0", ()),
        ("hiptensorCreateContraction", "hipTensor", "1.3.0", ())])  # as if 1.x had it: the row's "2.x" is wrong
    rows = _copies(glossary, "wmma::mma_sync", "wmma::fill_fragment", "cutensor.h", "cutensorCreatePlan", "cutensorContract",
                   "cutensorCreateContraction", "cutensorHandle_t")
    rows["wmma::mma_sync"]["sides"]["hip"]["symbol"] = "rocwmma::mma_synk"  # a misspelled rocWMMA name
    rows["cutensorContract"]["sides"]["hip"]["symbol"] = "hiptensorContrakt"  # a misspelled hipTensor 2 name
    proof = kb.probe_hip_sides(rows, tmp_path, tmp_path, (6, 4, 3), "false")
    text = "\n".join(proof.problems)
    assert "wmma::mma_sync -> rocwmma::mma_synk: not declared in rocWMMA 1.5.0 (ROCm/rocWMMA rocm-6.2.2" in text
    assert f"cutensorContract -> hiptensorContrakt: not declared in {two}" in text and "names (hipTensor 2.x)" in text
    assert f"cutensorCreateContraction -> hiptensorCreateContraction: the row says hipTensor 2.x, but the older {one}" in text
    assert len(proof.problems) == 3, text
    assert proof.other_release["cutensorCreatePlan -> hiptensorCreatePlan"].startswith(two)
    assert proof.other_release["cutensor.h -> hiptensor/hiptensor.h"].startswith(two_two)
    assert proof.other_release["cutensorHandle_t -> hiptensorHandle_t"].startswith(one)
    assert proof.other_release["wmma::fill_fragment -> rocwmma::fill_fragment"].startswith("rocWMMA 1.5.0")
    assert proof.proven == 4 and not proof.unproven


def test_a_release_given_as_a_series_settles_only_its_own_major_and_must_say_why(glossary, tmp_path: Path) -> None:
    """The rocm-libraries releases carry a series ("3.x"), not a read version: it is the release a row's
    "hipBLAS 3.0" names, not one naming hipBLAS 4.0 (then it is older, and declaring the name is a
    problem); a series without `version_from`, and a location that is neither path:line nor a character
    range, are problems of the file."""
    rows = _copies(glossary, "cublasGemmEx", "cublasGemmBatchedEx")
    rows["cublasGemmBatchedEx"]["sides"]["hip"]["since"] = "hipBLAS 4.0 (ROCm 8.0)"
    proof = kb.probe_hip_sides(rows, ROOT, tmp_path, (6, 4, 3), "false")
    assert proof.proven == 1 and proof.other_release["cublasGemmEx -> hipblasGemmEx"].startswith("hipBLAS 3.x (ROCm/rocm-libraries ")
    assert len(proof.problems) == 1 and "the row says hipBLAS 4.0, ROCm 8.0, but the older hipBLAS 3.x" in proof.problems[0]
    specs = tmp_path / "symbols" / "specs"
    specs.mkdir(parents=True)
    data = kb.load_declared_outside(ROOT)
    next(r for r in data["releases"] if r["version"] == "3.x").pop("version_from")
    next(e for e in data["declared"] if e["name"] == "hipblasGemmEx")["at"] = "projects/hipblas/library/include/hipblas.h"
    (specs / "declared-outside-rocm64.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    text = "\n".join(kb.declared_outside_problems(glossary.rows, tmp_path))
    assert "3.x: a version series needs `version_from`" in text and "hipblasGemmEx: `at` must be path:line or path@chars" in text


def test_the_version_facts_rows_state_are_read_from_since_or_the_caveat_opening() -> None:
    assert kb.version_facts("ROCm 7.1") == (("ROCm", "7.1"),)
    assert kb.version_facts("hipBLAS 3.0 (ROCm 7.0); on hipBLAS 2.x (ROCm 6.x) use hipblasGemmEx_v2") == (
        ("hipBLAS", "3.0"), ("ROCm", "7.0"))
    assert kb.version_facts("", "hipTensor 2.x, whose API follows cuTENSOR 2; hipTensor 1.x ...") == (("hipTensor", "2.x"),)
    assert kb.version_facts("", "Unlike hipTensor 2.x, ...") == ()  # a caveat states one only at its opening


def _script(name: str):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_extractor_reads_a_release_version_and_the_least_guarded_declaration(tmp_path: Path) -> None:
    """scripts/extract_declared.py on a small repository laid out as HIP's: the tag's commit, the version
    from HIP's version file, each name's least guarded declaration (a negated condition guards nothing),
    and a name the release lacks left for a reason to be written."""
    import subprocess

    ed = _script("extract_declared")
    release = next(r for r in ed.RELEASES if r.library == "HIP")
    files = {
        release.version_file: "#HIP_VERSION_MAJOR\n7\n#HIP_VERSION_MINOR\n1\n#HIP_VERSION_PATCH\n4\n",
        f"{release.include}/hip/amd_detail/warp.h": (
            "#pragma once\n#if !defined(NO_WARP_FUNCTIONS)\n"
            "#ifdef EXTRA_TYPES\ntemplate <typename M> __device__ inline long long reduce_all(M mask, long long v);\n#endif\n"
            "template <typename M> __device__ inline int reduce_all(M mask, int v);\n"
            "#if ! defined(NO_EXTRA) && defined(EXTRA_TYPES)\n__device__ float reduce_some(unsigned long long mask, float v);\n#endif\n"
            "#endif\n"),
    }
    work = tmp_path / "work"
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "r"], check=True)
    subprocess.run([*git, "tag", release.tag], check=True)
    head, declared, missing = ed.read_release(str(work / ".git"), release,
                                              {"reduce_all": "HIP", "reduce_some": "HIP", "reduce_none": "HIP", "other": "hipBLAS"}, {})
    assert head["version"] == "7.1" and head["version_at"] == f"{release.version_file}:2" and len(head["commit"]) == 40
    at = f"{release.include}/hip/amd_detail/warp.h"
    assert {e["name"]: (e["at"], e.get("macros")) for e in declared} == {
        "reduce_all": (f"{at}:6", None), "reduce_some": (f"{at}:8", ["EXTRA_TYPES"])}
    assert [(e["name"], e["version"], e["reason"].startswith("TODO")) for e in missing] == [("reduce_none", "7.1", True)]


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


# --- Metal names in compiled code ---------------------------------------------------------------

def test_every_metal_name_is_attested_in_compiled_code_or_says_why_not(glossary) -> None:
    """The hand-transcribed MSL tables have a second witness: scripts/attest_metal.py records where
    public Metal codebases (pinned commits) use each Metal spelling of the rows as code. A name no one
    uses carries a reason, an argument restriction no compiled call contradicts, and a use at a lower
    MSL version than the table states carries a note."""
    data = kb.load_msl_attested(ROOT)
    repos = {r["repo"]: r for r in data["repositories"]}
    assert {"ml-explore/mlx", "ggml-org/ggml", "KhronosGroup/SPIRV-Cross", "KhronosGroup/MoltenVK"} <= set(repos)
    assert all(len(r["commit"]) == 40 for r in repos.values())
    names = kb.metal_side_names(glossary.rows)
    attested = {e["name"]: e for e in data["attested"]}
    unattested = {e["name"]: e["reason"] for e in data["not_attested"]}
    assert set(names) <= set(attested) | set(unattested)
    assert len(set(names) & set(attested)) >= 200
    assert kb.msl_attested_problems(glossary.rows, ROOT) == []
    # Spot checks of what the witness says: a SIMD-group function (compiled at MSL 2.1), an attribute, a
    # texture method through a declared texture variable, an Objective-C selector in ggml's host code.
    assert attested["simd_sum"]["uses"] > 10 and attested["simd_sum"]["compiled_as"] == "2.1"
    assert attested["threadgroup_position_in_grid"]["uses"] > 10
    assert attested["texture2d::sample"]["at"].endswith(tuple(f":{n}" for n in range(1, 100000)))
    assert attested["newBufferWithLength:options:"]["repo"] == "ggml-org/ggml"
    assert attested["simd_shuffle_xor"]["calls"] >= 1 and "excluded" not in attested["simd_shuffle_xor"]
    assert "Swift spelling" in unattested["makeBuffer(length:options:)"]


def test_planted_mistakes_in_the_attestation_are_each_reported(glossary, tmp_path: Path) -> None:
    import yaml

    specs = tmp_path / "symbols" / "specs"
    shutil.copytree(ROOT / "symbols" / "specs", specs)
    path = specs / "msl-attested.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["attested"] = [e for e in data["attested"] if e["name"] != "simd_shuffle_xor"]  # neither attested nor listed
    for e in data["not_attested"]:
        if e["name"] == "ilogb":
            e["reason"] = "TODO"  # no reason written
    for e in data["attested"]:
        if e["name"] == "popcount":
            e["excluded"] = ["somewhere 1"]  # a compiled call passes a float to an integer-only function
        if e["name"] == "simd_ballot":
            e["compiled_as"] = "1.2"  # used below the table's version, without a note
    data["repositories"][0]["commit"] = "main"  # not pinned
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    text = "\n".join(kb.msl_attested_problems(glossary.rows, tmp_path))
    assert "metal simd_shuffle_xor: neither attested" in text
    assert "metal ilogb: not attested in compiled code and no reason" in text
    assert "popcount: the table restricts it to integer arguments, but compiled code passes floating ones" in text
    assert "simd_ballot: compiled code uses it at MSL 1.2, below the table's 2.1" in text
    assert "the commit must be pinned" in text
    path.unlink()
    assert "the attestation of Metal names is missing" in kb.msl_attested_problems(glossary.rows, tmp_path)[0]


def _attest_script():
    return _script("attest_metal")


def test_the_witness_counts_code_and_not_comments_or_strings() -> None:
    am = _attest_script()
    msl = am.SourceFile("o/r", "k.metal", "msl", am.blank(
        "// simd_sum(x) in a comment\n"
        "constant char* s = \"simd_max(y)\";\n"
        "kernel void k(texture2d<float, access::read> img [[texture(0)]], uint i [[thread_position_in_grid]]) {\n"
        "  threadgroup float buf[32];\n"
        "  float v = metal::simd_sum(img.read(uint2(i, 0)).x);\n"
        "  uint n = popcount(7u);\n"
        "}\n", am.C_NOISE))
    def lines(name: str, kind: str) -> list[int]:
        pattern = am.msl_pattern(name, kind)
        hits = am.member_uses(msl, name) if pattern is None else (m.start() for m in pattern.finditer(msl.code))
        return [msl.line(h) for h in hits]
    assert lines("simd_sum", "function") == [5]
    assert lines("simd_max", "function") == []  # only in a comment and a string
    assert lines("thread_position_in_grid", "attribute") == [3]
    assert lines("threadgroup", "qualifier") == [4]
    assert lines("kernel", "qualifier") == [3]
    assert lines("texture2d::read", "member") == [5]
    assert lines("texture2d::sample", "member") == []
    assert am.excluded_call(am.arguments(msl.code, msl.code.index("popcount(") + 9), "integer") is False
    assert am.excluded_call(["1.5f"], "integer") is True
    assert am.excluded_call(["x"], "integer") is None
    # An Objective-C selector is sent with all its parts; a declaration of it is not a use.
    objc = am.SourceFile("o/r", "h.m", "objc", am.blank(
        "- (id)newBufferWithLength:(NSUInteger)n options:(int)o;\n"
        "id<MTLBuffer> b = [dev newBufferWithLength:[self size] options:MTLResourceStorageModeShared];\n"
        "id<MTLCommandBuffer> cb = nil; if ([cb status] == 0) {}\n", am.C_NOISE))
    entry = kb.MslEntry("newBufferWithLength:options:", "MTLDevice: x", "", "method")
    assert [objc.line(h) for h in am.host_uses(objc, entry.name, entry)] == [2]
    status = kb.MslEntry("status", "MTLCommandBuffer: x", "", "property")
    assert [objc.line(h) for h in am.host_uses(objc, "status", status)] == [3]
    swift = am.SourceFile("o/r", "h.swift", "swift", am.blank(
        "let b = device.makeBuffer(length: 16, options: [])\nlet c = device.makeBuffer(bytes: p, length: 16, options: [])\n",
        am.SWIFT_NOISE))
    make = kb.MslEntry("makeBuffer(length:options:)", "MTLDevice: x", "", "method")
    assert [swift.line(h) for h in am.host_uses(swift, make.name, make)] == [1]
    # A codebase that overloads a name for its own types is a witness only where the argument's type
    # is a built-in one its overloads do not take.
    own = am.SourceFile("o/r", "o.h", "msl", am.blank(
        "METAL_FUNC bf16 cosh(bf16 x) { return bf16(metal::cosh(float(x))); }\nfloat y = cosh(z);\n", am.C_NOISE))
    assert am.defined_types([own], "cosh") == {"bf16"}
    pattern = am.msl_pattern("cosh", "function")
    assert [own.line(m.start()) for m in pattern.finditer(own.code) if am._reaches_metal(own.code, pattern, m.start(), {"bf16"})] == [1]


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
                           "longlong4", "ulonglong4", "__nv_cvt_float_to_fp8", "__hadd")})
    rows["nearbyint"]["sides"]["metal"]["caveat"] = "This is the MSL function of the same name."
    rows["__shfl_up_sync"]["sides"]["hip"].pop("macros")  # its `since` still names the macro
    rows["cg::binary_partition"]["sides"]["hip"]["relation"] = "same"  # differs from its alias
    rows["ulonglong4"]["sides"]["hip"]["relation"] = "same"  # differs from its signed twin
    rows["__nv_cvt_float_to_fp8"]["sides"]["hip"]["relation"] = "renamed"  # its caveat describes a trap
    rows["__hadd"]["sides"]["metal"]["caveat"] = "Write a + b on half."  # the flush condition dropped
    messages = [m for _, _, m in kb.row_lints(rows)]
    assert any("nearbyint: the metal caveat says 'same name'" in m for m in messages), messages
    assert any("__shfl_up_sync: the hip side says it needs HIP_ENABLE_WARP_SYNC_BUILTINS" in m for m in messages)
    assert any("cg::binary_partition: hip relation differs from its alias" in m for m in messages)
    assert any("longlong4 and ulonglong4: hip relations differ" in m for m in messages)
    assert any("__nv_cvt_float_to_fp8: hip is 'renamed' but its caveat describes a difference" in m for m in messages)
    assert any("__hadd: the metal side of a half operation does not say that a subnormal may be flushed" in m for m in messages)


def test_a_concept_side_contradicted_by_its_rows_is_reported(glossary) -> None:
    # warp-match's Metal side is 'none' (MSL has no match instruction). fp8-formats served here before its
    # Metal side became 'approximate' with MSL 4.1's fp8 storage formats.
    rows = {"__match_any_sync": copy.deepcopy(glossary.rows["__match_any_sync"])}
    rows["__match_any_sync"]["sides"]["metal"]["relation"] = "renamed"
    rows["__match_any_sync"]["sides"]["metal"]["symbol"] = "simd_match_any"
    found = kb.concept_lints(glossary.concepts, rows)
    assert found and found[0][0] == "warp-match" and "metal is 'none' here" in found[0][1]


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
NEWER = ("newer than ROCm 6.4", "absent from ROCm 6.4", "HIP 7.1 headers")
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

    # A library beside the ROCm 6.4 headers: its pinned release's declarations are the proof.
    outside = {str(e["name"]) for e in kb.load_declared_outside(ROOT).get("declared") or []}
    unsaid = [s for s in missing if f"{s} -> {s}" not in proof.unproven and s not in outside and not said_newer(s)]
    assert not unsaid, f"named by a concept, not declared in HIP {found.version_text}, and not said to be newer: {unsaid}"
