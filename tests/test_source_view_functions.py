"""Which function a node is in, and whether that is device code, on layouts the rule fixtures lack:
several functions in a row, a node that starts where its function starts, definitions nested inside a
kernel, and comments among call arguments."""

from __future__ import annotations

from xlate.cuda.parser import parse
from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, is_kernel

NESTED = b"""void h0() { int a = 0; }
void h1() { int b = 1; }
__global__ void K(float* x) {
  struct Local { __host__ int f() { return 1; } };
  int after = threadIdx.x;
  x[after] = 0.0f;
}
__device__ float d(float v) { return v; }
void host() { int tail = 2; }
"""


def _view(src: bytes) -> SourceView:
    return SourceView("t.cu", src, parse(src))


def _named(view: SourceView, name: str):
    (node,) = [n for n in view.named((name,)) if n.parent is not None and n.parent.type == "init_declarator"]
    return node


def _functions(view: SourceView) -> dict[str, object]:
    out = {}
    for fn in view.nodes("function_definition"):
        declarator = fn.child_by_field_name("declarator")
        name = declarator.child_by_field_name("declarator")
        out[view.text(name)] = fn
    return out


def test_is_kernel_only_for_global_functions() -> None:
    view = _view(NESTED)
    fns = _functions(view)
    assert is_kernel(fns["K"])
    assert not is_kernel(fns["d"]) and not is_kernel(fns["host"]) and not is_kernel(fns["f"])


def test_a_node_after_a_nested_definition_belongs_to_the_kernel() -> None:
    view = _view(NESTED)
    fns = _functions(view)
    after = _named(view, "after")
    assert view.function_of(after) == fns["K"]
    assert view.in_device_code(after)


def test_code_of_a_local_class_inside_a_kernel_is_device_code() -> None:
    view = _view(NESTED)
    fns = _functions(view)
    (ret,) = [n for n in view.nodes("return_statement") if fns["f"].start_byte <= n.start_byte < fns["f"].end_byte]
    assert view.function_of(ret) == fns["f"]  # the innermost definition
    assert view.in_device_code(ret)  # f has no device qualifier, but it is compiled for the device inside K


def test_host_functions_around_a_kernel_are_host_code() -> None:
    view = _view(NESTED)
    fns = _functions(view)
    for name, fn in (("a", "h0"), ("b", "h1"), ("tail", "host")):
        node = _named(view, name)
        assert view.function_of(node) == fns[fn]
        assert not view.in_device_code(node)


def test_a_node_that_starts_where_its_function_starts() -> None:
    view = _view(NESTED)
    fns = _functions(view)
    for name in ("K", "d", "host"):
        fn = fns[name]
        first = fn.children[0]  # `__global__`, `__device__` or the return type: same start byte as the function
        assert first.start_byte == fn.start_byte
        assert view.function_of(first) == fn
        assert view.in_device_code(first) == (name != "host")


def test_call_arguments_leave_out_comments() -> None:
    src = b"void f() { g(1, /* the count */ n, // trailing\n  2); }\n"
    view = _view(src)
    (call,) = view.nodes("call_expression")
    assert [view.text(a) for a in call_arguments(call)] == ["1", "n", "2"]


def test_at_and_ancestors_agree_with_the_tree() -> None:
    view = _view(NESTED)
    after = _named(view, "after")
    assert view.at(after.start_byte, after.end_byte) == after
    chain, node = [], after.parent
    while node is not None:
        chain.append(node)
        node = node.parent
    assert list(view.ancestors(after)) == chain and chain[-1].type == "translation_unit"
