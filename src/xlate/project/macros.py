"""Integer constants known across the headers of a project.

`#define WARP_SIZE 32` in `common.cuh` is known in every file that includes `common.cuh`, directly or
through other headers, and in the headers those files include after it. Rules that reason about a
constant 32 read a file's constants through `rules.syntax.file_constants`, which starts from the
constants this module computes for the file (`SourceView.context.macros`) and adds the file's own.

Only object-like macros and `const`/`constexpr` integer variables at the start of a line are read,
evaluated in include order as the preprocessor would: a later definition wins. A function-like macro
(`#define W(x) ...`) and a value that is not an integer constant expression are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from xlate.project.graph import IncludeGraph, _norm, _strip_block_comments

__all__ = ["file_definitions", "known_constants", "project_constants"]

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*([^\n]*)$", re.MULTILINE)
_UNDEF = re.compile(rb"^[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_CONST = re.compile(
    rb"^[ \t]*(?:static[ \t]+|inline[ \t]+)*(?:constexpr|const)[ \t]+(?:static[ \t]+)?(?:unsigned[ \t]+|signed[ \t]+)?"
    rb"(?:int|long|short|size_t|uint32_t|int32_t|unsigned|auto)[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*([^;\n]+);",
    re.MULTILINE,
)
_LINE_COMMENT = re.compile(rb"//[^\n]*")


def file_definitions(data: bytes) -> list[tuple[str, str | None]]:
    """(name, body) of each object-like definition of a file in order; body None for an #undef."""
    text = _LINE_COMMENT.sub(b"", _strip_block_comments(data))
    found: list[tuple[int, str, str | None]] = []
    for m in _DEFINE.finditer(text):
        found.append((m.start(), m.group(1).decode("ascii"), m.group(2).decode("utf-8", errors="replace").strip()))
    for m in _CONST.finditer(text):
        found.append((m.start(), m.group(1).decode("ascii"), m.group(2).decode("utf-8", errors="replace").strip()))
    for m in _UNDEF.finditer(text):
        found.append((m.start(), m.group(1).decode("ascii"), None))
    found.sort(key=lambda t: t[0])
    return [(name, body) for _, name, body in found]


def _apply(definitions: list[tuple[str, str | None]], into: dict[str, int]) -> None:
    from xlate.rules.syntax import evaluate, macro_expression

    for name, body in definitions:
        if body is None:
            into.pop(name, None)
            continue
        expr = macro_expression(body)
        value = evaluate(expr, into) if expr is not None else None
        if value is not None:
            into[name] = value


def known_constants(graph: IncludeGraph, path: str | Path, cache: dict[Path, list[tuple[str, str | None]]] | None = None) -> dict[str, int]:
    """Constants a file sees from outside itself: the `-D` macros of its compile entry, then the
    definitions of every project header it reaches, in first-include order. Its own definitions are
    not included (the file's rules read those from its tree)."""
    f = _norm(Path(path))
    cache = {} if cache is None else cache
    consts: dict[str, int] = {}
    entry = graph.entries.get(f)
    if entry is not None and entry.defines:
        _apply([(name, body) for name, body in entry.defines], consts)
    for header in graph.reached(f):
        _apply(_definitions(header, cache), consts)
    return consts


def _definitions(path: Path, cache: dict[Path, list[tuple[str, str | None]]]) -> list[tuple[str, str | None]]:
    hit = cache.get(path)
    if hit is None:
        try:
            hit = file_definitions(path.read_bytes())
        except OSError:
            hit = []
        cache[path] = hit
    return hit


def project_constants(graph: IncludeGraph) -> dict[Path, dict[str, int]]:
    """Constants each file of the project sees from outside itself.

    A header also sees what the units that reach it defined before including it: `reduce.cuh` that
    uses WARP_SIZE without including `config.cuh` works because every unit includes `config.cuh`
    first. Such a name is added to the header's constants when every unit that reaches the header
    agrees on its value; where they disagree the header's rules do not guess."""
    cache: dict[Path, list[tuple[str, str | None]]] = {}
    out: dict[Path, dict[str, int]] = {}
    unit_consts: dict[Path, dict[str, int]] = {}
    for u in graph.units:
        out[u] = known_constants(graph, u, cache)
        own: dict[str, int] = dict(out[u])
        _apply(_definitions(u, cache), own)
        unit_consts[u] = own
    reaching: dict[Path, list[Path]] = {}  # header -> the units that reach it (one pass over the units)
    for u in graph.units:
        for h in graph.reached(u):
            reaching.setdefault(h, []).append(u)
    for f in graph.files():
        if f in out:
            continue
        consts = known_constants(graph, f, cache)
        seen_in: dict[str, set[int]] = {}
        for u in reaching.get(f, []):
            for name, value in unit_consts[u].items():
                seen_in.setdefault(name, set()).add(value)
        for name, values in seen_in.items():
            if name not in consts and len(values) == 1:
                consts[name] = next(iter(values))
        out[f] = consts
    return out
