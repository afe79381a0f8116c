"""Section headings of AMD's ROCm documentation (with the ROCm Compute Profiler and ROCprofiler-SDK docs)
and of LLVM's AMDGPUUsage page as name lists (glossary/vocabulary/names-rocm-doc-sections.yaml,
names-amdgpu-usage-sections.yaml), proved from the stored extracts that scripts/list_rocm_doc_headings.py
wrote (tests/data/rocm_doc_headings.txt, amdgpu_usage_headings.txt; repositories, commits and folders on
their first lines): every listed heading is in its extract, and every extracted heading is listed,
answered already by lookup with the card kept in tests/data/*_headings_answered.tsv (checked here), or
left out for a reason this file states (tests/data/*_headings_left_out.tsv and the rules below). The
shared checks of tests/heading_lists.py hold too: several words, no card's label, in no other list,
lookup answers one heading per group with its card, and each carded heading adds an answer."""

from __future__ import annotations

import io
import json
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

import heading_lists
from conftest import REPO
from xlate import kb, lookup
from scripts_loader import load_script

DATA = REPO / "tests" / "data"
ROCM, AMDGPU = "ROCm documentation section heading", "AMDGPU backend user guide section heading"
FILES = {ROCM: "names-rocm-doc-sections.yaml", AMDGPU: "names-amdgpu-usage-sections.yaml"}
EXTRACTS = {ROCM: "rocm_doc", AMDGPU: "amdgpu_usage"}
SOURCES = {
    ROCM: {
        "ROCm/ROCm": ("docs",),
        "ROCm/rocm-systems": ("projects/rocprofiler-compute/docs", "projects/rocprofiler-sdk/source/docs"),
    },
    AMDGPU: {"fly-lang/fly": ("llvm/docs/AMDGPUUsage.rst",)},
}
PROVENANCE = re.compile(
    r"^# (?P<repo>[\w.-]+/[\w.-]+) (?P<commit>[0-9a-f]{40})(?: \([^)]*\))? (?P<folders>.+): "
    r"(?P<count>\d+) headings$"
)
# What a name list can hold (the vocabulary schema's pattern for a heading of several words).
SPELLABLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 /&+,'().:-]*[A-Za-z0-9)]$")

# Why a heading is left out: the reasons the left-out tables name, then the rules applied to every heading.
REASONS = {
    "generic": "says what kind of section it is (options, output, setup, records, examples, steps, notes), "
    "not a GPU topic of its own",
    "nocard": "no card covers the section (framework and serving knobs, system and install settings, profiler "
    "and SDK plumbing, DWARF and PAL details, product pages of GPUs no card covers), and lookup "
    "answering nothing is right",
    "plain": "lookup answers the plain sense of the words (or another list's entry: Memory Model and Context "
    "management are the HIP and CUDA lists'); the page's narrower sense is not worth the phrase",
}
ONE_WORD = (
    "one word (Overview, Introduction, Prerequisites, Usage, Libraries, OpenCL, MUBUF ...): too generic, "
    "or a bare term a heading list does not claim"
)
UNSPELLABLE = (
    "not a name a list can hold: a question, a trademark sign, an HTML comment, an equation or a directive with its arguments"
)
# Pages whose headings are left out unless the same heading is also on a page read in full.
LEFT_OUT_PAGES = {
    re.compile(r"/docs/archive/"): "the archived Omniperf 1.x and 2.x docs (the current pages hold the same sections)",
    re.compile(
        r"/(install|contribute|about|release|compatibility)/|license|README\.md|build-rocm"
    ): "installation, build, contribution, licence and release pages",
    re.compile(
        r"rocm-for-ai/(training|fine-tuning|inference)/|inference-optimization/(model-|optimizing-with)|"
        r"ai-pytorch-inception"
    ): "AI framework how-tos (training, fine-tuning, serving, model libraries, "
    "quantization): framework steps, no GPU programming topic",
    re.compile(
        r"system-optimization/|file-reorg|cmake-packages|Bar-Memory|iommu"
    ): "system administration pages (BIOS, GRUB, OS, IOMMU, BAR, file layout) and the CMake page "
    "(names-cmake-gpu.yaml names CMake's GPU terms)",
}


@cache
def extract(names_of: str) -> tuple[list[re.Match[str]], list[tuple[str, str, str, str]]]:
    lines = (DATA / f"{EXTRACTS[names_of]}_headings.txt").read_text(encoding="utf-8").splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = [tuple(line.split("\t")) for line in lines if not line.startswith("#")]
    provenance = [PROVENANCE.match(c) for c in comments]
    assert comments and all(provenance), comments
    assert lines[: len(comments)] == comments, "the provenance lines come first"
    assert all(len(r) == 4 for r in rows), [r for r in rows if len(r) != 4][:3]
    return provenance, rows  # type: ignore[return-value]


def table(names_of: str, kind: str) -> dict[str, str]:
    path = DATA / f"{EXTRACTS[names_of]}_headings_{kind}.tsv"
    pairs = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert all(len(p) == 2 for p in pairs), [p for p in pairs if len(p) != 2][:3]
    out = dict(pairs)  # type: ignore[arg-type]
    assert len(out) == len(pairs), f"{path.name} names a heading twice"
    return out


@cache
def _index() -> kb.Index:
    return kb.load_index()


LISTS = pytest.mark.parametrize("names_of", [ROCM, AMDGPU])


# --- the extracts name their sources ----------------------------------------------------------------------


@LISTS
def test_each_extract_names_repository_commit_and_folders_and_holds_what_it_counts(names_of: str) -> None:
    provenance, rows = extract(names_of)
    named = {m["repo"]: tuple(m["folders"].split()) for m in provenance}
    assert named == SOURCES[names_of]
    for m in provenance:
        mine = [r for r in rows if r[0] == m["repo"]]
        assert len(mine) == int(m["count"]), m.group(0)
        assert all(r[1].startswith(named[m["repo"]]) for r in mine)
        assert m["commit"] in heading_lists.name_list(names_of).version
    assert {r[2] for r in rows} <= {"rst", "md", "toc-caption", "toc-title"}


def _script() -> ModuleType:
    return load_script("list_rocm_doc_headings")


def test_the_script_reads_pages_and_the_table_of_contents_with_the_shared_parsers() -> None:
    script = _script()
    rst = "Kernel Descriptor\n=================\n\n.. code-block:: text\n\n  Not a title\n  -----------\n"
    assert script.page_headings("docs/a.rst", rst) == [("rst", "Kernel Descriptor")]
    md = "# Using ``rocprofv3``\n\n```\n# no\n```\n"
    assert script.page_headings("docs/a.md", md) == [("md", "Using rocprofv3")]
    toc = "subtrees:\n- caption: Conceptual\n  entries:\n  - file: a\n    title: Compute unit\n"
    assert script.page_headings("docs/sphinx/_toc.yml.in", toc) == [("toc-caption", "Conceptual"), ("toc-title", "Compute unit")]
    assert script.page_headings("docs/conf.py", "x = 1") == []


# --- every listed heading is extracted; every extracted heading is accounted for --------------------------


@LISTS
def test_every_listed_heading_is_in_the_extract(names_of: str) -> None:
    _, rows = extract(names_of)
    extracted = {r[3] for r in rows}
    missing = sorted(h for h in heading_lists.headings(names_of) if h not in extracted)
    assert not missing, missing


def _left_out_by_page(paths: set[str]) -> str | None:
    """The reason every page a heading is on is left out, or None if one of them is read in full."""
    reasons = [next((why for page, why in LEFT_OUT_PAGES.items() if page.search(p)), None) for p in paths]
    return reasons[0] if all(reasons) else None


@LISTS
def test_every_extracted_heading_is_listed_answered_or_left_out_for_a_reason(names_of: str) -> None:
    _, rows = extract(names_of)
    paths: dict[str, set[str]] = {}
    for _, path, _, text in rows:
        paths.setdefault(text, set()).add(path)
    listed = {h.casefold() for h in heading_lists.headings(names_of)}
    answered, left = table(names_of, "answered"), table(names_of, "left_out")
    assert set(left.values()) <= set(REASONS), set(left.values()) - set(REASONS)
    stale = sorted(h for h in {*answered, *left} if h not in paths or h.casefold() in listed)
    assert not stale, f"in a table but not extracted, or listed: {stale}"
    unaccounted = []
    for heading, where in paths.items():
        if heading.casefold() in listed or heading in answered or heading in left:
            continue
        if " " in heading and SPELLABLE.match(heading) and not _left_out_by_page(where):
            unaccounted.append(heading)
    assert not unaccounted, f"extracted headings neither listed, answered nor left out: {unaccounted}"


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
@LISTS
def test_lookup_answers_each_heading_kept_as_answered_with_its_card(names_of: str) -> None:
    wrong = {}
    for heading, card in table(names_of, "answered").items():
        top = kb.search(_index(), heading, limit=1)
        got = top[0].concept if top else None
        if got != card:
            wrong[heading] = (card, got)
    assert not wrong, f"kept as answered, but lookup now answers otherwise: {wrong}"


# --- the shared checks of heading lists ------------------------------------------------------------------


@LISTS
def test_every_heading_has_several_words_and_no_card_carries_it(names_of: str) -> None:
    heading_lists.check_several_words_and_no_card_label(names_of)


@LISTS
def test_no_heading_is_in_another_name_list(names_of: str) -> None:
    heading_lists.check_in_no_other_list(names_of)


@LISTS
def test_every_group_cites_a_page(names_of: str) -> None:
    site = {ROCM: "https://rocm.docs.amd.com/", AMDGPU: "https://llvm.org/docs/AMDGPUUsage.html"}[names_of]
    uncited = [g.section[:60] for g in heading_lists.name_list(names_of).groups if site not in g.section]
    assert not uncited, uncited


@LISTS
def test_lookup_answers_one_heading_of_every_group_in_any_case_with_its_card(names_of: str) -> None:
    heading_lists.check_lookup_answers_one_heading_per_group(names_of)


@pytest.mark.parametrize(
    ("heading", "card"),
    [
        ("Kernel Descriptor", "device-binary"),
        ("kernel dispatch", "kernel-launch"),
        ("LLVM IR ATTRIBUTES", "launch-bounds"),
        ("Using thread trace", "rocprof"),
        ("ROCm libraries", "software-stack"),
        ("Accumulation vector general-purpose registers (AGPRs)", "accvgpr"),
        ("Compute the occupancy of a kernel", "occupancy"),
        ("GPU architecture documentation", None),
    ],
)
def test_lookup_answers_the_headings_engineers_asked_for(heading: str, card: str | None) -> None:
    out = io.StringIO()
    code = lookup.run(heading, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    if card is None:
        assert code == 1 and not payload["matches"] and payload["package"]["card"] is None, payload
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert (code, top.get("concept"), top.get("matched_kind")) == (0, card, "package"), payload


@pytest.mark.slow
@LISTS
def test_without_the_list_lookup_answers_no_carded_heading_with_its_card(names_of: str, tmp_path: Path) -> None:
    heading_lists.check_each_carded_heading_needs_the_list(names_of, FILES[names_of], tmp_path)
