"""`xlate lookup`: the same idea asked in any vendor's vocabulary lands on the same concept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import GLOSSARY
from xlate import kb
from xlate.cli import app

# (query, expected concept): every vendor's word for the same idea, plus typos.
CROSS_VOCABULARY = [
    ("SM", "streaming-multiprocessor"),
    ("CU", "streaming-multiprocessor"),
    ("compute unit", "streaming-multiprocessor"),
    ("GPU core", "streaming-multiprocessor"),
    ("LDS", "shared-memory"),
    ("threadgroup memory", "shared-memory"),
    ("shared memory", "shared-memory"),
    ("simd_shuffle_down", "warp-shuffle-down"),
    ("__shfl_down", "warp-shuffle-down"),
    ("__shfl_down_sync", "warp-shuffle-down"),
    ("wavefront", "warp"),
    ("SIMD-group", "warp"),
    ("warp", "warp"),
    ("__syncthreads", "block-barrier"),
    ("__syncthread", "block-barrier"),
    ("syncthreads", "block-barrier"),
    ("wavefrnt", "warp"),
    ("threadgroup", "thread-block"),
    ("work-group", "thread-block"),
    ("hipMalloc", "device-malloc"),
    ("cudaMalloc", "device-malloc"),
]


@pytest.fixture(scope="module")
def index() -> dict:
    return kb.load_index(GLOSSARY)


@pytest.mark.parametrize(("query", "concept"), CROSS_VOCABULARY)
def test_every_vocabulary_lands_on_the_same_concept(index: dict, query: str, concept: str) -> None:
    matches = kb.search(index, query)
    assert matches, f"no match for {query!r}"
    assert matches[0].concept == concept, [(m.concept, m.score, m.matched) for m in matches]


def test_ranking_exact_symbol_beats_name_beats_fuzzy(index: dict) -> None:
    exact_symbol = kb.search(index, "__shfl_down_sync")[0]
    assert exact_symbol.score == kb.SCORE_SYMBOL and exact_symbol.kind == "symbol"
    by_name = kb.search(index, "wavefront")[0]
    assert by_name.score == kb.SCORE_NAME
    typo = kb.search(index, "wavefrnt")[0]
    assert typo.kind == "fuzzy" and typo.score < kb.SCORE_LOOSE


def test_backend_filter_restricts_matches(index: dict) -> None:
    only_metal = kb.search(index, "simd_shuffle_down", backend="metal")
    assert only_metal and only_metal[0].backend == "metal"
    # The Metal spelling matched on the HIP side is no exact hit: nothing, or only a fuzzy guess.
    hip_side = kb.search(index, "simd_shuffle_down", backend="hip")
    assert all(m.kind == "fuzzy" and m.score < kb.SCORE_LOOSE for m in hip_side), hip_side
    assert kb.find_rows(index, "simd_shuffle_down", backend="hip") == []


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xlate", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.mark.slow  # over a second: the full suite runs it
def test_json_shape_from_a_subprocess() -> None:
    proc = run_cli("lookup", "LDS", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["query"] == "LDS"
    first = data["matches"][0]
    assert first["concept"] == "shared-memory"
    assert set(first) >= {"concept", "score", "matched", "terms"}
    assert {"cuda", "hip", "metal"} <= set(first["terms"])
    assert all(isinstance(v, list) for v in first["terms"].values())


def test_text_card_shows_summary_terms_related_and_docs() -> None:
    proc = run_cli("lookup", "__shfl_down")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in ("warp-shuffle-down", "CUDA", "HIP/ROCm", "Metal", "simd_shuffle_down", "docs:", "https://"):
        assert needle in out, needle


@pytest.mark.parametrize(
    ("query", "code", "needle"),
    [
        ("zzzqqqxxyy", 1, "no concept, symbol or GPU matches"),
        ("", 2, "empty query"),
        ("   ", 2, "empty query"),
        ("\x07\x1b\x08", 2, "empty query"),
        ("x" * 5000, 1, "no concept, symbol or GPU matches"),
    ],
    ids=["unknown", "empty", "blank", "control-chars", "very-long"],
)
def test_bad_queries_get_a_clear_answer(query: str, code: int, needle: str) -> None:
    proc = run_cli("lookup", query)
    assert proc.returncode == code
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_no_match_suggests_nearest_terms_in_json() -> None:
    proc = run_cli("lookup", "warpshuffle dwn", "--format", "json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert data["matches"] == [] and data["rows"] == [] and data["gpu"] is None
    assert "simd_shuffle_down" in data["suggestions"] or "shuffle down" in data["suggestions"], data["suggestions"]
    garbage = json.loads(run_cli("lookup", "qzqzqz wvwvwv", "--format", "json").stdout)
    assert garbage["matches"] == [] and garbage["suggestions"] == []  # nothing near: nothing offered


def test_control_characters_are_stripped_before_matching(index: dict) -> None:
    assert kb.clean_query("wave\x07front") == "wave front"
    assert kb.search(index, "wave\x07front") == kb.search(index, "wave front")
    assert kb.search(index, "wave\x07front") and kb.search(index, "wave\x07front")[0].concept == "warp"


def test_unknown_backend_and_format_are_usage_errors() -> None:
    assert run_cli("lookup", "warp", "--backend", "cobol").returncode == 2
    assert run_cli("lookup", "warp", "--format", "xml").returncode == 2


def test_typer_command_matches_fast_path() -> None:
    result = CliRunner().invoke(app, ["lookup", "LDS", "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["matches"][0]["concept"] == "shared-memory"


def test_index_is_rebuilt_when_content_changes(tmp_path: Path, tiny_glossary: Path) -> None:
    first = kb.content_hash(tiny_glossary)
    idx = kb.load_index(tiny_glossary)
    assert "warp" in idx["concepts"]
    path = tiny_glossary / "execution-model" / "warp.yaml"
    path.write_text(path.read_text().replace("aliases: [wavefront]", "aliases: [wavefront, wave64]"))
    assert kb.content_hash(tiny_glossary) != first
    assert kb.search(kb.load_index(tiny_glossary), "wave64")[0].concept == "warp"
    # The index of the old content is replaced, not kept: the cache does not grow with every edit.
    assert len(list(kb.cache_dir().glob("index-*.json"))) == 1


def test_broken_glossary_gives_a_clear_lookup_error(tmp_path: Path, tiny_glossary: Path) -> None:
    (tiny_glossary / "execution-model" / "warp.yaml").write_text("id: [unclosed\n")
    proc = run_cli("lookup", "warp", env={"XLATE_GLOSSARY": str(tiny_glossary)})
    assert proc.returncode == 2
    assert "glossary check" in proc.stderr and "Traceback" not in proc.stderr


# The general rules behind a phrase that is no label: each case is one rule, and the unrelated phrases
# beside them show where each rule stops.
PHRASES = [
    ("__syncthreads inside if statement", "block-barrier"),  # a code symbol inside a phrase
    ("out of resource: shared memory", "shared-memory"),  # a name of two words making up half the phrase
    ("warp level branch divergence", "warp-divergence"),  # a whole label inside the phrase
    ("cooperative kernel launch", "grid-sync"),  # a common word left out, never the telling one
    ("compute capability 9.0", "compute-capability"),  # a trailing version number
    ("GPU family Apple9", "apple-gpu-family"),  # a code token outranks the plain words around it
    ("tl.program_id(axis=0)", "block-index"),  # call arguments
    ("triton.language.atomic_add", "atomic-add"),  # the long module name of tl
    ("tcgen05.mma.cta_group::1.kind::f16", "tcgen05"),  # a PTX instruction's modifiers (tcgen05.alloc is the tensor-memory card's)
    ("shuffel", "warp-shuffle"),  # one swapped pair of letters
    ("__builtin_amdgcn_mfma_i32_16x16x32_i8", "warp-mma"),  # a variant of a family the glossary lists
    ("llvm.amdgcn.readfirstlane.i32", "warp-broadcast"),  # an LLVM intrinsic read as its clang builtin
    ("llvm.amdgcn.mfma.f32.16x16x16f16", "warp-mma"),  # ... or as a member of that builtin's family
    ("llvm.nvvm.read.ptx.sreg.laneid", "lane-id"),  # an NVVM intrinsic read as its PTX special register
    ("llvm.nvvm.shfl.sync.idx.i32", "cross-lane-hardware"),  # ... or as its PTX instruction
    ("%%tid.x", "thread-index"),  # a special register with its component, escaped as inline assembly does
    ("v_mov_b32_dpp", "cross-lane-hardware"),  # an AMDGCN instruction's DPP encoding names the cross-lane mode
    ("+wavefrontsize64,-wavefrontsize32", "warp-size"),  # a target-feature string read as clang's -m flag
    ("hipStreamWaitVaule32", "stream"),  # a slip of another backend's row spelling
]
UNRELATED = ["llvm.amdgcn.no.such.intrinsic", "+nosuchfeature,-other", "linux kernel", "kernel panic", "thread pool", "CPU usage", "select", "docker-compose up", "HTTP 404"]


@pytest.mark.parametrize(("query", "concept"), PHRASES)
def test_a_term_inside_a_phrase_is_found(index: dict, query: str, concept: str) -> None:
    matches = kb.search(index, query)
    assert matches and matches[0].concept == concept, [(m.concept, m.score, m.matched, m.kind) for m in matches]


@pytest.mark.parametrize("query", UNRELATED)
def test_a_plain_word_alone_in_a_phrase_finds_nothing(index: dict, query: str) -> None:
    assert kb.search(index, query) == []


def test_a_gpu_named_among_other_words_lands_on_its_sheet(index: dict) -> None:
    assert kb.resolve_gpu("Mac Studio M3 Ultra", index=index) is None
    sheet = kb.resolve_gpu("Mac Studio M3 Ultra", index=index, within=True)
    assert sheet is not None and sheet.id == "m3-ultra"
    mi = kb.resolve_gpu("AMD MI300X", index=index, within=True)
    assert mi is not None and mi.id == "mi300x"
    assert kb.resolve_gpu("GH200 superchip", index=index, within=True) is None  # whole words only


@pytest.mark.parametrize(("query", "concept"), [
    ("notify(_:atValue:block:)", "event"),  # Swift's name for notifyListener:atValue:block:
    ("useResource(_:usage:)", None),  # a name the Metal vocabulary places on no card
])
def test_a_swift_method_that_drops_its_selector_noun_reaches_the_selector(query: str, concept: str | None) -> None:
    found = kb.search(kb.load_index(), query, limit=1)
    assert [m.concept for m in found] == ([concept] if concept else [])


def test_a_name_with_its_abbreviation_in_brackets_is_looked_up_as_the_name_then_the_abbreviation() -> None:
    index = kb.load_index()
    assert kb.search(index, "Local Data Share (LDS)", limit=1)[0].concept == "shared-memory"
    assert kb.search(index, "Tensor Memory Accelerator (TMA)", limit=1)[0].concept == "tensor-memory-accelerator"
    # Neither part names a card: nothing, rather than a guess from the abbreviation's letters.
    assert kb.search(index, "Floating-Point Sanitizer (FpSan)", limit=1) == [] or \
        kb.search(index, "Floating-Point Sanitizer (FpSan)", limit=1)[0].concept == "sanitizer"
