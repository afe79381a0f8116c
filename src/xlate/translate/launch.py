"""`kernel<<<grid, block, shmem, stream>>>(args)` as hipLaunchKernelGGL(kernel, dim3(grid),
dim3(block), shmem, stream, args) for `--launch-syntax ggl` (HIP-Clang also accepts <<<>>>, the
default keeps it). A template kernel is wrapped in HIP_KERNEL_NAME(), HIP's macro that keeps the
commas of its template arguments out of the macro's argument list: written with its template
arguments, launched by a name the file declares as a function template (arguments deduced from the
call), or by a macro whose replacement is a template-id. HIP_KERNEL_NAME(...) expands to its
arguments, so wrapping a name that was not a template after all changes nothing.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from xlate.translate.edits import Edits
from xlate.translate.report import Report


def _launches(tree: Tree, source: bytes) -> list[Node]:
    at = tree.root_node.descendant_for_byte_range
    out = []
    pos = source.find(b"<<<")
    while pos != -1:
        node = at(pos, pos + 3)
        if node is not None and node.type == "<<<" and node.parent is not None and node.parent.type == "kernel_call_syntax":
            call = node.parent.parent
            if call is not None and call.type == "call_expression":
                out.append(call)
        pos = source.find(b"<<<", pos + 3)
    return out


# Nodes whose children are declarations at file scope; function bodies are never entered, so the
# walk stays linear in the file's top-level structure.
_SCOPES = frozenset({"translation_unit", "namespace_definition", "declaration_list", "linkage_specification",
                     "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})


def _template_names(tree: Tree, source: bytes) -> set[bytes]:
    """Names of the function templates the file declares, and of its object-like macros whose
    replacement is a template-id (`#define KERNEL axpy<float>`)."""
    names: set[bytes] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _SCOPES:
                stack.append(child)
            elif child.type == "template_declaration":
                for part in child.named_children:
                    declarator = part.child_by_field_name("declarator") if part.type in ("function_definition", "declaration") else None
                    while declarator is not None and declarator.type != "function_declarator":
                        declarator = declarator.child_by_field_name("declarator")
                    target = declarator.child_by_field_name("declarator") if declarator is not None else None
                    if target is not None and target.type == "identifier":
                        names.add(source[target.start_byte:target.end_byte])
            elif child.type == "preproc_def":
                name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
                if name is not None and value is not None and b"<" in source[value.start_byte:value.end_byte]:
                    names.add(source[name.start_byte:name.end_byte])
    return names


def _is_dim3(node: Node, source: bytes) -> bool:
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        return fn is not None and source[fn.start_byte:fn.end_byte] == b"dim3"
    return False


def _pieces(parent: Node, open_type: str, close_type: str) -> list[tuple[int, int]]:
    """Byte spans of the comma-separated pieces between the opening and closing tokens."""
    spans, start = [], None
    for child in parent.children:
        if child.type == open_type and start is None:
            start = child.end_byte
        elif child.type == "," or child.type == close_type:
            if start is not None:
                spans.append((start, child.start_byte))
            start = child.end_byte
    return spans


def rewrite(tree: Tree, source: bytes, edits: Edits, report: Report) -> None:
    # Innermost first: a launch inside a lambda that is itself an argument of a launch is rendered
    # before the outer one takes its text.
    launches = _launches(tree, source)
    templates = _template_names(tree, source) if launches else set()
    for call in sorted(launches, key=lambda n: -n.start_byte):
        fn = call.child_by_field_name("function")
        config = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
        args = call.child_by_field_name("arguments")
        if fn is None or config is None or args is None or call.has_error:
            continue
        conf = [(s, e) for s, e in _pieces(config, "<<<", ">>>")]
        if not 2 <= len(conf) <= 4:
            continue
        parts = []
        name = edits.render(fn.start_byte, fn.end_byte).strip()
        if fn.type == "template_function" or b"<" in name or (fn.type in ("identifier", "qualified_identifier")
                                                                 and name.rpartition(b"::")[2] in templates):
            name = b"HIP_KERNEL_NAME(" + name + b")"
        parts.append(name)
        config_nodes = [c for c in config.named_children if c.type != "comment"]
        for i, (s, e) in enumerate(conf):
            text = edits.render(s, e).strip()
            if i < 2 and not (i < len(config_nodes) and _is_dim3(config_nodes[i], source)):
                text = b"dim3(" + text + b")"
            parts.append(text)
        while len(parts) < 5:
            parts.append(b"0")
        inner = edits.render(args.start_byte + 1, args.end_byte - 1).strip()
        if inner:
            parts.append(inner)
        text = b"hipLaunchKernelGGL(" + b", ".join(parts) + b")"
        if edits.replace_enclosing(call.start_byte, call.end_byte, text):
            report.rewritten["launch-ggl"] += 1
