"""Find the CUDA symbols a file uses, in code only, and resolve them against the SymbolMap.

The file's distinct names are listed once; only those that can start a CUDA symbol (a known name,
the first name of a known `a::b` spelling, a family prefix, a namespace alias) are searched for,
and each hit is confirmed in the syntax tree: the token there must be an identifier, type,
namespace, qualifier keyword, include path or macro body, never a comment or a string, and never
inside a region the parser could not make sense of. Searching for a few names and confirming each
hit keeps the hot path in C: a 5,000-line file has tens of thousands of nodes but only the hits
need a look.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

from tree_sitter import Node, Tree

from xlate.cuda.names import identifiers
from xlate.cuda.source import Occurrence
from xlate.cuda.tree import Locator
from xlate.kb import LAUNCH, Entry, SymbolMap

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.MULTILINE)
_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*;")
_CODE_TOKENS = frozenset({"identifier", "type_identifier", "namespace_identifier", "primitive_type"})
_INCLUDE_TOKENS = frozenset({"system_lib_string", "string_content", "string_literal"})


class ErrorRegion(NamedTuple):
    line: int
    column: int
    end_line: int
    end_column: int
    missing: str | None  # the token the parser inserted, for MISSING nodes


class LineIndex:
    """Byte offset -> 1-based (line, character column). Line starts are found on first use: in an
    ASCII file the scanner reads positions off the syntax nodes instead."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._starts: list[int] | None = None
        self.ascii = source.isascii()

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            find = self.source.find
            pos = find(b"\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find(b"\n", pos + 1)
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        row = bisect_right(self.starts, offset) - 1
        start = self.starts[row]
        if self.ascii:
            return row + 1, offset - start + 1
        return row + 1, len(self.source[start:offset].decode("utf-8", errors="replace")) + 1


def error_regions(tree: Tree, lines: LineIndex) -> list[ErrorRegion]:
    """Where the parser gave up (ERROR) or had to invent a token (MISSING), outermost only."""
    root = tree.root_node
    if not root.has_error:
        return []
    out: list[ErrorRegion] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            line, col = lines.position(node.start_byte)
            end_line, end_col = lines.position(node.end_byte)
            out.append(ErrorRegion(line, col, end_line, end_col, node.type if node.is_missing else None))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    out.sort(key=lambda r: (r.line, r.column))
    return out


def _in_regions(offset: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    i = bisect_right(starts, offset) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def _macro_code(node: Node, rel: int) -> bool:
    """In a macro body (one opaque token to the parser), skip what follows // or sits inside quotes."""
    text = node.text or b""
    head = text[:rel]
    line_head = head[head.rfind(b"\n") + 1 :]
    return b"//" not in line_head and b"/*" not in line_head and head.count(b'"') % 2 == 0


def find(tree: Tree, source: bytes, smap: SymbolMap, lines: LineIndex | None = None,
         locator: Locator | None = None) -> list[Occurrence]:
    """Every resolved CUDA symbol in code, in document order."""
    return [o for o, _ in find_entries(tree, source, smap, lines, locator)]


_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_IDENT_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def find_entries(tree: Tree, source: bytes, smap: SymbolMap, lines: LineIndex | None = None,
                 locator: Locator | None = None) -> list[tuple[Occurrence, Entry]]:
    """Occurrences (symbol as written, e.g. through a namespace alias) with the map entry each resolved to."""
    lines = lines or LineIndex(source)
    locator = locator if locator is not None else Locator(tree)
    at = locator.finder()
    bad = [(n.start_byte, n.end_byte) for n in _error_nodes(tree)]
    bad_starts = [s for s, _ in bad]
    aliases = _aliases(source)
    get = smap.get
    known, prefixes, heads = smap.known_bytes, smap.prefix_bytes, smap.head_bytes
    alias_heads = tuple(a.encode() + b"::" for a in aliases)
    alias_names = {a.encode() for a in aliases}
    position = lines.position
    ascii_text = lines.ascii
    out: list[tuple[Occurrence, Entry]] = []

    if b"include" in source:
        for m in _includes(source):
            start, end = m.span(1)
            if bad and _in_regions(start, bad, bad_starts):
                continue
            node = at(start, end)
            if node is None or node.type not in _INCLUDE_TOKENS or not _under_include(node, locator):
                continue
            header = m.group(1).decode("utf-8", errors="replace").strip()
            entry = get(header) or get(header.rsplit("/", 1)[-1])
            if entry is not None:
                if ascii_text:  # the path node starts at `start` or at the `<` just before it
                    row, col = node.start_point
                    line, col = row + 1, col + start - node.start_byte + 1
                else:
                    line, col = position(start)
                out.append((Occurrence(line, col, header, entry.concept, entry.hip, entry.metal, node,
                                       entry.hip_relation or "unknown", entry.metal_relation or "unknown"), entry))

    pos = source.find(b"<<<")
    launch = get(LAUNCH) if pos != -1 else None
    while pos != -1:
        node = at(pos, pos + 3)
        if launch is not None and node is not None and node.type == "<<<" and not (bad and _in_regions(pos, bad, bad_starts)):
            row, col = node.start_point
            line, col = (row + 1, col + 1) if ascii_text else position(pos)
            out.append((Occurrence(line, col, LAUNCH, launch.concept, launch.hip, launch.metal, locator.parent(node),
                                   launch.hip_relation or "unknown", launch.metal_relation or "unknown"), launch))
        pos = source.find(b"<<<", pos + 3)

    # The distinct names of the file, then only those that can start a CUDA symbol.
    interesting = {w for w in identifiers(source)
                   if w in known or w in heads or w in alias_names or w.startswith(prefixes)}
    resolved: dict[bytes, _Resolved | None] = {}  # files repeat the same few symbols
    extras = len(out)  # includes and launches, merged in by position below
    ident, ident_start = _IDENT_BYTES, _IDENT_START
    n = len(source)
    # Where each interesting name starts a name or an `a::b::c` chain, in document order (a name
    # preceded by `x::` belongs to the chain that starts further left).
    word_at: dict[int, bytes] = {}
    chained = source.startswith
    find = source.find
    for word in interesting:
        size = len(word)
        pos = find(word)
        while pos != -1:
            end = pos + size
            if (pos and source[pos - 1] in ident) or (end < n and source[end] in ident):
                pos = find(word, pos + 1)
                continue
            if not (pos >= 3 and chained(b"::", pos - 2) and source[pos - 3] in ident):
                word_at[pos] = word
            pos = find(word, end)
    keep = out.append
    make = tuple.__new__  # Occurrence fields in order, without the keyword-handling constructor
    for start, word in sorted(word_at.items()):
        end = stop = start + len(word)
        while stop < n and source[stop] == 58 and chained(b"::", stop) and stop + 2 < n and source[stop + 2] in ident_start:
            stop += 2  # 58 is ':'
            while stop < n and source[stop] in ident:
                stop += 1
        raw = word if stop == end else source[start:stop]
        try:
            hit = resolved[raw]
        except KeyError:
            hit = resolved[raw] = _resolve(raw, smap, aliases, alias_heads)
        if hit is None:
            continue
        text, entry, first_len, fields = hit
        if bad and _in_regions(start, bad, bad_starts):
            continue
        node = at(start, start + first_len)
        if node is None:
            continue
        kind = node.type
        if kind in _CODE_TOKENS or (kind == text and not node.is_named):
            if ascii_text:  # the token starts at `start`: its row and byte column are the answer
                row, col = node.start_point
                line, col = row + 1, col + 1
            else:
                line, col = position(start)
        elif kind == "preproc_arg" and _macro_code(node, start - node.start_byte):
            line, col = _inside(node, start, source) if ascii_text else position(start)
        else:
            continue  # comment, string, field name, or a token that only looks like one
        concept, hip, metal, hip_rel, metal_rel, row_kind = fields
        keep((make(Occurrence, (line, col, text, concept, hip, metal, node, hip_rel, metal_rel, row_kind)), entry))
    if extras:  # a few includes and launches, placed among the names (already in order) by position
        names = out[extras:]
        for pair in sorted(out[:extras], key=_position, reverse=True):
            names.insert(bisect_right(names, _position(pair), key=_position), pair)
        out = names
    return out


def _position(pair: tuple[Occurrence, Entry]) -> tuple[int, int]:
    return pair[0][:2]


def _inside(node: Node, offset: int, source: bytes) -> tuple[int, int]:
    """1-based (line, column) of a byte offset inside a node of an ASCII file (a macro body may span
    lines through backslash continuations)."""
    row, col = node.start_point
    newlines = source.count(b"\n", node.start_byte, offset)
    if not newlines:
        return row + 1, col + offset - node.start_byte + 1
    return row + 1 + newlines, offset - source.rfind(b"\n", node.start_byte, offset)


# What a CUDA name implies for its Occurrence: concept, HIP and Metal spellings, their relations, the row's kind.
_Fields = tuple[str | None, str | None, str | None, str, str, str | None]
# A resolved name or chain: (spelling, entry, length of its first name, the Occurrence fields).
_Resolved = tuple[str, Entry, int, _Fields]


def _aliases(source: bytes) -> dict[str, str]:
    """`namespace cg = cooperative_groups;` and the like: alias -> namespace path."""
    found: dict[str, str] = {}
    pos = source.find(b"namespace")
    while pos != -1:
        if not (pos and source[pos - 1] in _IDENT_BYTES):
            m = _ALIAS.match(source, pos)
            if m:
                found[m.group(1).decode()] = m.group(2).decode()
        pos = source.find(b"namespace", pos + 9)
    return found


def _includes(source: bytes) -> list[re.Match[bytes]]:
    """#include lines, matched from each `include` word back to the start of its line."""
    found = []
    pos = source.find(b"include")
    while pos != -1:
        line_start = source.rfind(b"\n", 0, pos) + 1
        m = _INCLUDE.match(source, line_start)
        if m and m.start(1) > pos:
            found.append(m)
        pos = source.find(b"include", pos + 7)
    return found


def _resolve(raw: bytes, smap: SymbolMap, aliases: dict[str, str], alias_heads: tuple[bytes, ...]) -> _Resolved | None:
    """(spelling, entry, length of its first name, the Occurrence fields it implies) for a name or
    chain, or None when it is not CUDA. Relations the map does not record are "unknown"."""
    if raw not in smap.known_bytes and not raw.startswith(smap.prefix_bytes) and not (alias_heads and raw.startswith(alias_heads)):
        return None  # e.g. a chain through a namespace that is not CUDA's
    text = raw.decode("ascii")
    entry = smap.get(text)
    if entry is None and b"::" in raw:
        head, _, rest = text.partition("::")
        if head in aliases:
            entry = smap.get(aliases[head] + "::" + rest)
        elif head not in smap.namespaces:
            return None  # std::min and friends: not CUDA, and never the bare last component
    if entry is None:
        return None
    row = getattr(entry, "row", None)
    kind = row.kind if row is not None else None
    fields: _Fields = (entry.concept, entry.hip, entry.metal, entry.hip_relation or "unknown", entry.metal_relation or "unknown", kind)
    return text, entry, (raw.find(b"::") if b"::" in raw else len(raw)), fields


def _under_include(node: Node, locator: Locator) -> bool:
    current = node
    for _ in range(3):
        parent = locator.parent(current)
        if parent is None:
            return False
        if parent.type == "preproc_include":
            return True
        current = parent
    return False


def _error_nodes(tree: Tree) -> list[Node]:
    root = tree.root_node
    if not root.has_error:
        return []
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            out.append(node)
            continue
        if node.has_error:
            stack.extend(node.children)
    out.sort(key=lambda n: n.start_byte)
    return out
