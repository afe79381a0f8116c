"""SourceView answers rules' questions by searching the bytes and confirming hits in the tree; these
tests hold every answer to a plain walk over all nodes of the same tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate.cuda.parser import parse
from xlate.cuda.source import SourceView
from xlate.cuda.tree import NAME_TYPES, call_name
from xlate.rules.syntax import has_qualifier, int_literal

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "tests" / "fixtures" / "rules").glob("*/*.cu")) + sorted(
    (ROOT / "tests" / "fixtures" / "explain").glob("*.cu")) + sorted((ROOT / "kernels" / "examples").glob("*/*.cu"))

TRICKY = b"""#include <cuda_runtime.h>
#  define WARP 32
#define LANES(x) ((x) & 31)  /* macro bodies are not nodes */
namespace cg = cooperative_groups;
struct S { S() = default; S(const S&) = delete; __device__ void m() { int k = threadIdx.x % 32; } };
int g() try { return 1; } catch (...) { return 2; }
constexpr int kWarp = 0x20;
static const unsigned kMask = 0xffffffffu;
__global__ void __launch_bounds__(256, 2) k(volatile float* vs, double* d) {
  __shared__ float tile[32][33];
  __shared__ float per_lane[32];
  extern __shared__ float dyn[];
  // threadIdx.x % 32 in a comment, "threadIdx.x & 31" in a string
  const char* s = "for (;;) asm";
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, big = 1'000'032, h = 0X1F, b = 0b100000;
  float f = 32.0f + 1.5e-3f + .5f;
  per_lane[lane] = __shfl_down_sync(0xffffffff, vs[lane], 16, 32) + (1 << lane);
  for (int o = 16; o > 0; o >>= 1) vs[lane] += __shfl_xor_sync(__activemask(), vs[lane], o);
  asm volatile("bar.sync 0;");
  __asm__("membar.gl;");
  int* p = new int[4]; delete[] p; ::operator delete(p);
  double x = (double)d[0]; atomicAdd(d, x);
  cg::this_thread_block().sync(); (__syncthreads)(); obj.template get<int>();
}
void host() { k<<<1, 256>>>(nullptr, nullptr); cudaDeviceSynchronize(); std::min(1, 2); }
"""

NODE_TYPES = ("function_definition", "for_statement", "gnu_asm_expression", "new_expression", "delete_expression",
              "launch_bounds", "kernel_call_syntax", "preproc_def", "preproc_include", "declaration",
              "call_expression", "identifier", "number_literal", "init_declarator")
WORDS = ("threadIdx", "warpSize", "lane", "vs", "k", "x", "kWarp", "WARP", "sync", "cg", "get", "min", "p", "S")
CALLS = ("__shfl_down_sync", "__shfl_xor_sync", "__activemask", "sync", "__syncthreads", "get", "min", "atomicAdd",
         "cudaDeviceSynchronize", "this_thread_block", "g", "m")
QUALIFIERS = ("__shared__", "volatile", "const", "constexpr", "extern", "static")
VALUES = (frozenset({1}), frozenset({5, 31, 32}), frozenset({0xFFFFFFFF}), frozenset({1032, 1000032}))


def _views() -> list[tuple[str, SourceView]]:
    views = [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in FILES] + [("tricky", TRICKY)]
    return [(name, SourceView(name, src, parse(src))) for name, src in views]


VIEWS = _views()


def _walk(view: SourceView) -> list:
    return [n for n in view.walk() if n.is_named]


def _spans(nodes: list) -> list[tuple[int, int, str]]:
    return [(n.start_byte, n.end_byte, n.type) for n in nodes]


@pytest.mark.parametrize("name,view", VIEWS, ids=[n for n, _ in VIEWS])
def test_nodes_match_a_full_walk(name: str, view: SourceView) -> None:
    every = _walk(view)
    for t in NODE_TYPES:
        assert _spans(view.nodes(t)) == _spans([n for n in every if n.type == t]), t
    assert _spans(view.nodes("for_statement", "preproc_def")) == _spans(
        [n for n in every if n.type in ("for_statement", "preproc_def")])


@pytest.mark.parametrize("name,view", VIEWS, ids=[n for n, _ in VIEWS])
def test_names_calls_qualifiers_and_literals_match_a_full_walk(name: str, view: SourceView) -> None:
    every = _walk(view)
    text = {id(n): (n.text or b"").decode() for n in every}
    for word in WORDS:
        expected = [n for n in every if n.type in NAME_TYPES and text[id(n)] == word]
        assert _spans(view.named((word,))) == _spans(expected), word
    assert _spans(view.named(WORDS)) == _spans([n for n in every if n.type in NAME_TYPES and text[id(n)] in WORDS])
    assert _spans(view.spelled(("double",), frozenset({"primitive_type"}))) == _spans(
        [n for n in every if n.type == "primitive_type" and text[id(n)] == "double"])
    for names in ((c,) for c in CALLS):
        expected = [n for n in every if n.type == "call_expression" and call_name(n) in names]
        assert _spans(view.calls(names)) == _spans(expected), names
    for q in QUALIFIERS:
        for types in (("declaration",), ("parameter_declaration", "declaration")):
            expected = [n for n in every if n.type in types and has_qualifier(n, q)]
            assert sorted(_spans(view.qualified(q, types))) == sorted(_spans(expected)), (q, types)
    for values in VALUES:
        for longest in (4, 8, 24):
            expected = [n for n in every if n.type == "number_literal" and len(n.text or b"") <= longest
                        and int_literal(n) in values]
            assert _spans(view.int_literals(values, longest)) == _spans(expected), (values, longest)


def test_function_table_knows_device_code() -> None:
    view = SourceView("tricky", TRICKY, parse(TRICKY))
    (lane,) = [n for n in view.named(("lane",)) if n.parent is not None and n.parent.type == "init_declarator"]
    assert view.in_device_code(lane)
    (host_call,) = view.calls(("cudaDeviceSynchronize",))
    assert not view.in_device_code(host_call)
    (method_k,) = [n for n in view.named(("k",)) if n.parent is not None and n.parent.type == "init_declarator"]
    assert view.in_device_code(method_k)  # a __device__ method of a struct
    assert view.spells(("threadIdx",)) and not view.spells(("no_such_name_here",))


def _thread_variables_by_walks(fn) -> frozenset[str]:
    """The taint of thread indices through a function's locals, computed the plain way: every node
    walked, and each value walked again for the names it reads."""
    from xlate.rules.syntax import declarator_name, names_in
    from xlate.rules.threadctx import is_thread_name

    def spelled(node) -> str:
        return (node.text or b"").decode("utf-8", errors="replace")

    pairs = []
    stack = [fn]
    while stack:
        cur = stack.pop()
        if cur.type == "init_declarator":
            ident, value = declarator_name(cur), cur.child_by_field_name("value")
            if ident is not None and value is not None:
                pairs.append((spelled(ident), value))
        elif cur.type == "assignment_expression":
            left, right = cur.child_by_field_name("left"), cur.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                pairs.append((spelled(left), right))
        stack.extend(cur.named_children)
    reads = [(name, {spelled(n) for n in names_in(value)}) for name, value in pairs]
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, used in reads:
            if name not in tainted and any(is_thread_name(u) or u in tainted for u in used):
                tainted.add(name)
                changed = True
    return frozenset(tainted)


THREAD_LOCALS = b"""__global__ void k(float* out, int n) {
  int t = threadIdx.x, u = t; int v{u}; int w(v + 1);
  int l; l = w & 31; int m = 0; m += l;
  int unrelated = n * 2; int x = unrelated = t;
  auto f = [&](int q) { int inner = q + x; return inner; };
  struct Local { __device__ int g() { int z = threadIdx.y; return z; } };
  out[m] = f(n);
}
__device__ int host_like(int a) { int b = a + 1; return b; }
__global__ void broken(int* p) { int s = threadIdx.x int r = s; p[r] = 1; }
"""


@pytest.mark.parametrize("name,view", VIEWS + [("thread-locals", SourceView("t", THREAD_LOCALS, parse(THREAD_LOCALS)))],
                         ids=[n for n, _ in VIEWS] + ["thread-locals"])
def test_thread_variables_match_plain_walks(name: str, view: SourceView) -> None:
    from xlate.rules.threadctx import thread_variables

    functions = view.nodes("function_definition")
    for fn in functions:
        assert thread_variables(view, fn) == _thread_variables_by_walks(fn), view.text(fn)[:80]
    if name == "thread-locals":
        # Brace and parenthesis initialisers, compound assignments, chained assignments, and the
        # locals of a lambda and of a local class's method all pass the thread index on.
        assert thread_variables(view, functions[0]) == {"t", "u", "v", "w", "l", "m", "x", "unrelated", "f", "inner", "z"}
        assert thread_variables(view, functions[2]) == frozenset()
