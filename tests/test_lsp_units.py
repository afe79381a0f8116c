"""The language server's small parts, without a server: columns, settings, line-aligned edits."""

from __future__ import annotations

from xlate.lsp import positions
from xlate.lsp.server import line_edit
from xlate.lsp.settings import Settings, parse


def test_columns_round_trip_in_each_encoding() -> None:
    line = 'x = "\U0001F600é"; y'
    y = line.index("y")
    assert positions.to_client(line, y, positions.UTF16) == y + 1  # the emoji is two UTF-16 units
    assert positions.to_client(line, y, positions.UTF8) == len(line[:y].encode())
    for enc in (positions.UTF8, positions.UTF16, positions.UTF32):
        assert positions.from_client(line, positions.to_client(line, y, enc), enc) == y
    # A column inside a character's units lands on that character; past the end, on the end.
    assert positions.from_client(line, 6, positions.UTF16) == 5
    assert positions.from_client(line, 10**9, positions.UTF8) == len(line)
    assert positions.choose(None) == positions.UTF16
    assert positions.choose(["utf-32", "utf-8"]) == positions.UTF8
    assert positions.choose(["utf-32"]) == positions.UTF16


def test_rule_selection_follows_the_most_specific_entry() -> None:
    s = parse({"xlate": {"select": ["XL0", "no-metal-equivalent"], "ignore": ["XL01", "XL010"]}})
    assert s.keeps("XL001", "hardcoded-warp-size", ["hip"])
    assert not s.keeps("XL011", "warp-sync-mask", ["hip"])  # XL01 beats XL0
    assert not s.keeps("XL010", "lane-mask-width", ["hip"])
    assert s.keeps("XL091", "no-metal-equivalent", ["metal"])  # a name is as specific as a code
    assert not parse({"select": ["XL0"], "ignore": ["XL0"]}).keeps("XL001", "x", [])  # a tie: ignore wins
    hip_only = parse({"backends": ["hip"]})
    assert hip_only.keeps("XL001", "x", ["hip", "metal"]) and not hip_only.keeps("XL091", "y", ["metal"])
    assert hip_only.keeps("XL090", "z", [])  # a finding about no backend in particular stays


def test_bad_settings_are_reported_and_leave_the_old_values() -> None:
    base = Settings(budget_s=5.0)
    s = parse({"backends": "hip", "select": [1, 2], "passBudgetSeconds": -3, "ignore": ["XL091"]}, base)
    assert s.backends == frozenset({"hip"}) and s.select == base.select and s.budget_s == 5.0
    assert s.ignore == ("XL091",)
    assert len(s.problems) == 2
    assert parse({"backends": ["cuda"]}).problems


def test_a_line_edit_takes_the_notes_translate_adds_above_it() -> None:
    old = "a\nb\nc\n"
    edit = line_edit(old, "a\n// xlate: note\nB\nc\n", 1, 1)
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (1, 2, "// xlate: note\nB\n")
    assert line_edit(old, "a\nb\nC\n", 1, 1) is None  # nothing changed on the line asked for
    edit = line_edit(old, "#include <hip/hip_runtime.h>\na\nb\nc\n", 0, 0)
    assert edit.new_text == "#include <hip/hip_runtime.h>\na\n"
