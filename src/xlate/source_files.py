"""Reading one source file for explain and translate: the size, kind, binary and encoding checks, each
failure a per-file error record (`error`) in the file's result rather than an exception."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["BINARY_SNIFF", "MAX_BYTES", "check_utf8", "empty_result", "error", "read_source"]

MAX_BYTES = 8 * 1024 * 1024  # larger files are reported and skipped: sources this big are generated
BINARY_SNIFF = 8192


def error(kind: str, message: str, line: int | None = None, column: int | None = None, **extra: Any) -> dict[str, Any]:
    err: dict[str, Any] = {"kind": kind, "message": message}
    if line is not None:
        err["line"] = line
        err["column"] = column or 1
    err.update(extra)
    return err


def empty_result(shown: str) -> dict[str, Any]:
    return {"path": shown, "lines": 0, "annotations": [], "hazards": [], "errors": [], "symbols": {}}


def read_source(path: Path, result: dict[str, Any]) -> bytes | None:
    """The file's bytes, or None with a per-file error saying why not."""
    from xlate.cuda.files import describe_os_error

    import stat

    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            result["errors"].append(error("read", "is a directory"))
            return None
        if not stat.S_ISREG(st.st_mode):  # a pipe or device would block or never end
            result["errors"].append(error("read", "not a regular file (pipe, socket or device); skipped"))
            return None
        size = st.st_size
        if size > MAX_BYTES:
            result["errors"].append(error("too-large", f"file is {size / 1e6:.1f} MB, over the {MAX_BYTES / 1e6:.1f} MB limit; skipped"))
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        result["errors"].append(error("read", f"cannot read: {describe_os_error(exc)}"))
        return None
    if len(data) > MAX_BYTES:  # grew while we looked
        result["errors"].append(error("too-large", f"file is over the {MAX_BYTES / 1e6:.1f} MB limit; skipped"))
        return None
    if not data.strip():
        result["errors"].append(error("empty", "empty file: nothing to explain"))
        return None
    if b"\0" in data[:BINARY_SNIFF]:
        result["errors"].append(error("binary", "binary file (NUL bytes): not source code; skipped"))
        return None
    return data


def check_utf8(source: bytes, result: dict[str, Any]) -> None:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        from xlate.cuda.occurrences import LineIndex

        line, col = LineIndex(source).position(exc.start)
        result["errors"].append(error("encoding", f"not UTF-8 text ({exc.reason} at byte {exc.start}); "
                                       "explained anyway, columns on lines with such bytes are approximate", line, col))
