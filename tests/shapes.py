"""Generated input shapes (tests/fixtures/shapes/*.json): each once made explain superlinear.

A shape is a head, a unit repeated n times (joined by a separator), a tail, a closer repeated n
times (for nesting) and an end: `expand(shape, n)` is the CUDA source of size about n.
"""

from __future__ import annotations

import json
from pathlib import Path

SHAPES_DIR = Path(__file__).parent / "fixtures" / "shapes"


def load_shapes() -> dict[str, dict[str, str]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(SHAPES_DIR.glob("*.json"))}


def expand(shape: dict[str, str], n: int) -> bytes:
    body = shape.get("separator", "").join([shape["unit"]] * n)
    text = shape.get("head", "") + body + shape.get("tail", "") + shape.get("close", "") * n + shape.get("after", "")
    return text.encode()
