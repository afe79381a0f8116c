"""Incremental hazards for an editor: re-explain only the top-level pieces of a file that changed.

A CUDA file is a sequence of top-level pieces: functions, declarations, preprocessor lines. Rules look
inside one function at a time and at the file's declarations (constants, macros, aliases), so the hazards
of an unchanged function do not change while the declarations stay the same. After an edit, each changed
piece is explained alone, in a copy of the file where every other function is blanked out (declarations
kept, line numbers unchanged); the rest comes from a cache. A rule that relates two functions (a launch
site and its kernel's static shared memory) can still differ from a whole-file pass, so the editor runs
a whole-file pass too once typing pauses.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Hazard = dict[str, Any]
ExplainFn = Callable[[bytes], list[Hazard]]
CACHE_LIMIT = 4096


@dataclass(frozen=True)
class Piece:
    start: int  # first line, 0-based
    end: int  # one past the last line
    text: str
    context: bool  # a declaration other pieces may depend on (kept in every piece's view)


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
            pieces.append(Piece(start, i + 1, body, context))
            start, has_brace, brace_after, first_word = i + 1, False, None, ""
    if start < len(lines):
        pieces.append(Piece(start, len(lines), "\n".join(lines[start:]), False))
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


def _view(pieces: list[Piece], keep: Piece) -> tuple[bytes, int]:
    """The declarations and `keep`, in file order, without the other functions.

    Returns the source and the line offset to add to a line of `keep` in it to get its line in the file.
    """
    out, line, offset = [], 0, 0
    for p in pieces:
        if p is keep:
            offset = p.start - line
        if p is keep or p.context:
            out.append(p.text)
            line += p.end - p.start
    return "\n".join(out).encode("utf-8", errors="replace"), offset


class IncrementalHazards:
    """Per-document cache of hazards by piece.

    `absorb` records a whole-file result; `update` answers for new text from the cache, explaining only
    the pieces it has not seen, or returns None when the file's declarations changed and a whole-file
    pass is needed.
    """

    def __init__(self, explain: ExplainFn) -> None:
        self._explain = explain
        self._cache: OrderedDict[tuple[str, str], list[Hazard]] = OrderedDict()
        self._context: str | None = None
        self.pieces_explained = 0  # for tests and benchmarks: how much work the last update did

    def full(self, text: str) -> list[Hazard]:
        """Explain the whole file here and remember each piece's share of the hazards."""
        hazards = self._explain(text.encode("utf-8", errors="replace"))
        self.absorb(text, hazards)
        return hazards

    def absorb(self, text: str, hazards: list[Hazard]) -> None:
        pieces = split(text)
        self._context = _context_digest(pieces)
        self._cache.clear()
        for p in pieces:
            mine = [dict(h, line=h["line"] - p.start) for h in hazards if p.start < h["line"] <= p.end]
            self._remember((p.text, self._context), mine)
        self.pieces_explained = len(pieces)

    def update(self, text: str) -> list[Hazard] | None:
        pieces = split(text)
        context = _context_digest(pieces)
        if context != self._context:
            return None
        out: list[Hazard] = []
        explained = 0
        for p in pieces:
            key = (p.text, context)
            cached = self._cache.get(key)
            if cached is None:
                source, offset = _view(pieces, p)
                found = self._explain(source)
                cached = [dict(h, line=h["line"] + offset - p.start) for h in found if p.start < h["line"] + offset <= p.end]
                self._remember(key, cached)
                explained += 1
            else:
                self._cache.move_to_end(key)
            out.extend(dict(h, line=h["line"] + p.start) for h in cached)
        self.pieces_explained = explained
        out.sort(key=lambda h: (h["line"], h["column"], h["rule"]))
        return out

    def _remember(self, key: tuple[str, str], hazards: list[Hazard]) -> None:
        self._cache[key] = hazards
        while len(self._cache) > CACHE_LIMIT:
            self._cache.popitem(last=False)


_WORKER_STATE: dict[str, Any] = {}


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


def explain_hazards(shown: str, text: str) -> list[Hazard]:
    """A whole-file pass, as a plain function a worker process can run (loads the symbol map once)."""
    from xlate import symbols
    from xlate.explain import explain_source, load_rules

    if "map" not in _WORKER_STATE:
        _WORKER_STATE["map"] = symbols.load()
        _WORKER_STATE["rules"] = load_rules()
    return explain_source(shown, text.encode("utf-8", errors="replace"), _WORKER_STATE["map"], _WORKER_STATE["rules"])["hazards"]
