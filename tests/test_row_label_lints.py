"""A Metal, MLX or HIP side's label must agree with its own caveat and with its siblings' labels.

An audit found `cuda::atomic_ref` labelled `none` on Metal while its caveat pointed at MSL's atomic types
and the `cuda::atomic` row beside it labelled that same counterpart `approximate`; a later one found
nvtx3/nvToolsExtCudaRt.h `none` on HIP while its caveat told the reader which ROCTx header to include.
These lints look for that class over every hand-written Metal and MLX side, and over every HIP side a
person wrote (curated rows, overrides of HIPIFY's tables, API family files, and HIPIFY rows that an API
family's note gives a caveat):

1. a `none` side whose caveat recommends a counterpart outright ("the nearest is X", "X does the same",
   "use X instead", or on a header row "include X.h") without saying why it is no counterpart;
2. siblings that disagree: spellings that differ only by a suffix (`_block`, `_system`, `_sync`, a float
   `f`, `atomic_ref` against `atomic`) with different kinds of label, and rows of one concept that name
   the same counterpart with an exact label on one and `approximate` on the other where the approximate
   caveat says nothing the exact one does not (or two rows of a concept with one caveat and two labels);
3. a `same` side whose caveat describes a difference;
4. (HIP only) a `same` or `renamed` side whose caveat says the HIP spelling returns an error, does
   nothing, ignores an argument or was removed: a port that renames the call compiles and then behaves
   otherwise, so the side is `approximate`.

Each lint is also run on a made-up side that breaks it, so a lint that stops finding anything fails.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

import pytest

from xlate import kb
from xlate.kb import Side

BACKENDS = ("metal", "mlx")


class Labelled(NamedTuple):
    cuda: str
    concept: str | None
    backend: str
    side: Side


# HIP sides a person wrote: curated rows, overrides.yaml, and API family files (glossary/api). Not a
# concept's inherited `none`, nor a naming rule's `derived` guess, whose caveat says only that it is one.
HIP_ORIGINS = ("curated", "override", "family")


def _hand_written_hip(side: Side) -> bool:
    """A HIP side a person labelled or explained: HIPIFY's own rows count only where an API family's
    note gives them a caveat (HIPIFY's "no equivalent" sentence is the import's, not a person's)."""
    if side.origin in HIP_ORIGINS:
        return True
    return side.origin == "hipify" and bool(side.caveat) and not (
        side.relation == "none" and (side.caveat or "").startswith("HIPIFY's tables"))


def _curated_sides() -> Iterator[Labelled]:
    """Every hand-written Metal and MLX side (not a concept's inherited `none`), and every hand-written
    HIP side."""
    smap = kb.load_symbols()
    for cuda in smap.names():
        entry = smap.get(cuda)
        if entry is None or entry.row is None:
            continue
        for backend in BACKENDS:
            side = entry.row.sides.get(backend)
            if side is not None and side.origin == "curated":
                yield Labelled(cuda, entry.row.concept, backend, side)
        side = entry.row.sides.get("hip")
        if side is not None and _hand_written_hip(side):
            yield Labelled(cuda, entry.row.concept, "hip", side)


@pytest.fixture(scope="module")
def sides() -> list[Labelled]:
    return list(_curated_sides())


def _sentences(text: str | None) -> list[str]:
    return [s for s in re.split(r"(?<=[.;:])\s+", text or "") if s.strip()]


def _kind(relation: str) -> str:
    """same and renamed are one kind (the names decide between them); approximate and none are others."""
    return "exact" if relation in ("same", "renamed") else relation


# --- 1. `none` that recommends a counterpart -----------------------------------------------------------

# Phrases by which a caveat offers one spelling as the thing to write instead.
_RECOMMENDS = re.compile(
    r"\b(?:the )?(?:nearest|closest)(?: counterpart| equivalent| match| spelling)? is\b"
    r"|\b(?:does|gives) the same\b|\bis (?:an )?equivalent\b|\bequivalent to\b|\b(?:is|works) the same as\b"
    r"|\bmaps (?:directly )?to\b|\bcorresponds to\b|\bdrop-in\b", re.I)
# "use X" / "use X instead": a recommendation of one spelling, unless the sentence limits it to a case
# (when, if, for ...), builds something out of it (X(...), X of ...), or is a recipe (emulate, port, loop).
_USE = re.compile(r"\buse\s+`?([A-Za-z_][\w:.]*(?:<[^>]*>)?)`?(?:\s+instead)?(?=[\s.,;)]|$)(?!\s*\(|\s+of\b)", re.I)
_LIMITED = re.compile(r"\b(?:when|if|unless|for|where|emulate|port|loop|by hand|with care|refine)\b", re.I)
# A header row whose caveat tells the reader to include another header names its counterpart header, even
# where the sentence limits it to some calls (the nvtx3/nvToolsExtCudaRt.h audit case).
_INCLUDE = re.compile(r"\binclude\s+`?<?([\w./+-]+\.(?:h|hpp|cuh))\b", re.I)
_HEADER = re.compile(r"\.(?:h|hpp|cuh)$")
# A caveat that says why the named thing is no counterpart keeps its `none`.
_WHY_NOT = re.compile(r"\bno single\b|\bnot a counterpart\b|\bis no counterpart\b|\btakes (?:two|several)\b", re.I)


def _names_of(sides: Iterable[Labelled]) -> dict[str, set[str]]:
    """Spellings a side could give: per backend, every symbol some row gives it."""
    names: dict[str, set[str]] = defaultdict(set)
    for lab in sides:
        if lab.side.symbol:
            names[lab.backend].add(lab.side.symbol)
    return names


Hit = tuple[tuple[str, str], str]  # ((cuda, backend), message)


def none_recommends(sides: Iterable[Labelled], names: dict[str, set[str]]) -> list[Hit]:
    out = []
    for lab in sides:
        if lab.side.relation != "none" or _WHY_NOT.search(lab.side.caveat or ""):
            continue
        for sentence in _sentences(lab.side.caveat):
            found = _RECOMMENDS.search(sentence)
            use = _USE.search(sentence)
            if use and not _LIMITED.search(sentence) and use.group(1) in names.get(lab.backend, set()):
                found = use
            if _HEADER.search(lab.cuda) and (include := _INCLUDE.search(sentence)):
                found = include
            if found:
                out.append(((lab.cuda, lab.backend),
                            f"{lab.cuda} {lab.backend}: 'none', but its caveat offers a counterpart ('{found.group(0)}'): "
                            "make it 'approximate' with that symbol, or say why it is no counterpart"))
                break
    return out


# (cuda, backend) -> why the hit is not a mislabel.
NONE_RECOMMENDS_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("cg::tiled_partition", "metal"): "'maps to' names whole function families per tile size (simd_*, quad_*), not one spelling",
    ("cooperative_groups::tiled_partition", "metal"): "the alias of cg::tiled_partition, the same caveat",
    ("cuFuncSetCacheConfig", "hip"): "'maps to' pairs the cache enums inside the reason a renamed call hands over the wrong "
                                      "handle (hipFuncSetCacheConfig takes const void*, and the header says AMD ignores the hint)",
}


def test_a_none_side_does_not_recommend_a_counterpart(sides: list[Labelled]) -> None:
    found = none_recommends(sides, _names_of(sides))
    hits = [msg for key, msg in found if key not in NONE_RECOMMENDS_EXCEPTIONS]
    assert not hits, "\n".join(hits)
    stale = set(NONE_RECOMMENDS_EXCEPTIONS) - {key for key, _ in found}
    assert not stale, f"exceptions that no longer hit, remove them: {sorted(stale)}"


# --- 2. siblings -----------------------------------------------------------------------------------------

def _stem(cuda: str, known: set[str]) -> str:
    """The spelling with a scope, sync or float suffix removed; atomic_ref is atomic's reference form."""
    stem = re.sub(r"_(?:block|system|sync)$", "", cuda).replace("cuda::atomic_ref", "cuda::atomic")
    if stem.endswith("f") and stem[:-1] in known:
        stem = stem[:-1]
    return stem


def suffix_siblings_disagree(sides: Iterable[Labelled]) -> list[str]:
    sides = list(sides)
    known = {lab.cuda for lab in sides}
    groups: dict[tuple[str, str], list[Labelled]] = defaultdict(list)
    for lab in sides:
        groups[(lab.backend, _stem(lab.cuda, known))].append(lab)
    out = []
    for (backend, stem), labs in sorted(groups.items()):
        if len({_kind(lab.side.relation) for lab in labs}) > 1:
            labels = ", ".join(f"{lab.cuda} {lab.side.relation}" for lab in sorted(labs))
            out.append(f"{stem} {backend}: spellings that differ only by a suffix are labelled differently ({labels})")
    return out


def concept_siblings_disagree(sides: Iterable[Labelled]) -> list[str]:
    sides = list(sides)
    out = []
    # One caveat, two kinds of label: the text cannot be what tells them apart.
    by_caveat: dict[tuple[str, str | None, str], list[Labelled]] = defaultdict(list)
    for lab in sides:
        if lab.side.caveat:
            by_caveat[(lab.backend, lab.concept, " ".join(lab.side.caveat.split()))].append(lab)
    for (backend, concept, _), labs in sorted(by_caveat.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[0][2][:40])):
        if len({_kind(lab.side.relation) for lab in labs}) > 1:
            labels = ", ".join(f"{lab.cuda} {lab.side.relation}" for lab in sorted(labs))
            out.append(f"{concept} {backend}: one caveat under different labels ({labels})")
    # The same counterpart, exact on one row and approximate on another: the approximate caveat must say
    # something the exact one does not.
    by_symbol: dict[tuple[str, str | None, str], list[Labelled]] = defaultdict(list)
    for lab in sides:
        if lab.side.symbol:
            by_symbol[(lab.backend, lab.concept, lab.side.symbol)].append(lab)
    for (backend, concept, symbol), labs in sorted(by_symbol.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        exact = [lab for lab in labs if _kind(lab.side.relation) == "exact"]
        for lab in labs:
            if lab.side.relation != "approximate":
                continue
            said = {s.strip().rstrip(".").lower() for s in _sentences(lab.side.caveat)}
            for other in exact:
                if said <= {s.strip().rstrip(".").lower() for s in _sentences(other.side.caveat)}:
                    out.append(f"{concept} {backend} {symbol}: {lab.cuda} is 'approximate' and {other.cuda} "
                               f"'{other.side.relation}', but the approximate caveat says nothing the other does not")
    return out


# message -> why it is not a mislabel. Empty: the one hit (cuda::atomic_ref) was fixed.
SIBLING_EXCEPTIONS: dict[str, str] = {}


def test_suffix_siblings_get_the_same_kind_of_label(sides: list[Labelled]) -> None:
    hits = [h for h in suffix_siblings_disagree(sides) if h not in SIBLING_EXCEPTIONS]
    assert not hits, "\n".join(hits)


def test_concept_siblings_explain_a_different_label(sides: list[Labelled]) -> None:
    hits = [h for h in concept_siblings_disagree(sides) if h not in SIBLING_EXCEPTIONS]
    assert not hits, "\n".join(hits)


# --- 3. `same` whose caveat describes a difference ------------------------------------------------------

_DIFFERENCE = re.compile(r"\b(?:differs?|different(?:ly)?|unlike|but|only|not|except|whereas|however|cannot|"
                         r"unless|instead)\b", re.I)


def _caveat_hits(sides: Iterable[Labelled], keep: Callable[[Labelled], bool], words: re.Pattern[str],
                 about: re.Pattern[str] | None, say: Callable[[Labelled, str, str], str]) -> list[Hit]:
    """For each side `keep` selects, the first caveat sentence that `words` finds (and `about`, if given):
    one hit, worded by `say(side, words found, sentence)`."""
    out = []
    for lab in sides:
        if not keep(lab):
            continue
        for sentence in _sentences(lab.side.caveat):
            found = words.search(sentence)
            if found and (about is None or about.search(sentence)):
                out.append(((lab.cuda, lab.backend), say(lab, found.group(0), sentence.strip())))
                break
    return out


def same_describes_difference(sides: Iterable[Labelled]) -> list[Hit]:
    return _caveat_hits(sides, lambda lab: lab.side.relation == "same", _DIFFERENCE, None,
                        lambda lab, word, sentence: f"{lab.cuda} {lab.backend}: 'same', but its caveat describes a "
                        f"difference ('{word}' in: {sentence}): make it 'approximate' or reword")


# (cuda, backend) -> why the sentence restates sameness. Empty: the HIP hits (half, half2: "unless
# HIP_NO_HALF is defined") now say that CUDA_NO_HALF does the same in cuda_fp16.h.
SAME_EXCEPTIONS: dict[tuple[str, str], str] = {}


def test_a_same_side_describes_no_difference(sides: list[Labelled]) -> None:
    hits = [msg for key, msg in same_describes_difference(sides) if key not in SAME_EXCEPTIONS]
    assert not hits, "\n".join(hits)


# --- 4. HIP: an exact label on a call HIP refuses, ignores or dropped ---------------------------------------

# Words by which a caveat says the HIP spelling fails at run time, does nothing, drops an argument or is gone.
_REFUSES = re.compile(
    r"\breturns?\s+(?:only\s+)?hipError\w+|\bhipErrorNotSupported\b|\bnot supported\b|\bunsupported\b"
    r"|\bdoes nothing\b|\bno-op\b|\bignor(?:e|es|ed|ing)\b|\bremoved\b", re.I)
# The sentence is about the HIP side (not CUDA's own deprecation or removal, which a row may mention).
_ABOUT_HIP = re.compile(r"\b(?:HIP|ROCm|AMD|ROCTx|hip[A-Z_a-z]\w*|roc[a-z]\w*)\b")


def hip_exact_refuses(sides: Iterable[Labelled]) -> list[Hit]:
    return _caveat_hits(sides, lambda lab: lab.backend == "hip" and lab.side.relation in ("same", "renamed"),
                        _REFUSES, _ABOUT_HIP,
                        lambda lab, word, sentence: f"{lab.cuda} hip: '{lab.side.relation}', but its caveat says the "
                        f"HIP spelling fails or does less ('{word}' in: {sentence}): make it 'approximate'")


# (cuda, backend) -> why the sentence is no refusal by HIP. Empty: no hit so far.
REFUSES_EXCEPTIONS: dict[tuple[str, str], str] = {}


def test_a_hip_side_that_hip_refuses_is_not_exact(sides: list[Labelled]) -> None:
    found = hip_exact_refuses(sides)
    hits = [msg for key, msg in found if key not in REFUSES_EXCEPTIONS]
    assert not hits, "\n".join(hits)
    stale = set(REFUSES_EXCEPTIONS) - {key for key, _ in found}
    assert not stale, f"exceptions that no longer hit, remove them: {sorted(stale)}"


def test_hip_sides_are_linted(sides: list[Labelled]) -> None:
    """The HIP sides reach the lints from every origin a person writes (a loader change that drops one
    would silently empty the lints for it)."""
    origins = {lab.side.origin for lab in sides if lab.backend == "hip"}
    assert {"curated", "override", "family", "hipify"} <= origins, origins


# --- Each lint catches what it is for --------------------------------------------------------------------

def _side(relation: str, caveat: str, symbol: str | None = None) -> Side:
    return Side(symbol, relation, "curated", caveat, "msl §2.6")


def test_the_lints_catch_made_up_violations() -> None:
    names = {"metal": {"simd_all", "atomic"}, "mlx": {"mx.abs"}}
    assert none_recommends([Labelled("__x", "c", "metal", _side("none", "No vote: simd_all does the same."))], names)
    assert none_recommends([Labelled("__x", "c", "metal", _side("none", "Use simd_all instead."))], names)
    assert none_recommends([Labelled("x", "c", "mlx", _side("none", "The nearest is mx.abs."))], names)
    # A recipe, a case-limited fallback and a stated reason are not recommendations of a counterpart.
    assert not none_recommends([Labelled("__x", "c", "metal", _side("none", "Use simd_all when the mask is full."))], names)
    assert not none_recommends([Labelled("__x", "c", "metal", _side("none", "Emulate with a loop, or use simd_all."))], names)
    assert not none_recommends([Labelled("__x", "c", "metal", _side(
        "none", "No single call does it: the test takes two, and simd_all(p) gives the same answer with simd_any."))], names)

    # The audit's case, as the rows stood: atomic approximate, atomic_ref none.
    atomic = Labelled("cuda::atomic", "scoped-atomics", "metal", _side("approximate", "Relaxed only.", "atomic"))
    ref = Labelled("cuda::atomic_ref", "scoped-atomics", "metal", _side(
        "none", "No atomic reference wrapper: declare the element as an MSL atomic type."))
    assert suffix_siblings_disagree([atomic, ref])
    assert suffix_siblings_disagree([Labelled("atomicOr", "a", "metal", _side("approximate", "x", "f")),
                                     Labelled("atomicOr_block", "a", "metal", _side("renamed", "y", "f"))])
    assert suffix_siblings_disagree([Labelled("sinf", "m", "metal", _side("renamed", "x", "sin")),
                                     Labelled("sin", "m", "metal", _side("none", "No double."))])
    assert not suffix_siblings_disagree([Labelled("sinf", "m", "metal", _side("renamed", "x", "sin")),
                                         Labelled("sin", "m", "metal", _side("same", "y", "sin"))])

    same_text = "half2(a, b) (§2.2.2)."
    assert concept_siblings_disagree([Labelled("a", "c", "metal", _side("renamed", same_text, "half2")),
                                      Labelled("b", "c", "metal", _side("approximate", same_text, "half2"))])
    assert concept_siblings_disagree([Labelled("a", "c", "metal", _side("renamed", "One. Two.", "half2")),
                                      Labelled("b", "c", "metal", _side("approximate", "Two.", "half2"))])
    assert not concept_siblings_disagree([Labelled("a", "c", "metal", _side("renamed", "One.", "half2")),
                                          Labelled("b", "c", "metal", _side("approximate", "Rounds toward zero.", "half2"))])

    assert same_describes_difference([Labelled("int2", "v", "metal", _side("same", "Same layout, but no .w.", "int2"))])
    assert not same_describes_difference([Labelled("int2", "v", "metal", _side("same", "Same size and alignment.", "int2"))])

    # HIP: the nvtx3/nvToolsExtCudaRt.h audit case, as the row stood (a header to include, for some calls).
    assert none_recommends([Labelled("nvtx3/nvToolsExtCudaRt.h", "c", "hip", _side(
        "none", "No separate naming header. Include rocprofiler-sdk-roctx/roctx.h for the calls you port by hand."))], {})
    assert none_recommends([Labelled("x.h", "c", "hip", _side("none", "Nothing separate: use roctx instead."))], {"hip": {"roctx"}})
    # A function row that mentions a header to include is no header counterpart.
    assert not none_recommends([Labelled("__x", "c", "hip", _side("none", "Include hip/hip_fp16.h for the type only."))], {})
    assert same_describes_difference([Labelled("half", "c", "hip", _side("same", "Declared unless HIP_NO_HALF is defined.", "half"))])

    def hip(relation: str, caveat: str) -> list[Labelled]:
        return [Labelled("cudaFoo", "c", "hip", _side(relation, caveat, "hipFoo"))]

    assert hip_exact_refuses(hip("renamed", "ROCm 6.4 implements hipFoo only as returning hipErrorNotSupported."))
    assert hip_exact_refuses(hip("renamed", "HIP ignores the flags argument."))
    assert hip_exact_refuses(hip("same", "In ROCm 6.4 hipFoo does nothing."))
    assert hip_exact_refuses(hip("renamed", "Deprecated in HIP 6.0 and removed in ROCm 7.0."))
    # An approximate side may say so; a sentence about CUDA's own deprecation or removal is no refusal by HIP.
    assert not hip_exact_refuses(hip("approximate", "hipFoo returns hipErrorNotSupported."))
    assert not hip_exact_refuses(hip("renamed", "CUDA 13.0 marks cudaFoo deprecated and CCCL 3.0 removes it."))
    assert not hip_exact_refuses(hip("renamed", "CUDA 12.0 removed the old form; hipFoo takes the same parameters."))
