"""Small syntax-tree queries shared by the rule modules (literals, names, constants, declared types)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from tree_sitter import Node, Tree

from xlate.cuda.source import SourceView, parse_int
from xlate.cuda.tree import NAME_TYPES

_INT_SUFFIX = re.compile(r"[uUlL]+$")


def text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def int_literal(node: Node) -> int | None:
    """Value of an integer number_literal (decimal, hex, octal, binary; suffixes and ' separators allowed)."""
    if node.type != "number_literal":
        return None
    return parse_int(text(node))


def literal_suffix(node: Node) -> str:
    """The integer suffix of a number literal, lower-cased ("", "u", "ull", ...)."""
    match = _INT_SUFFIX.search(text(node).replace("'", ""))
    return match.group(0).lower() if match else ""


def names_in(node: Node) -> Iterator[Node]:
    """Every identifier-like node under (and including) a node."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in NAME_TYPES:
            yield cur
        stack.extend(reversed(cur.children))


def subscripts(scope: Node, array: str) -> Iterator[Node]:
    """The index expression of every `array[...]` under a node (depth-first, last child first)."""
    stack = [scope]
    while stack:
        cur = stack.pop()
        if cur.type == "subscript_expression":
            arg = cur.child_by_field_name("argument")
            idx = cur.child_by_field_name("indices")
            if arg is not None and idx is not None and text(arg) == array:
                yield idx
        stack.extend(cur.named_children)


def strip_parens(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def operator(node: Node) -> str:
    op = node.child_by_field_name("operator")
    return text(op) if op is not None else ""


def declarator_name(decl: Node) -> Node | None:
    """The identifier a declarator declares (through pointers, arrays, references, initialisers)."""
    cur: Node | None = decl
    while cur is not None:
        if cur.type in ("identifier", "field_identifier"):
            return cur
        cur = cur.child_by_field_name("declarator")
    return None


# ---------------------------------------------------------------- constant evaluation

_BINARY: dict[str, Callable[[int, int], int | None]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a // b if b else None,
    "%": lambda a, b: a % b if b else None,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "|": lambda a, b: a | b,
    "&": lambda a, b: a & b,
}

SCALAR_BYTES: dict[str, int] = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1, "char1": 1, "uchar1": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2,
    "nv_bfloat16": 2, "char2": 2, "uchar2": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4, "__half2": 4, "half2": 4,
    "__nv_bfloat162": 4, "char4": 4, "uchar4": 4, "short2": 4,
    "long long": 8, "unsigned long long": 8, "long long int": 8, "unsigned long long int": 8, "double": 8,
    "int64_t": 8, "uint64_t": 8, "size_t": 8, "float2": 8, "int2": 8, "uint2": 8, "short4": 8,
    "float4": 16, "int4": 16, "uint4": 16, "double2": 16, "longlong2": 16, "ulonglong2": 16,
    "float3": 12, "int3": 12, "uint3": 12, "double4": 32,
}


def type_bytes(type_text: str) -> int | None:
    """Size in bytes of a scalar or CUDA vector type named in a declaration, when known."""
    key = " ".join(type_text.replace("const", " ").replace("volatile", " ").split())
    return SCALAR_BYTES.get(key)


def evaluate(node: Node, consts: dict[str, int]) -> int | None:
    """Value of an integer constant expression made of literals, known constants and arithmetic."""
    node = strip_parens(node)
    if node.type == "number_literal":
        return int_literal(node)
    if node.type in ("identifier", "type_identifier"):
        return consts.get(text(node))
    if node.type == "binary_expression":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        fn = _BINARY.get(operator(node))
        if left is None or right is None or fn is None:
            return None
        a, b = evaluate(left, consts), evaluate(right, consts)
        return None if a is None or b is None else fn(a, b)
    if node.type == "sizeof_expression":
        tdesc = node.child_by_field_name("type")
        return type_bytes(text(tdesc)) if tdesc is not None else None
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return evaluate(value, consts) if value is not None else None
    return None


def file_constants(src: SourceView) -> dict[str, int]:
    """Integer constants a file defines: `#define N 64`, `constexpr int N = 64;`, `const int N = 64;`.

    Cached on the source view; later definitions of a name win, as a preprocessor would have it.
    """
    cached: dict[str, int] | None = getattr(src, "_xl_consts", None)
    if cached is not None:
        return cached
    # What the headers it includes define comes first; the file's own definitions override it.
    context = getattr(src, "context", None)
    consts: dict[str, int] = dict(context.macros) if context is not None else {}
    found = {n.start_byte: n for n in src.nodes("preproc_def")}
    for qualifier in ("const", "constexpr"):
        found.update((n.start_byte, n) for n in src.qualified(qualifier))
    for node in (found[k] for k in sorted(found)):
        if node.type == "preproc_def":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is not None and value is not None:
                parsed = _eval_macro_text(text(value).strip(), consts)  # read only: no copy per #define
                if parsed is not None:
                    consts[text(name)] = parsed
            continue
        quals = {text(c) for c in node.children if c.type in ("type_qualifier", "storage_class_specifier")}
        if not quals & {"const", "constexpr"}:
            continue
        for child in node.children_by_field_name("declarator"):
            if child.type != "init_declarator":
                continue
            name = child.child_by_field_name("declarator")
            value = child.child_by_field_name("value")
            if name is None or value is None or name.type != "identifier":
                continue
            result = evaluate(value, consts)
            if result is not None:
                consts[text(name)] = result
    object.__setattr__(src, "_xl_consts", consts)
    return consts


def _eval_macro_text(body: str, consts: dict[str, int]) -> int | None:
    """Evaluate a macro body by parsing it as a C expression (no text matching of the code itself)."""
    if not body or len(body) > 200 or "\n" in body:
        return None
    tree = _parse_expression(body)
    if tree is None:
        return None
    return evaluate(tree, consts)


@lru_cache(maxsize=4096)
def _parse_expression_cached(body: str) -> tuple[bytes, Tree] | None:
    from xlate.cuda.parser import parse

    wrapped = f"int __xl_value = {body}\n;".encode()  # newline: a trailing // comment must not eat the ';' 
    tree = parse(wrapped)
    if tree.root_node.has_error:
        return None
    return wrapped, tree


def macro_expression(body: str) -> Node | None:
    """A macro body parsed as a C expression (comments dropped), or None when it is not one."""
    if not body or len(body) > 200 or "\n" in body:
        return None
    return _parse_expression(body)


def _parse_expression(body: str) -> Node | None:
    cached = _parse_expression_cached(body)
    if cached is None:
        return None
    _, tree = cached
    root = tree.root_node
    decl = root.named_children[0] if root.named_children else None
    if decl is None:
        return None
    for child in decl.children_by_field_name("declarator"):
        value = child.child_by_field_name("value")
        if value is not None:
            return value
    return None


# ---------------------------------------------------------------- declared types


def declared_type(src: SourceView, name: str, at: Node) -> str | None:
    """Type text of the nearest declaration of `name` visible from `at` (parameters, locals, file scope).

    Pointer and array declarators add "*" so callers can tell `double* p` from `double d`. Each
    scope (the function around `at`, then the file) is read once per file into a table of its
    declarations, so many questions cost one walk of each scope, not one walk per question.
    """
    fn = src.function_of(at)
    for scope, file_scope in ((fn, False), (src.tree.root_node, True)):
        if scope is None:
            continue
        table = src.scratch("declarations").get(scope.id)
        if table is None:
            table = src.scratch("declarations")[scope.id] = _declarations(scope, file_scope)
        found = table.get(name)
        if found is not None:
            return found
    return None


def _declarations(scope: Node, file_scope: bool) -> dict[str, str]:
    """Name -> type text of the declarations under a node (the first in document order wins);
    at file scope, not those inside function bodies."""
    table: dict[str, str] = {}
    stack = [scope]
    while stack:
        cur = stack.pop()
        if cur.type in ("parameter_declaration", "declaration", "field_declaration"):
            type_node = cur.child_by_field_name("type")
            if type_node is not None:
                for decl in cur.children_by_field_name("declarator"):
                    ident = declarator_name(decl)
                    if ident is not None:
                        table.setdefault(text(ident), text(type_node) + ("*" if _is_pointer_or_array(decl) else ""))
        if file_scope and cur.type == "function_definition":
            continue  # locals of other functions are not visible
        stack.extend(reversed(cur.named_children))
    return table


def _is_pointer_or_array(decl: Node) -> bool:
    cur: Node | None = decl
    while cur is not None:
        if cur.type in ("pointer_declarator", "array_declarator", "abstract_pointer_declarator"):
            return True
        cur = cur.child_by_field_name("declarator")
    return False


def has_qualifier(decl: Node, qualifier: str) -> bool:
    """Whether a declaration carries a type qualifier or CUDA memory-space qualifier (e.g. __shared__)."""
    for child in decl.children:
        if child.type in ("type_qualifier", "storage_class_specifier") and any(
            c.type == qualifier for c in child.children
        ):
            return True
    return False


def name_nodes(src: SourceView, names: frozenset[str] | set[str]) -> Iterator[Node]:
    """Identifier-like nodes spelling one of `names`, at most one per source line, in document order."""
    lines: set[int] = set()
    for node in src.named(names):
        row = node.start_point[0]
        if row not in lines:
            lines.add(row)
            yield node


_CONDITION_LINES = frozenset({"preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"})


def guarded_by_hip(src: SourceView, node: Node) -> bool:
    """Whether the nearest preprocessor condition around a node tests a HIP macro: the author has
    already split this code by platform (`#if defined(__HIP_PLATFORM_AMD__) ... #else ... #endif`),
    so a rule about what HIP does with it has nothing to add. Read from the condition's text: any
    macro with HIP in its name counts."""
    line = src.enclosing(node, _CONDITION_LINES)
    if line is None:
        return False
    cond = line.child_by_field_name("condition") or line.child_by_field_name("name")
    return cond is not None and "HIP" in text(cond)
