"""Where a concept shows up in the kernel gallery: the line of an example's source that uses its symbol.

A snippet starts where the statement that uses the symbol starts (not in the middle of a signature),
skips comments that merely mention the symbol, and records the matched line so the page can highlight it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

KERNEL_FILES = {"cuda": "{n}.cu", "hip": "{n}.hip", "triton": "{n}_triton.py", "metal": "{n}.metal", "mlx": "{n}_mlx.py"}
_COMMENT = {"cuda": "//", "hip": "//", "metal": "//", "triton": "#", "mlx": "#"}
_ENDS_STATEMENT = (";", "{", "}", ":")
MAX_BEFORE = 4  # lines above the match, at most, to reach the statement's start
MAX_AFTER = 3  # lines below it, at most, to reach the statement's end


@dataclass(frozen=True)
class Snippet:
    example: str
    backend: str
    file: str
    start: int  # 1-based line number of the first line shown
    match: int  # 1-based line number of the matched line
    code: str

    @property
    def highlight(self) -> int:
        """The matched line's position inside the snippet (1-based), as pymdownx's hl_lines counts."""
        return self.match - self.start + 1


def forget() -> None:
    """Drop what was read of the sources (a rebuild under `mkdocs serve` must see edited kernels)."""
    for cached in (source_file, _examples, _lines, _code, _text):
        cached.cache_clear()


@functools.lru_cache(maxsize=1024)
def source_file(kernels: Path, example: str, backend: str) -> Path | None:
    pattern = KERNEL_FILES.get(backend)
    if not pattern:
        return None
    for name in (example.replace("-", "_"), example):
        path = kernels / example / pattern.format(n=name)
        if path.exists():
            return path
    return None


@functools.lru_cache(maxsize=256)
def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").split("\n")  # as code_lines numbers them


@functools.lru_cache(maxsize=256)
def _code(path: Path) -> list[str]:
    from xlate.examples_check import code_lines

    return code_lines(path)


@functools.lru_cache(maxsize=256)
def _text(path: Path) -> str:
    return "\n".join(_lines(path))


@functools.lru_cache(maxsize=4096)
def _pattern(symbol: str) -> re.Pattern[str]:
    left = r"(?<![\w.])" if re.match(r"[\w]", symbol) else ""
    right = r"(?!\w)" if re.search(r"\w$", symbol) else ""
    return re.compile(left + re.escape(symbol) + right)


def _is_code(line: str, backend: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith((_COMMENT.get(backend, "//"), "*", "/*", "#include", "#pragma"))


def find(lines: list[str], code: list[str], symbol: str, backend: str) -> tuple[int, int, int] | None:
    """(first, matched, last) 0-based line indices of the statement that uses the symbol in code.
    `code` is `lines` with comments and docstrings blanked (examples_check.blank_prose), so a symbol
    that prose merely mentions is not matched."""
    pat = _pattern(symbol)
    for i, line in enumerate(code):
        if pat.search(line) is None:
            continue
        lo = i
        if backend in ("cuda", "hip", "metal"):
            # Walk up while the line above continues this statement (it does not end one).
            while lo > 0 and i - lo < MAX_BEFORE:
                above = lines[lo - 1].rstrip()
                if not _is_code(above, backend) or above.endswith(_ENDS_STATEMENT):
                    break
                lo -= 1
        else:
            while lo > 0 and i - lo < MAX_BEFORE and lines[lo - 1].rstrip().endswith(("(", ",", "\\")):
                lo -= 1
        hi = i
        opened = sum(lines[k].count("(") - lines[k].count(")") for k in range(lo, i + 1))
        while hi + 1 < len(lines) and hi - i < MAX_AFTER:
            text = lines[hi].rstrip()
            if opened <= 0 and (text.endswith(_ENDS_STATEMENT) or backend in ("triton", "mlx")):
                break
            hi += 1
            opened += lines[hi].count("(") - lines[hi].count(")")
        return lo, i, hi
    return None


def snippet(kernels: Path, example: str, backend: str, symbol: str) -> Snippet | None:
    path = source_file(kernels, example, backend)
    if path is None:
        return None
    lines = _lines(path)
    found = find(lines, _code(path), symbol, backend)
    if found is None:
        return None
    lo, i, hi = found
    block = lines[lo : hi + 1]
    indent = min((len(ln) - len(ln.lstrip()) for ln in block if ln.strip()), default=0)
    return Snippet(example, backend, path.name, lo + 1, i + 1, "\n".join(ln[indent:] for ln in block))


@functools.lru_cache(maxsize=16)
def _examples(kernels: Path) -> tuple[str, ...]:
    return tuple(sorted(p.name for p in kernels.iterdir() if (p / "example.yaml").exists()))


def mentions(kernels: Path, symbols: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """(example, backend, symbol) for every example whose source uses one of the symbols in code.

    Symbols shorter than four characters are skipped: they match too much to mean the concept.
    """
    out: list[tuple[str, str, str]] = []
    if not kernels.is_dir():
        return out
    for example in _examples(kernels):
        for backend, names in symbols.items():
            path = source_file(kernels, example, backend)
            if path is None:
                continue
            lines, code = _lines(path), _code(path)
            text = _text(path)
            for sym in names:
                if len(sym) >= 4 and sym in text and find(lines, code, sym, backend) is not None:
                    out.append((example, backend, sym))
                    break
    return out
