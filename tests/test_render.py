"""Renderers: text (plain and coloured), markdown, json and SARIF 2.1.0 validated against the official schema."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from xlate import explain
from xlate import kb
from xlate.kb import glossary_root as default_root
from xlate.links import rule_url
from xlate.render import markdown, sarif, text
from xlate.render import json_ as json_render

FIXTURES = Path(__file__).parent / "fixtures" / "explain"
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def results() -> list[dict]:
    smap = kb.load_symbols(default_root())
    files = [FIXTURES / "constructs.cu", FIXTURES / "broken.cu", FIXTURES / "portable.cu"]
    out = [explain.explain_path(str(p), p, smap) for p in files]
    missing = explain.empty_result("missing.cu")
    missing["errors"].append({"kind": "missing", "message": "no such file or directory"})
    return out + [missing]


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_is_plain_when_not_a_terminal(results: list[dict]) -> None:
    out = io.StringIO()
    text.write(results, out, show_all=True)
    body = out.getvalue()
    assert not ANSI.search(body)
    assert "cudaMalloc" in body and "HIP: hipMalloc" in body
    # with --all the source line comes first, its equivalents on the lines below it
    lines = body.splitlines()
    i = next(n for n, line in enumerate(lines) if "cudaMalloc(&dev" in line)
    assert "cudaMalloc" in lines[i + 1] and "HIP: hipMalloc" in lines[i + 1]


def test_text_hazards_and_errors_are_compiler_style(results: list[dict]) -> None:
    out = io.StringIO()
    text.write(results, out)
    body = out.getvalue()
    style = re.compile(r"^(\S+):(\d+):(\d+): (XL\d+) ([a-z0-9-]+) .+$", re.MULTILINE)
    found = style.findall(body)
    expected = sum(len(r["hazards"]) for r in results)
    assert len(found) == expected
    assert re.search(r"broken\.cu:3:\d+: error\[syntax\]", body)
    assert "missing.cu: error[missing] no such file or directory" in body


def test_text_colours_on_a_terminal_unless_no_color(results: list[dict], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = FakeTTY()
    text.write(results[:1], tty)
    assert ANSI.search(tty.getvalue())
    monkeypatch.setenv("NO_COLOR", "1")
    tty = FakeTTY()
    text.write(results[:1], tty)
    assert not ANSI.search(tty.getvalue())


def test_text_backend_filter(results: list[dict]) -> None:
    out = io.StringIO()
    text.write(results[:1], out, backend="hip")
    assert "HIP:" in out.getvalue() and "Metal:" not in out.getvalue()


def test_markdown(results: list[dict]) -> None:
    body = markdown.render(results, show_all=True)
    assert "| Line | CUDA | Concept | HIP | Metal |" in body
    assert "| 23 | `cudaMalloc` | " in body
    for r in results:
        for h in r["hazards"]:
            assert f"]({rule_url(h['name'])})" in body
    assert "no such file or directory" in body


def test_text_lists_each_fired_rule_with_its_page(results: list[dict]) -> None:
    out = io.StringIO()
    text.write(results, out)
    body = out.getvalue()
    fired = {(h["rule"], h["name"]) for r in results for h in r["hazards"]}
    assert fired
    for code, name in fired:
        assert f"  {code} {name}: {rule_url(name)}\n" in body


def test_json_round_trips(results: list[dict]) -> None:
    from explain_shape import check_document

    out = io.StringIO()
    json_render.write(results, out)
    doc = json.loads(out.getvalue())
    check_document(doc)
    assert doc["files"][0]["annotations"] == results[0]["annotations"]


@pytest.mark.parametrize("docs_url", [None, "https://example.org/xlate/"])
def test_sarif_validates_against_the_2_1_0_schema(results: list[dict], monkeypatch: pytest.MonkeyPatch, docs_url: str | None) -> None:
    import jsonschema

    if docs_url:
        monkeypatch.setenv("XLATE_DOCS_URL", docs_url)
    else:
        monkeypatch.delenv("XLATE_DOCS_URL", raising=False)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    out = io.StringIO()
    sarif.write(results, out)
    doc = json.loads(out.getvalue())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    run = doc["runs"][0]
    assert len(run["results"]) == sum(len(r["hazards"]) for r in results)
    rules = run["tool"]["driver"]["rules"]
    assert run["results"]
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    for rule in rules:  # with or without $XLATE_DOCS_URL: code-scanning tools need both to show help
        assert rule["helpUri"] == rule_url(rule["name"])
        assert rule["help"]["text"] and rule_url(rule["name"]) in rule["help"]["markdown"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("no such file" in n["message"]["text"] for n in notes)
    assert run["invocations"][0]["executionSuccessful"] is False


def test_sarif_schema_rejects_a_broken_log() -> None:
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"message": {"text": "x"}, "level": "loud"}]}]}
    assert list(jsonschema.Draft7Validator(schema).iter_errors(bad))


def test_one_line_json_is_exactly_what_json_dumps_writes(results: list[dict]) -> None:
    """The annotation fast path must not change a byte, including for annotations of other shapes."""
    odd = dict(results[0])
    odd["annotations"] = list(odd["annotations"]) + [
        {"line": 3, "column": 1, "symbol": "x\u00e9\"", "concept": None, "equivalents": {"hip": None, "metal": "y"}},
        {"column": 2, "line": 4, "symbol": "reordered", "concept": "c", "equivalents": {"hip": "h", "metal": None}},
        {"line": True, "column": 1, "symbol": "bool line", "concept": None, "equivalents": {}},
        {"line": 5, "column": 1, "symbol": "extra", "concept": None, "equivalents": {}, "note": "more"},
    ]
    for docs in (results, [odd], [], [{}]):
        out = io.StringIO()
        json_render.write(docs, out)
        assert out.getvalue() == json.dumps(json_render.document(docs), ensure_ascii=False) + "\n"


def test_sarif_says_when_the_rule_table_is_unavailable(results: list[dict], monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry that fails to load is reported, and each result still names its rule with a link."""
    import xlate.rules

    def broken() -> list:
        raise ImportError("rule module exploded")

    monkeypatch.setattr(xlate.rules, "all_rules", broken)
    doc = sarif.document(results)
    run = doc["runs"][0]
    invocation = run["invocations"][0]
    assert [n["message"]["text"] for n in invocation["toolConfigurationNotifications"]] == [
        "hazard rules unavailable: ImportError: rule module exploded"]
    assert invocation["executionSuccessful"] is False
    rules = run["tool"]["driver"]["rules"]
    assert run["results"]
    for res in run["results"]:
        rule = rules[res["ruleIndex"]]
        assert rule["id"] == res["ruleId"] and rule["helpUri"] == rule_url(res["properties"]["name"])


def test_text_default_shows_what_differs_with_hazards_first(results: list[dict]) -> None:
    out = io.StringIO()
    text.write(results[:1], out)
    body = out.getvalue()
    r = results[0]
    lines = body.splitlines()
    # no source listing: only what differs, one line per symbol with the lines that use it
    assert not any(re.match(r"^\s*\d+ \| ", line) for line in lines)
    malloc = [line for line in lines if line.lstrip().startswith("cudaMalloc ")]
    assert len(malloc) == 1 and "HIP: hipMalloc" in malloc[0]
    uses = sorted({a["line"] for a in r["annotations"] if a["symbol"] == "cudaMalloc"})
    assert ("line " if len(uses) == 1 else "lines ") + ", ".join(map(str, uses[:8])) in malloc[0]
    # symbols that keep their name on HIP (and need no word there) share one line
    same = [line for line in lines if line.startswith("same name on HIP")]
    assert len(same) == 1 and "threadIdx" in same[0]
    assert not any(line.lstrip().startswith("threadIdx ") for line in lines)
    # hazards come before the symbols, each still in compiler style
    first_hazard = next(i for i, line in enumerate(lines) if re.match(r"^\S+:\d+:\d+: XL\d+ ", line))
    assert first_hazard < lines.index("differs:")
    for h in r["hazards"]:
        assert f"{r['path']}:{h['line']}:{h['column']}: {h['rule']} {h['name']} " in body


def test_shared_advice_is_said_once_per_group() -> None:
    tail = "Change every place together or none: a partial change double-counts the upper lanes"
    messages = [f"lane index 'a' is wrong. {tail}", f"warp index 'b' is wrong too. {tail}"]
    assert text.shared_advice(messages) == tail
    assert text.shared_advice(messages[:1]) == ""
    assert text.shared_advice(["x is bad: fix x", "y is bad: fix y"]) == ""  # no whole sentence in common


def test_markdown_default_lists_each_symbol_once(results: list[dict]) -> None:
    body = markdown.render(results[:1])
    rows = [line for line in body.splitlines() if line.startswith("| ") and "`cudaMalloc`" in line]
    assert len(rows) == 1
    assert "Same name on HIP:" in body and "`threadIdx`" in body.split("Same name on HIP:")[1]
    full = markdown.render(results[:1], show_all=True)
    assert len([line for line in full.splitlines() if "`cudaMalloc`" in line and line.startswith("| ")]) > 1 or \
        sum(1 for a in results[0]["annotations"] if a["symbol"] == "cudaMalloc") == 1


def test_json_and_sarif_keep_full_data_and_the_project(results: list[dict]) -> None:
    project = {"units": 1, "files": 1, "warp": {"decision": "mixed", "message": "m", "sites": ["a.cu:3"],
                                                 "files": ["a.cu"], "warpsize_files": ["b.cu"]}}
    out = io.StringIO()
    json_render.write(results, out, project=project)
    doc = json.loads(out.getvalue())
    assert doc["project"] == project
    assert sum(len(f["annotations"]) for f in doc["files"]) == sum(len(r["annotations"]) for r in results)
    run = sarif.document(results, project)["runs"][0]
    assert run["properties"]["xlateProject"] == project
    assert len(run["results"]) == sum(len(r["hazards"]) for r in results)


def test_text_default_writes_a_symbols_caveats_once_per_output(results: list[dict]) -> None:
    twice = [results[0], {**results[0], "path": results[0]["path"] + ".copy"}]
    first = {a["symbol"]: a for a in results[0]["annotations"]}
    caveated = next(s for s, info in results[0]["symbols"].items() if any((info.get("caveats") or {}).values())
                    and s in first and not text._is_same(info, s, first[s]["equivalents"], "all"))
    out = io.StringIO()
    text.write(twice, out)
    body = out.getvalue()
    cav = next(c for c in results[0]["symbols"][caveated]["caveats"].values() if c)
    first_words = " ".join(cav.split()[:6])
    once = io.StringIO()
    text.write(results[:1], once)
    # the second copy of the file adds no caveat text, only pointers back to it
    assert body.count(first_words) == once.getvalue().count(first_words) >= 1
    assert "(caveats above)" in body and "(caveats above)" not in once.getvalue()
