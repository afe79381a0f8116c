"""The type a pointer argument points to, where the file itself declares it.

Only what the syntax shows: `p`, `p + i`, `&a[i]`, `&x`, `(const T*)e` and the named casts
(`reinterpret_cast<const T*>(e)`, static_cast, const_cast), with `p`, `a` and `x`
declared as a parameter or a variable of the enclosing function, or at file scope. Anything else
(a member, a call, a template parameter, two declarations of one name that disagree) is None:
unknown, never guessed. Declarations are indexed once per function, so a file with many such
calls stays linear.
"""

from __future__ import annotations

from tree_sitter import Node

_TYPE_NODES = frozenset({"primitive_type", "type_identifier", "sized_type_specifier", "qualified_identifier"})
_DECLS = frozenset({"parameter_declaration", "declaration", "optional_parameter_declaration"})
_SCOPES = frozenset({"function_definition", "translation_unit"})
# Declarator wrappers that say how the declared name relates to the type: pointer depth, array.
_WRAPPERS = {"pointer_declarator": "*", "array_declarator": "[]", "reference_declarator": "&",
             "init_declarator": "", "parenthesized_declarator": ""}


class Pointees:
    """Declared types by name per scope, built when first asked for."""

    def __init__(self) -> None:
        self._scopes: dict[tuple[int, int], dict[str, set[tuple[str, str]]]] = {}

    def of_argument(self, arg: Node) -> str | None:
        """The pointee type of a pointer-valued argument, as spelled (`__half`, `unsigned int`), or None."""
        arg = _strip(arg)
        if arg.type == "cast_expression":
            t = arg.child_by_field_name("type")
            return _pointer_type(t) if t is not None else None
        cast = _named_cast(arg)
        if cast is not None:
            return _pointer_type(cast)
        if arg.type == "pointer_expression" and arg.child(0) is not None and arg.child(0).type == "&":
            inner = _strip(arg.child_by_field_name("argument") or arg.child(1))
            if inner.type == "subscript_expression":
                base = _strip(inner.child_by_field_name("argument") or inner.child(0))
                return self._declared(base, ("*", "[]")) if base.type == "identifier" else None
            if inner.type == "identifier":
                return self._declared(inner, ("",))
            return None
        if arg.type == "binary_expression" and (op := arg.child_by_field_name("operator")) is not None \
                and op.type in ("+", "-"):
            # `p + i`, `p + i * n + j`, `p - 1`: the pointer is the leftmost operand, and no other
            # operand of the chain is a declared pointer or array (`(p - q) + r` is r's type).
            left: Node | None = arg
            while left is not None and left.type == "binary_expression":
                op = left.child_by_field_name("operator")
                right = left.child_by_field_name("right")
                if op is None or op.type not in ("+", "-") or right is None or self._pointer_like(_strip(right)):
                    return None
                left = left.child_by_field_name("left")
                left = _strip(left) if left is not None else None
            return self._declared(left, ("*", "[]")) if left is not None and left.type == "identifier" else None
        if arg.type == "identifier":
            return self._declared(arg, ("*", "[]"))
        return None

    def _pointer_like(self, n: Node) -> bool:
        """An operand that is, or may be, a pointer: one declared so (or as an array), an address, a cast."""
        if n.type == "identifier":
            return self._declared(n, ("",)) is None
        return n.type not in ("number_literal", "binary_expression", "subscript_expression", "call_expression",
                              "field_expression", "char_literal", "sizeof_expression")

    def of_argument_plain(self, name: Node) -> str | None:
        """The declared type of a variable passed by value (`loc`), or None."""
        return self._declared(_strip(name), ("",)) if _strip(name).type == "identifier" else None

    def declared_as(self, name: Node, shapes: tuple[str, ...]) -> str | None:
        """The declared base type of a name whose declarations agree and each have one of `shapes`
        ("": a plain variable, "&": a reference, "*": one pointer level, "[]": an array), or None."""
        return self._declared(_strip(name), shapes) if _strip(name).type == "identifier" else None

    def _declared(self, name: Node, shapes: tuple[str, ...]) -> str | None:
        """The base type of the name's declarations in its function and at file scope, when they agree
        and each has one of `shapes` ("*": one pointer level, "[]": an array, "": a plain variable)."""
        word = _text(name)
        found: set[tuple[str, str]] = set()
        for scope in _scopes_of(name):
            found |= self._index(scope).get(word, set())
        if len({t for t, _ in found}) != 1 or not all(shape in shapes for _, shape in found):
            return None
        return next(iter(found))[0]

    def _index(self, scope: Node) -> dict[str, set[tuple[str, str]]]:
        key = (scope.start_byte, scope.end_byte)
        table = self._scopes.get(key)
        if table is None:
            table = {}
            for decl in _declarations(scope):
                t = next((c for c in decl.children if c.type in _TYPE_NODES), None)
                if t is None:
                    continue
                base = " ".join(_text(t).split())
                for d in decl.children_by_field_name("declarator"):
                    named = _name_and_shape(d)
                    if named is not None:
                        table.setdefault(named[0], set()).add((base, named[1]))
            self._scopes[key] = table
        return table


_NAMED_CASTS = frozenset({b"reinterpret_cast", b"static_cast", b"const_cast"})


def _named_cast(arg: Node) -> Node | None:
    """The type of `reinterpret_cast<T>(e)` (static_cast, const_cast), or None for anything else."""
    if arg.type != "call_expression":
        return None
    fn = arg.child_by_field_name("function")
    if fn is None or fn.type != "template_function":
        return None
    name, targs = fn.child_by_field_name("name"), fn.child_by_field_name("arguments")
    if name is None or name.text not in _NAMED_CASTS or targs is None or targs.named_child_count != 1:
        return None
    return targs.named_children[0]


def _pointer_type(t: Node) -> str | None:
    """`T` for a type spelled `const T*` (one pointer level, qualifiers dropped), else None."""
    text = _text(t).replace("const", " ").replace("volatile", " ").strip()
    if text.endswith("*") and not text[:-1].rstrip().endswith("*"):
        return " ".join(text[:-1].split())
    return None


def _declarations(scope: Node) -> list[Node]:
    """Declarations of a scope. A function: its parameters and everything in its body, lambdas
    included (a shadowing declaration there makes the answer disagree, hence unknown). The file: its
    top-level declarations, through namespaces and preprocessor blocks but not into functions."""
    out: list[Node] = []
    stack = list(reversed(scope.children))
    top = scope.type == "translation_unit"
    while stack:
        n = stack.pop()
        if n.type in _DECLS:
            out.append(n)
            if top:
                continue
        if top and n.type in ("function_definition", "class_specifier", "struct_specifier", "union_specifier"):
            continue
        stack.extend(reversed(n.children))
    return out


def _name_and_shape(d: Node | None) -> tuple[str, str] | None:
    shape = ""
    while d is not None and d.type in _WRAPPERS:
        mark = _WRAPPERS[d.type]
        if mark:
            if shape:
                return None  # a pointer to pointer, an array of pointers ...: not one simple level
            shape = mark
        # tree-sitter-cpp gives a reference declarator's name no field: its last named child
        d = d.child_by_field_name("declarator") if d.type != "reference_declarator" else \
            (d.named_children[-1] if d.named_children else None)
    if d is None or d.type != "identifier":
        return None
    return _text(d), shape


def _scopes_of(node: Node) -> list[Node]:
    out = []
    n = node.parent
    while n is not None:
        if n.type in _SCOPES:
            out.append(n)
        n = n.parent
    return out


def _strip(n: Node) -> Node:
    while n is not None and n.type == "parenthesized_expression" and n.named_child_count == 1:
        n = n.named_children[0]
    return n


def _text(n: Node) -> str:
    return n.text.decode("utf-8", "replace") if n.text is not None else ""
