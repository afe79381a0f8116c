"""JSON output: {"files": [{"path", "annotations", "hazards", "errors", ...}]}, lines and columns 1-based."""

from __future__ import annotations

import json
from typing import Any, TextIO

__all__ = ["FORMAT_VERSION", "annotations_text", "document", "write"]

FORMAT_VERSION = 1
# An annotation as explain builds it; the one-line writer encodes these without the generic encoder.
ANNOTATION_KEYS = ("line", "column", "symbol", "concept", "equivalents")


def document(results: list[dict[str, Any]], project: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole output; `project` (a tree's own findings, such as its warp-width decision) only when given."""
    doc: dict[str, Any] = {"version": FORMAT_VERSION, "files": results}
    if project:
        doc["project"] = project
    return doc


# check_circular off: results are plain trees of dicts and lists (a few shared, none cyclic). One
# encoder for every value: json.dumps with these options builds a new encoder object per call, and
# a tree's output is thousands of calls. Same text as json.dumps(value, ensure_ascii=False, check_circular=False).
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def annotations_text(annotations: list[dict[str, Any]], tails: dict[tuple[str, Any, int], str] | None = None) -> str:
    """The JSON text of an annotation list, exactly as json.dumps writes it on one line.

    A large file has thousands of annotations of a few dozen symbols: everything after the position
    is encoded once per symbol, and each annotation only formats its line and column. Anything that
    is not an annotation of the usual shape goes through the generic encoder. `tails` carries those
    encodings from file to file of one output (explain shares each symbol's equivalents dict among
    the files that use it); the dicts it names must stay alive while it is used.
    """
    tails = {} if tails is None else tails
    parts: list[str] = []
    add = parts.append
    for a in annotations:
        if tuple(a) != ANNOTATION_KEYS:
            add(_encode(a))
            continue
        line, column, symbol, concept, eq = a.values()
        if type(line) is not int or type(column) is not int:
            add(_encode(a))
            continue
        key = (symbol, concept, id(eq))
        tail = tails.get(key)
        if tail is None:
            tail = tails[key] = _encode({"symbol": symbol, "concept": concept, "equivalents": eq})[1:]
        add(f'{{"line": {line:d}, "column": {column:d}, {tail}')
    return "[" + ", ".join(parts) + "]"


_KEYS = {k: json.dumps(k) for k in ("path", "lines", "annotations", "hazards", "errors", "symbols")}


def symbols_text(symbols: dict[str, Any], memo: dict[int, str]) -> str:
    """The JSON text of a result's "symbols", as json.dumps writes it, each symbol's object encoded
    once per output (by the object's identity: explain shares them among files)."""
    parts = []
    for name, info in symbols.items():
        text = memo.get(id(info))
        if text is None:
            text = memo[id(info)] = _encode(info)
        parts.append(f"{_encode(name)}: {text}")
    return "{" + ", ".join(parts) + "}"


# Encodings shared across the files of one output: annotation tails (see annotations_text) and
# symbol objects by identity (see symbols_text).
_Memo = tuple[dict[tuple[str, Any, int], str], dict[int, str]]


def _write_file(result: dict[str, Any], out: TextIO, memo: _Memo | None = None) -> None:
    """One file's object, written field by field (a large file's text is not copied into a whole).
    `memo` holds encodings shared across the files of one output; every result it saw must be alive."""
    tails, infos = memo if memo is not None else ({}, {})
    sep = "{"
    for key, value in result.items():
        out.write(f"{sep}{_KEYS.get(key) or _encode(key)}: ")
        if key == "annotations" and type(value) is list:
            out.write(annotations_text(value, tails))
        elif key == "symbols" and type(value) is dict and all(type(k) is str for k in value):
            out.write(symbols_text(value, infos))
        else:
            out.write(_encode(value))
        sep = ", "
    out.write("{}" if sep == "{" else "}")


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all", project: dict[str, Any] | None = None,
          show_all: bool = False) -> None:
    """The full data whatever `show_all` says: JSON is for programs, which filter it themselves."""
    # Indented for a person at a terminal; one line otherwise, which is also the fast path.
    isatty = getattr(out, "isatty", None)
    if isatty and isatty():
        out.write(json.dumps(document(results, project), indent=1, ensure_ascii=False, check_circular=False))
    else:
        out.write(f'{{"version": {FORMAT_VERSION:d}, "files": [')
        memo: _Memo = ({}, {})  # valid while `results` keeps every dict it names alive
        for i, r in enumerate(results):
            if i:
                out.write(", ")
            _write_file(r, out, memo)
        out.write("]" + (f', "project": {_encode(project)}' if project else "") + "}")
    out.write("\n")
