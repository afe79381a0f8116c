"""Columns between the server (code points) and the client (the negotiated `positionEncoding`).

LSP counts columns in UTF-16 code units unless client and server agree on another encoding at
initialize; the server takes UTF-8 where the client offers it (clients written in Rust or Go count
bytes), else UTF-16. Every column crosses this boundary once: requests on the way in, diagnostics
and edits on the way out. ASCII lines, nearly all of them in source code, take the fast path.
"""

from __future__ import annotations

from collections.abc import Sequence

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def choose(offered: Sequence[str] | None) -> str:
    """The encoding to use: UTF-8 when offered, UTF-16 otherwise (the protocol's default)."""
    if offered and UTF8 in [str(getattr(o, "value", o)) for o in offered]:
        return UTF8
    return UTF16


def to_client(line: str, column: int, encoding: str) -> int:
    """A code-point column on `line` in the client's units."""
    if column <= 0 or line.isascii() or encoding == UTF32:
        return max(0, column)
    head = line[:column]
    if encoding == UTF8:
        return len(head.encode("utf-8", "surrogatepass"))
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def from_client(line: str, units: int, encoding: str) -> int:
    """The client's column on `line` as a code-point column (clamped to the line; a column inside a
    character's code units lands on that character)."""
    if units <= 0:
        return 0
    if line.isascii() or encoding == UTF32:
        return min(units, len(line))
    if encoding == UTF8:
        data = line.encode("utf-8", "surrogatepass")
        return len(data[:units].decode("utf-8", "ignore"))
    data = line.encode("utf-16-le", "surrogatepass")
    return len(data[: 2 * units].decode("utf-16-le", "ignore"))
