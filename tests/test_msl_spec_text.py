"""The hand-made MSL table (glossary/symbols/specs/msl.yaml) against the record of what the
specification's text says about each of its entries (msl-spec-text.yaml beside it).

Every entry has one record and every record one entry; a record that says the text and the table agree
(`agrees`, or `corrected` once the table was changed to follow the text) must match the table's first
MSL version, argument restriction and section number; a record that keeps a disagreement or found no
text says why. Quick and offline: two YAML files are read, nothing else.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

SPECS = Path(__file__).resolve().parents[1] / "glossary" / "symbols" / "specs"
VERDICTS = {"agrees", "corrected", "disagrees", "no-text"}
MATCHING = {"agrees", "corrected"}


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((SPECS / name).read_text(encoding="utf-8"))


def _restriction(text: str | None) -> frozenset[str]:
    """`integer, no-64-bit` and `no-64-bit, integer` are one restriction; none or absent is no restriction."""
    if not text or text == "none":
        return frozenset()
    return frozenset(part.strip() for part in str(text).split(","))


def _numbers(section: str) -> list[str]:
    """The section numbers a section field names, one per `; `-separated part ("6.3 ...; 6.5 ..." -> 6.3, 6.5)."""
    return re.findall(r"(?:^|; )(\d+(?:\.\d+)*)", section)


def _within(number: str, outer: str) -> bool:
    return number == outer or number.startswith(outer + ".")


def problems(table: dict[str, Any], text: dict[str, Any]) -> list[str]:
    """What keeps the spec-text record and the MSL table from telling the same story."""
    out: list[str] = []
    for key in ("source", "edition"):
        if text.get(key) != table.get(key):
            out.append(f"the record reads {key} {text.get(key)!r}, the table names {table.get(key)!r}")
    entries = {str(e["name"]): e for e in table.get("entries") or []}
    records: dict[str, dict[str, Any]] = {}
    for r in text.get("records") or []:
        name = str(r["name"])
        if name in records:
            out.append(f"{name}: recorded twice")
        records[name] = r
    for name in entries.keys() - records.keys():
        out.append(f"{name}: in msl.yaml but has no record of what the specification's text says")
    for name in records.keys() - entries.keys():
        out.append(f"{name}: recorded, but msl.yaml has no such entry (dropped or renamed?)")
    for name in sorted(entries.keys() & records.keys()):
        entry, r = entries[name], records[name]
        verdict = r.get("verdict")
        if verdict not in VERDICTS:
            out.append(f"{name}: verdict {verdict!r} is not one of {sorted(VERDICTS)}")
            continue
        if verdict in ("disagrees", "no-text") and not str(r.get("note") or "").strip():
            out.append(f"{name}: `{verdict}` needs a note saying why the table keeps its value")
        if verdict == "corrected" and not str(r.get("was") or "").strip():
            out.append(f"{name}: `corrected` needs `was`, what the table said before")
        if verdict not in MATCHING:
            continue
        if str(r.get("first")) != str(entry.get("msl")):
            out.append(f"{name}: marked {verdict}, but the text gives MSL {r.get('first')} and the table MSL {entry.get('msl')}")
        if _restriction(r.get("restriction")) != _restriction(entry.get("args")):
            out.append(f"{name}: marked {verdict}, but the text restricts arguments to {r.get('restriction')!r} "
                       f"and the table to {entry.get('args') or 'none'!r}")
        listed, read = _numbers(str(entry["section"])), _numbers(str(r.get("section") or ""))
        if not read or not listed or not any(_within(read[0], t) for t in listed) \
                or not all(any(_within(c, t) for c in read) for t in listed):
            out.append(f"{name}: marked {verdict}, but the text's section {r.get('section')!r} is not the table's "
                       f"{entry['section']!r}")
    return out


def test_every_msl_entry_has_a_record_of_the_text_that_agrees_or_says_why_not() -> None:
    table, text = _load("msl.yaml"), _load("msl-spec-text.yaml")
    assert problems(table, text) == []
    verdicts = [r["verdict"] for r in text["records"]]
    # Most of the table was checked against text, not waved through as unfound.
    assert verdicts.count("agrees") + verdicts.count("corrected") >= 0.9 * len(table["entries"])
    # Spot checks of what the text said: the atomic functions predate Metal 2 (the volatile overloads),
    # the fence is Metal 3.2 in 6.15.3, and simd_shuffle_xor's Ti is a kept, explained disagreement.
    records = {r["name"]: r for r in text["records"]}
    assert records["atomic_fetch_add_explicit"]["first"] == "1.0"
    assert records["atomic_thread_fence"]["section"].startswith("6.15.3 ")
    assert records["simd_shuffle_xor"]["verdict"] == "disagrees"


def test_planted_disagreements_are_each_reported() -> None:
    table, text = _load("msl.yaml"), _load("msl-spec-text.yaml")
    table, text = copy.deepcopy(table), copy.deepcopy(text)
    entries = {e["name"]: e for e in table["entries"]}
    records = {r["name"]: r for r in text["records"]}
    entries["nextafter"]["msl"] = "2.0"  # the table drifts from an agreeing record's version
    entries["popcount"].pop("args")  # ... and drops a restriction the text states
    records["simd_sum"]["section"] = "6.9.3 Quad-Group Functions"  # the record points elsewhere
    records["fma"]["verdict"] = "disagrees"  # a kept disagreement without a reason
    records["simd_ballot"]["verdict"] = "corrected"  # a correction that does not say what was
    text["records"] = [r for r in text["records"] if r["name"] != "clz"]  # an entry with no record
    table["entries"] = [e for e in table["entries"] if e["name"] != "ctz"]  # a name dropped from the table
    text["edition"] = "Metal Shading Language Specification, Version 2.4"
    found = "\n".join(problems(table, text))
    assert "nextafter: marked agrees, but the text gives MSL 3.1 and the table MSL 2.0" in found
    assert "popcount: marked agrees, but the text restricts arguments to 'integer' and the table to 'none'" in found
    assert "simd_sum: marked agrees, but the text's section" in found
    assert "fma: `disagrees` needs a note" in found
    assert "simd_ballot: `corrected` needs `was`" in found
    assert "clz: in msl.yaml but has no record" in found
    assert "ctz: recorded, but msl.yaml has no such entry" in found
    assert "the record reads edition" in found
    assert len(problems(table, text)) == 8
