"""Incremental hazards (the language server's fast path) agree with a whole-file explain after edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlate import symbols
from xlate.explain import explain_source, load_rules
from xlate.incremental import IncrementalHazards, split

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted(REPO.glob("kernels/examples/*/*.cu")) + sorted(REPO.glob("tests/fixtures/rules/*/positive.cu"))


@pytest.fixture(scope="module")
def explain():
    smap, rules = symbols.load(), load_rules()
    return lambda source: explain_source("edit.cu", source, smap, rules)["hazards"]


def _key(hazards: list[dict]) -> list[tuple]:
    return sorted((h["line"], h["column"], h["rule"]) for h in hazards)


def test_split_keeps_every_line_once() -> None:
    text = '#include <x.h>\n#define W 32\n\n__global__ void k() {\n  int a = "}";  // }\n}\nstruct S { int x; };\n'
    pieces = split(text)
    assert [(p.start, p.end) for p in pieces] == [(0, 1), (1, 2), (2, 6), (6, 7), (7, 8)]
    assert [p.context for p in pieces] == [True, True, False, True, False]
    assert "\n".join(p.text for p in pieces) == text


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_edits_inside_each_function_match_a_whole_file_pass(explain, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tracker = IncrementalHazards(explain)
    tracker.full(text)
    for piece in (p for p in split(text) if not p.context):
        lines = text.split("\n")
        lines.insert((piece.start + piece.end) // 2, "")
        edited = "\n".join(lines) + "\n__device__ int probe(int v) { return v & 31; }\n"
        quick = tracker.update(edited)
        assert quick is not None
        assert _key(quick) == _key(explain(edited.encode())), f"after an edit at line {piece.start + 1}"
        assert tracker.pieces_explained <= 2  # the edited function and the new one, nothing else
        tracker.full(text)


def test_changed_declarations_ask_for_a_whole_pass(explain) -> None:
    text = "constexpr int W = 16;\n__global__ void k(int* x) { x[threadIdx.x & (W - 1)] = 0; }\n"
    tracker = IncrementalHazards(explain)
    tracker.full(text)
    assert tracker.update(text.replace("W = 16", "W = 32")) is None
