"""Profiler and debugger vocabularies: ROCm's derived counters (names-rocprof-derived.yaml), Nsight
Systems' stats reports (names-nsys-reports.yaml) and profile options (tool-nsys.yaml), and CUDA-GDB's
`set cuda` settings (names-cuda-gdb.yaml).

No binary of these tools installs here (no PyPI wheel ships nsys or cuda-gdb, and the ROCm profilers need a
ROCm install), so their help cannot be asked: the lists were read from the sources each file cites. What
is checked here is what can be checked offline: each file holds the names its header counts, under the card
it says; the derived-counter list leaves out exactly the names a counter family already answers; and lookup
reaches each file's card for its names, alone and inside the command lines people write, and a debugger's
command of several words (CUDA-GDB's `info cuda warps`, ROCgdb's `info agents`) as a whole."""

from __future__ import annotations

import re

import pytest

from conftest import glossary_without_rows
from xlate import kb

_GLOSSARY = glossary_without_rows()
NAMES = {n.names_of: n for n in _GLOSSARY.name_lists}
TOOLS = {t.tool: t for t in _GLOSSARY.tool_options}
FAMILIES = [f.prefix for f in _GLOSSARY.name_families]

DERIVED = "ROCm derived counter"
REPORTS = "Nsight Systems stats report"
CUDA_GDB = "CUDA-GDB setting (set cuda NAME)"


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


def _names(names_of: str) -> dict[str, str | None]:
    return {name: group.card for group in NAMES[names_of].groups for name in group.names}


def _answer(index: kb.Index, query: str) -> str | None:
    found = kb.search(index, query)
    return found[0].concept if found else None


@pytest.mark.parametrize(("names_of", "count", "cards"), [
    (DERIVED, 108, {"kernel-profiler"}),
    (REPORTS, 40, {"timeline-profiler"}),
    (CUDA_GDB, 9, {"debugger"}),
])
def test_each_file_holds_the_names_its_header_counts_on_its_card(names_of: str, count: int, cards: set[str]) -> None:
    names = _names(names_of)
    assert len(names) == count
    assert set(names.values()) == cards
    assert str(count) in NAMES[names_of].listed_by


def test_no_derived_counter_is_one_a_counter_family_already_answers() -> None:
    """The file leaves out the derived names that begin with a hardware block's prefix (SQ_WAVES_sum):
    lookup answers those through profiler-counters.yaml, so listing them too would say it twice."""
    covered = [n for n in _names(DERIVED) if any(n.startswith(p) and len(n) > len(p) for p in FAMILIES)]
    assert not covered


@pytest.mark.parametrize("name", ["SQ_WAVES_sum", "TCC_HIT_sum", "TA_BUSY_avr", "TCP_TCC_READ_REQ_sum"])
def test_a_derived_counter_of_a_counter_family_reaches_the_profiler_card(index: kb.Index, name: str) -> None:
    found = kb.search(index, name)
    assert found and (found[0].concept, found[0].kind) == ("kernel-profiler", "family")


def test_report_names_are_bare_report_names() -> None:
    """A report's optional arguments (cuda_gpu_kern_sum:base, um_sum:rows=N) are not part of its name, and
    every report ends in _sum or _trace but one (network_congestion)."""
    odd = [n for n in _names(REPORTS) if not re.search(r"_(sum|trace)$", n)]
    assert odd == ["network_congestion"]


def test_the_nsys_options_are_a_selection_that_says_so() -> None:
    tool = TOOLS["nsys"]
    assert "selection" in tool.listed_by
    options = {o for g in tool.groups for o in g.options}
    assert {"--trace", "-t", "--cuda-graph-trace", "--capture-range", "--nvtx-capture"} <= options
    assert "--stats" not in options  # see the file's header: rocprofv3 places it on another card


@pytest.mark.parametrize("names_of", [DERIVED, REPORTS, CUDA_GDB])
def test_lookup_answers_every_listed_name_with_its_groups_card(index: kb.Index, names_of: str) -> None:
    """Each name answers its group's card, unless a card spells it itself: LDSBankConflict is, loosely,
    the bank-conflict card's name "LDS bank conflict", and that answer comes first."""
    wrong, spelled = [], []
    for name, card in _names(names_of).items():
        found = kb.search(index, name)
        if found and found[0].kind != "package":
            spelled.append((name, found[0].concept))
        elif not found or found[0].concept != card:
            wrong.append((name, card, found[0].concept if found else None))
    assert not wrong, wrong[:10]
    assert spelled == ([("LDSBankConflict", "bank-conflict"), ("LdsBankConflict", "bank-conflict")]
                       if names_of == DERIVED else [])


@pytest.mark.parametrize(("query", "card"), [
    ("VALUBusy", "kernel-profiler"),
    ("MemUnitBusy", "kernel-profiler"),
    ("GPUBusy", "kernel-profiler"),
    ("rocprofv3 --pmc VALUBusy SALUBusy -- ./app", "kernel-profiler"),
    ("cuda_kern_exec_sum", "timeline-profiler"),
    ("nsys stats -r cuda_gpu_sum", "timeline-profiler"),
    ("nsys stats --report cuda_gpu_kern_sum report1.nsys-rep", "timeline-profiler"),
    ("nsys profile --trace=cuda,nvtx ./app", "timeline-profiler"),
    ("nsys profile --cuda-graph-trace=node ./app", "graphs"),
    ("nsys profile --cuda-um-gpu-page-faults=true ./app", "unified-memory"),
    ("set cuda break_on_launch application", "debugger"),
    ("break_on_launch", "debugger"),
    ("Wavefronts", "warp"),  # the plain word is the concept, not the derived counter of that name
])
def test_a_name_alone_or_inside_its_command_line_reaches_its_card(index: kb.Index, query: str, card: str) -> None:
    assert _answer(index, query) == card


def test_an_nsys_output_option_is_named_without_a_card(index: kb.Index) -> None:
    option, entries = kb.option_entries(index, "nsys profile -o report1 ./app")
    assert option == "-o" and [e[:2] for e in entries] == [["nsys", None]]
    assert kb.search(index, "nsys profile -o report1 ./app") == []


@pytest.mark.parametrize("query", ["info cuda warps", "info cuda kernels", "info agents"])
def test_a_debugger_command_reaches_the_debugger_card(index: kb.Index, query: str) -> None:
    assert _answer(index, query) == "debugger"
