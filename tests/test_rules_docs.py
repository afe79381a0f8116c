"""Rules as a linter keeps them: one code table, documented examples that run, snapshot fixtures.

- The code table (`xlate.rules.codes`) and the registry agree one to one, and the table is where
  "which rule silences which" is written.
- Each rule's documented `example` fires that rule and no other; its `fixed_example` fires none.
  Both go through `explain_source` with the real symbol map, as a user would run them.
- Each rule's fixture pair has a snapshot of every finding (code, line, column, message) in
  `positive.expected` / `negative.expected`. After a deliberate change, rewrite the snapshots with
  `XLATE_UPDATE_SNAPSHOTS=1 pytest tests/test_rules_docs.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xlate import explain
from xlate import kb
from xlate.rules import REGISTRY, Rule, all_rules
from xlate.rules.codes import CODES, by_name
from xlate.rules.registry import silenced_symbols

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
RULES = all_rules()
IDS = [r.name for r in RULES]
UPDATE = os.environ.get("XLATE_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols()


def test_code_table_and_registry_agree() -> None:
    assert [c.code for c in CODES] == sorted(REGISTRY), "one row per registered rule, in code order"
    assert len({c.name for c in CODES}) == len(CODES)
    for row in CODES:
        rule = REGISTRY[row.code]
        assert (rule.name, rule.severity, rule.backends) == (row.name, row.severity, row.backends)
        assert type(rule).__module__ == f"xlate.rules.{row.family}"
        assert set(row.silences) <= set(REGISTRY), row
        assert row.code not in row.silences


def test_rule_classes_do_not_restate_the_table() -> None:
    """Name, severity and backends are written once, in the table: a rule module that sets them
    again could drift from it unnoticed."""
    import inspect

    for rule in RULES:
        source = inspect.getsource(type(rule))
        for field in ("name", "severity", "backends"):
            assert f"\n    {field} = " not in source, f"{rule.code} sets {field}; the code table owns it"


def test_silencing_is_read_from_the_table() -> None:
    """A rule that covers symbols and silences the symbol-map rules hides their findings on those
    symbols; a rule whose row silences nothing hides nothing."""
    hip = silenced_symbols("XL090")
    for row in CODES:
        covers = REGISTRY[row.code].covers
        if "XL090" in row.silences:
            assert covers and covers <= hip, row.code
        elif covers:
            assert not covers <= hip, f"{row.code} covers symbols but its row silences nothing"
    assert {"cudaCtxResetPersistingL2Cache", "asm", "__launch_bounds__"} <= hip


def test_a_silenced_symbol_gets_the_dedicated_rule_only(smap: kb.SymbolMap) -> None:
    result = explain.explain_source("l2.cu", b"void f() { cudaCtxResetPersistingL2Cache(); }\n", smap)
    assert [h["rule"] for h in result["hazards"]] == ["XL042"]


# The symbol-map rules report what the glossary records about each symbol, which grows week by
# week; an example written for a code pattern is held to its own rule among the pattern rules.
SYMBOL_MAP_RULES = {"XL090", "XL091"}


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_documented_example_fires_exactly_its_rule(rule: Rule, smap: kb.SymbolMap) -> None:
    result = explain.explain_source(f"{rule.name}-example.cu", rule.example.encode(), smap)
    assert not [e for e in result["errors"] if e["kind"] == "rule"], result["errors"]
    fired = {h["rule"] for h in result["hazards"]}
    if rule.code not in SYMBOL_MAP_RULES:
        fired -= SYMBOL_MAP_RULES
    assert sorted(fired) == [rule.code], [f'{h["line"]}:{h["column"]} {h["rule"]} {h["message"]}' for h in result["hazards"]]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_documented_fixed_example_fires_nothing(rule: Rule, smap: kb.SymbolMap) -> None:
    assert rule.fixed_example.strip(), f"{rule.name} documents no fixed example"
    result = explain.explain_source(f"{rule.name}-fixed.cu", rule.fixed_example.encode(), smap)
    assert not result["hazards"], [f'{h["line"]}:{h["column"]} {h["rule"]} {h["message"]}' for h in result["hazards"]]


def _snapshot(path: Path) -> str:
    """Every finding of every rule on a fixture, one line each: LINE:COLUMN CODE name: message.

    Occurrences come from the test's own fixed table of symbols (tests/test_rules.py), so the
    snapshots do not move when the glossary's symbol map grows."""
    from test_rules import run_all, view_of

    hazards = sorted(run_all(view_of(path)), key=lambda h: (h.line, h.column, h.rule))
    return "".join(f"{h.line}:{h.column} {h.rule} {h.name}: {h.message}\n" for h in hazards)


@pytest.mark.parametrize("kind", ["positive", "negative"])
@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_fixture_findings_match_their_snapshot(rule: Rule, kind: str) -> None:
    source = FIXTURES / rule.name / f"{kind}.cu"
    expected = source.with_suffix(".expected")
    got = _snapshot(source)
    if UPDATE:
        expected.write_text(got)
    assert expected.is_file(), f"no snapshot {expected.relative_to(FIXTURES.parent.parent)}: run with XLATE_UPDATE_SNAPSHOTS=1"
    assert got == expected.read_text()
    if kind == "positive":
        assert f" {rule.code} {rule.name}: " in got  # a snapshot of nothing would pass for a rule that never fires


def test_rule_names_are_table_names() -> None:
    for rule in RULES:
        row = by_name(rule.name)
        assert row is not None and row.code == rule.code
