"""One parsed file as rules see it: the source, its tree, the CUDA symbols found in it, and fast
answers to the questions rules ask (nodes of a type, names spelled a certain way, calls, qualified
declarations, integer literals of given values, the function around a node, a node's parent).

Each question is answered by searching the bytes for the spellings involved and confirming every
hit against the syntax tree through one `Locator` (see `tree.py`), so comments, strings and macro
bodies never match, the cost follows the number of hits rather than the size of the tree, and no
answer costs the depth of the tree per hit.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from tree_sitter import Node, Tree

from xlate.cuda.names import identifiers
from xlate.cuda.tree import NAME_TYPES, Locator, function_qualifiers

__all__ = ["NAME_TYPES", "FileContext", "Occurrence", "SourceView", "parse_int", "word_spans"]


class FileContext(NamedTuple):
    """What a file's rules know from the rest of its project (see xlate.project): the integer
    constants of the headers it includes (and of the `-D` flags that compile it), and the names of
    the project's functions that use warp primitives (a call of one makes the caller warp code)."""

    macros: dict[str, int] = {}
    warp_functions: frozenset[str] = frozenset()
    # Names the project defines itself (macros, guards, declarations): never a library's API.
    user_names: frozenset[str] = frozenset()


class Occurrence(NamedTuple):  # a tuple: thousands are built per large file, and tuples build fast
    """A CUDA symbol found in code (never in comments or strings) and what it maps to."""

    line: int
    column: int
    symbol: str
    concept: str | None
    hip: str | None
    metal: str | None
    node: Node | None = None
    # How sure the map is (same, renamed, approximate, none, unknown); None when not supplied.
    # Lets the equivalents rules tell "no equivalent" from "not yet mapped".
    hip_relation: str | None = None
    metal_relation: str | None = None
    # What the symbol's row says it is (qualifier, function, type, ...), when the map records it.
    kind: str | None = None



def parse_int(raw: str) -> int | None:
    """Value of an integer literal's spelling (decimal, hex, octal, binary; suffixes and ' separators
    allowed), or None when it is not one."""
    body = raw.replace("'", "").strip().rstrip("uUlL")  # the suffix: any trailing run of u, U, l, L
    try:
        if body.lower().startswith("0x"):
            return int(body[2:], 16)
        if body.lower().startswith("0b"):
            return int(body[2:], 2)
        if len(body) > 1 and body.startswith("0") and body.isdigit():
            return int(body, 8)
        if body.isdigit():
            return int(body)
    except ValueError:
        return None
    return None


# Node types whose first (or, for `::new`, second) token is a fixed word: a search of the bytes
# proposes that token and the tree confirms it, so finding them costs in proportion to the matches,
# not to the size of the tree.
_ANCHOR_WORDS: dict[str, tuple[bytes, ...]] = {
    "for_statement": (b"for",),
    "gnu_asm_expression": (b"asm", b"__asm__", b"__asm"),
    "new_expression": (b"new",),
    "delete_expression": (b"delete",),
    "launch_bounds": (b"__launch_bounds__",),
    "kernel_call_syntax": (b"<<<",),
}
# Preprocessor lines: the directive may have blanks after '#'. A regex that starts with a literal is
# searched for in C as fast as bytes.find.
_ANCHOR_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "preproc_def": re.compile(rb"#[ \t]*define\b"),
    "preproc_include": re.compile(rb"#[ \t]*include\b"),
}
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = frozenset(b"0123456789")
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# Tokens that may be integer literals (digits, hex/binary prefixes, suffixes, digit separators).
_NUMBER_TOKEN = re.compile(rb"\b[0-9][A-Za-z0-9_']*")


def word_spans(source: bytes, words: Iterable[bytes]) -> list[tuple[int, int]]:
    """(start, end) of each whole-word occurrence of any of `words`, in document order.

    Names the file never spells are skipped without a search (one pass over the file lists them).
    """
    present = identifiers(source)
    ident = _IDENT_BYTES
    n = len(source)
    find = source.find
    spans = []
    for word in words:
        size = len(word)
        edged = word[:1] == b"_" or word[:1].isalnum()
        if edged and word not in present and _IDENT.fullmatch(word):
            continue
        pos = find(word)
        while pos != -1:
            end = pos + size
            if not edged or not ((pos and source[pos - 1] in ident) or (end < n and source[end] in ident)):
                spans.append((pos, end))
            pos = find(word, pos + 1)
    spans.sort()
    return spans


_ENCODED: dict[frozenset[str], tuple[frozenset[bytes], tuple[bytes, ...]]] = {}


def _encoded(words: frozenset[str]) -> tuple[frozenset[bytes], tuple[bytes, ...]]:
    """The words as bytes, split into names (a whole identifier-like word each: a file that never
    spells one cannot contain it) and the rest. Remembered: rules ask with the same few dozen word
    sets for every file."""
    hit = _ENCODED.get(words)
    if hit is None:
        encoded = [w.encode() for w in words]
        names = frozenset(w for w in encoded if _IDENT.fullmatch(w))
        hit = (names, tuple(w for w in encoded if w not in names))
        if len(_ENCODED) > 10_000:  # word sets built on the fly (a long editor session)
            _ENCODED.clear()
        _ENCODED[words] = hit
    return hit


_INT_VALUES: dict[bytes, int | None] = {}
_LAST_NUMBERS: tuple[bytes, frozenset[bytes]] | None = None


def _number_tokens(source: bytes) -> frozenset[bytes]:
    """The distinct integer-looking tokens of a file (remembered for the last file): the file's
    words that start with a digit, unless digit separators (1'000) split literals into several words."""
    global _LAST_NUMBERS
    if _LAST_NUMBERS is None or _LAST_NUMBERS[0] is not source:
        if _has_digit_separator(source):
            tokens = frozenset(_NUMBER_TOKEN.findall(source))
        else:
            tokens = frozenset(w for w in identifiers(source) if 48 <= w[0] <= 57)
        _LAST_NUMBERS = (source, tokens)
    return _LAST_NUMBERS[1]


def _has_digit_separator(source: bytes) -> bool:
    pos = source.find(b"'")
    while pos != -1:
        if 0 < pos < len(source) - 1 and source[pos - 1] in _DIGITS and source[pos + 1] in _DIGITS:
            return True
        pos = source.find(b"'", pos + 1)
    return False


def _int_value(token: bytes) -> int | None:
    """Value of an integer literal's spelling (memoised: files repeat the same few literals)."""
    try:
        return _INT_VALUES[token]
    except KeyError:
        if len(_INT_VALUES) > 100_000:  # a long-running editor session sees many files
            _INT_VALUES.clear()
        value = _INT_VALUES[token] = parse_int(token.decode("ascii", errors="replace"))
        return value


class SourceView:
    """One parsed file as rules see it.

    Rules ask for the few nodes they inspect (nodes of a type, names spelled a certain way, calls of
    a function, declarations with a qualifier, integer literals of given values). Each question is
    answered by searching the bytes for the spellings involved and confirming every hit against the
    syntax tree, so comments, strings and macro bodies never match and the cost follows the number
    of hits rather than the tens of thousands of nodes of a large file.
    """

    __slots__ = ("path", "source", "tree", "occurrences", "locator", "_memo", "_functions", "_nested", "_xl_consts",
                 "_xl_thread_vars", "_scratch", "_ascii", "_function_starts", "_enclosing", "_device_within", "context")

    def __init__(self, path: str, source: bytes, tree: Tree, occurrences: list[Occurrence] | None = None,
                 locator: Locator | None = None, context: FileContext | None = None) -> None:
        self.path = path
        # Constants and warp functions known from the other files of the project; empty for a file
        # explained alone, whose rules then see only what it defines itself.
        self.context = context if context is not None else FileContext()
        self.source = source
        self.tree = tree
        self.locator = locator if locator is not None else Locator(tree)
        self.occurrences: list[Occurrence] = occurrences if occurrences is not None else []
        # Answers shared by all rules (each question is asked by several rules), the function table,
        # the file's constants (syntax.file_constants) and thread-index locals (threadctx).
        self._memo: dict[object, list[Node]] = {}
        self._functions: list[tuple[int, int, Node, bool, int]] | None = None
        self._function_starts: list[int] = []
        self._enclosing: list[int] = []
        self._device_within: list[bool] = []
        self._nested = False
        self._xl_consts: dict[str, int] | None = None
        self._xl_thread_vars: dict[tuple[int, int], frozenset[str]] | None = None
        self._scratch: dict[object, dict[Any, Any]] = {}  # memo tables of rule helpers (see scratch)
        self._ascii = source.isascii()  # byte columns are character columns

    def parent(self, node: Node) -> Node | None:
        """A node's parent, without tree-sitter's walk down from the root (see tree.Locator)."""
        return self.locator.parent(node)

    def ancestors(self, node: Node) -> Iterator[Node]:
        """Parents of a node, nearest first."""
        return self.locator.ancestors(node)

    def enclosing(self, node: Node, types: frozenset[str]) -> Node | None:
        """The nearest proper ancestor of a node whose type is one of `types`, or None.

        Every node passed on the way up is remembered with the answer, so the uses of a name all
        over one deep construct cost one walk up together, not one walk each."""
        memo = self.scratch(("enclosing", types))
        passed: list[int] = []
        cur = self.locator.parent(node)
        found: Node | None = None
        while cur is not None:
            key = cur.id
            if key in memo:
                found = memo[key]
                break
            if cur.type in types:
                found = cur
                break
            passed.append(key)
            cur = self.locator.parent(cur)
        if found is not None:
            memo[found.id] = found
        for key in passed:
            memo[key] = found
        return found

    def scratch(self, key: object) -> dict[Any, Any]:
        """A dictionary kept with this file for one rule helper's memo (the key names the helper)."""
        table = self._scratch.get(key)
        if table is None:
            table = self._scratch[key] = {}
        return table

    def at(self, start: int, end: int) -> Node | None:
        """The smallest node spanning bytes [start, end)."""
        return self.locator.at(start, end)

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def position(self, node: Node) -> tuple[int, int]:
        """1-based (line, column in characters) of a node's start."""
        return self._line_column(node.start_point, node.start_byte)

    def end_position(self, node: Node) -> tuple[int, int]:
        """1-based (line, column in characters) just past a node's last character."""
        return self._line_column(node.end_point, node.end_byte)

    def _line_column(self, point: tuple[int, int], byte: int) -> tuple[int, int]:
        """1-based (line, column in characters) of a tree-sitter point (row, column in bytes) at `byte`."""
        row, col_bytes = point
        if self._ascii:
            return row + 1, col_bytes + 1
        line_start = byte - col_bytes
        col = len(self.source[line_start:byte].decode("utf-8", errors="replace"))
        return row + 1, col + 1

    def walk(self, types: set[str] | None = None) -> Iterator[Node]:
        """Every node in document order (optionally only some types), without recursion limits."""
        cursor = self.tree.walk()
        visited_children = False
        while True:
            if not visited_children:
                node = cursor.node
                if node is not None and (types is None or node.type in types):
                    yield node
                if cursor.goto_first_child():
                    continue
            if cursor.goto_next_sibling():
                visited_children = False
            elif cursor.goto_parent():
                visited_children = True
            else:
                return

    def nodes(self, *types: str) -> list[Node]:
        """Named nodes of the given types in document order.

        Types that start with a fixed token (loops, asm, launches, #define, ...) and function
        definitions are found from their text; any other type through one tree-sitter query.
        """
        found: list[Node] = []
        for t in types:
            found += self._nodes_of(t)
        if len(types) > 1:
            found.sort(key=_document_order)
        return found

    def _nodes_of(self, node_type: str) -> list[Node]:
        key = ("type", node_type)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if node_type == "function_definition":
            found = self._function_definitions()
        elif node_type in _ANCHOR_WORDS or node_type in _ANCHOR_PATTERNS:
            found = self._anchored(node_type)
        else:
            found = self._queried(node_type)
        self._memo[key] = found
        return found

    def _anchored(self, node_type: str) -> list[Node]:
        at = self.locator.finder()
        parent_of = self.locator.parent
        found: dict[int, Node] = {}
        pattern = _ANCHOR_PATTERNS.get(node_type)
        spans = [m.span() for m in pattern.finditer(self.source)] if pattern else word_spans(self.source, _ANCHOR_WORDS[node_type])
        for start, end in spans:
            node: Node | None = at(start, end)
            for _ in range(3):  # the token, then at most two enclosing nodes (`::new` has a scope first)
                if node is None:
                    break
                if node.type == node_type:
                    found[node.start_byte] = node
                    break
                node = parent_of(node)
        return [found[k] for k in sorted(found)]

    def _queried(self, node_type: str) -> list[Node]:
        from tree_sitter import QueryCursor

        query = _type_query(node_type)
        if query is None:
            return []
        found = QueryCursor(query).captures(self.tree.root_node).get("n", [])
        return sorted((n for n in found if n.is_named), key=_document_order)

    def _function_definitions(self) -> list[Node]:
        """Every function_definition, found from the `{` of its body (or its `= default`/`= delete`).

        A definition the parser had to repair may lack that token (its body can open with a `{` the
        text does not have); such a definition contains the repair, so it lies on a path of nodes
        marked has_error from the root, and those paths are walked too (they are short unless the
        whole file is broken)."""
        at = self.locator.finder()
        parent_of = self.locator.parent
        found: dict[int, Node] = {}
        for start, end in word_spans(self.source, (b"{", b"default", b"delete")):
            token = at(start, end)
            if token is None or token.end_byte != end:
                continue
            parent = parent_of(token)
            if parent is None:
                continue
            owner = parent_of(parent)
            if owner is not None and owner.type == "try_statement":
                owner = parent_of(owner)  # int f() try { ... } catch (...) { ... }
            if owner is None or owner.type != "function_definition":
                continue
            if parent.type in ("compound_statement", "default_method_clause", "delete_method_clause", "try_statement"):
                found[owner.start_byte] = owner
        root = self.tree.root_node
        if root.has_error:
            stack = [root]
            while stack:
                node = stack.pop()
                if node.type == "function_definition":
                    found[node.start_byte] = node
                stack.extend(c for c in node.children if c.has_error)
        return [found[k] for k in sorted(found)]

    def spelled(self, words: Iterable[str], types: frozenset[str] | set[str] = NAME_TYPES) -> list[Node]:
        """Nodes of the given types whose whole text is one of `words`, in document order."""
        wanted = frozenset(words)
        if not wanted:
            return []
        key = ("spelled", wanted, frozenset(types))
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        names, others = _encoded(wanted)
        hits = names & identifiers(self.source)  # the wanted names this file spells (a set operation in C)
        if not hits and not others:
            self._memo[key] = []
            return []
        at = self.locator.finder()
        found = []
        for start, end in word_spans(self.source, [*hits, *others]):
            node = at(start, end)
            if node is not None and node.type in types and node.start_byte == start and node.end_byte == end:
                found.append(node)
        self._memo[key] = found
        return found

    def spells(self, words: Iterable[str]) -> bool:
        """Whether the file contains any of these words anywhere (code, comments or strings): a cheap
        test that lets a rule skip a file that cannot contain what it looks for."""
        present = identifiers(self.source)
        names, others = _encoded(frozenset(words))
        return not names.isdisjoint(present) or any(w in present for w in others)

    def named(self, names: Iterable[str]) -> list[Node]:
        """Identifier-like nodes (identifier, type, field and namespace names) spelling one of `names`."""
        return self.spelled(names, NAME_TYPES)

    def calls(self, names: Iterable[str]) -> list[Node]:
        """call_expression nodes whose called name (see call_name) is one of `names`, in document order."""
        wanted = frozenset(names)
        key = ("calls", wanted)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        found = []
        for name in self.spelled(wanted, NAME_TYPES):
            call = _call_named_by(name, self.locator.parent)
            if call is not None:
                found.append(call)
        found.sort(key=_document_order)
        self._memo[key] = found
        return found

    def device_calls(self, names: Iterable[str]) -> Iterator[Node]:
        """The calls of `names` (see calls) made from device code, in document order."""
        return (call for call in self.calls(names) if self.in_device_code(call))

    def qualified(self, qualifier: str, types: tuple[str, ...] = ("declaration",)) -> list[Node]:
        """Declarations (of the given node types) carrying a qualifier, as has_qualifier would say."""
        key = ("qualified", qualifier, types)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        found = []
        for token in self.spelled((qualifier,), frozenset((qualifier,))):
            spec = self.parent(token)
            if spec is None or spec.type not in ("type_qualifier", "storage_class_specifier"):
                continue
            decl = self.parent(spec)
            if decl is not None and decl.type in types:
                found.append(decl)
        self._memo[key] = found
        return found

    def int_literals(self, values: Iterable[int], max_length: int = 24) -> list[Node]:
        """number_literal nodes whose integer value (see syntax.int_literal) is one of `values`."""
        wanted = frozenset(values)
        key = ("ints", wanted, max_length)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        at = self.locator.finder()
        found = []
        source = self.source
        n = len(source)
        before, after = _IDENT_BYTES | frozenset(b".'"), _IDENT_BYTES | frozenset(b"'")  # a whole token, not a fraction
        spans = []
        for token in _number_tokens(source):
            if len(token) > max_length or _int_value(token) not in wanted:
                continue
            size = len(token)
            pos = source.find(token)
            while pos != -1:
                end = pos + size
                if not ((pos and source[pos - 1] in before) or (end < n and source[end] in after)):
                    spans.append((pos, end))
                pos = source.find(token, pos + 1)
        spans.sort()
        for start, end in spans:
            node = at(start, end)
            if node is not None and node.type == "number_literal" and node.start_byte == start and node.end_byte == end:
                found.append(node)
        self._memo[key] = found
        return found

    def function_of(self, node: Node) -> Node | None:
        """The innermost function_definition containing a node (by byte range; no parent walks)."""
        hit = self._function_entry(node.start_byte, node.end_byte)
        return hit[2] if hit else None

    def in_device_code(self, node: Node) -> bool:
        """True inside the body or signature of a __global__ or __device__ function, or inside a
        local class or nested definition within one, unless a preprocessor test keeps the code to the
        host pass (`#ifndef __CUDA_ARCH__`, the `#else` of `#ifdef __CUDA_ARCH__`; see host_pass_only)."""
        entry = self._function_entry(node.start_byte, node.end_byte)
        return entry is not None and self._device_within[entry[4]] and not self.host_pass_only(node)

    def host_pass_only(self, node: Node) -> bool:
        """Whether a preprocessor test around the node compiles it in the host pass only: the body of
        `#ifndef __CUDA_ARCH__` or `#if !defined(__CUDA_ARCH__)`, or a branch after a test that
        `__CUDA_ARCH__` is defined (`#ifdef`, `#if defined(...)`, `#if __CUDA_ARCH__`); the same for
        HIP's `__HIP_DEVICE_COMPILE__`. Any other condition says nothing."""
        if not any(m in self.source for m in _PASS_MACROS):
            return False
        child, up = node, self.parent(node)
        while up is not None:
            if up.type in _CONDITIONALS:
                device = _tests_device_pass(up)
                in_branch_after = child == up.child_by_field_name("alternative")
                if (device is False and not in_branch_after) or (device is True and in_branch_after):
                    return True
            child, up = up, self.parent(up)
        return False

    def _function_table(self) -> list[tuple[int, int, Node, bool, int]]:
        """(start, end, node, device, index) of every function definition by start; each one's
        enclosing definition (`_enclosing`) and whether it lies in device code (`_device_within`)
        come from one sweep with a stack of the definitions still open, so that questions about
        nested definitions cost their nesting depth, not the number of functions."""
        if self._functions is None:
            found = sorted(((fn.start_byte, fn.end_byte, fn) for fn in self.nodes("function_definition")),
                           key=lambda f: (f[0], -f[1]))
            table: list[tuple[int, int, Node, bool, int]] = []
            enclosing: list[int] = []
            device_within: list[bool] = []
            open_: list[int] = []
            for k, (start, end, fn) in enumerate(found):
                while open_ and table[open_[-1]][1] < end:
                    open_.pop()
                outer = open_[-1] if open_ and table[open_[-1]][0] <= start else -1
                device = bool(function_qualifiers(fn) & {"__global__", "__device__"})
                table.append((start, end, fn, device, k))
                enclosing.append(outer)
                device_within.append(device or (outer >= 0 and device_within[outer]))
                open_.append(k)
            self._nested = any(e >= 0 for e in enclosing)
            self._function_starts = [f[0] for f in table]
            self._enclosing = enclosing
            self._device_within = device_within
            self._functions = table
        return self._functions

    def _function_entry(self, start: int, end: int) -> tuple[int, int, Node, bool, int] | None:
        """The innermost function definition containing [start, end): the last one starting at or
        before `start`, or, when that one has ended, the nearest definition around it."""
        functions = self._function_table()
        i = bisect_right(self._function_starts, start) - 1
        while i >= 0:
            entry = functions[i]
            if entry[0] <= start and end <= entry[1]:
                return entry
            i = self._enclosing[i]
        return None


_PASS_MACROS = (b"__CUDA_ARCH__", b"__HIP_DEVICE_COMPILE__")
_CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})
_DEVICE_TEST = re.compile(r"^\s*(!?)\s*(?:defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)|(\w+))\s*$")


def _tests_device_pass(directive: Node) -> bool | None:
    """True where the directive's condition is exactly "the device pass" (`#ifdef __CUDA_ARCH__`,
    `#if defined(__CUDA_ARCH__)`, `#if __CUDA_ARCH__`), False where it is exactly "the host pass"
    (`#ifndef`, `#if !defined(...)`), None for any other condition."""
    if directive.type in ("preproc_ifdef", "preproc_elifdef"):
        name = directive.child_by_field_name("name")
        head = directive.children[0].type if directive.children else ""
        if name is None or (name.text or b"") not in _PASS_MACROS:
            return None
        return head in ("#ifdef", "#elifdef")
    condition = directive.child_by_field_name("condition")
    m = _DEVICE_TEST.match((condition.text or b"").decode("utf-8", "replace")) if condition is not None else None
    if m is None:
        return None
    macro = m.group(2) or m.group(3) or m.group(4)
    if macro.encode() not in _PASS_MACROS or (m.group(4) and m.group(1)):
        return None  # `#if !__CUDA_ARCH__` reads a value, not whether the macro is defined: left alone
    return not m.group(1)


@cache
def _type_query(node_type: str) -> Any:
    """The query for every node of one type, compiled once per process (compiling one against this
    grammar takes milliseconds; running it, a fraction of that). None for a type the grammar lacks."""
    from tree_sitter import Query

    from xlate.cuda.parser import language

    try:
        return Query(language(), f"({node_type}) @n")
    except Exception:  # not a node type of this grammar: nothing to find
        return None


def _document_order(node: Node) -> tuple[int, int]:
    """Sort key of document (pre-)order: by start, and of two nodes starting together the outer
    first (`a->f(1)` inside `g(a->f(1))(2)`)."""
    return node.start_byte, -node.end_byte


def _call_named_by(name: Node, parent_of: Callable[[Node], Node | None]) -> Node | None:
    """The call_expression whose call_name is this name node, if any (call_name read backwards)."""
    cur = name
    while True:
        parent = parent_of(cur)
        if parent is None:
            return None
        t = parent.type
        if t == "call_expression":
            return parent if parent.child_by_field_name("function") == cur else None
        if t in ("qualified_identifier", "template_function", "template_method"):
            link = parent.child_by_field_name("name")
        elif t == "field_expression":
            link = parent.child_by_field_name("field")
        elif t == "parenthesized_expression":
            kids = parent.named_children
            link = kids[0] if kids else None
        else:
            return None
        if link is None or link != cur:
            return None
        cur = parent


