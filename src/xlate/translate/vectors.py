"""Compound assignment operators that a CUDA helper header defines for vector types and that HIP's
vector types already define as members (`float2 += float2`): with both, every use is ambiguous
(clang: "use of overloaded operator '+=' is ambiguous"), which is what breaks helper_math.h-style
headers after a rename. ROCm 6.4's HIP_vector_type also defines the element-wise binary `*` and `/`
of two vectors as non-template friends (hip/amd_detail/amd_hip_vector_types.h:561-580, ROCm 6.4.3),
which clash with a helper's `float2 operator*(float2, float2)` the same way; HIP 5.2 has templates
there, which a helper's non-template overload beats, so the guard is right for both. Unary and
vector-with-scalar operators, and `+`/`-`, do not clash and are kept.

The definition is kept out of HIP compilations only when it provably does what HIP's member does:
its body is exactly `a.c op= b.c;` for each component of the vector type, once. It is wrapped in
`#if !defined(HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H)` (the include guard of hip/hip_vector_types.h), so a
build without HIP's vector types keeps it.
"""

from __future__ import annotations

import re

from tree_sitter import Node, Tree

from xlate.translate.edits import Edits
from xlate.translate.report import Report

GUARD = b"#if !defined(HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H)"
_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong", "float", "double")
_INTEGER = frozenset(b for b in _BASES if b not in ("float", "double"))
_COMPONENTS = "xyzw"
# Members of HIP_vector_type (hip/amd_detail/amd_hip_vector_types.h): arithmetic for every element
# type, the bitwise and shift forms for integer elements only.
_ARITH = frozenset({"+=", "-=", "*=", "/="})
_BITS = frozenset({"%=", "&=", "|=", "^=", "<<=", ">>="})
_OPERATOR = re.compile(rb"\boperator[ \t]*(\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\*(?!=)|/(?![=/*]))")
# Binary operators of two vectors that HIP_vector_type defines as friends (ROCm 6.4).
_FRIENDS = frozenset({"*", "/"})


def _vector(name: str) -> tuple[str, int] | None:
    m = re.fullmatch(r"([a-z]+)([1-4])", name)
    if m and m.group(1) in _BASES:
        return m.group(1), int(m.group(2))
    return None


def _param(p: Node) -> tuple[str, str, bool] | None:
    """(type, name, by reference) of a simple parameter."""
    typ = p.child_by_field_name("type")
    decl = p.child_by_field_name("declarator")
    if typ is None or decl is None:
        return None
    ref = decl.type == "reference_declarator"
    ident = decl.named_children[-1] if ref and decl.named_children else decl
    if ident.type != "identifier":
        return None
    return (typ.text or b"").decode(), (ident.text or b"").decode(), ref


def _elementwise(body: Node, op: str, a: str, b: str, n: int) -> bool:
    seen: list[str] = []
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        expr = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if expr is None or expr.type != "assignment_expression":
            return False
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        operator = expr.child_by_field_name("operator")
        if left is None or right is None or operator is None or (operator.text or b"").decode() != op:
            return False
        parts = []
        for side, owner in ((left, a), (right, b)):
            if side.type != "field_expression":
                return False
            arg, field = side.child_by_field_name("argument"), side.child_by_field_name("field")
            if arg is None or field is None or (arg.text or b"").decode() != owner:
                return False
            parts.append((field.text or b"").decode())
        if parts[0] != parts[1]:
            return False
        seen.append(parts[0])
    return sorted(seen) == sorted(_COMPONENTS[:n])


def rewrite(tree: Tree, source: bytes, edits: Edits, report: Report) -> None:
    if b"operator" not in source:
        return
    at = tree.root_node.descendant_for_byte_range
    for m in _OPERATOR.finditer(source):
        token = at(m.start(), m.start() + len(b"operator"))
        name = token.parent if token is not None else None
        decl = name.parent if name is not None and name.type == "operator_name" else None
        fn = decl.parent if decl is not None and decl.type == "function_declarator" else None
        if fn is None or decl is None or fn.type != "function_definition" or fn.has_error:
            continue  # (fn is set only where decl is)
        op = m.group(1).decode()
        params = decl.child_by_field_name("parameters")
        plist = [p for p in (params.named_children if params is not None else []) if p.type == "parameter_declaration"]
        if len(plist) != 2:
            continue
        first, second = _param(plist[0]), _param(plist[1])
        if first is None or second is None:
            continue
        if op in _FRIENDS:
            _binary(fn, op, first, second, source, edits, report)
            continue
        if not first[2]:
            continue
        vec = _vector(first[0])
        if vec is None or second[0].replace("const ", "") != first[0]:
            continue
        if op not in _ARITH and not (op in _BITS and vec[0] in _INTEGER):
            continue
        body = fn.child_by_field_name("body")
        if body is None or not _elementwise(body, op, first[1], second[1], vec[1]):
            continue
        _guard(fn, source, edits, report, f"{first[0]} {op} {first[0]}")


def _binary(fn: Node, op: str, first: tuple[str, str, bool], second: tuple[str, str, bool], source: bytes,
            edits: Edits, report: Report) -> None:
    """`V operator*(V a, V b) { return make_V(a.x * b.x, ...); }` (by value or const reference)."""
    typ = first[0].replace("const ", "").strip()
    vec = _vector(typ)
    returned = fn.child_by_field_name("type")
    if vec is None or second[0].replace("const ", "").strip() != typ or returned is None or returned.text != typ.encode():
        return
    body = fn.child_by_field_name("body")
    stmts = [c for c in (body.named_children if body is not None else []) if c.type != "comment"]
    if len(stmts) != 1 or stmts[0].type != "return_statement" or not stmts[0].named_children:
        return
    call = stmts[0].named_children[0]
    callee, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if call.type != "call_expression" or callee is None or args is None or callee.text != b"make_" + typ.encode():
        return
    values = [a for a in args.named_children if a.type != "comment"]
    if len(values) != vec[1]:
        return
    for component, value in zip(_COMPONENTS, values):
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        operator = value.child_by_field_name("operator")
        if value.type != "binary_expression" or operator is None or operator.text != op.encode():
            return
        for side, owner in ((left, first[1]), (right, second[1])):
            if side is None or side.type != "field_expression":
                return
            arg, field = side.child_by_field_name("argument"), side.child_by_field_name("field")
            if arg is None or field is None or arg.text != owner.encode() or field.text != component.encode():
                return
    _guard(fn, source, edits, report, f"{typ} {op} {typ}", "vector-binary-operator")


def _guard(fn: Node, source: bytes, edits: Edits, report: Report, what: str, rule: str = "vector-compound-operator") -> None:
    start = source.rfind(b"\n", 0, fn.start_byte) + 1
    if source[start:fn.start_byte].strip():
        return  # something else shares the line: leave it
    prev_end = start - 1
    prev_start = source.rfind(b"\n", 0, max(prev_end, 0)) + 1
    if start > 0 and source[prev_start:prev_end].strip().startswith(GUARD):
        return  # guarded already (a second run)
    nl = source.find(b"\n", fn.end_byte)
    end = len(source) if nl == -1 else nl + 1
    if source[fn.end_byte:end].strip():
        return
    tail = b"#endif\n" if nl != -1 else b"\n#endif\n"
    if edits.add(start, start, GUARD + b"  // HIP's vector types define this operator\n") and edits.add(end, end, tail):
        report.fixed[f"{rule} ({what}: HIP's vector types define it)"] += 1
