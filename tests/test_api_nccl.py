"""The nccl API family (glossary/api/nccl.yaml) decides every nccl[A-Z]* name NCCL 2.30.7's header declares.

The family's naming rule (`match` + `rename`) answers a name in no list with a derived HIP spelling, which
is wrong for the names RCCL lacks (ncclCommShrink). So each name the kept NCCL header list holds
(tests/data/nccl_header_names.txt, NVIDIA/nccl v2.30.7-1) that the rule would reach is listed in exactly
one of `same`, `renamed`, `mapped` and `unsupported`, or is one of the few names left to the rule on
purpose (LEFT_TO_RULE, each with a note); a name NCCL adds later fails here until someone decides it.
The lists are checked against the kept RCCL header list (tests/data/rccl_header_names.txt, ROCm/rccl
develop 0cbce2a7) by name, case-sensitively, and, where the packaged RCCL header is installed, against the
names it declares (the proofs compile each listed HIP spelling against it: tests/test_proofs.py).
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import GLOSSARY, REPO
from xlate import hip_headers, kb, lookup
from xlate.kb._api import ApiFamily

DATA = REPO / "tests" / "data"

# RCCL develop 0cbce2a7 declares these with NCCL's spelling, but the packaged RCCL the proofs compile
# against (5.4.3, NCCL API 2.13.4) lacks the first nine and gives the last two another value, so no
# list fits them (a `same` or `mapped` spelling would fail its proof, `unsupported` would deny what
# RCCL has). They answer through the naming rule, marked derived; the family's notes say why.
NEWER_IN_RCCL = {"ncclInProgress", "ncclConfig_t", "ncclCommInitRankConfig", "ncclCommFinalize", "ncclCommSplit",
                 "ncclMemAlloc", "ncclMemFree", "ncclCommRegister", "ncclCommDeregister"}
OTHER_VALUE = {"ncclNumResults", "ncclNumTypes"}
LEFT_TO_RULE = NEWER_IN_RCCL | OTHER_VALUE
SECTIONS = ("same", "renamed", "mapped", "unsupported")


def _kept(file: str) -> set[str]:
    lines = (DATA / file).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# "), f"{file}: no provenance line"
    return {line.split("\t")[1] for line in lines[1:] if line.strip()}


@cache
def _family() -> ApiFamily:
    tables = kb.load_families(GLOSSARY)
    mine = [p for p in tables.problems if "nccl.yaml" in p.path]
    assert not mine, mine
    return next(f for f in tables.families if f.family == "nccl")


def _sections(fam: ApiFamily) -> dict[str, set[str]]:
    return {s: set(getattr(fam, s)) for s in SECTIONS}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("list_nccl_names_api", REPO / "scripts" / "list_nccl_names.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_nccl_name_the_rule_would_reach_is_decided_once() -> None:
    fam = _family()
    assert fam.match
    pattern = re.compile(fam.match)
    reached = {n for n in _kept("nccl_header_names.txt") if pattern.fullmatch(n)}
    assert len(reached) >= 119  # NCCL 2.30.7's nccl[A-Z]* names
    sections = _sections(fam)
    where: dict[str, list[str]] = {}
    for section, names in sections.items():
        for name in names:
            where.setdefault(name, []).append(section)
    twice = {n: s for n, s in where.items() if len(s) > 1}
    assert not twice, twice
    undecided = sorted(reached - set(where) - LEFT_TO_RULE)
    assert not undecided, f"NCCL names the naming rule would answer (derived): decide each in glossary/api/nccl.yaml: {undecided}"
    # The names left to the rule are in no list, each with a note saying why; nothing listed is outside NCCL 2.30.7.
    assert not LEFT_TO_RULE & set(where)
    assert LEFT_TO_RULE <= reached
    assert sorted(n for n in LEFT_TO_RULE if not fam.notes.get(n)) == []
    assert set(where) <= reached, sorted(set(where) - reached)
    assert set(fam.notes) <= reached, sorted(set(fam.notes) - reached)


def test_the_lists_agree_with_rccl_s_header_by_name() -> None:
    fam = _family()
    sections = _sections(fam)
    rccl = _kept("rccl_header_names.txt")
    assert not sections["same"] - rccl, sorted(sections["same"] - rccl)
    assert not sections["unsupported"] & rccl, sorted(sections["unsupported"] & rccl)
    assert not sections["renamed"]  # the rule renames nothing (nccl -> nccl)
    for cuda, hip in fam.mapped.items():
        assert hip in rccl and cuda not in rccl, (cuda, hip)
        assert fam.notes.get(cuda), f"{cuda}: a mapped name says how the spellings relate"
    assert LEFT_TO_RULE <= rccl
    # Compared case-sensitively: NCCL's ncclAlltoAll is RCCL's ncclAllToAll, not a missing name.
    assert fam.mapped.get("ncclAlltoAll") == "ncclAllToAll"


def test_the_packaged_rccl_header_declares_every_hip_spelling_and_none_left_to_the_rule() -> None:
    found = hip_headers.find_rocm_headers()
    if found is None:
        pytest.skip(hip_headers.absent_reason())
    header: Path = found.include / "rccl" / "rccl.h"
    if not header.is_file():
        pytest.skip("the packaged RCCL header is not installed")
    declared = {name for _, name in _script().header_names(header.read_text(encoding="utf-8", errors="replace"))}
    fam = _family()
    spellings = set(fam.same) | set(fam.mapped.values())
    assert not spellings - declared, sorted(spellings - declared)
    assert not set(fam.unsupported) & declared, sorted(set(fam.unsupported) & declared)
    assert not NEWER_IN_RCCL & declared, sorted(NEWER_IN_RCCL & declared)
    assert OTHER_VALUE <= declared


def _lead_row(query: str) -> dict[str, Any]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    assert code == 0 and payload["rows"] and payload["rows"][0]["cuda"] == query, payload
    row: dict[str, Any] = payload["rows"][0]
    return row


@pytest.mark.parametrize("name", ["ncclCommShrink", "ncclCommWindowRegister", "ncclFloat8e4m3"])
def test_a_name_rccl_lacks_answers_none_not_derived(name: str) -> None:
    row = _lead_row(name)
    hip = row["sides"]["hip"]
    assert not row["derived"] and not hip["derived"], row
    assert hip["symbol"] is None and hip["relation"] == "none" and hip["origin"] == "family", hip


def test_a_differently_cased_rccl_name_answers_with_rccl_s_spelling() -> None:
    hip = _lead_row("ncclAlltoAll")["sides"]["hip"]
    assert (hip["symbol"], hip["derived"], hip["origin"]) == ("ncclAllToAll", False, "family"), hip
    assert "capital T" in hip["caveat"]


def test_a_name_left_to_the_rule_still_says_derived() -> None:
    hip = _lead_row("ncclCommSplit")["sides"]["hip"]
    assert hip["derived"] and hip["symbol"] == "ncclCommSplit", hip


def test_a_name_rccl_spells_otherwise_is_renamed_not_same() -> None:
    """The family's relation is `same`; a mapped name with another spelling is a rename."""
    from xlate import kb

    entry = kb.load_symbols().get("ncclAlltoAll")
    assert entry is not None and entry.row is not None
    side = entry.row.sides["hip"]
    assert (side.symbol, side.relation) == ("ncclAllToAll", "renamed"), side
