"""Every claim names where it can be checked: `xlate glossary claims` reports the share per group, and the
glossary meets its targets (every claim of symbol rows and spec sheets, at least 80% of concept claims)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xlate import kb
from glossary_once import real_glossary

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def glossary() -> kb.Glossary:
    return real_glossary()


def test_every_group_meets_its_source_target(glossary) -> None:
    shares = {s.group: s for s in kb.claim_shares(glossary)}
    assert shares["symbol rows"].claims >= 1000 and shares["symbol rows"].with_source == shares["symbol rows"].claims
    assert shares["spec sheets"].with_source == shares["spec sheets"].claims
    assert shares["concepts"].claims >= 1000 and shares["concepts"].percent >= 80.0


def test_a_claim_takes_its_source_from_evidence_or_from_its_own_field(glossary) -> None:
    claims = kb.collect_claims(glossary)
    # A GPU figure's note is checked where the figure comes from.
    note = next(c for c in claims if c.item == "m3-ultra" and c.field == "power_w.note")
    assert note.sources == ["https://support.apple.com/en-us/102027"]
    # A summary sentence about AMD is checked in the documents the concept's HIP term lists.
    sub = glossary.concepts["sm-sub-partition"]
    amd = next(c for c in claims if c.item == "sm-sub-partition" and c.field == "summary" and "AMD CDNA" in c.text)
    assert set(sub.terms.hip.docs) <= set(amd.sources)
    # A symbol side's caveat is checked at the side's source.
    rows = kb.collect_row_claims(glossary)
    fp8 = next(c for c in rows if c.item == "__nv_cvt_float2_to_fp8x2" and c.field == "hip.caveat")
    assert fp8.sources and "amd_hip_fp8.h" in fp8.sources[0]
    assert not any(c.item == "cudaMalloc" and c.field.startswith("hip.") for c in rows)  # HIPIFY's own rows hold no prose


def test_a_claim_without_a_source_is_counted_as_such(glossary) -> None:
    concept = glossary.concepts["warp-elect"]
    bare = concept.model_copy(update={"terms": concept.terms.model_copy(update={
        "triton": concept.terms.triton.model_copy(update={"docs": []})})})
    g = kb.Glossary(root=glossary.root, concepts={"warp-elect": bare})
    claim = next(c for c in kb.collect_claims(g) if c.field == "triton.caveat")
    assert claim.sources == []


@pytest.mark.slow  # the whole command end to end (the shares themselves are checked above, in the quick loop)
def test_the_claims_command_reports_the_shares() -> None:
    run = subprocess.run([sys.executable, "-m", "xlate", "glossary", "claims", "--format", "json", "--show", "backed"],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr[-500:]
    shares = {s["group"]: s for s in json.loads(run.stdout)["shares"]}
    assert set(shares) == {"concepts", "spec sheets", "symbol rows"}
    assert shares["spec sheets"]["percent"] == 100.0
