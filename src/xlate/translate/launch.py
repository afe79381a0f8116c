"""`kernel<<<grid, block, shmem, stream>>>(args)` as hipLaunchKernelGGL(kernel, dim3(grid),
dim3(block), shmem, stream, args) for `--launch-syntax ggl` (HIP-Clang also accepts <<<>>>, the
default keeps it). A template kernel is wrapped in HIP_KERNEL_NAME(), HIP's macro that keeps the
commas of its template arguments out of the macro's argument list.
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
    for call in sorted(_launches(tree, source), key=lambda n: -n.start_byte):
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
        if fn.type == "template_function" or b"<" in name:
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
