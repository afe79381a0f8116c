"""The quick per-piece pass (the language server's fast path) agrees with a whole-file explain.

Edits are replayed the way an editor sends them: a line typed a few characters at a time (so most
intermediate states have an unclosed parenthesis or a half-written call), lines deleted, characters
inserted at random, over the gallery's kernels, the rule fixtures and generated CUDA. After every
state the quick pass either declines (the server then runs a whole-file pass) or gives exactly the
whole-file pass's findings.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from xlate import kb
from xlate.explain import explain_source, load_rules
from xlate.incremental import IncrementalHazards, _defined_name, findings_of, split
from lsp_corpus import generate

REPO = Path(__file__).resolve().parents[1]
GALLERY = sorted(REPO.glob("kernels/examples/*/*.cu")) + sorted(REPO.glob("kernels/examples/*/*.hip"))
FIXTURES = sorted(REPO.glob("tests/fixtures/rules/*/positive.cu"))
TYPED = ["v += 1.0f;", "__syncthreads();", "int lane = threadIdx.x & 31;",
         "x[0] = __shfl_down_sync(0xffffffff, x[0], 16);", "if (threadIdx.x == 0) { x[0] = 1; }",
         "unsigned b = __ballot_sync(0xffffffff, 1);", "__shared__ float tile[32][33];"]
CHARS = ["x", " ", "{", "}", ";", "(", ")", "1", '"', "/", "*"]


@pytest.fixture(scope="module")
def explain():
    smap, rules = kb.load_symbols(), load_rules()
    return lambda source: findings_of(explain_source("edit.cu", source, smap, rules))


def _key(findings: dict) -> list[tuple]:
    return sorted((h["line"], h["column"], h["rule"], h["message"]) for h in findings["hazards"])


def _annotations(findings: dict) -> list[tuple]:
    return sorted((a["line"], a["column"], a["symbol"]) for a in findings["annotations"])


class Replay:
    """Feeds states to a tracker as a server would and counts agreements."""

    def __init__(self, explain, text: str) -> None:
        self.explain, self.tracker = explain, IncrementalHazards(explain)
        self.tracker.full(text)
        self.answered = self.declined = 0

    def state(self, text: str, where: str) -> None:
        quick = self.tracker.update(text)
        if quick is None:
            self.declined += 1
            self.tracker.full(text)  # what the server does next: a whole-file pass
            return
        self.answered += 1
        whole = self.explain(text.encode())
        assert _key(quick) == _key(whole), where
        assert _annotations(quick) == _annotations(whole), where


def _typing(rng: random.Random, replay: Replay, text: str, name: str, trials: int) -> None:
    lines = text.split("\n")
    for _ in range(trials):
        at = rng.randrange(len(lines))
        snippet = "  " + rng.choice(TYPED)
        for cut in range(0, len(snippet) + 1, 4):
            replay.state("\n".join(lines[:at] + [snippet[:cut]] + lines[at:]), f"{name}: typing {snippet[:cut]!r} at line {at + 1}")


def _random_edits(rng: random.Random, replay: Replay, text: str, name: str, steps: int) -> None:
    current = text
    for step in range(steps):
        lines = current.split("\n")
        at = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.35:
            lines.insert(at, "  " + rng.choice(TYPED))
        elif roll < 0.6 and len(lines) > 1:
            del lines[at]
        else:
            s = lines[at]
            col = rng.randrange(len(s) + 1)
            lines[at] = s[:col] + rng.choice(CHARS) + s[col:]
        current = "\n".join(lines)
        replay.state(current, f"{name}: random edit {step}")


def _callers(pieces: list, piece: object) -> int:
    """Function pieces that name `piece`'s function, directly or through other functions."""
    names = {_defined_name(piece)} - {None}
    found: set[int] = set()
    grew = True
    while grew:
        grew = False
        for i, q in enumerate(pieces):
            if i in found or q is piece or q.context:
                continue
            if any(re.search(rf"\b{re.escape(n)}\b", q.text) for n in names):
                found.add(i)
                names.add(_defined_name(q))
                names.discard(None)
                grew = True
    return len(found)


def test_split_keeps_every_line_once() -> None:
    text = '#include <x.h>\n#define W 32\n\n__global__ void k() {\n  int a = "}";  // }\n}\nstruct S { int x; };\n'
    pieces = split(text)
    assert [(p.start, p.end) for p in pieces] == [(0, 1), (1, 2), (2, 6), (6, 7), (7, 8)]
    assert [p.context for p in pieces] == [True, True, False, True, False]
    assert "\n".join(p.text for p in pieces) == text


# The quick loop replays edits in the gallery's kernels; the rule fixtures, one per hazard rule, run with
# the slow set (together they took about as long as the rest of this file).
_EDITED = [*GALLERY, *(pytest.param(p, marks=pytest.mark.slow) for p in FIXTURES)]


@pytest.mark.parametrize("path", _EDITED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_edits_inside_each_function_match_a_whole_file_pass(explain, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tracker = IncrementalHazards(explain)
    if any(e["kind"] == "syntax" for e in tracker.full(text)["errors"]):
        # tree-sitter-cuda cannot read all of it (a calling-convention macro, say): whole-file passes only.
        assert tracker.update(text + "\n") is None and "syntax error" in tracker.declined
        return
    for piece in (p for p in split(text) if not p.context):
        lines = text.split("\n")
        lines.insert((piece.start + piece.end) // 2, "")
        edited = "\n".join(lines) + "\n__device__ int probe(int v) { return v & 31; }\n"
        quick = tracker.update(edited)
        assert quick is not None, tracker.declined
        assert _key(quick) == _key(explain(edited.encode())), f"after an edit at line {piece.start + 1}"
        # The edited function, the new one, and the functions that name the edited one, directly or
        # through other functions (warp code is decided through calls): nothing else.
        assert tracker.pieces_explained <= 2 + _callers(split(text), piece)
        tracker.full(text)


@pytest.mark.slow
@pytest.mark.parametrize("path", GALLERY + FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_replayed_typing_agrees_with_a_whole_file_pass(explain, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    replay = Replay(explain, text)
    _typing(rng, replay, text, path.name, trials=3)
    _random_edits(rng, replay, text, path.name, steps=15)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_replayed_edits_on_generated_cuda_agree(explain, seed: int) -> None:
    text = generate(seed, lines=600)
    rng = random.Random(seed)
    replay = Replay(explain, text)
    _typing(rng, replay, text, f"generated {seed}", trials=4)
    _random_edits(rng, replay, text, f"generated {seed}", steps=25)
    assert replay.answered > 0, replay.declined  # the fast path is used, not declined every time


def test_an_unclosed_parenthesis_declines(explain) -> None:
    text = "__device__ int f(int v) { return v; }\n__global__ void k(int* x) { x[0] = f(1); }\n"
    tracker = IncrementalHazards(explain)
    tracker.full(text)
    assert tracker.update(text.replace("x[0] = f(1);", "x[0] = f(")) is None
    assert "parentheses" in tracker.declined


def test_a_finding_on_a_declaration_follows_its_uses(explain) -> None:
    """A mask macro is flagged because a shuffle uses it; deleting the use must drop the finding."""
    text = ("#define FULL 0xffffffff\n__global__ void k(float* x) {\n  x[0] = __shfl_down_sync(FULL, x[0], 1);\n}\n"
            "__global__ void j(float* x) { x[0] = 1.0f; }\n")
    tracker = IncrementalHazards(explain)
    tracker.full(text)
    edited = text.replace("__shfl_down_sync(FULL, x[0], 1)", "x[0]")
    quick = tracker.update(edited)
    assert quick is None or _key(quick) == _key(explain(edited.encode()))


def test_changed_declarations_ask_for_a_whole_pass(explain) -> None:
    text = "constexpr int W = 16;\n__global__ void k(int* x) { x[threadIdx.x & (W - 1)] = 0; }\n"
    tracker = IncrementalHazards(explain)
    tracker.full(text)
    assert tracker.update(text.replace("W = 16", "W = 32")) is None
