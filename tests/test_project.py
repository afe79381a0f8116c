"""A tree as one project: include graph, header constants, warp code across files, one warp-width
decision, shared headers reported once with their users, and library prefixes that are not API uses.

The fixtures under tests/fixtures/project/ are written for these tests: `tree/` keeps a logical
32-lane warp in a shared header (WARP_SIZE from config.cuh, which reduce.cuh uses without including
it), a GEMM whose tid / 32 only lays out a tile, and a guard named like a cuDNN macro; `mixed/`
reads warpSize in one file and 32 in another.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from xlate import explain
from xlate.project import IncludeGraph, ProjectError, known_constants, project_constants, read_compile_commands
from xlate.project.names import api_shaped

FIXTURES = Path(__file__).parent / "fixtures" / "project"
TREE = FIXTURES / "tree"
PREFIXES = (b"CUDNN_", b"cudnn", b"cublas", b"thrust::")


def _explain(paths: list[str], *extra: str, fmt: str = "json") -> tuple[int, str]:
    out = io.StringIO()
    code = explain.run(paths, fmt=fmt, out=out, jobs=1, show_all="--all" in extra)
    return code, out.getvalue()


def _by_name(doc: dict) -> dict[str, dict]:
    return {Path(f["path"]).name: f for f in doc["files"]}


def test_includes_resolve_against_the_includer_and_the_include_folders() -> None:
    graph = IncludeGraph.from_paths([TREE])
    config = (TREE / "include" / "config.cuh").resolve()
    edges = graph.includers_of(config)
    spelled = sorted((e.includer.name, e.spelling, e.line, e.angled) for e in edges)
    # "config.cuh" from src/ is found through the include folder; "../include/config.cuh" next to the includer
    assert spelled == [("gemm.cu", "../include/config.cuh", 1, False), ("launch.cu", "config.cuh", 2, False),
                       ("norm.cu", "config.cuh", 1, False), ("softmax.cu", "config.cuh", 1, False)]
    for e in edges:  # the byte span of each spelling, for a rename of the header
        assert e.includer.read_bytes()[e.start:e.end].decode() == e.spelling
    gemm = [e for e in graph.includes_of(TREE / "src" / "gemm.cu")]
    assert [(e.spelling, e.angled, e.target.name if e.target else None) for e in gemm] == [
        ("../include/config.cuh", False, "config.cuh"), ("tile.cuh", True, "tile.cuh")]
    norm = graph.includes_of(TREE / "src" / "norm.cu")
    assert ("cstdio", None) in [(e.spelling, e.target) for e in norm]  # a system header stays unresolved
    users = [u.name for u in graph.users_of(TREE / "include" / "reduce.cuh")]
    assert users == ["norm.cu", "softmax.cu"]
    assert {u.name for u in graph.units} == {"gemm.cu", "launch.cu", "norm.cu", "softmax.cu"}


def test_a_compile_database_gives_files_include_folders_and_macros(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "w.cuh").write_text("#define LANES WIDTH\n")
    (tmp_path / "k.cu").write_text('#include "w.cuh"\n__global__ void k() {}\n')
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": "k.cu",
                               "command": "nvcc -Iinc -DWIDTH=32 -DDEBUG -c k.cu -o k.o"}]))
    entry = read_compile_commands(db)[0]
    assert entry.file == (tmp_path / "k.cu").resolve() and entry.include_dirs == ((tmp_path / "inc").resolve(),)
    assert entry.defines == (("WIDTH", "32"), ("DEBUG", "1"))
    graph = IncludeGraph.from_compile_commands(db)
    assert [p.name for p in graph.files()] == ["k.cu", "w.cuh"]
    assert known_constants(graph, tmp_path / "k.cu") == {"WIDTH": 32, "DEBUG": 1, "LANES": 32}


@pytest.mark.parametrize("content, reason", [("{", "not a JSON compilation database"), ("{}", "JSON list"),
                                             ('[{"file": "a.cu"}]', "lacks 'directory' or 'file'")])
def test_a_broken_compile_database_is_one_clear_error(tmp_path: Path, content: str, reason: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "compile_commands.json"
    db.write_text(content)
    with pytest.raises(ProjectError, match=reason):
        read_compile_commands(db)
    code, out = _explain([str(db)])
    doc = json.loads(out)
    assert code == explain.EXIT_ERROR
    assert any(reason in e["message"] for f in doc["files"] for e in f["errors"])


def test_header_constants_reach_the_files_that_include_them() -> None:
    graph = IncludeGraph.from_paths([TREE])
    consts = project_constants(graph)
    norm = consts[(TREE / "src" / "norm.cu").resolve()]
    assert norm["WARP_SIZE"] == 32 and norm["ROWS_PER_BLOCK"] == 4 and norm["FULL_MASK"] == 0xFFFFFFFF
    # reduce.cuh does not include config.cuh; every file that includes reduce.cuh includes config.cuh first
    assert consts[(TREE / "include" / "reduce.cuh").resolve()]["WARP_SIZE"] == 32


def test_project_findings_follow_warp_code_across_files() -> None:
    code, out = _explain([str(TREE)])
    doc = json.loads(out)
    files = _by_name(doc)
    found = {(name, h["line"], h["rule"]) for name, f in files.items() for h in f["hazards"]}
    assert found == {
        ("reduce.cuh", 6, "XL001"),    # shuffle loop from WARP_SIZE / 2, WARP_SIZE from config.cuh
        ("reduce.cuh", 6, "XL010"),    # FULL_MASK, 0xffffffff in config.cuh
        ("reduce.cuh", 11, "XL001"),   # partial[WARP_SIZE]
        ("reduce.cuh", 12, "XL001"),   # lane index
        ("reduce.cuh", 13, "XL001"),   # warp index
        ("reduce.cuh", 17, "XL001"),   # warp count
        ("norm.cu", 13, "XL001"),      # dim3 block(WARP_SIZE, ...) launching warp code
        ("softmax.cu", 5, "XL001"),    # assert(blockDim.x == WARP_SIZE) in warp code
        ("launch.cu", 7, "XL001"),     # <<<1, WARP_SIZE>>> of a kernel that another file defines
        ("reduce.cuh", 26, "XL001"),   # slots[WARP_SIZE] of block_apply, warp code by its template argument
        ("reduce.cuh", 27, "XL001"),   # its lane index
        ("reduce.cuh", 29, "XL001"),   # its warp index
    }
    # the GEMM's tid / 32 and tid % 32 only lay out a tile, and its <<<1, 32>>> launches no warp code
    assert not files["tile.cuh"]["hazards"] and not files["gemm.cu"]["hazards"]


def test_every_warp_width_message_says_what_to_do_and_what_a_partial_change_breaks() -> None:
    _, out = _explain([str(TREE)])
    for f in json.loads(out)["files"]:
        for h in f["hazards"]:
            if h["rule"] == "XL001":
                assert "warpSize" in h["message"] or "64" in h["message"]  # what to do
                assert "together or none" in h["message"] and "twice" in h["message"]  # what a partial change breaks


def test_a_shared_header_is_reported_once_with_its_users() -> None:
    _, out = _explain([str(TREE)])
    doc = json.loads(out)
    names = [Path(f["path"]).name for f in doc["files"]]
    assert names.count("reduce.cuh") == 1
    files = _by_name(doc)
    assert [Path(u).name for u in files["reduce.cuh"]["users"]] == ["norm.cu", "softmax.cu"]
    assert not [h for h in files["norm.cu"]["hazards"] if h["line"] in (6, 11, 12)]  # not repeated per user
    _, text_out = _explain([str(TREE)], fmt="text")
    assert text_out.count("reduce.cuh:12:") == 1
    assert "shared header: its findings hold for the 2 file(s) that include it" in text_out


def test_one_warp_width_decision_per_project() -> None:
    _, out = _explain([str(TREE)])
    warp = json.loads(out)["project"]["warp"]
    assert warp["decision"] == "logical-32" and len(warp["sites"]) == 11
    assert "moving some of them only breaks" in warp["message"]
    _, out = _explain([str(FIXTURES / "mixed")])
    warp = json.loads(out)["project"]["warp"]
    assert warp["decision"] == "mixed"
    assert [Path(p).name for p in warp["warpsize_files"]] == ["warp.cuh"]
    assert {Path(s.rsplit(":", 1)[0]).name for s in warp["sites"]} == {"kernel.cu"}
    _, text_out = _explain([str(FIXTURES / "mixed")], fmt="text")
    assert text_out.startswith("project: warp width: mixed")


def test_a_file_explained_alone_knows_only_itself() -> None:
    # Without its project, reduce.cuh's WARP_SIZE is unknown: nothing is guessed.
    _, out = _explain([str(TREE / "include" / "reduce.cuh")])
    doc = json.loads(out)
    assert "project" not in doc
    assert not [h for h in doc["files"][0]["hazards"] if h["rule"] == "XL001"]


def test_library_prefixes_are_not_api_uses_when_the_user_defines_the_name() -> None:
    _, out = _explain([str(TREE)])
    symbols = {a["symbol"] for f in json.loads(out)["files"] for a in f["annotations"]}
    assert "CUDNN_ATT_H" not in symbols and "cudnn_handle" not in symbols
    assert api_shaped("cudnnConvolutionForward", PREFIXES) and api_shaped("CUDNN_STATUS_SUCCESS", PREFIXES)
    assert api_shaped("thrust::device_vector", PREFIXES)
    assert not api_shaped("cudnn_handle", PREFIXES) and not api_shaped("CUDNN_ATT_H", PREFIXES)
    assert not api_shaped("cublas_workspace", PREFIXES)


def test_a_derived_name_defined_in_the_file_is_dropped_but_an_api_name_is_kept(tmp_path: Path) -> None:
    f = tmp_path / "one.cu"
    f.write_text("#define CUDNN_MY_FLAG 1\nint use() { return CUDNN_MY_FLAG + cudnnFrobnicate(); }\n")
    _, out = _explain([str(f)])
    symbols = [a["symbol"] for a in json.loads(out)["files"][0]["annotations"]]
    assert "CUDNN_MY_FLAG" not in symbols and "cudnnFrobnicate" in symbols


def test_a_project_spread_over_processes_gives_the_same_findings() -> None:
    outs = []
    for jobs in (1, 2):
        out = io.StringIO()
        explain.run([str(TREE)], fmt="json", out=out, jobs=jobs)
        outs.append(json.loads(out.getvalue()))
    assert outs[0] == outs[1]
    assert any(h["rule"] == "XL001" for f in outs[1]["files"] for h in f["hazards"] if f["path"].endswith("reduce.cuh"))


def test_a_deep_include_chain_and_a_cycle_are_read_once(tmp_path: Path) -> None:
    for i in range(3000):  # each header includes the next; the last includes the first again
        (tmp_path / f"h{i}.cuh").write_text(f'#include "h{(i + 1) % 3000}.cuh"\n#define W{i} {i}\n')
    (tmp_path / "main.cu").write_text('#include "h0.cuh"\n__global__ void k() {}\n')
    graph = IncludeGraph.from_paths([tmp_path])
    reached = graph.reached(tmp_path / "main.cu")
    assert len(reached) == 3000 and len(set(reached)) == 3000
    consts = known_constants(graph, tmp_path / "main.cu")
    assert consts["W0"] == 0 and consts["W2999"] == 2999


def test_translate_leaves_user_names_with_a_library_prefix_alone() -> None:
    from xlate import kb
    from xlate.translate.engine import translate_source
    from xlate.translate.options import Options

    source = (b"#ifndef CUDNN_ATT_H\n#define CUDNN_ATT_H\nstatic int cudnn_handle = 0;\n"
              b"int f() { return cudnn_handle + cudnnFrobnicate(); }\n#endif\n")
    out = translate_source("att.h", source, kb.load_symbols(), Options()).text.decode()
    assert "CUDNN_ATT_H (dnn)" not in out and "cudnn_handle (dnn)" not in out
    assert "cudnnFrobnicate (dnn) has no HIP equivalent" in out  # an API-shaped name is still flagged
