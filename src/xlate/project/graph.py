"""The include graph of a source tree.

A project is a set of translation units (the `.cu`/`.cpp` files a build compiles) and the headers they
reach through `#include`. Each `#include "x"` is resolved as a compiler would: first against the folder
of the file that includes it, then against the include folders; `#include <x>` against the include
folders only. Include folders come from a `compile_commands.json` entry (`-I`, `-iquote`, `-isystem`)
or, for a folder given on the command line, are the folder itself and its `include/` sub-folder (the two
places a project's own headers are usually named from).

Includes are read from the bytes, not from a full parse: a line that starts (after blanks) with `#`,
`include` and a quoted or bracketed name, outside block comments. Conditional inclusion is not
evaluated; both branches of an `#if` count, which is what a porting engineer wants to see (the HIP
branch of a guarded include is part of the project too).
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CompileEntry", "IncludeEdge", "IncludeGraph", "ProjectError", "read_compile_commands"]

_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include(?:_next)?[ \t]*([<\"])([^>\"\n]+)[>\"]", re.MULTILINE)
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.DOTALL)
SOURCE_SUFFIXES = frozenset({".cu", ".c", ".cc", ".cpp", ".cxx", ".c++"})
HEADER_SUFFIXES = frozenset({".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp", ".inc"})
MAX_HEADER_BYTES = 8 * 1024 * 1024


class ProjectError(Exception):
    """A project description (compile_commands.json) that cannot be used; the message says why."""


@dataclass(frozen=True)
class IncludeEdge:
    """One `#include` line: who includes what, spelled how, on which line, resolved to which file."""

    includer: Path
    spelling: str  # the name between the quotes or brackets, as written
    line: int  # 1-based
    angled: bool  # <...> rather than "..."
    target: Path | None  # the file it resolves to inside the project, or None (a system or missing header)
    # Byte offsets of the spelling (between the quotes or brackets) in the includer: where a rename goes.
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class CompileEntry:
    """One translation unit of a build: its file, include folders and predefined object-like macros."""

    file: Path
    include_dirs: tuple[Path, ...] = ()
    quote_dirs: tuple[Path, ...] = ()
    defines: tuple[tuple[str, str], ...] = ()


def _strip_block_comments(data: bytes) -> bytes:
    """Block comments blanked to spaces, newlines kept, so line numbers stay right."""
    if b"/*" not in data:
        return data
    return _BLOCK_COMMENT.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group(0)), data)


def scan_includes(data: bytes) -> list[tuple[int, str, bool, int, int]]:
    """(line, spelling, angled, start, end) of each `#include` of a file's bytes, in order, leaving
    out those inside block comments; start and end are the byte offsets of the spelling."""
    if b"include" not in data:
        return []
    comments = [m.span() for m in _BLOCK_COMMENT.finditer(data)] if b"/*" in data else []
    starts = [a for a, _ in comments]
    out = []
    line, counted = 1, 0
    for m in _INCLUDE_LINE.finditer(data):
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and comments[i][1] > m.start():
            continue
        line += data.count(b"\n", counted, m.start())
        counted = m.start()
        out.append((line, m.group(2).decode("utf-8", errors="replace").strip(), m.group(1) == b"<", m.start(2), m.end(2)))
    return out


def _norm(path: Path) -> Path:
    """An absolute, normalised path (symbolic links kept: the user's spelling of the tree)."""
    return Path(os.path.normpath(os.path.abspath(path)))


@dataclass
class IncludeGraph:
    """Translation units, the headers they reach, and the resolved include edges between them.

    Build one with `IncludeGraph.from_paths` (folders and files) or `IncludeGraph.from_compile_commands`.
    Paths are absolute and normalised; `shown` maps each to the spelling the user gave (for output).
    """

    units: list[Path] = field(default_factory=list)
    edges: dict[Path, list[IncludeEdge]] = field(default_factory=dict)  # includer -> its includes, in order
    entries: dict[Path, CompileEntry] = field(default_factory=dict)
    roots: tuple[Path, ...] = ()
    _reach: dict[Path, list[Path]] = field(default_factory=dict, init=False, repr=False)
    _users: dict[Path, list[Path]] = field(default_factory=dict, init=False, repr=False)

    # ---------------------------------------------------------------- building

    @classmethod
    def from_paths(cls, paths: Iterable[str | Path], files: Iterable[Path] | None = None) -> IncludeGraph:
        """The graph of folders and files. `files` lists the sources already chosen (a walk of the
        folders); without it, every source and header under the folders is taken."""
        roots: list[Path] = []
        chosen: list[Path] = []
        for raw in paths:
            p = _norm(Path(raw))
            if p.is_dir():
                roots.append(p)
            elif p.is_file():
                chosen.append(p)
                roots.append(p.parent)
        if files is not None:
            chosen = [_norm(f) for f in files]
        else:
            for root in roots:
                if root.is_dir():
                    chosen += [_norm(f) for f in sorted(root.rglob("*")) if f.suffix.lower() in SOURCE_SUFFIXES | HEADER_SUFFIXES
                               and f.is_file()]
        include_dirs = tuple(dict.fromkeys([*roots, *(r / "include" for r in roots if (r / "include").is_dir())]))
        graph = cls(roots=tuple(dict.fromkeys(roots)))
        for f in dict.fromkeys(chosen):
            entry = CompileEntry(f, include_dirs=include_dirs)
            graph.entries[f] = entry
            if f.suffix.lower() in SOURCE_SUFFIXES:
                graph.units.append(f)
        graph._resolve_all(list(dict.fromkeys(chosen)))
        # A header no unit reaches (a header-only library, a file given alone) is its own unit.
        reached = graph.reached_headers()
        graph.units += [f for f in dict.fromkeys(chosen) if f.suffix.lower() not in SOURCE_SUFFIXES and f not in reached]
        return graph

    @classmethod
    def from_compile_commands(cls, path: str | Path) -> IncludeGraph:
        """The graph of the translation units a compile_commands.json lists."""
        entries = read_compile_commands(Path(path))
        root = _norm(Path(path)).parent
        graph = cls(roots=(root,))
        for e in entries:
            graph.entries[e.file] = e
            if e.file not in graph.units:
                graph.units.append(e.file)
        graph._resolve_all(graph.units)
        return graph

    def _resolve_all(self, start: list[Path]) -> None:
        """Read the includes of `start` and of every project header they reach (breadth first)."""
        queue = list(start)
        seen: set[Path] = set(queue)
        owner: dict[Path, CompileEntry] = {}
        while queue:
            f = queue.pop(0)
            entry = self.entries.get(f) or owner.get(f) or CompileEntry(f)
            try:
                if f.stat().st_size > MAX_HEADER_BYTES:
                    self.edges[f] = []
                    continue
                data = f.read_bytes()
            except OSError:
                self.edges[f] = []
                continue
            found = []
            for line, spelling, angled, first_byte, end_byte in scan_includes(data):
                target = self._resolve(f, spelling, angled, entry)
                found.append(IncludeEdge(f, spelling, line, angled, target, first_byte, end_byte))
                if target is not None and target not in seen:
                    seen.add(target)
                    owner[target] = entry  # a header is read with the include folders of the unit that reached it
                    queue.append(target)
            self.edges[f] = found

    def _resolve(self, includer: Path, spelling: str, angled: bool, entry: CompileEntry) -> Path | None:
        candidates: list[Path] = []
        if not angled:
            candidates.append(includer.parent)
            candidates += entry.quote_dirs
        candidates += entry.include_dirs
        for folder in candidates:
            p = folder / spelling
            if p.is_file():
                return _norm(p)
        return None

    # ---------------------------------------------------------------- questions

    def includes_of(self, path: str | Path) -> list[IncludeEdge]:
        """The `#include` lines of a file, in order (resolved or not)."""
        return list(self.edges.get(_norm(Path(path)), []))

    def includers_of(self, path: str | Path) -> list[IncludeEdge]:
        """Every `#include` in the project that resolves to `path`, with its spelling and line."""
        target = _norm(Path(path))
        return [e for edges in self.edges.values() for e in edges if e.target == target]

    def all_edges(self) -> Iterator[IncludeEdge]:
        for edges in self.edges.values():
            yield from edges

    def reached(self, path: str | Path) -> list[Path]:
        """The project headers a file reaches, directly or through other headers, in first-include
        order (depth first, as the preprocessor reads them); each once, the file itself excluded."""
        start = _norm(Path(path))
        hit = self._reach.get(start)
        if hit is not None:
            return list(hit)
        out: list[Path] = []
        seen = {start}
        # Depth first in include order, without recursion: a generated tree may nest thousands deep.
        stack: list[list[IncludeEdge]] = [list(reversed(self.edges.get(start, [])))]
        while stack:
            pending = stack[-1]
            if not pending:
                stack.pop()
                continue
            e = pending.pop()
            if e.target is not None and e.target not in seen:
                seen.add(e.target)
                out.append(e.target)
                stack.append(list(reversed(self.edges.get(e.target, []))))
        self._reach[start] = out
        return list(out)

    def reached_headers(self) -> set[Path]:
        """Every file some other file includes."""
        return {e.target for e in self.all_edges() if e.target is not None}

    def users_of(self, header: str | Path) -> list[Path]:
        """The translation units that reach a header, in unit order."""
        target = _norm(Path(header))
        if not self._users:
            for u in self.units:
                for h in self.reached(u):
                    self._users.setdefault(h, []).append(u)
        return [u for u in self._users.get(target, []) if u != target]

    def files(self) -> list[Path]:
        """Units and every project header they reach, units first, each once."""
        out = list(self.units)
        seen = set(out)
        for u in self.units:
            for h in self.reached(u):
                if h not in seen:
                    seen.add(h)
                    out.append(h)
        return out


def read_compile_commands(path: Path) -> list[CompileEntry]:
    """The entries of a compile_commands.json, each with its file, include folders and `-D` macros.

    Raises ProjectError with a one-line reason for a file that is not such a database."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProjectError(f"{path}: not a JSON compilation database ({exc})") from None
    if not isinstance(raw, list):
        raise ProjectError(f"{path}: a compilation database is a JSON list of entries, not a {type(raw).__name__}")
    out: list[CompileEntry] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "file" not in item or "directory" not in item:
            raise ProjectError(f"{path}: entry {i} lacks 'directory' or 'file'")
        directory = Path(str(item["directory"]))
        if not directory.is_absolute():
            directory = path.parent / directory
        if "arguments" in item and isinstance(item["arguments"], list):
            args = [str(a) for a in item["arguments"]]
        elif "command" in item:
            try:
                args = shlex.split(str(item["command"]))
            except ValueError as exc:
                raise ProjectError(f"{path}: entry {i}: cannot split its command ({exc})") from None
        else:
            args = []
        file = Path(str(item["file"]))
        file = _norm(file if file.is_absolute() else directory / file)
        includes, quotes, defines = _flags(args, directory)
        out.append(CompileEntry(file, tuple(includes), tuple(quotes), tuple(defines)))
    return out


def _flags(args: list[str], directory: Path) -> tuple[list[Path], list[Path], list[tuple[str, str]]]:
    """-I/-isystem folders, -iquote folders and -D macros of one command line."""
    includes: list[Path] = []
    quotes: list[Path] = []
    defines: list[tuple[str, str]] = []

    def folder(value: str) -> Path:
        p = Path(value)
        return _norm(p if p.is_absolute() else directory / p)

    i = 0
    while i < len(args):
        a = args[i]
        for flag, into in (("-I", includes), ("-isystem", includes), ("-iquote", quotes), ("-D", None)):
            if a == flag and i + 1 < len(args):
                value = args[i + 1]
                i += 1
            elif a.startswith(flag) and len(a) > len(flag):
                value = a[len(flag):]
            else:
                continue
            if into is None:
                name, _, body = value.partition("=")
                defines.append((name, body if "=" in value else "1"))
            else:
                into.append(folder(value))
            break
        i += 1
    return includes, quotes, defines
