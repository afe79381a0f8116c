"""rocprof-compute's report names and Nsight Compute's report sections as name lists
(glossary/vocabulary/names-rocprof-compute-panels.yaml, names-nsight-compute.yaml): each file loads with no
problem and names cards that exist; every listed name is one that scripts/list_profiler_names.py extracted
from the profiler's own definitions (its output is kept in tests/data/, repository and commit on the first
line), in the kind of place the list says; every extracted name is either listed or left out for a stated
reason (one word, a spelling the list schema cannot hold, a measure too generic or shared by several
panels, or a name lookup already answers with a card that covers it, which is checked); lookup answers
every listed name, in any case for several words, with its card; and, rebuilt without the file, lookup
answers none of them with that card, so each listed name adds an answer."""

from __future__ import annotations

import re
import shutil
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from conftest import GLOSSARY, REPO, glossary_without_rows
from xlate import kb
from scripts_loader import load_script

DATA = REPO / "tests" / "data"
ROCPROF = "rocprof-compute report panel, table or metric"
NCU = "Nsight Compute report section"
FILES = {ROCPROF: "names-rocprof-compute-panels.yaml", NCU: "names-nsight-compute.yaml"}
RAW = {ROCPROF: DATA / "names-rocprof-compute-panels.tsv", NCU: DATA / "names-nsight-compute.tsv"}
PROVENANCE = {
    ROCPROF: re.compile(
        r"^# ROCm/rocm-systems (?P<commit>[0-9a-f]{40}) \(.*VERSION 3\.3\.0\) "
        r"projects/rocprofiler-compute/src/rocprof_compute_soc/analysis_configs: (?P<count>\d+) rows$"
    ),
    NCU: re.compile(r"^# xingxerx/Qallow (?P<commit>[0-9a-f]{40}) \(.*\) sections: (?P<count>\d+) rows$"),
}
# The list schema's spellings of a name of several words (NameGroup's Heading) and of one word.
HEADING = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 /&+,'().:-]*[A-Za-z0-9)]$")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# rocprof-compute names of several words left out as too generic: a bare measure whose unit only its
# table tells (Hit Rate, Read Latency, NC - Read, Read (64B), the vL1D's many stall kinds), and names
# that several panels use for different units (Cache Hit Rate is the L1I's, the sL1D's and the vL1D's).
GENERIC = {
    "Access Rate",
    "Active Cycles",
    "Addr Conflict",
    "Address Stall",
    "Atomic - HBM",
    "Atomic Bandwidth",
    "Atomic Bandwidth - HBM",
    "Atomic Instructions",
    "Atomic Latency",
    "Atomic Req",
    "Atomic Return Cycles",
    "Atomic Traffic",
    "Bandwidth Utilization",
    "Busy and stall metrics",
    "Bypasss Req",
    "CC - Atomic",
    "CC - Read",
    "CC - Write",
    "CC Req",
    "Cache Accesses",
    "Cache BW",
    "Cache Full Stall",
    "Cache Hit",
    "Cache Hit Rate",
    "Cache Hits",
    "Cache Miss Stall",
    "Data Stall",
    "Data-Return Busy",
    "Evict (Internal)",
    "Grid Size",
    "Hit Rate",
    "Hit Ratio",
    "Hit rate",
    "Index Accesses",
    "Inflight Req",
    "Input Buffer Req",
    "Instruction counts",
    "Latency FIFO Stall",
    "Mem Violations",
    "Misses - Duplicated",
    "Misses - Non Duplicated",
    "Misses- Duplicated",
    "NC - Atomic",
    "NC - Read",
    "NC - Write",
    "NC Req",
    "Peak Bandwidth",
    "Probe Req",
    "RW - Atomic",
    "RW - Read",
    "RW - Write",
    "RW Req",
    "Read (128B)",
    "Read (32B)",
    "Read (64B)",
    "Read (Uncached)",
    "Read BW",
    "Read Bandwidth",
    "Read Instructions",
    "Read Latency",
    "Read Req",
    "Read Req (1 DWord)",
    "Read Req (16 DWord)",
    "Read Req (2 DWord)",
    "Read Req (4 DWord)",
    "Read Req (8 DWord)",
    "Read Req (Total)",
    "Read Stall",
    "Remote Read",
    "Remote Read Traffic",
    "Remote Write and Atomic",
    "Remote Write and Atomic Traffic",
    "Resident Page Full Stall",
    "Serialization Stall",
    "Stall Cycles",
    "Stalled on Address",
    "Stalled on Data",
    "Stalled on Latency FIFO",
    "Stalled on Read Return",
    "Stalled on Request FIFO",
    "Stalled on Write Data FIFO",
    "Streaming Req",
    "Theoretical Bandwidth",
    "Theoretical Bandwidth Utilization",
    "Thrashing Stall",
    "Total Instructions",
    "Total Req",
    "UC - Atomic",
    "UC - Read",
    "UC - Write",
    "UC Req",
    "Unaligned Stall",
    "Uncached Read Traffic",
    "Uncached Write and Atomic Traffic",
    "Wave Cycles",
    "Workgroup Size",
    "Write - Credit Starvation",
    "Write Ack Instructions",
    "Write Bandwidth",
    "Write Instructions",
    "Write Req",
    "Write Stall",
    "Write and Atomic (32B)",
    "Write and Atomic (64B)",
    "Write and Atomic (Uncached)",
    "Write and Atomic BW",
    "Write and Atomic Latency",
    "Writeback (Internal)",
}

# rocprof-compute names lookup already answers, without this list, with a card that covers them.
ANSWERED = {
    # Answered with the profiler card through the ROCm documentation headings (names-rocm-doc-sections.yaml:
    # "Instruction mix", "Command processor"), as are the three instruction-mix tables below.
    "Command Processor (CPC/CPF)": "kernel-profiler",
    "Command processor fetcher (CPF)": "kernel-profiler",
    "Command processor packet processor (CPC)": "kernel-profiler",
    "Compute Units - Instruction Mix": "kernel-profiler",
    "Overall Instruction Mix": "kernel-profiler",
    "HBM Bandwidth": "achieved-bandwidth",
    "Bank Conflict": "bank-conflict",
    "Bank Conflict Rate": "bank-conflict",
    "Bank Conflicts/Access": "bank-conflict",
    "LDS Bank Conflicts/Access": "bank-conflict",
    "BF16 OPs": "bf16-format",
    "VALU Arithmetic Instruction Mix": "kernel-profiler",
    "VALU Co-Issue Efficiency": "cuda-core",
    "VALU FLOPs": "cuda-core",
    "VALU IOPs": "cuda-core",
    "VALU Utilization": "cuda-core",
    "Shader Engine Utilization": "graphics-processing-cluster",
    "HBM Rd": "hbm",
    "HBM Read": "hbm",
    "HBM Read Traffic": "hbm",
    "HBM Wr": "hbm",
    "HBM Write and Atomic": "hbm",
    "HBM Write and Atomic Traffic": "hbm",
    "Read - HBM Stall": "hbm",
    "Read Bandwidth - HBM": "hbm",
    "Write - HBM Stall": "hbm",
    "Write Bandwidth - HBM": "hbm",
    "Evict (vL1D Req)": "l1-cache",
    "L1 Access Latency": "l1-cache",
    "L1 Unified Translation Cache (UTCL1)": "l1-cache",
    "L1D - L2 Transactions": "l1-cache",
    "L1D Addr Translation Stalls": "l1-cache",
    "Scalar L1 Data Cache": "l1-cache",
    "Scalar L1D Cache - L2 Interface": "l1-cache",
    "Scalar L1D Speed-of-Light": "l1-cache",
    "Scalar L1D cache accesses": "l1-cache",
    "Vector L1 Data Cache": "l1-cache",
    "Vector L1 data-return path or Texture Data (TD)": "l1-cache",
    "Writeback (vL1D Req)": "l1-cache",
    "vL1D Cache BW": "l1-cache",
    "vL1D Cache Hit Rate": "l1-cache",
    "vL1D Speed-of-Light": "l1-cache",
    "vL1D cache access metrics": "l1-cache",
    "vL1D cache stall metrics": "l1-cache",
    "Input Buffer Stalled on L2": "l2-cache",
    "L2 - Fabric Interface stalls": "l2-cache",
    "L2 - Fabric interface detailed metrics": "l2-cache",
    "L2 Atomic": "l2-cache",
    "L2 Cache": "l2-cache",
    "L2 Cache (per Channel)": "l2-cache",
    "L2 Cache Accesses": "l2-cache",
    "L2 Cache BW": "l2-cache",
    "L2 Cache Hit Rate": "l2-cache",
    "L2 Cache Hit Rate (pct)": "l2-cache",
    "L2 Cache Stalls": "l2-cache",
    "L2 Hit": "l2-cache",
    "L2 Rd": "l2-cache",
    "L2 Rd Lat": "l2-cache",
    "L2 Requests (per normUnit)": "l2-cache",
    "L2 Speed-of-Light": "l2-cache",
    "L2 Wr": "l2-cache",
    "L2 Wr Lat": "l2-cache",
    "Stalled on L2 Data": "l2-cache",
    "Stalled on L2 Req": "l2-cache",
    "VMEM Instruction Mix": "kernel-profiler",
    "VMEM Latency": "load-store-unit",
    "VMEM Utilization": "load-store-unit",
    "Compute Speed-of-Light": "memory-bound-vs-compute-bound",
    "System Speed-of-Light": "memory-bound-vs-compute-bound",
    "Wavefront Occupancy": "occupancy",
    "SALU Utilization": "scalar-unit",
    "SGPR Writes": "sgpr",
    # answered through its listed leading words, Global/Generic Read Instructions
    "Global/Generic Read Instructions for LDS": "l1-cache",
    "LDS ATOMIC": "shared-memory",
    "LDS ATOMIC Bandwidth": "shared-memory",
    "LDS Allocation": "shared-memory",
    "LDS Command FIFO Full Rate": "shared-memory",
    "LDS Data FIFO Full Rate": "shared-memory",
    "LDS Instructions": "shared-memory",
    "LDS LOAD Bandwidth": "shared-memory",
    "LDS Latency": "shared-memory",
    "LDS Req": "shared-memory",
    "LDS STORE": "shared-memory",
    "LDS STORE Bandwidth": "shared-memory",
    "LDS Statistics": "shared-memory",
    "LDS Util": "shared-memory",
    "Local Data Share (LDS)": "shared-memory",
    "Theoretical LDS Bandwidth": "shared-memory",
    "SIMD Utilization": "sm-sub-partition",
    "VGPR Writes": "vgpr",
    "MFMA Arithmetic Instruction Mix": "kernel-profiler",
    "MFMA FLOPs (BF16)": "warp-mma",
    "MFMA FLOPs (F16)": "warp-mma",
    "MFMA FLOPs (F32)": "warp-mma",
    "MFMA FLOPs (F64)": "warp-mma",
    "MFMA FLOPs (F6F4)": "warp-mma",
    "MFMA FLOPs (F8)": "warp-mma",
    "MFMA IOPs (INT8)": "warp-mma",
    "MFMA IOPs (Int8)": "warp-mma",
    "MFMA Instruction Cycles": "warp-mma",
    "MFMA Utilization": "warp-mma",
}

# Nsight Compute section names lookup already answers with a card that covers them.
NCU_ANSWERED = {
    "Occupancy": "occupancy",
    "NVLink": "gpu-link",
    "Nvlink": "gpu-link",
    "NVLink Tables": "gpu-link",
    "Nvlink_Tables": "gpu-link",
    "NVLink Topology": "gpu-link",
    "Nvlink_Topology": "gpu-link",
    "NUMA Affinity": "topology-query",
    "NumaAffinity": "topology-query",
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)": "roofline-analysis",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)": "roofline-analysis",
    "GPU Speed Of Light Roofline Chart": "roofline-analysis",
    "SpeedOfLight_RooflineChart": "roofline-analysis",
    "SpeedOfLight": "memory-bound-vs-compute-bound",
    "GPU Speed Of Light Throughput": "memory-bound-vs-compute-bound",
}


def _list(names_of: str) -> kb.NameList:
    lists = {n.names_of: n for n in glossary_without_rows().name_lists}
    assert names_of in lists, f"no {names_of} list"
    return lists[names_of]


def _listed(names_of: str) -> dict[str, str | None]:
    return {n: g.card for g in _list(names_of).groups for n in g.names}


@cache
def _raw(names_of: str) -> tuple[re.Match[str], list[list[str]]]:
    first, *lines = RAW[names_of].read_text(encoding="utf-8").splitlines()
    provenance = PROVENANCE[names_of].match(first)
    assert provenance, f"{RAW[names_of].name}'s first line names no repository and commit: {first!r}"
    rows = [line.split("\t") for line in lines]
    width = 5 if names_of == ROCPROF else 3
    assert all(len(r) == width for r in rows), [r for r in rows if len(r) != width][:3]
    assert int(provenance["count"]) == len(rows)
    return provenance, rows


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _answer(query: str) -> str | None:
    top = kb.search(_index(), query, limit=1)
    return top[0].concept if top else None


# --- the files ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("names_of", [ROCPROF, NCU])
def test_the_file_loads_and_every_card_exists(names_of: str) -> None:
    glossary = glossary_without_rows()
    mine = [p for p in glossary.problems if FILES[names_of] in p.path]
    assert not mine, mine
    raw = yaml.safe_load((GLOSSARY / "vocabulary" / FILES[names_of]).read_text(encoding="utf-8"))
    assert raw["names_of"] == names_of
    commit = _raw(names_of)[0]["commit"]
    assert commit in raw["listed_by"], "listed_by names another commit than the extracted list"
    cards = {g["card"] for g in raw["groups"]} - {None}
    assert cards <= set(glossary.concepts), sorted(cards - set(glossary.concepts))


@pytest.mark.parametrize("names_of", [ROCPROF, NCU])
def test_no_name_is_in_another_list_or_a_card_label(names_of: str) -> None:
    mine = {n.casefold() for n in _listed(names_of)}
    elsewhere = {
        n.casefold(): other.names_of
        for other in glossary_without_rows().name_lists
        if other.names_of != names_of
        for g in other.groups
        for n in g.names
    }
    assert not {n: elsewhere[n] for n in mine if n in elsewhere}
    labels = {label.casefold(): cid for label, cid, _kind, _ in _index()["labels"]}
    assert not {n: labels[n] for n in mine if n in labels}


# --- every listed name is in the source, and every extracted name is accounted for ----------------------


def test_every_rocprof_compute_name_is_extracted_and_every_extracted_one_accounted_for() -> None:
    _, rows = _raw(ROCPROF)
    extracted = {r[1] for r in rows}
    listed = _listed(ROCPROF)
    assert not set(listed) - extracted, f"not in the panel configs: {sorted(set(listed) - extracted)}"
    unaccounted = []
    for name in sorted(extracted):
        if name in listed or " " not in name or not HEADING.match(name):
            continue
        if name not in GENERIC and name not in ANSWERED:
            unaccounted.append(name)
    assert not unaccounted, f"extracted, neither listed nor left out for a reason: {unaccounted}"
    stale = (GENERIC | set(ANSWERED)) - extracted
    assert not stale, f"left out but not extracted (misspelled?): {sorted(stale)}"
    twice = (GENERIC | set(ANSWERED)) & set(listed)
    assert not twice, sorted(twice)


def test_each_rocprof_compute_group_names_the_panel_that_shows_its_names() -> None:
    _, rows = _raw(ROCPROF)
    panels: dict[str, set[str]] = {}
    for _kind, name, panel, _table, _archs in rows:
        panels.setdefault(name, set()).add(panel)
    wrong = [(n, g.section) for g in _list(ROCPROF).groups for n in g.names if g.section not in panels[n]]
    assert not wrong, wrong


def test_every_nsight_compute_name_is_a_section_identifier_or_display_name_and_all_are_accounted_for() -> None:
    _, rows = _raw(NCU)
    sections = {r[1] for r in rows if r[0] in ("identifier", "display")}
    assert len({r[1] for r in rows if r[0] == "identifier"}) == 24
    listed = _listed(NCU)
    assert not set(listed) - sections, sorted(set(listed) - sections)
    unaccounted = sorted(sections - set(listed) - set(NCU_ANSWERED))
    assert not unaccounted, unaccounted
    assert not set(NCU_ANSWERED) - sections
    identifiers = {r[1] for r in rows if r[0] == "identifier"}
    assert all(IDENTIFIER.match(i) for i in identifiers)


# --- lookup ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("names_of", [ROCPROF, NCU])
def test_lookup_answers_every_listed_name_with_its_card(names_of: str) -> None:
    wrong = {}
    for i, (name, card) in enumerate(_listed(names_of).items()):
        # A name of several words is matched whole, case aside: ask some of them in lower or upper case.
        query = (name, name.lower(), name.upper())[i % 3] if " " in name else name
        if _answer(query) != card:
            wrong[query] = (card, _answer(query))
    assert not wrong, wrong


@pytest.mark.slow  # a whole-list or whole-tree check: runs with the slow set
def test_the_names_left_out_as_answered_are_answered_with_their_card() -> None:
    wrong = {n: (c, _answer(n)) for n, c in {**ANSWERED, **NCU_ANSWERED}.items() if _answer(n) != c}
    assert not wrong, wrong


@pytest.mark.slow
@pytest.mark.parametrize("names_of", [ROCPROF, NCU])
def test_each_listed_name_needs_the_list(names_of: str, tmp_path: Path) -> None:
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    (root / "vocabulary" / FILES[names_of]).unlink()
    index = kb.load_index(root)
    already = {}
    for name, card in _listed(names_of).items():
        top = kb.search(index, name, limit=1)
        if top and top[0].concept == card:
            already[name] = card
    assert not already, f"lookup already answers these with their card: {already}"


# --- the script -----------------------------------------------------------------------------------------


def _script() -> ModuleType:
    return load_script("list_profiler_names")


def test_the_script_reads_a_panel_config() -> None:
    config = yaml.safe_load("""
Panel Config:
  id: 700
  title: Wavefront
  data source:
    - metric_table:
        id: 701
        title: Wavefront Launch Stats
        metric:
          Grid Size: {avg: AVG(Grid_Size)}
          Saved Wavefronts: {avg: AVG(SQ_WAVES_SAVED)}
    - raw_csv_table:
        id: 702
        source: pmc_dispatch_info.csv
""")
    assert list(_script().panel_rows(config)) == [
        ("panel", "Wavefront", "Wavefront", ""),
        ("table", "Wavefront Launch Stats", "Wavefront", "Wavefront Launch Stats"),
        ("metric", "Grid Size", "Wavefront", "Wavefront Launch Stats"),
        ("metric", "Saved Wavefronts", "Wavefront", "Wavefront Launch Stats"),
    ]


def test_the_script_reads_a_section_file() -> None:
    text = """Identifier: "LaunchStats"
DisplayName: "Launch Statistics"
Sets {
  Identifier: "basic"
}
Header {
  Metrics {
    Label: "Block Size"
    Name: "launch__block_size"
    Groups: "launch",
    Filter { MinArch: CC_75 }
  }
}
"""
    assert list(_script().section_rows(text)) == [
        ("identifier", "LaunchStats", "LaunchStats"),
        ("display", "Launch Statistics", "LaunchStats"),
        ("label", "Block Size", "LaunchStats"),
    ]
