"""Library API reference section headings (glossary/vocabulary/names-cuda-math-groups.yaml,
names-rocm-library-groups.yaml): every listed heading is a Doxygen group title of the CUDA 13.0 math, CUPTI,
NVTX and libNVVM headers or of the ROCm 6.4 library headers, each heading's card is the card most of its
group's functions reach in lookup now (recomputed with scripts/list_api_groups.py) or a card chosen by
judgement that the section says so of and this test names, every other title is left out for a stated
reason, and lookup answers each heading with its card."""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import glossary_without_rows
from xlate import kb, lookup
from scripts_loader import load_script

_LISTS = {n.names_of: n for n in glossary_without_rows().name_lists}
CUDA = _LISTS.get("CUDA math, CUPTI, NVTX or libNVVM API reference section")
ROCM = _LISTS.get("ROCm math or tools library API reference section")
FILES = {"cuda": CUDA, "rocm": ROCM}

# Headings whose card the majority rule does not give (no majority, or a majority off the group's topic:
# function names another card holds, words of the names another card is named by, or the library prefix
# in a section about a topic with a card of its own); each such group's section begins with "judged".
JUDGED = {
    "cuda": {
        "Half Arithmetic Constants": "fp16-format",
        "Bfloat162 Arithmetic Functions": "bf16-format",
        "Bfloat162 Comparison Functions": "bf16-format",
        "Bfloat162 Math Functions": "bf16-format",
        "FP6 Intrinsics": "block-scaled-formats",
        "FP6 Conversion and Data Movement": "block-scaled-formats",
        "FP4 Intrinsics": "block-scaled-formats",
        "FP4 Conversion and Data Movement": "block-scaled-formats",
        "Event Attributes": "profiling-markers",
    },
    "rocm": {
        "Hardware Topology Functions": "topology-query",
        **dict.fromkeys(
            [
                "PCIe Control",
                "Power Queries",
                "Physical State Control",
                "Version Queries",
                "Software Version Information",
                "Event Notification Functions",
            ],
            "management-library",
        ),
        **dict.fromkeys(
            [
                "Interfaces for defining and obtaining the traits",
                "Traits that can be used",
                "Handy wrappers for obtaining type traits",
                "Thread Load Functions",
                "Thread Store Functions",
                "Thread Search Functions",
                "Thread Exclusive Scan Functions",
                "Thread Inclusive Scan Functions",
                "Thread Reduce Functions",
                "Thread Operators",
            ],
            "parallel-primitives",
        ),
    },
}
# Titles left out because lookup already answers them, without the lists, with the card named here.
ANSWERED = {
    "cuda": {
        "Mathematical Functions": "device-math-functions",
        "Single Precision Mathematical Functions": "device-math-functions",
        "Double Precision Mathematical Functions": "device-math-functions",
        **dict.fromkeys(
            [
                "Half Precision Intrinsics",
                "Half2 Arithmetic Functions",
                "Half2 Comparison Functions",
                "Half2 Math Functions",
                "Half Precision Conversion and Data Movement",
            ],
            "fp16-format",
        ),
        **dict.fromkeys(
            [
                "Bfloat16 Precision Intrinsics",
                "Bfloat16 Arithmetic Constants",
                "Bfloat16 Arithmetic Functions",
                "Bfloat16 Comparison Functions",
                "Bfloat16 Math Functions",
                "Bfloat16 Precision Conversion and Data Movement",
            ],
            "bf16-format",
        ),
        "FP8 Intrinsics": "fp8-formats",
        "FP8 Conversion and Data Movement": "fp8-formats",
        "Markers and Ranges": "profiling-markers",
        **dict.fromkeys(
            [
                "CUPTI Result Codes",
                "CUPTI Version",
                "CUPTI Activity API",
                "CUPTI Callback API",
                "CUPTI Event API",
                "CUPTI Metric API",
                "CUPTI Checkpoint API",
                "CUPTI Profiling API",
                "CUPTI Profiler Host API",
                "CUPTI Range Profiling API",
                "CUPTI SASS Metrics API",
            ],
            "counter-api",
        ),
        "CUPTI PC Sampling API": "kernel-profiler",
        "CUPTI PC Sampling Utility API": "kernel-profiler",
        "CUPTI PM Sampling API": "kernel-profiler",
    },
    "rocm": {
        "hipRAND device functions": "rng",
        "Trait definitions for rocPRIM arithmetic types and additional traits for": "parallel-primitives",
        "ROCTX Markers": "profiling-markers",
        "ROCTX Ranges": "profiling-markers",
        "Compute Partition Functions": "gpu-partitioning",
        "Memory Partition Functions": "gpu-partitioning",
        "Accelerator Partition Profile Functions": "gpu-partitioning",
        "XGMI Functions": "gpu-link",
        "xGMI bandwidth control": "gpu-link",
        "GPU Monitoring": "fleet-monitoring",
    },
}
# Titles of common words left out: a heading would answer questions about something else.
GENERIC = {
    "cuda": {"General", "Memory", "Domains", "Synchronization", "Compilation"},
    "rocm": {
        "Data types",
        "Auxilary functions",
        "Auxiliary functions",
        "Versioning",
        "Symbol Versions",
        "Library management functions",
    },
}
# ROCm headers outside hip/ that define a group the script does not read, and why: rocThrust's one group
# (Memory Management) has a title the CUDA runtime list holds.
ROCM_UNREAD = {"thrust/memory.h"}
# CUDA headers that define a group the script does not read: the runtime API's data types group, which
# declares types and no functions (the runtime list's business).
CUDA_UNREAD = {"driver_types.h"}


def _script() -> ModuleType:
    return load_script("list_api_groups")


def _listed(names: kb.NameList | None) -> dict[str, tuple[str | None, str]]:
    """Each heading -> (card, section of its group)."""
    return {n: (g.card, g.section) for g in (names.groups if names else []) for n in g.names}


@cache
def _include(vendor: str) -> Path:
    """The include folder of the release a file lists; skipped where it is missing or another release."""
    if vendor == "cuda":
        from xlate.cuda_headers import absent_reason, find_cuda_headers

        cuda = find_cuda_headers()
        if cuda is None:
            pytest.skip(absent_reason())
        if cuda.version[:2] != (13, 0):
            pytest.skip(f"CUDA {cuda.version_text} headers are installed; the list holds CUDA 13.0's sections")
        return cuda.include
    from xlate.hip_headers import absent_reason as rocm_absent
    from xlate.hip_headers import find_rocm_headers

    rocm = find_rocm_headers()
    if rocm is None:
        pytest.skip(rocm_absent())
    if rocm.version[:2] != (6, 4):
        pytest.skip(f"HIP {rocm.version_text} headers are found; the list holds ROCm 6.4's sections")
    return rocm.include


@cache
def _header_groups(vendor: str) -> list[Any]:
    script = _script()
    include = _include(vendor)
    return list(script.cuda_library_groups(include) if vendor == "cuda" else script.rocm_library_groups(include))


def _answer(query: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, json.loads(out.getvalue())


def test_both_lists_load_and_hold_headings() -> None:
    assert CUDA is not None and ROCM is not None
    assert CUDA.version == "CUDA 13.0" and ROCM.version == "ROCm 6.4"
    assert not [p for p in glossary_without_rows().problems if "-groups" in str(p)]


@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_judged_headings_are_those_whose_section_says_so(vendor: str) -> None:
    listed = _listed(FILES[vendor])
    judged = {h: card for h, (card, section) in listed.items() if section.startswith("judged")}
    assert judged == JUDGED[vendor]


def test_no_heading_is_a_spelling_a_card_or_another_list_already_holds() -> None:
    index = kb.load_index()
    kinds = {entry[2] for entry in index["labels"]}
    held = {}
    for names in (CUDA, ROCM):
        for heading in _listed(names):
            found = kb.search(index, heading)
            if found and found[0].kind in kinds:
                held[heading] = found[0].concept
    assert not held, held
    ours = set(_listed(CUDA)) | set(_listed(ROCM))
    others = {
        n.lower() for lst in glossary_without_rows().name_lists if lst not in (CUDA, ROCM) for g in lst.groups for n in g.names
    }
    assert not {h for h in ours if h.lower() in others}
    assert not set(_listed(CUDA)) & set(_listed(ROCM))


@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_titles_left_out_as_answered_get_that_card_from_lookup(vendor: str) -> None:
    wrong = {}
    for title, card in ANSWERED[vendor].items():
        code, payload = _answer(title)
        top = payload["matches"][0] if payload["matches"] else {}
        if code != 0 or top.get("concept") != card:
            wrong[title] = (card, top.get("concept"))
    assert not wrong, wrong


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_every_heading_is_a_group_title_of_the_headers(vendor: str) -> None:
    titles = {g.title for g in _header_groups(vendor)}
    missing = sorted(set(_listed(FILES[vendor])) - titles)
    assert not missing, missing


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_every_title_is_listed_or_left_out_for_a_reason(vendor: str) -> None:
    script = _script()
    index = kb.load_index()
    listed = set(_listed(FILES[vendor]))
    left_out = set(ANSWERED[vendor]) | GENERIC[vendor]
    titles = {g.title for g in _header_groups(vendor)}
    unlisted = {t for t in titles - listed - left_out if t and script.listable(t) and script.carried_by(index, t) is None}
    assert not unlisted, sorted(unlisted)
    assert not left_out & listed
    assert left_out <= titles, sorted(left_out - titles)


@pytest.mark.slow
@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_each_headings_card_is_the_card_most_of_its_functions_reach(vendor: str) -> None:
    """A card: the majority of a group of that title, any other group of the title having none. No card:
    no group of that title has a majority. A judged heading's card is the one JUDGED names."""
    script = _script()
    index = kb.load_index()
    majorities: dict[str, set[str | None]] = {}
    for group in _header_groups(vendor):
        majorities.setdefault(group.title, set()).add(script.majority(script.votes(index, group)))
    wrong: dict[str, tuple[str | None, set[str | None]]] = {}
    for heading, (card, section) in _listed(FILES[vendor]).items():
        found = majorities.get(heading, set())
        if section.startswith("judged"):
            if JUDGED[vendor].get(heading) != card or card in found:
                wrong[heading] = (card, found)  # judged where the rule already gives it: say so plainly
        elif card is not None:
            if card not in found or not found - {card} <= {None}:
                wrong[heading] = (card, found)
        elif found != {None}:
            wrong[heading] = (card, found)
    assert not wrong, wrong


_DEFINES = re.compile(rb"[\\@]defgroup[ \t]+\w+")


@pytest.mark.parametrize("vendor", ["cuda", "rocm"])
def test_every_header_that_defines_a_group_is_read(vendor: str) -> None:
    """The headers the lists come from are all those of the include folder that define a Doxygen group
    (the runtime, driver and HIP runtime API headers belong to the API group lists); CUDA's CCCL folder
    and ROCm's HIP runtime folder are left to those."""
    script = _script()
    include = _include(vendor)
    if vendor == "cuda":
        read = set(script.CUDA_RUNTIME + script.CUDA_DRIVER + script.CUDA_MATH + script.CUDA_TOOLS) | CUDA_UNREAD
        skip = ("cccl/",)
    else:
        read = set(script.ROCM_LIBRARIES + script.HIP) | ROCM_UNREAD
        skip = ("hip/",)
    defining = set()
    for path in include.rglob("*.h*"):
        shown = path.relative_to(include).as_posix()
        if path.is_file() and not shown.startswith(skip) and _DEFINES.search(path.read_bytes()):
            defining.add(shown)
    assert defining - read == set(), sorted(defining - read)


def test_the_parser_reads_functions_without_a_prefix_their_ingroup_and_subgroups(tmp_path: Path) -> None:
    header = tmp_path / "math.h"
    header.write_text("""
/** \\defgroup TOP Top Things
 */
/** \\defgroup A Group A
 *  \\ingroup TOP
 *  \\defgroup B Group B
 *  \\ingroup TOP */
/**
 * \\ingroup A
 * \\brief one
 */
extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ float fabsf(float x) __THROW;
/**
 * \\ingroup B
 */
static __device__ __forceinline__ unsigned int __vadd2(unsigned int a, unsigned int b)
{
    unsigned int r;
    asm("vadd2.u32.u32.u32 %0,%1,%2,%3;" : "=r"(r) : "r"(a), "r"(b), "r"(0));
    return helper(r);
}
/// \\addtogroup A
/// @{
ROCPRIM_DEVICE T thread_load(T* ptr);
/// @}
""")
    groups: dict[str, Any] = {}
    script = _script()
    script.parse(header, "math.h", "math", groups, any_name=True)
    script.with_subgroups(list(groups.values()))
    got = {gid: (g.title, g.functions) for gid, g in groups.items()}
    assert got == {
        "TOP": ("Top Things", ["fabsf", "thread_load", "__vadd2"]),
        "A": ("Group A", ["fabsf", "thread_load"]),
        "B": ("Group B", ["__vadd2"]),
    }


@pytest.mark.parametrize(
    ("query", "card"),
    [
        ("Single Precision Intrinsics", "fast-math-intrinsics"),
        ("single precision intrinsics", "fast-math-intrinsics"),
        ("SIMD Intrinsics", "integer-intrinsics"),
        ("Integer Intrinsics", "integer-intrinsics"),
        ("Half Arithmetic Functions", "fp16-format"),
        ("Half Precision Intrinsics", "fp16-format"),
        ("FP8 Conversion and Data Movement", "fp8-formats"),
        ("Bfloat162 Arithmetic Functions", "bf16-format"),
        ("FP4 Conversion and Data Movement", "block-scaled-formats"),
        ("Resource Naming", "profiling-markers"),
        ("Thread Reduce Functions", "parallel-primitives"),
        ("PCIe Queries", "management-library"),
        ("Hardware Topology Functions", "topology-query"),
        ("GPU Monitoring", "fleet-monitoring"),
        ("Memory CUDA Runtime", "profiling-markers"),
        ("Pstate selection", "management-library"),
        ("FP128 Quad Precision Mathematical Functions", None),
        ("GMI3 width control", None),
    ],
)
def test_lookup_answers_a_heading_with_its_card(query: str, card: str | None) -> None:
    code, payload = _answer(query)
    if card is None:
        assert code == 1 and not payload["matches"], payload["matches"][:1]
        assert payload.get("package", {}).get("card", "absent") is None, payload.get("package")
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert code == 0 and top.get("concept") == card, (top.get("concept"), top.get("matched_kind"))
