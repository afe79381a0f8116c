"""API reference section headings (glossary/vocabulary/names-cuda-api-groups.yaml, names-hip-api-groups.yaml):
every listed heading is a Doxygen group title of the CUDA 13.0 or ROCm 6.4 headers the file cites, each
heading's card is the card most of its group's functions reach in lookup now (recomputed with
scripts/list_api_groups.py), every other title is left out for a stated reason, and lookup answers a
heading typed in any case with its card."""

from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import glossary_without_rows
from xlate import kb, lookup
from scripts_loader import load_script

_LISTS = {n.names_of: n for n in glossary_without_rows().name_lists}
CUDA = _LISTS.get("CUDA runtime or driver API reference section")
HIP = _LISTS.get("HIP runtime API reference section")
FILES = {"cuda": CUDA, "hip": HIP}

# Titles of the headers that neither list holds, though a name list could and no card spells them:
# lookup already answers their words with a card (a null entry would hide it), or the title is one
# generic word.
LEFT_OUT = {"cuda": {"Interactions with the CUDA Driver API", "Initialization"}, "hip": {"HIP API"}}
# The two reasons a null group gives for setting a majority aside: cu* names reach the driver API card by
# default, and cudaGraphics* / cuGraphics* names reach the graphs card by their cudaGraph / cuGraph prefix.
SET_ASIDE = {"driver-api", "graphs"}
TOO_FEW = "fewer than half"


def _script() -> ModuleType:
    return load_script("list_api_groups")


def _listed(names: kb.NameList | None) -> dict[str, tuple[str | None, str]]:
    """Each heading -> (card, section of its group)."""
    return {n: (g.card, g.section) for g in (names.groups if names else []) for n in g.names}


@cache
def _header_groups(vendor: str) -> list[Any]:
    """The Doxygen groups of the headers a file cites, parsed by the script; skipped where the headers
    here are not the release the file lists."""
    from xlate.cuda_headers import absent_reason as cuda_absent
    from xlate.cuda_headers import find_cuda_headers
    from xlate.hip_headers import absent_reason as rocm_absent
    from xlate.hip_headers import find_rocm_headers

    script = _script()
    if vendor == "cuda":
        cuda = find_cuda_headers()
        if cuda is None:
            pytest.skip(cuda_absent())
        if cuda.version[:2] != (13, 0):
            pytest.skip(f"CUDA {cuda.version_text} headers are installed; the list holds CUDA 13.0's sections")
        return list(script.cuda_groups(cuda.include))
    rocm = find_rocm_headers()
    if rocm is None:
        pytest.skip(rocm_absent())
    if rocm.version[:2] != (6, 4):
        pytest.skip(f"HIP {rocm.version_text} headers are found; the list holds ROCm 6.4's sections")
    return list(script.hip_groups(rocm.include))


def test_both_lists_load_and_hold_headings() -> None:
    assert CUDA is not None and HIP is not None
    assert CUDA.version == "CUDA 13.0" and HIP.version == "ROCm 6.4"
    for names in (CUDA, HIP):
        listed = _listed(names)
        assert listed and all(" " in n or n[0].isupper() for n in listed), listed
    assert not [p for p in glossary_without_rows().problems if "api-groups" in str(p)]


def test_a_title_in_both_lists_has_one_card() -> None:
    """The CUDA file is read first and keeps a title both hold: the HIP file must agree with it."""
    cuda, hip = _listed(CUDA), _listed(HIP)
    differ = {t: (cuda[t][0], hip[t][0]) for t in set(cuda) & set(hip) if cuda[t][0] != hip[t][0]}
    assert not differ, differ


def test_no_heading_is_a_spelling_a_card_already_holds() -> None:
    """A card's name, alias, title or symbol answers before a name list does."""
    index = kb.load_index()
    kinds = {entry[2] for entry in index["labels"]}
    held = {}
    for names in (CUDA, HIP):
        for heading in _listed(names):
            found = kb.search(index, heading)
            if found and found[0].kind in kinds:
                held[heading] = found[0].concept
    assert not held, held


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "hip"])
def test_every_heading_is_a_group_title_of_the_headers(vendor: str) -> None:
    titles = {g.title for g in _header_groups(vendor)}
    missing = sorted(set(_listed(FILES[vendor])) - titles)
    assert not missing, missing


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "hip"])
def test_every_title_is_listed_or_left_out_for_a_reason(vendor: str) -> None:
    script = _script()
    index = kb.load_index()
    listed = set(_listed(FILES[vendor]))
    unlisted = set()
    for title in {g.title for g in _header_groups(vendor)} - listed - LEFT_OUT[vendor]:
        if title and script.listable(title) and script.carried_by(index, title) is None:
            unlisted.add(title)
    assert not unlisted, sorted(unlisted)
    assert not LEFT_OUT[vendor] & listed


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "hip"])
def test_each_headings_card_is_the_card_most_of_its_functions_reach(vendor: str) -> None:
    """A card: the majority of at least one group of that title (another group of the same title may
    reach only the driver API card, which cu* names get by default). No card: every group is without a
    majority, or the group's section sets a driver API or graphs majority aside and says why."""
    script = _script()
    index = kb.load_index()
    majorities: dict[str, set[str | None]] = {}
    for group in _header_groups(vendor):
        majorities.setdefault(group.title, set()).add(script.majority(script.votes(index, group)))
    wrong: dict[str, tuple[str | None, set[str | None]]] = {}
    for heading, (card, section) in _listed(FILES[vendor]).items():
        found = majorities.get(heading, set())
        if card is not None:
            if card not in found or not found - {card} <= {None, "driver-api"}:
                wrong[heading] = (card, found)
        elif TOO_FEW in section:
            if found != {None}:
                wrong[heading] = (card, found)
        elif not (found - {None}) or not found - {None} <= SET_ASIDE:
            wrong[heading] = (card, found)
    assert not wrong, wrong


def test_the_parser_reads_nested_groups_and_a_functions_own_ingroup(tmp_path: Path) -> None:
    header = tmp_path / "api.h"
    header.write_text("""
/** @defgroup API The API
 *  @{ */
/** @defgroup Memory Memory Management
 *  @{ */
hipError_t hipMalloc(void** p, size_t n);
/** @defgroup Inner Inner Things
 *  @{
 *  @ingroup Memory */
hipError_t hipInner(int x);
/** @} */
/** @brief old
 *  @ingroup Inner */
HIP_DEPRECATED("x")
hipError_t hipOld(void);
extern __host__ cudaError_t CUDARTAPI cudaThing(int a);
/** @} */
/** @} */
static inline hipError_t hipWrapper(int x) { return hipMalloc(0, x); }  // outside every group
""")
    groups: dict[str, Any] = {}
    _script().parse(header, "api.h", "HIP", groups)
    got = {gid: (g.title, g.functions) for gid, g in groups.items()}
    assert got == {"API": ("The API", []), "Memory": ("Memory Management", ["hipMalloc", "cudaThing"]),
                   "Inner": ("Inner Things", ["hipInner", "hipOld"])}


def test_a_majority_needs_half_of_the_placed_functions_and_two_of_them() -> None:
    from collections import Counter

    majority = _script().majority
    assert majority(Counter({"stream": 2, "event": 2})) == "stream"
    assert majority(Counter({"stream": 2, "event": 1, "graphs": 2})) is None
    assert majority(Counter({"driver-api": 1})) is None
    assert majority(Counter()) is None


def _answer(query: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize(("query", "card"), [
    ("Primary Context Management", "driver-api"),
    ("primary context management", "driver-api"),
    ("COREDUMP ATTRIBUTES CONTROL API", "driver-api"),
    ("Green Contexts", "driver-api"),
    ("Graph Management", "graphs"),
    ("stream management", "stream"),
    ("Event Management", "event"),
    ("Texture Object Management", "texture-memory"),
    ("Library Management", "module-loading"),
    ("Profiler Control", "profiling-markers"),
    ("Tensor Map Object Managment", "tensor-memory-accelerator"),
    ("Error Log Management Functions", "error-handling"),
    ("PeerToPeer Device Memory Access", "peer-access"),
    ("Launch API to support the triple-chevron syntax", "kernel-launch"),
    ("initialization and version", "driver-api"),
    ("Unified Addressing", None),
    ("Driver Entry Point Access", None),
    ("memory management", None),
    ("Graphics Interoperability", None),
])
def test_lookup_answers_a_heading_in_any_case_with_its_card(query: str, card: str | None) -> None:
    code, payload = _answer(query)
    if card is None:
        assert code == 1 and not payload["matches"], payload["matches"][:1]
        assert payload.get("package", {}).get("card", "absent") is None, payload.get("package")
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert code == 0 and top.get("concept") == card, (top.get("concept"), top.get("matched_kind"))
