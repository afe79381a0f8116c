"""Property tests over explain inputs (Hypothesis): whatever the bytes, explain gives a well-formed
result, no rule fails, and the tree look-ups agree with tree-sitter's own.

Inputs are token soups drawn from CUDA's vocabulary (qualifiers, intrinsics, launches, literals,
preprocessor lines, comments, strings) mixed with arbitrary text and bytes, so the rules see
near-CUDA as well as garbage. Inputs that once failed are pinned with @example. The number of
examples is modest for the quick loop; XLATE_FUZZ_EXAMPLES raises it for a longer campaign.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="Hypothesis is a test extra (pip install -e .[test])")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from explain_shape import check_document  # noqa: E402
from xlate import explain  # noqa: E402
from xlate import kb  # noqa: E402
from xlate.cuda.parser import parse  # noqa: E402
from xlate.cuda.tree import Locator  # noqa: E402

EXAMPLES = int(os.environ.get("XLATE_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TOKENS = [
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__", "__launch_bounds__(256, 4)",
    "void", "int", "unsigned", "long long", "float", "double", "half", "const", "constexpr", "volatile", "static",
    "template <int N>", "struct S", "namespace cg = cooperative_groups;", "cg::", "::", "cuda::", "wmma::", "rocwmma::",
    "threadIdx.x", "blockIdx.y", "blockDim.x", "gridDim.x", "warpSize", "lane", "k", "x", "n", "i",
    "__shfl_down_sync", "__ballot_sync", "__syncthreads()", "__syncwarp()", "atomicAdd", "__popc", "clock64()",
    "cudaMalloc", "cudaMemcpyAsync", "cudaFuncSetCacheConfig", "cudaDeviceSetLimit", "cudaLimitPrintfFifoSize",
    "cudaCtxResetPersistingL2Cache", "this_cluster", "load_matrix_sync", "printf", "malloc", "asm volatile",
    "0xffffffff", "32", "31", "5", "16", "1", "0", "1ull", "1'000", "64 << 20", "2.0f", "1e-3",
    "(", ")", "{", "}", "[", "]", "<", ">", "<<<", ">>>", ",", ";", "=", "+", "-", "*", "/", "%", "&", "|", "^",
    "<<", ">>", "==", "!=", "?", ":", "!", "~", "++", ".", "->",
    "#include <cuda_runtime.h>", "#include <mma.h>", "#define WARP 32", "#if __CUDA_ARCH__ >= 800", "#ifdef __CUDACC__",
    "#if defined(__HIP_PLATFORM_AMD__)", "#else", "#endif", "#pragma unroll", "__align__(16)",
    "// comment threadIdx.x & 31", "/* block */", "/* unterminated", '"string 0xffffffff"', "'c'", "\\",
]
SPACES = st.sampled_from([" ", "\n", "\t", "", "\r\n", "  \\\n"])


@st.composite
def soups(draw: st.DrawFn) -> bytes:
    parts = draw(st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=80))
    text = "".join(p + draw(SPACES) for p in parts)
    data = text.encode("utf-8", errors="surrogatepass")
    if draw(st.booleans()) and draw(st.booleans()):  # now and then some raw bytes (NULs, invalid UTF-8)
        junk = draw(st.binary(max_size=12))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + junk + data[at:]
    return data


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    explain.load_rules()
    return kb.load_symbols()


def _positions_ok(result: dict, source: bytes) -> None:
    lines = source.count(b"\n") + 1
    for item in result["annotations"] + result["hazards"]:
        assert 1 <= item["line"] <= lines and item["column"] >= 1, item


@FUZZ
@given(source=soups())
@example(source=b"__device__ int f() { return " + b" + ".join([b"1"] * 300) + b"; }\n")
@example(source=b"int a[] = {" + b", ".join([b"32"] * 300) + b"};")
@example(source=b"#if __CUDA_ARCH__\n" * 50 + b"__global__ void k() { int l = threadIdx.x & 31; }\n")
@example(source=b"__global__ void k() { asm(\"mov.u32 %0, %%laneid;\" /* unterminated")
@example(source=b"\x00\xff\xfe__global__\x00 void k() {}")
def test_explain_never_fails_on_any_source(source: bytes, smap: kb.SymbolMap) -> None:
    result = explain.explain_source("fuzz.cu", source, smap)
    check_document({"files": [result]})
    assert not [e for e in result["errors"] if e["kind"] in ("rule", "internal", "parse")], result["errors"]
    _positions_ok(result, source)


@FUZZ
@given(source=soups(), data=st.data())
def test_locator_agrees_with_tree_sitter(source: bytes, data: st.DataObject) -> None:
    tree = parse(source)
    nodes = []
    cursor = tree.walk()
    seen_all = False
    while not seen_all:  # every node, without recursion
        nodes.append(cursor.node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                seen_all = True
                break
    root = tree.root_node
    size = len(source)
    for locator in (Locator(tree), Locator(tree, deep=True)):  # as learnt (shallow here), and the cursor
        picks = data.draw(st.lists(st.sampled_from(nodes), max_size=40))
        for node in picks:  # parents, asked in any order
            assert locator.parent(node) == node.parent
        spans = data.draw(st.lists(st.tuples(st.integers(0, size), st.integers(0, 8)), max_size=40))
        for start, width in spans:  # ranges, asked in any order
            end = min(size, start + width)
            if end <= start:
                continue
            assert locator.at(start, end) == root.descendant_for_byte_range(start, end), (start, end)


@FUZZ
@given(source=soups())
def test_command_output_is_valid_json_for_any_file(source: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "input.cu"
    path.write_bytes(source)
    out = io.StringIO()
    code = explain.run([str(path), str(Path(folder) / "missing.cu")], fmt="json", out=out, jobs=1)
    doc = json.loads(out.getvalue())
    check_document(doc)
    assert code == explain.EXIT_ERROR  # the missing file, and only a file error, decides it
    assert [f["errors"][0]["kind"] for f in doc["files"] if f["path"].endswith("missing.cu")] == ["missing"]


@pytest.mark.parametrize("source, start, end", [(b" ", 0, 1), (b"\n\nint x;", 0, 2), (b"int x;  ", 6, 8)])
def test_locator_outside_every_node_answers_the_root(source: bytes, start: int, end: int) -> None:
    """Found by the campaign above: blanks before the first token lie outside the root's range, and
    tree-sitter then answers the root itself."""
    tree = parse(source)
    for locator in (Locator(tree), Locator(tree, deep=True)):
        assert locator.at(start, end) == tree.root_node.descendant_for_byte_range(start, end)


def test_deep_trees_are_answered_through_the_cursor() -> None:
    """A left-leaning sum of 300 literals is 300 levels deep: the locator learns that and its
    answers still agree with tree-sitter's, for every node and in document order."""
    source = b"__device__ int f() { return " + b" + ".join([b"1"] * 300) + b"; }\n"
    tree = parse(source)
    locator = Locator(tree)
    assert locator.deep
    root = tree.root_node
    pos = source.find(b"1 +")
    while pos != -1:
        node = locator.at(pos, pos + 1)
        assert node == root.descendant_for_byte_range(pos, pos + 1) and node.type == "number_literal"
        assert locator.parent(node) == node.parent
        pos = source.find(b"1 +", pos + 1)
