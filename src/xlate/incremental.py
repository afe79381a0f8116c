"""Incremental findings for an editor: re-explain only the top-level pieces of a file that changed.

A CUDA file is a sequence of top-level pieces: functions, declarations, preprocessor lines. Rules look
inside one function at a time and at the file's declarations (constants, macros, aliases), so the
findings of an unchanged function do not change while the declarations stay the same. After an edit,
each changed piece is explained in a copy of the file that keeps the declarations and the functions
the piece names, directly or through other functions (a launch needs its kernel's shared memory, and
whether a function is warp code depends on what its callees call), without the other functions; a
piece is explained again when one of those functions changes. The rest comes from a cache.

Where this would disagree with a whole-file pass, the quick pass declines (returns None) instead:
- the declarations changed (their digest differs);
- a changed function's parentheses or brackets do not pair up (a call half typed), or its view has a
  syntax error: how tree-sitter recovers from an error depends on the code that follows it (an
  unclosed parenthesis makes it read on into the next function), and a view holds other code than
  the file does;
- a finding on a declaration (a mask macro flagged because a shuffle uses it) may have come from a
  function that changed, or a changed function adds one;
- a whole-file pass with a syntax error adds nothing to the cache, for the same reason (the cache
  keeps what it knew from the last state without one, which stays right for pieces that come back
  unchanged). So while a line is half typed the editor gets whole-file passes, and a file that
  tree-sitter-cuda cannot parse whole gets one after every edit.
Replaying edit sequences over real files (tests/test_incremental.py) keeps the two passes equal.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Hazard = dict[str, Any]
# explain's result for one source, by kind: "hazards", "annotations" (symbol occurrences) and "errors";
# every record has a 1-based "line" (and errors may have an "end_line").
Findings = dict[str, list[Hazard]]
ExplainFn = Callable[[bytes], Findings]
KINDS = ("hazards", "annotations")
CACHE_LIMIT = 4096


@dataclass(frozen=True)
class Piece:
    start: int  # first line, 0-based
    end: int  # one past the last line
    text: str
    context: bool  # a declaration other pieces may depend on (kept in every piece's view)
    # Parentheses and brackets pair up (outside comments and literals). One left open while typing
    # lets the parser's recovery run on into the next function in a whole-file parse.
    balanced: bool = True


# Comments and string/char literals, so that braces and semicolons inside them are not counted.
_NOISE = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?""", re.S)


def _blank(match: re.Match[str]) -> str:
    """Replace a comment or literal by spaces, keeping its newlines (and so every line number)."""
    text = match.group(0)
    if text.startswith(("'", '"')):
        return text[0] + " " * (len(text) - 2) + text[-1] if len(text) > 1 else text
    return "".join("\n" if ch == "\n" else " " for ch in text)


def split(text: str) -> list[Piece]:
    """Top-level pieces of C/C++/CUDA source, by a light lexer (no parse): cheap enough for every keystroke."""
    lines = text.split("\n")
    code_lines = _NOISE.sub(_blank, text).split("\n")
    pieces: list[Piece] = []
    start, depth, pp_depth, continued = 0, 0, 0, False
    has_brace, brace_after, first_word = False, None, ""
    for i, code in enumerate(code_lines):
        stripped = code.strip()
        directive = depth == 0 and (stripped.startswith("#") or continued)
        if directive:
            word = stripped[1:].strip().split(" ", 1)[0] if stripped.startswith("#") else ""
            if word in ("if", "ifdef", "ifndef"):
                pp_depth += 1
            elif word == "endif":
                pp_depth = max(0, pp_depth - 1)
            continued = stripped.endswith("\\")
        else:
            opens = code.find("{")
            if opens >= 0 and depth == 0 and not has_brace:
                before = (" ".join(code_lines[start:i]) + " " + code[:opens]).rstrip()
                brace_after = before[-1:] if before else ""
                has_brace = True
            depth = max(0, depth + code.count("{") - code.count("}"))
        if not first_word and stripped:
            first_word = stripped.split(maxsplit=1)[0].split("(", 1)[0]
        last = stripped[-1:]
        complete = depth == 0 and pp_depth == 0 and not continued and (directive or last in (";", "}"))
        if complete:
            body = "\n".join(lines[start : i + 1])
            is_type = first_word in ("struct", "class", "enum", "union", "typedef", "using", "template") and not _looks_like_function(body)
            context = directive or not has_brace or is_type or brace_after == "="
            code = "\n".join(code_lines[start : i + 1])
            balanced = code.count("(") == code.count(")") and code.count("[") == code.count("]")
            pieces.append(Piece(start, i + 1, body, context, balanced))
            start, has_brace, brace_after, first_word = i + 1, False, None, ""
    if start < len(lines):
        pieces.append(Piece(start, len(lines), "\n".join(lines[start:]), False, False))
    return pieces


def _looks_like_function(body: str) -> bool:
    head = body.split("{", 1)[0]
    return head.rstrip().endswith(")") or ")" in head.rsplit("\n", 1)[-1]


def _context_digest(pieces: list[Piece]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in pieces:
        if p.context:
            h.update(p.text.encode())
            h.update(b"\0")
    return h.hexdigest()


def _view(pieces: list[Piece], keep: Piece, extra: frozenset[int] = frozenset()) -> tuple[bytes, int, list[tuple[int, Piece]]]:
    """The declarations, `keep` and the functions it names (`extra`: their ids), in file order.

    Returns the source, the line offset to add to a line of `keep` in it to get its line in the
    file, and where each piece starts in the view (0-based view line, piece).
    """
    out, line, offset, segments = [], 0, 0, []
    for p in pieces:
        if p is keep:
            offset = p.start - line
        if p is keep or p.context or id(p) in extra:
            segments.append((line, p))
            out.append(p.text)
            line += p.end - p.start
    return "\n".join(out).encode("utf-8", errors="replace"), offset, segments


_HEAD_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^<>{};()]*>\s*)?\(")
_NOT_NAMES = frozenset({"__launch_bounds__", "__attribute__", "__declspec", "alignas", "decltype", "sizeof",
                        "if", "for", "while", "switch", "return", "defined", "__align__"})


def _defined_name(p: Piece) -> str | None:
    """The name a function piece defines: the first identifier before a '(' in its head."""
    if p.context:
        return None
    head = _NOISE.sub(_blank, p.text.split("{", 1)[0])
    for m in _HEAD_NAME.finditer(head):
        if m.group(1) not in _NOT_NAMES:
            return m.group(1)
    return None


class _Calls:
    """Which function pieces each piece names, so that a piece is explained with the functions it
    calls or launches (a launch's shared-memory total needs the kernel's own declarations), and is
    explained again when one of them changes (the cache key carries their text)."""

    def __init__(self, pieces: list[Piece], words: dict[str, frozenset[str]]) -> None:
        self.by_name: dict[str, list[Piece]] = {}
        for p in pieces:
            name = _defined_name(p)
            if name:
                self.by_name.setdefault(name, []).append(p)
        self.words = words

    def _words(self, p: Piece) -> frozenset[str]:
        found = self.words.get(p.text)
        if found is None:
            found = self.words[p.text] = frozenset(_WORD.findall(_NOISE.sub(_blank, p.text)))
        return found

    def of(self, p: Piece) -> list[Piece]:
        """The functions `p` names, and those they name in turn: whether a function is warp code
        depends on what its callees call (rules.warp.warp_functions), however deep."""
        if p.context:
            return []
        found: list[Piece] = []
        seen = {id(p)}
        todo = [p]
        while todo:
            cur = todo.pop()
            names = self._words(cur) & self.by_name.keys()
            for q in (q for n in sorted(names) for q in self.by_name[n]):
                if id(q) not in seen:
                    seen.add(id(q))
                    found.append(q)
                    todo.append(q)
        return sorted(found, key=lambda q: q.start)

    def key(self, p: Piece) -> str:
        callees = self.of(p)
        if not callees:
            return ""
        h = hashlib.blake2b(digest_size=16)
        for q in callees:
            h.update(q.text.encode())
            h.update(b"\0")
        return h.hexdigest()


def _syntax_errors(findings: Findings) -> list[Hazard]:
    return [e for e in findings.get("errors", ()) if e.get("kind") == "syntax"]


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _word_at(text: str, line: int, column: int) -> str | None:
    """The identifier at a 1-based line and column of a piece's text."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    for m in _WORD.finditer(lines[line - 1]):
        if m.start() <= column - 1 < m.end():
            return m.group(0)
    return None


def _names(name: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _shift(findings: Findings, delta: int, first: int | None = None, last: int | None = None) -> Findings:
    """The records of each kind with `delta` added to their line, keeping those on lines first..last (after the shift)."""
    out: Findings = {}
    for kind in KINDS:
        records = []
        for h in findings.get(kind, ()):
            line = h["line"] + delta
            if first is not None and last is not None and not first <= line <= last:
                continue
            moved = dict(h, line=line)
            if h.get("end_line"):
                moved["end_line"] = h["end_line"] + delta
            records.append(moved)
        out[kind] = records
    return out


class IncrementalHazards:
    """Per-document cache of findings by piece.

    `absorb` records a whole-file result; `update` answers for new text from the cache, explaining only
    the pieces it has not seen, or returns None (and says why in `declined`) when only a whole-file
    pass can give the same answer.
    """

    def __init__(self, explain: ExplainFn) -> None:
        self._explain = explain
        self._cache: OrderedDict[tuple[str, str, str], Findings] = OrderedDict()
        self._context: str | None = None
        self._texts: set[str] = set()  # the function pieces of the last state answered for
        self._words: OrderedDict[str, frozenset[str]] = OrderedDict()  # identifiers by piece text
        self.pieces_explained = 0  # for tests and benchmarks: how much work the last update did
        self.declined: str | None = None

    def full(self, text: str) -> Findings:
        """Explain the whole file here and remember each piece's share of the findings."""
        findings = self._explain(text.encode("utf-8", errors="replace"))
        self.absorb(text, findings)
        return findings

    def absorb(self, text: str, findings: Findings) -> None:
        pieces = split(text)
        self.pieces_explained = len(pieces)
        if _syntax_errors(findings):
            # Nothing here is known piece by piece (see the module's docstring); what the cache holds
            # from the last state without errors stays right for pieces that come back unchanged.
            return
        self._cache.clear()
        self._texts = {p.text for p in pieces if not p.context}
        self._context = _context_digest(pieces)
        # Each record to the piece holding its line, in one walk (a large file has thousands of both).
        starts = [p.start for p in pieces]
        shares: list[Findings] = [{kind: [] for kind in KINDS} for _ in pieces]
        for kind in KINDS:
            for h in findings.get(kind, ()):
                at = bisect_right(starts, h["line"] - 1) - 1
                if at >= 0:
                    shares[at][kind].append(h)
        calls = self._calls(pieces)
        for p, share in zip(pieces, shares):
            self._remember((p.text, self._context, calls.key(p)), _shift(share, -p.start))

    def update(self, text: str) -> Findings | None:
        pieces = split(text)
        context = _context_digest(pieces)
        self.declined = None
        if self._context is None:
            self.declined = "no whole-file pass without a syntax error yet"
            return None
        if context != self._context:
            self.declined = "the file's declarations changed"
            return None
        texts = {p.text for p in pieces if not p.context}
        removed = self._texts - texts
        # Findings on declarations, with the name each is about: checked against the changed code below.
        context_findings: dict[tuple[str, str], str | None] = {}
        for p in pieces:
            if p.context:
                for h in self._cache.get((p.text, context, ""), {}).get("hazards", ()):
                    context_findings[(h["rule"], h["message"])] = _word_at(p.text, h["line"], h.get("column", 1))
        reproduced: set[tuple[str, str]] = set()
        out: Findings = {kind: [] for kind in KINDS}
        explained = 0
        calls = self._calls(pieces)
        for p in pieces:
            key = (p.text, context, calls.key(p))
            cached = self._cache.get(key)
            if cached is None:
                explained += 1
                self.pieces_explained = explained
                if not p.balanced:
                    self.declined = f"parentheses or brackets do not pair up in lines {p.start + 1}-{p.end}"
                    return None
                source, offset, segments = _view(pieces, p, frozenset(id(q) for q in calls.of(p)))
                found = self._explain(source)
                errors = _syntax_errors(found)
                if errors:
                    self.declined = f"a syntax error at line {errors[0]['line'] + offset}"
                    return None
                starts = [start for start, _ in segments]
                outside = set()
                for h in found.get("hazards", ()):
                    if not p.start < h["line"] + offset <= p.end:
                        at = bisect_right(starts, h["line"] - 1) - 1
                        if at >= 0 and segments[at][1].context:  # (findings in the callees are theirs)
                            outside.add((h["rule"], h["message"]))
                if outside - context_findings.keys():
                    self.declined = "a changed function adds a finding on a declaration"
                    return None
                reproduced |= outside
                cached = _shift(found, offset - p.start, 1, p.end - p.start)
                self._remember(key, cached)
            else:
                self._cache.move_to_end(key)
            for kind, records in _shift(cached, p.start).items():
                out[kind].extend(records)
        self.pieces_explained = explained
        for finding, name in context_findings.items():
            # A declaration's finding that the new code does not reproduce stays right only if no
            # function that named the declaration went away (it may have been the one causing it).
            if finding not in reproduced and name and any(_names(name, t) for t in removed):
                self.declined = f"a finding on the declaration of {name} may come from code that changed"
                return None
        self._texts = texts
        for kind in KINDS:
            out[kind].sort(key=lambda h: (h["line"], h.get("column", 0), h.get("rule", "")))
        return out

    def _calls(self, pieces: list[Piece]) -> _Calls:
        while len(self._words) > CACHE_LIMIT:
            self._words.popitem(last=False)
        return _Calls(pieces, self._words)

    def _remember(self, key: tuple[str, str, str], findings: Findings) -> None:
        self._cache[key] = findings
        while len(self._cache) > CACHE_LIMIT:
            self._cache.popitem(last=False)



def exit_with_parent(interval_s: float = 1.0) -> None:
    """Worker initializer: end this process when the editor's server is gone, however it ended.

    A server killed outright cannot shut its worker down, and an orphaned worker would idle forever.
    """
    import os
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def findings_of(result: dict[str, Any]) -> Findings:
    """The parts of explain's result that the editor shows, by kind."""
    return {"hazards": result["hazards"], "annotations": result["annotations"], "errors": result["errors"]}
