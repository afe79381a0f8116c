"""Compat helpers: portable C++ written into the translated file for CUDA calls HIP lacks.

glossary/translate/compat.yaml names, per CUDA name, a helper in namespace xlate_compat (mostly a template:
the compiler decides, for the types at each call, what the call does, and a call the helper does not
take does not compile) and the snippets of C++ (glossary/translate/compat/*.h) that define it. Four
kinds of call are replaced:

- cache-hinted loads and stores on a pointer (`__ldcs(p)`, `__stcs(p, v)` ...): where calls.yaml
  (`typed`) proves the row's own spelling for the declared pointee type, or HIP declares the CUDA name
  for it, that is left to calls.py; elsewhere (a type the syntax does not show, or one no spelling is
  proven for) the helper. A pointee the file declares as its own struct, class, union or enum keeps the
  CUDA name with a note (CUDA declares these functions for no such type, so the call reaches a function
  of the project's). Calls that may reach a function the project defines never get here (engine.py
  leaves them out).
- `cooperative_groups::reduce(group, value, op)` (any alias, or unqualified after
  `using namespace cooperative_groups;`), where the syntax shows the group is a thread_block_tile:
  declared with that type or made by `tiled_partition<N>(...)`. Any other group (a coalesced_group, a
  thread_block, one the syntax does not show) keeps the call with a note.
- the cooperative-groups function objects (`cg::plus<float>`, ...), wherever the code names them
  qualified, and unqualified inside a replaced reduce call's operator after a using-directive.
- host functions HIP has no counterpart of whose helper takes the CUDA call's arguments as they are
  (`cublasGetCudartVersion()`), wherever the code names them.

Each replaced call gets a `// xlate:` note saying what was replaced and what is lost. The file gets
the snippets it uses as one block right before its first top-level code that uses them, at the
deepest preprocessor level that holds every use (inside an include guard, outside a namespace), so
the headers the file includes before that point (cooperative groups, fp16) are already there; each
snippet is guarded by `#ifndef XLATE_COMPAT_<NAME>`, so a unit that includes several translated
files defines it once. This works the same whether the output is a tree, stdout or the input file.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tree_sitter import Node, Tree

from xlate import kb
from xlate.translate import calldata, datafile
from xlate.translate.calls import arguments
from xlate.translate.edits import Edits, line_of
from xlate.translate.names import call_of, occurrence_offset
from xlate.translate.notes import Notes
from xlate.translate.options import Options
from xlate.translate.pointee import Pointees
from xlate.translate.report import Report

CG = "cooperative_groups"
FUNCTORS = ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor")
_CONTAINERS = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                         "preproc_elifdef"})
_USING = re.compile(rb"\busing\s+namespace\s+(?:::\s*)?([A-Za-z_]\w*)\s*;")
_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::\s*)?cooperative_groups\s*;")
_OWN_REDUCE = re.compile(rb"\breduce\s*\(")
BLOCK_HEAD = ("// xlate compat helpers: portable C++ written by `xlate translate` for CUDA calls of this file "
              "that HIP lacks (namespace xlate_compat; the `// xlate:` notes at the calls say what each replaces)\n")


@lru_cache(maxsize=1)
def _data() -> dict[str, dict[str, dict[str, Any]]]:
    return kb.load_translate_data(datafile.data_path("compat.yaml"))


def helpers() -> dict[str, dict[str, Any]]:
    """CUDA name -> {spelling, snippet, argument, cuda_types, proven, note, source}."""
    return _data()["helpers"]


def snippets() -> dict[str, dict[str, Any]]:
    """Snippet name -> {needs, source}."""
    return _data()["snippets"]


def replaced_headers() -> dict[str, dict[str, Any]]:
    """CUDA header HIP has none of -> {provides, source}: the helpers that stand in for its API."""
    return _data()["headers"]


def helper_for(symbol: str) -> dict[str, Any] | None:
    """The helper of a row's CUDA name; rows spelled with the customary alias (`cg::reduce`) count as
    cooperative_groups'."""
    if symbol.startswith("cg::"):
        symbol = CG + symbol[2:]
    return helpers().get(symbol)


def cuda_declared(name: str, pointee: str) -> bool:
    """Whether CUDA declares the helper-replaced function `name` for this pointee type."""
    entry = helpers().get(name)
    return entry is not None and entry["argument"] == "pointer" and pointee in entry["cuda_types"]


class Plan:
    """What one file's rewrites need: the snippets, and the nodes of the calls that use them."""

    __slots__ = ("snippets", "uses", "noted_rows", "noted", "removed_headers")

    def __init__(self) -> None:
        self.snippets: set[str] = set()
        self.uses: list[Node] = []
        self.noted_rows: set[int] = set()
        self.noted: set[str] = set()  # helpers whose full note is written (at their first call)
        self.removed_headers: list[str] = []


class _File:
    """One file's state while its compat rewrites are planned (plain classes here: the translator's
    start-up imports no dataclasses)."""

    __slots__ = ("source", "starts", "edits", "report", "claimed", "notes", "options", "plan", "aliases", "using",
                 "types", "own_types")

    def __init__(self, source: bytes, starts: list[int], edits: Edits, report: Report, claimed: set[int], notes: Notes,
                 options: Options, plan: Plan, aliases: set[str], using: bool) -> None:
        self.source = source
        self.starts = starts
        self.edits = edits
        self.report = report
        self.claimed = claimed
        self.notes = notes
        self.options = options
        self.plan = plan
        self.aliases = aliases
        self.using = using  # `using namespace cooperative_groups;` (or an alias of it) somewhere in the file
        self.types = Pointees()
        self.own_types: set[str] | None = None


def rewrite(tree: Tree, found: list[tuple[Any, Any]], source: bytes, starts: list[int], edits: Edits, report: Report,
            options: Options, claimed: set[int], notes: Notes) -> Plan:
    """Replace the calls a helper takes (see the module's docstring); returns what the block needs."""
    plan = Plan()
    if not _mentions_any(source):
        return plan
    aliases = {m.group(1).decode() for m in _ALIAS.finditer(source)}
    using_names = {m.group(1).decode() for m in _USING.finditer(source)}
    f = _File(source, starts, edits, report, claimed, notes, options, plan, aliases | {"cg"},
              bool(using_names & (aliases | {CG})))
    deferred: list[tuple[Any, dict[str, Any], int]] = []
    for o, entry in found:
        helper = helper_for(entry.symbol)
        if helper is None or o[6] is None:
            continue
        start = occurrence_offset(o, source, starts)
        written = o[2]
        if start in claimed or source[start:start + len(written.encode())] != written.encode():
            continue
        kind = helper["argument"]
        if kind == "pointer":
            _pointer_call(f, o[6], written, entry.symbol, helper, start, tree)
        elif kind == "tile":
            _reduce_call(f, o[6], written, helper, start)
        else:  # "name" and "function": the spelling wherever the code names it
            deferred.append((o, helper, start))  # after the reduce calls, whose notes come first
    if f.using:
        _unqualified_reduce_calls(f, tree)
    for o, helper, start in deferred:
        if start not in claimed:
            _replace(f, o[6], start, o[2], helper, note=line_of(starts, start) not in plan.noted_rows)
    _remove_headers(f, tree)
    return plan


_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"][^\n]*", re.MULTILINE)


def _remove_headers(f: _File, tree: Tree) -> None:
    """An `#include` of a CUDA header HIP has none of, whose API the helpers stand in for, becomes a
    `// xlate:` line saying so (kept, it could only fail to compile)."""
    wanted = replaced_headers()
    if not any(h.encode() in f.source for h in wanted):
        return
    root = tree.root_node
    for m in _INCLUDE.finditer(f.source):
        header = m.group(1).decode("utf-8", "replace").strip()
        entry = wanted.get(header)
        if entry is None:
            continue
        node = root.descendant_for_byte_range(m.start(1), m.end(1))
        while node is not None and node.type != "preproc_include":
            node = node.parent
        if node is None:
            continue  # in a comment or a string, not an include
        provided = ", ".join(h.rsplit("::", 1)[-1] for h in entry["provides"])
        text = (f"// xlate: removed #include <{header}>: HIP has no such header; xlate_compat's helpers, written "
                f"into the files that call them, stand in for its {provided}").encode()
        hash_at = f.source.index(b"#", m.start())
        if f.edits.add(hash_at, m.end(), text):
            f.report.rewritten["compat header removed"] += 1
            f.plan.removed_headers.append(header)


def _mentions_any(source: bytes) -> bool:
    return any(name.rsplit("::", 1)[-1].encode() in source for name in helpers())


def _replace(f: _File, node: Node, start: int, written: str, helper: dict[str, Any], note: bool = True) -> bool:
    """Write the helper's spelling over the CUDA name at `start`, with the snippet and a note."""
    spelling = helper["spelling"]
    if not f.edits.add(start, start + len(written.encode()), spelling.encode()):
        return False
    f.claimed.add(start)
    f.plan.snippets.add(helper["snippet"])
    f.plan.uses.append(node)
    f.report.rewritten[f"compat helper {spelling}"] += 1
    if note:
        row = line_of(f.starts, start)
        f.plan.noted_rows.add(row)
        if spelling in f.plan.noted:
            text = f"{written} -> {spelling}, the compat helper written into this file (see the note at its first call)"
        else:
            f.plan.noted.add(spelling)
            text = helper["note"].replace("{written}", written)
        f.notes.add(f.starts, start, text, f.report, "", counted_as=f"compat helper {spelling}")
    return True


def _keep(f: _File, start: int, text: str, kind: str) -> None:
    f.claimed.add(start)
    f.notes.add(f.starts, start, text, f.report, kind)


# --- loads and stores -------------------------------------------------------------------------------

def _pointer_call(f: _File, node: Node, written: str, name: str, helper: dict[str, Any], start: int, tree: Tree) -> None:
    if node.type == "preproc_arg":
        # In a macro body the arguments are not parsed: whatever type the macro is used with, the
        # helper (a template over every type CUDA declares the function for) is a call that compiles
        # where CUDA's did, and a proven spelling of calls.yaml is no better there.
        _replace(f, node, start, written, helper)
        return
    if node.type != "identifier":
        return
    call = call_of(node)
    args = arguments(call) if call is not None else []
    if not args:
        return  # not called here (its address taken ...): calls.py says so
    pointed = f.types.of_argument(args[0])
    spec = calldata.typed().get(name)
    if spec is not None and (pointed in spec["keep"] or pointed in spec["accepts"] or
                             (pointed is None and spec["any_cuda_type"])):
        return  # HIP declares the name for this type, or the row's spelling is proven: calls.py writes it
    if pointed is not None and pointed not in helper["cuda_types"] and pointed in _own_types(f, tree):
        _keep(f, start, f"kept {written}: {pointed} is a type this file defines, and CUDA declares {written} for "
              "no such type, so the call reaches a function of the project's that this file does not show; "
              "port it with that function", "call reaches a project function")
        return
    _replace(f, node, start, written, helper)


_TYPE_DEFINITIONS = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"})


def _own_types(f: _File, tree: Tree) -> set[str]:
    """Names the file defines as a struct, class, union or enum (with a body)."""
    if f.own_types is None:
        out: set[str] = set()
        stack = [tree.root_node]
        while stack:
            n = stack.pop()
            if n.type in _TYPE_DEFINITIONS and n.child_by_field_name("body") is not None:
                name = n.child_by_field_name("name")
                if name is not None and name.text:
                    out.add(name.text.decode("utf-8", "replace"))
            stack.extend(n.children)
        f.own_types = out
    return f.own_types


# --- cooperative_groups::reduce -----------------------------------------------------------------------

def _called_name(node: Node) -> Node | None:
    """The call whose callee is the (possibly qualified) name that starts at `node`."""
    top = node
    while top.parent is not None and top.parent.type == "qualified_identifier" and top.parent.start_byte == node.start_byte:
        top = top.parent
    parent = top.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == top:
        return parent
    return None


def _reduce_call(f: _File, node: Node, written: str, helper: dict[str, Any], start: int) -> None:
    call = _called_name(node)
    if call is None:
        return  # not a call here: names.py keeps it with the row's note
    args = arguments(call)
    if len(args) != 3:
        return
    group = _group_kind(f, args[0], start)
    text = _text(args[0])
    if group != "tile":
        what = f"a {group}" if group else "not shown by the syntax to be a thread_block_tile"
        _keep(f, start, f"kept {written}: the group {text} is {what}; xlate_compat::reduce, the helper xlate writes "
              "for tiles, takes a thread_block_tile<N> only (a butterfly of shfl_xor over a power-of-two size known "
              "when compiling), and HIP has no reduce: port this call by hand", "reduce on a group that is not a tile")
        return
    if _replace(f, node, start, written, helper):
        _functors_in(f, args[2])


def _unqualified_reduce_calls(f: _File, tree: Tree) -> None:
    """`reduce(tile, v, plus<float>())` after `using namespace cooperative_groups;`: cooperative groups'
    reduce, where the file defines no `reduce` of its own and the group is shown to be a tile."""
    source = f.source
    if b"reduce" not in source or _defines_reduce(tree):
        return
    helper = helpers().get(f"{CG}::reduce")
    if helper is None:
        return
    root = tree.root_node
    for m in _OWN_REDUCE.finditer(source):
        start = m.start()
        node = root.descendant_for_byte_range(start, start + len("reduce"))
        if node is None or node.type != "identifier" or start in f.claimed:
            continue
        call = call_of(node)
        if call is None:
            continue
        args = arguments(call)
        if len(args) == 3 and _group_kind(f, args[0], start) == "tile" and _replace(f, node, start, "reduce", helper):
            _functors_in(f, args[2])


def _defines_reduce(tree: Tree) -> bool:
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "function_declarator":
            d = n.child_by_field_name("declarator")
            if d is not None and d.text is not None and d.text.split(b"::")[-1] == b"reduce":
                return True
        stack.extend(n.children)
    return False


def _functors_in(f: _File, op: Node) -> None:
    """The cooperative-groups function objects a replaced reduce call's operator names: qualified by
    cooperative_groups or an alias of it (found here even where the alias is declared in another
    file), or unqualified after a using-directive."""
    stack = [op]
    while stack:
        n = stack.pop()
        if n.type in ("template_type", "template_function"):
            name = n.child_by_field_name("name")
            if name is not None and name.text is not None and name.text.decode() in FUNCTORS:
                written, start = _functor_spelling(f, n, name)
                helper = helpers().get(f"{CG}::{name.text.decode()}")
                if written and helper is not None and start not in f.claimed:
                    _replace(f, n, start, written, helper, note=False)
                continue
        stack.extend(n.children)


def _functor_spelling(f: _File, template: Node, name: Node) -> tuple[str, int]:
    """(the spelling to replace, where it starts) for a function object's template name: `cg::plus`,
    `cooperative_groups::plus`, or `plus` under a using-directive; ("", 0) for anything else."""
    parent = template.parent
    if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == template:
        scope = parent.child_by_field_name("scope")
        head = _text(scope) if scope is not None else ""
        if head == CG or head in f.aliases:
            return f"{head}::{_text(name)}", parent.start_byte
        return "", 0
    return (_text(name), name.start_byte) if f.using else ("", 0)


_GROUP_TYPES = ("coalesced_group", "thread_block", "thread_group", "grid_group", "multi_grid_group", "tiled_group",
                "cluster_group")


def _group_kind(f: _File, arg: Node, before: int) -> str | None:
    """"tile" where the syntax shows the group argument is a thread_block_tile; the name of another
    cooperative-groups type where it shows that; None where it shows nothing (unknown beats wrong)."""
    scope = _scope_pattern(f)
    made = _made_by(arg.text or b"", scope)
    if made is not None or arg.type != "identifier":
        return made
    body = arg.parent
    while body is not None and body.type != "function_definition":
        body = body.parent
    if body is None:
        return None
    # The declarations of the name in its function before the call. The grammar reads
    # `cg::thread_block_tile<32> warp = ...` as an expression, so the code's text is searched.
    name = re.escape(arg.text or b"")
    groups = "|".join(_GROUP_TYPES).encode()
    declared = re.compile(
        rb"(?:^|[^\w:])" + scope + rb"(?:(thread_block_tile)\s*<\s*\d+\s*(?:,[^;<>]*(?:<[^;<>]*>)?[^;<>]*)?>|(" + groups
        + rb"))\s*(?:const\s*)?&?\s*" + name + rb"\s*(?=[=;,)({])|\bauto\s*(?:const\s*)?&?\s*" + name
        + rb"\s*=\s*([^;]*)")
    kinds: set[str | None] = set()
    for m in declared.finditer(f.source, body.start_byte, before):
        if _in_comment(f.source, m.start()):
            continue
        if m.group(1):
            kinds.add("tile")
        elif m.group(2):
            kinds.add(m.group(2).decode())
        else:
            kinds.add(_made_by(m.group(3).strip(), scope))
    return kinds.pop() if len(kinds) == 1 else None


def _made_by(text: bytes, scope: bytes) -> str | None:
    """The group an expression makes: `tiled_partition<N>(...)` a tile, `coalesced_threads()` a
    coalesced_group, `this_thread_block()` a thread_block, `tiled_partition(g, n)` a thread_group."""
    m = re.match(scope + rb"(tiled_partition\s*<\s*\d+\s*>|tiled_partition|coalesced_threads|this_thread_block|"
                 rb"this_grid)\s*\(", text)
    if m is None:
        return None
    made = m.group(1).decode()
    if made.startswith("tiled_partition") and "<" in made:
        return "tile"
    return {"tiled_partition": "thread_group", "coalesced_threads": "coalesced_group",
            "this_thread_block": "thread_block", "this_grid": "grid_group"}[made]


def _scope_pattern(f: _File) -> bytes:
    """What may qualify a cooperative-groups name in this file (nothing only after a using-directive)."""
    heads = b"|".join(re.escape(h.encode()) for h in sorted({CG, *f.aliases}))
    qualified = rb"(?:::\s*)?(?:" + heads + rb")\s*::\s*"
    return rb"(?:" + qualified + rb")?" if f.using else qualified


def _in_comment(source: bytes, offset: int) -> bool:
    """A cheap test for the text search above: the offset sits after `//` on its line, or inside an
    unclosed `/*`."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    if b"//" in source[line_start:offset]:
        return True
    opened = source.rfind(b"/*", 0, offset)
    return opened != -1 and source.rfind(b"*/", opened, offset) == -1


def _text(n: Node) -> str:
    return n.text.decode("utf-8", "replace") if n.text is not None else ""


# --- the block ---------------------------------------------------------------------------------------

def ordered(names: set[str]) -> list[str]:
    """The snippets `names` need, each after the snippets it needs, in a stable order."""
    data = snippets()
    out: list[str] = []

    def visit(name: str) -> None:
        if name in out:
            return
        for need in data[name]["needs"]:
            visit(need)
        out.append(name)

    for name in sorted(names):
        visit(name)
    return out


def block(names: set[str]) -> bytes:
    """The guarded C++ of the snippets `names` need."""
    parts = [BLOCK_HEAD]
    for name in ordered(names):
        guard = f"XLATE_COMPAT_{name.upper()}"
        code = kb.translate_snippet(name).rstrip("\n")
        parts.append(f"#ifndef {guard}\n#define {guard}\n{code}\n#endif  // {guard}\n")
    return "".join(parts).encode("utf-8")


def add_block(tree: Tree, source: bytes, edits: Edits, report: Report, plan: Plan) -> None:
    """Write the snippets the file's helper calls need, once, before the first code that uses them.
    (Called after the includes are rewritten: a header removed here is no longer an unknown one.)"""
    for header in plan.removed_headers:
        key = f"{header} (header)"
        if report.unknown.get(key):
            report.unknown[key] -= 1
            if not report.unknown[key]:
                del report.unknown[key]
    if not plan.snippets or not plan.uses:
        return
    pos, newline = _block_position(tree, source, plan.uses)
    text = block(plan.snippets) + b"\n"  # a blank line before the code that follows
    if edits.add(pos, pos, (b"\n" if newline else b"") + text):
        report.rewritten["compat helper block"] += 1


def _block_position(tree: Tree, source: bytes, uses: list[Node]) -> tuple[int, bool]:
    """(offset, whether a line break must come first): the start of the line of the top-level item
    (at the deepest preprocessor level holding every use) that holds the first use."""
    chains = [_containers(u) for u in uses]
    common = chains[0]
    for chain in chains[1:]:
        n = 0
        while n < len(common) and n < len(chain) and common[n].id == chain[n].id:
            n += 1
        common = common[:n]
    container = common[-1] if common else tree.root_node
    first = min(uses, key=lambda u: u.start_byte)
    item = first
    while item.parent is not None and item.parent.id != container.id:
        item = item.parent
    # Comments right above the item (no blank line between) belong to it: the block goes above them.
    while (prev := item.prev_sibling) is not None and prev.type == "comment" and \
            source[prev.end_byte:item.start_byte].count(b"\n") <= 1:
        item = prev
    start = item.start_byte
    line_start = source.rfind(b"\n", 0, start) + 1
    if source[line_start:start].strip() == b"":
        return line_start, False
    return start, True


def _containers(node: Node) -> list[Node]:
    """The preprocessor levels (and the file) around a node, outermost first; nothing inside a
    function, a namespace or an `extern "C"` block counts (helpers are templates at namespace scope)."""
    chain: list[Node] = []
    child, n = node, node.parent
    while n is not None:
        if n.type in _CONTAINERS:
            # An #else or #elif branch hangs under its #if as the `alternative`: code there is not
            # inside the #if's own branch, so that #if is no level of it.
            alternative = n.child_by_field_name("alternative")
            if alternative is None or alternative.id != child.id:
                chain.append(n)
        else:
            if n.type in ("function_definition", "namespace_definition", "linkage_specification", "class_specifier",
                          "struct_specifier", "template_declaration", "declaration_list", "field_declaration_list"):
                chain.clear()  # the levels found so far are inside it: only those above it count
        child, n = n, n.parent
    chain.reverse()
    return chain
