"""Every command refuses bad input the same way: one `error:` line on stderr, the exit code of the
table in docs/cli.md, never a traceback and never a success.

The sweep walks the typer app, so a command added later is swept too (it must get a row in COMMANDS).
Commands run in-process through `xlate.__main__.run`, the same dispatch as the installed `xlate`
(fast argparse paths for lookup and explain, typer for the rest); one slow test runs the real entry.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from conftest import REPO, write_glossary
from xlate import errors
from xlate.__main__ import run
from xlate.cli import app

CU = str(REPO / "tests" / "fixtures" / "explain" / "portable.cu")

# command path -> (arguments that make a valid call, how it reads the glossary)
#   "option": it takes --glossary; "env": it reads $XLATE_GLOSSARY; or the reason it reads none.
COMMANDS: dict[str, tuple[list[str], str]] = {
    "lookup": (["warp"], "env"),
    "explain": ([CU], "option"),
    "translate": ([CU, "--to", "hip"], "option"),
    "compare": (["h100"], "option"),
    "path": (["warp", "thread-block"], "option"),
    "glossary check": ([], "option"),
    "glossary schema": ([], "option"),
    "glossary fix-edges": ([], "option"),
    "glossary coverage": ([], "option"),
    "glossary claims": ([], "option"),
    "glossary import-hipify": (["/nonexistent-hipify-tables"], "option"),
    "docs generate": ([], "option"),
    "docs build": ([], "env"),
    "docs serve": ([], "env"),
    "lsp": ([], "the language server reports a broken glossary to its client, not by exit code"),
    "kernels run": (["reduction"], "kernels read their examples, and GPU spec sheets only for an optional roofline"),
    "kernels verify": ([], "kernels read their examples, and GPU spec sheets only for an optional roofline"),
}
# Given a malformed glossary these commands still do their job, for the reason given.
MALFORMED_STILL_RUNS = {
    "glossary schema": "it writes the schema from the models and reads no data file",
}
# Not swept with a malformed glossary, for the reason given.
MALFORMED_NOT_READ = {
    "glossary import-hipify": "it writes rows from HIPIFY's tables into glossary/symbols/hipify/ and reads no concept file",
}
# `glossary check` reports a malformed glossary as the problems it found (exit 1), one line each.
CHECK = "glossary check"


def leaf_commands(group: object = None, prefix: str = "") -> list[str]:
    group = group if group is not None else typer.main.get_command(app)
    out = []
    for name, cmd in sorted(group.commands.items()):  # type: ignore[attr-defined]
        path = f"{prefix}{name}"
        out += leaf_commands(cmd, path + " ") if hasattr(cmd, "commands") else [path]
    return out


def call(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = run(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(code: int, out: str, err: str, expected: int = errors.EXIT_ERROR, fragment: str = "") -> None:
    assert code == expected, f"exit {code}, expected {expected}; stderr: {err!r}"
    assert "Traceback" not in out + err
    assert re.fullmatch(r"error: [^\n]+\n", err), f"not one error line: {err!r}"
    assert fragment in err
    assert out == ""


def test_every_command_has_a_row() -> None:
    assert sorted(leaf_commands()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unknown_option_is_one_line_and_exit_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    args, _ = COMMANDS[command]
    code, out, err = call(capsys, command.split() + args + ["--no-such-option"])
    assert_refused(code, out, err, fragment="--no-such-option")
    assert f"xlate {command}" in err  # which command refused it, and where its help is


@pytest.mark.parametrize("command", sorted(c for c, (_, how) in COMMANDS.items() if how in ("option", "env")))
def test_missing_glossary_is_one_line_and_exit_2(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    args, how = COMMANDS[command]
    missing = tmp_path / "nonexistent"
    if how == "option":
        args = args + ["--glossary", str(missing)]
    monkeypatch.setenv("XLATE_GLOSSARY", str(missing))
    code, out, err = call(capsys, command.split() + args)
    assert_refused(code, out, err, fragment=str(missing))
    assert "glossary folder not found" in err


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    """A small valid glossary with GPU sheets, plus one concept file that is not valid YAML."""
    import shutil

    root = write_glossary(tmp_path)
    shutil.copytree(REPO / "glossary" / "gpus", root / "gpus")
    (root / "execution-model" / "lane.yaml").write_text("id: lane\ntitle: [unclosed\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("command", sorted(c for c, (_, how) in COMMANDS.items()
                                            if how in ("option", "env") and c not in MALFORMED_NOT_READ))
def test_malformed_yaml_is_refused(command: str, malformed: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    args, how = COMMANDS[command]
    if how == "option":
        args = args + ["--glossary", str(malformed)]
    monkeypatch.setenv("XLATE_GLOSSARY", str(malformed))
    if command == "compare":  # compare reads only the spec sheets: break one of those
        (malformed / "gpus" / "b200.yaml").write_text("id: b200\nname: [unclosed\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in malformed.rglob("*.yaml")}
    code, out, err = call(capsys, command.split() + args)
    broken = "gpus/b200.yaml:" if command == "compare" else "execution-model/lane.yaml:"
    if command in MALFORMED_STILL_RUNS:
        assert code == errors.EXIT_OK and err == ""
    elif command == CHECK:
        assert code == errors.EXIT_FINDINGS
        assert f"glossary/{broken}" in err and "malformed YAML" in err and "Traceback" not in err
    else:
        assert_refused(code, out, err, fragment=broken)
    # a refusal writes nothing into the data
    assert {p: p.read_bytes() for p in malformed.rglob("*.yaml")} == before


def test_fix_edges_still_mends_a_healthy_glossary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal is for unreadable files: a one-sided edge (the problem fix-edges exists for) is mended."""
    root = write_glossary(tmp_path)
    thread_block = root / "execution-model" / "thread-block.yaml"
    thread_block.write_text(thread_block.read_text().replace("relations:\n  - {type: see-also, target: warp}\n", ""))
    code, out, err = call(capsys, ["glossary", "fix-edges", "--glossary", str(root)])
    assert (code, err) == (0, "")
    assert out == "thread-block: added see-also warp\n1 edge(s) added\n"
    assert "{type: see-also, target: warp}" in thread_block.read_text()


def test_path_says_when_it_guessed(tiny_glossary: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, ["path", "thread-block", "wavefrnt", "--glossary", str(tiny_glossary)])
    assert code == 0 and out == "thread-block --see-also--> warp\n"
    assert re.fullmatch(r"note: 'wavefrnt' read as warp \(fuzzy match, score [\d.]+\)\n", err)


def test_path_with_no_match_exits_1(tiny_glossary: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, ["path", "warp", "\u2603\u2603\u2603", "--glossary", str(tiny_glossary)])
    assert_refused(code, out, err, expected=errors.EXIT_FINDINGS, fragment="no concept matches")


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, [])
    assert code == errors.EXIT_ERROR and "Usage" in out and "lookup" in out


def test_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, ["frobnicate"])
    assert_refused(code, out, err, fragment="No such command 'frobnicate'")


def test_errors_are_one_line_even_when_the_message_is_not() -> None:
    exc = errors.GlossaryError("first\n  second\n\nthird")
    assert str(exc) == "first; second; third; run `xlate glossary check`"
    assert errors.NoMatch("x").exit_code == errors.EXIT_FINDINGS
    assert errors.UsageError("x").exit_code == errors.InputError("x").exit_code == errors.EXIT_ERROR


def test_docs_show_the_exit_code_table() -> None:
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| (.+) \|$", text, re.MULTILINE)
    assert [(int(c), n, m) for c, n, m in rows] == [(c, n, m) for c, n, m in errors.EXIT_CODES]


@pytest.mark.slow
def test_the_installed_entry_point_refuses_the_issue_cases(tmp_path: Path) -> None:
    """The cases the issue reproduced, through `python -m xlate` (a process, as a shell sees it)."""
    missing = str(tmp_path / "nonexistent")
    for argv in (["glossary", "schema", "--glossary", missing], ["glossary", "fix-edges", "--glossary", missing],
                 ["compare", "h100", "--glossary", missing], ["lookup", "warp", "--no-such-option"]):
        proc = subprocess.run([sys.executable, "-m", "xlate", *argv], capture_output=True, text=True, cwd=REPO, timeout=120)
        assert_refused(proc.returncode, proc.stdout, proc.stderr)
