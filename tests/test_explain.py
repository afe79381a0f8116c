"""`xlate explain` on real CUDA: what gets annotated, where, and what never does."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from explain_shape import check_document
from xlate import explain
from xlate import kb
from xlate.kb import glossary_root as default_root

FIXTURES = Path(__file__).parent / "fixtures" / "explain"
KERNELS = Path(__file__).resolve().parents[1] / "kernels" / "examples"


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols(default_root())


def _explain(path: Path, smap: kb.SymbolMap) -> dict:
    return explain.explain_path(path.name, path, smap)


def _at(result: dict, line: int) -> list[str]:
    return [a["symbol"] for a in result["annotations"] if a["line"] == line]


def test_constructs_are_annotated_where_they_are(smap: kb.SymbolMap) -> None:
    r = _explain(FIXTURES / "constructs.cu", smap)
    assert r["errors"] == []
    assert _at(r, 2) == ["cuda_runtime.h"]
    assert _at(r, 3) == ["cooperative_groups.h"]
    assert "__syncthreads" in _at(r, 4)  # macro body
    assert "__global__" in _at(r, 9)
    assert "__shared__" in _at(r, 10)
    assert _at(r, 11) == ["blockIdx", "blockDim", "threadIdx"]
    assert _at(r, 15) == ["cg::thread_block", "cg::this_thread_block"]  # through the namespace alias
    assert "<<<>>>" in _at(r, 25)
    first = next(a for a in r["annotations"] if a["symbol"] == "cudaMalloc")
    assert (first["line"], first["column"]) == (23, 3)
    assert first["equivalents"]["hip"] == "hipMalloc"
    host = next(a for a in r["annotations"] if a["symbol"] == "cudaMallocHost")
    assert host["equivalents"]["hip"] == "hipHostMalloc"
    none = next(a for a in r["annotations"] if a["symbol"] == "cudaThreadGetLimit")
    assert none["equivalents"]["hip"] is None


def test_comments_and_strings_are_never_annotated(smap: kb.SymbolMap) -> None:
    r = _explain(FIXTURES / "constructs.cu", smap)
    assert _at(r, 1) == []  # line comment
    assert _at(r, 7) == []  # block comment naming cudaMemcpy
    assert _at(r, 12) == []  # string literal naming cudaMalloc and __syncthreads
    assert _at(r, 27) == []  # std::min is not CUDA, and its last component is not looked up alone


def test_template_arguments_and_types(smap: kb.SymbolMap, tmp_path: Path) -> None:
    src = tmp_path / "t.cu"
    src.write_text("template <typename S> void f();\nvoid g() { f<cudaStream_t>(); cudaEvent_t e; }\n")
    r = _explain(src, smap)
    assert _at(r, 2) == ["cudaStream_t", "cudaEvent_t"]


def test_columns_count_characters_not_bytes(smap: kb.SymbolMap, tmp_path: Path) -> None:
    src = tmp_path / "u.cu"
    src.write_text("void f() { const char* s = \"héllo\"; cudaDeviceSynchronize(); }\n", encoding="utf-8")
    r = _explain(src, smap)
    a = r["annotations"][0]
    line = src.read_text(encoding="utf-8").splitlines()[0]
    assert line[a["column"] - 1 :].startswith("cudaDeviceSynchronize")


def test_broken_file_is_annotated_where_the_tree_is_sound(smap: kb.SymbolMap) -> None:
    r = _explain(FIXTURES / "broken.cu", smap)
    syntax = [e for e in r["errors"] if e["kind"] == "syntax"]
    assert syntax and all(e["line"] == 3 for e in syntax)
    symbols_seen = {(a["line"], a["symbol"]) for a in r["annotations"]}
    assert (1, "cuda_runtime.h") in symbols_seen
    assert (2, "threadIdx") in symbols_seen
    assert (4, "cudaMalloc") in symbols_seen
    assert all(a["line"] != 3 or a["column"] < syntax[0]["column"] for a in r["annotations"])


def test_json_shape_on_fixtures(smap: kb.SymbolMap) -> None:
    out = io.StringIO()
    code = explain.run([str(FIXTURES)], fmt="json", out=out, jobs=1)
    doc = json.loads(out.getvalue())
    check_document(doc)
    assert code == explain.EXIT_OK
    assert {Path(f["path"]).name for f in doc["files"]} >= {"constructs.cu", "broken.cu", "portable.cu"}


@pytest.mark.skipif(not any(KERNELS.glob("**/*.cu")), reason="no kernel examples in kernels/examples yet")
def test_json_shape_on_kernel_examples() -> None:
    out = io.StringIO()
    explain.run([str(KERNELS)], fmt="json", out=out, jobs=1)
    doc = json.loads(out.getvalue())
    check_document(doc)
    cu_files = [f for f in doc["files"] if f["path"].endswith(".cu")]
    assert cu_files
    assert all(not any(e["kind"] in ("read", "internal") for e in f["errors"]) for f in cu_files)
    assert sum(len(f["annotations"]) for f in cu_files) > 0


def test_fail_on_sets_the_exit_code() -> None:
    fixture = str(FIXTURES / "constructs.cu")
    assert explain.run([fixture], fmt="json", out=io.StringIO(), jobs=1) == explain.EXIT_OK
    doc_out = io.StringIO()
    explain.run([fixture], fmt="json", out=doc_out, jobs=1)
    severities = {h["severity"] for f in json.loads(doc_out.getvalue())["files"] for h in f["hazards"]}
    expected = explain.EXIT_FINDINGS if severities & {"warning", "error"} else explain.EXIT_OK
    assert explain.run([fixture], fmt="json", fail_on="warning", out=io.StringIO(), jobs=1) == expected
    expected_err = explain.EXIT_FINDINGS if "error" in severities else explain.EXIT_OK
    assert explain.run([fixture], fmt="json", fail_on="error", out=io.StringIO(), jobs=1) == expected_err


def test_backend_filter_keeps_matching_hazards() -> None:
    def hazards(backend: str) -> list[dict]:
        out = io.StringIO()
        explain.run([str(FIXTURES / "constructs.cu")], fmt="json", backend=backend, out=out, jobs=1)
        return [h for f in json.loads(out.getvalue())["files"] for h in f["hazards"]]

    every = hazards("all")
    hip = hazards("hip")
    # exactly the hazards that concern HIP survive, and the fixture has some of each kind
    assert hip == [h for h in every if "hip" in h["backends"] or not h["backends"]]
    assert hip and len(hip) < len(every)


def test_tree_walk_skips_hidden_and_build_folders_and_non_cuda_files(tmp_path: Path) -> None:
    from xlate.cuda.files import collect

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "src" / "b.cpp").write_text("#include <cuda_runtime.h>\nint main() { cudaDeviceSynchronize(); }\n")
    (tmp_path / "src" / "plain.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "src" / "notes.txt").write_text("cudaMalloc\n")
    for skipped in ("build", ".git", "node_modules"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "gen.cu").write_text("__global__ void g() {}\n")
    targets, errors = collect([str(tmp_path)])
    assert errors == []
    assert sorted(t.path.name for t in targets) == ["a.cu", "b.cpp"]
    only, _ = collect([str(tmp_path)], include=["*.cu"])
    assert [t.path.name for t in only] == ["a.cu"]
    rest, _ = collect([str(tmp_path)], exclude=["src/a.*"])
    assert [t.path.name for t in rest] == ["b.cpp"]


def test_files_spread_over_processes_give_the_same_results(tmp_path: Path, smap: kb.SymbolMap) -> None:
    from xlate.cuda.files import collect

    for i in range(6):
        (tmp_path / f"k{i}.cu").write_text((FIXTURES / "constructs.cu").read_text())
    targets, _ = collect([str(tmp_path)])
    serial = explain.explain_targets(targets, smap, jobs=1)
    parallel = explain.explain_targets(targets, smap, jobs=2)
    assert [r["path"] for r in parallel] == [r["path"] for r in serial]
    assert [r["annotations"] for r in parallel] == [r["annotations"] for r in serial]
    assert [r["hazards"] for r in parallel] == [r["hazards"] for r in serial]


def test_pragma_unroll_and_align_do_not_break_the_tree(smap: kb.SymbolMap, tmp_path: Path) -> None:
    from xlate.cuda import prepare
    from xlate.cuda.parser import parse

    code = (
        b"__global__ void k(float* o) {\n"
        b"  __shared__ __align__(16) float t[64];\n"
        b"  for (int i = 0; i < 4; ++i)\n"
        b"#pragma unroll 4\n"
        b"    for (int j = 0; j < 4; ++j) t[threadIdx.x] += o[i * 4 + j];\n"
        b"  __syncthreads();\n"
        b"}\n"
    )
    masked = prepare.for_parsing(code)
    assert len(masked) == len(code)
    assert parse(code).root_node.has_error  # the grammar alone cannot read either spelling
    tree = parse(masked)
    assert not tree.root_node.has_error
    outer = next(n for n in tree.root_node.children[0].child_by_field_name("body").named_children if n.type == "for_statement")
    assert outer.child_by_field_name("body").type == "for_statement"  # the inner loop nests again
    src = tmp_path / "k.cu"
    src.write_bytes(code)
    r = _explain(src, smap)
    assert r["errors"] == []
    assert [a["symbol"] for a in r["annotations"] if a["line"] == 6] == ["__syncthreads"]


RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


@pytest.mark.skipif(not RULE_FIXTURES.is_dir(), reason="no rule fixtures yet")
def test_json_shape_on_rule_fixtures() -> None:
    out = io.StringIO()
    explain.run([str(RULE_FIXTURES)], fmt="json", out=out, jobs=1)
    doc = json.loads(out.getvalue())
    check_document(doc)
    assert len(doc["files"]) >= 10
    fired = {h["name"] for f in doc["files"] for h in f["hazards"]}
    # every rule with a positive fixture folder fires somewhere in the fixtures
    folders = {p.name for p in RULE_FIXTURES.iterdir() if p.is_dir()}
    from xlate.rules import all_rules

    names = {r.name for r in all_rules()}
    assert (folders & names) <= fired


def test_metal_findings_need_a_mapping_that_says_none(smap: kb.SymbolMap) -> None:
    """`no-metal-equivalent` reports symbols the map says have no Metal counterpart (stream capture),
    not symbols that have one (fmaxf and __expf have Metal rows: fmax, fast::exp), and not the headers
    named on #include lines, which stay annotated."""
    r = _explain(FIXTURES / "metal_mapping.cu", smap)
    metal = [h for h in r["hazards"] if h["name"] == "no-metal-equivalent"]
    assert {h["line"] for h in metal} == {10}  # the capture call and its mode enumerator
    assert "cudaStreamBeginCapture" in {h["message"].split()[0] for h in metal}
    assert "cuda.h" in _at(r, 2) and "nccl.h" in _at(r, 3)
    assert {"fmaxf", "__expf"} <= set(_at(r, 6))
    # the device-math row: fmax, approximate because MSL's default fast math leaves NaN inputs undefined
    assert r["symbols"]["fmaxf"]["relations"]["metal"] == "approximate"


def test_occurrences_carry_the_map_relations(smap: kb.SymbolMap) -> None:
    from xlate.cuda import occurrences
    from xlate.cuda.parser import parse

    source = (FIXTURES / "metal_mapping.cu").read_bytes()
    found = {o.symbol: o for o in occurrences.find(parse(source), source, smap)}
    # Metal's fmax is approximate: under MSL's default fast math NaN inputs are undefined (device-math row)
    assert (found["fmaxf"].hip_relation, found["fmaxf"].metal_relation) == ("same", "approximate")
    assert found["cudaStreamBeginCapture"].metal_relation == "none"
    assert found["cuda.h"].metal_relation == "none"


def test_softmax_example_has_no_metal_findings_for_math_intrinsics(smap: kb.SymbolMap) -> None:
    r = explain.explain_path("softmax.cu", KERNELS / "softmax" / "softmax.cu", smap)
    flagged = {h["message"].split()[0] for h in r["hazards"] if h["name"] == "no-metal-equivalent"}
    assert not flagged & {"fmaxf", "__expf", "expf"}, flagged
