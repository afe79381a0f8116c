"""JSON output: {"files": [{"path", "annotations", "hazards", "errors", ...}]}, lines and columns 1-based."""

from __future__ import annotations

import json
from typing import Any, TextIO

FORMAT_VERSION = 1


def document(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": FORMAT_VERSION, "files": results}


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all") -> None:
    # Indented for a person at a terminal; one line otherwise, which json encodes in C (several times faster).
    isatty = getattr(out, "isatty", None)
    indent = 1 if isatty and isatty() else None
    # check_circular off: results are plain trees of dicts and lists (a few shared, none cyclic).
    out.write(json.dumps(document(results), indent=indent, ensure_ascii=False, check_circular=False))
    out.write("\n")
