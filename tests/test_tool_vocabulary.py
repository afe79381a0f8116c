"""Tool options, error strings and name lists as vocabularies (glossary/vocabulary/tool-*.yaml,
errors-*.yaml, names-*.yaml): how a command line or a log line is read, what lookup answers for each
listed option, error string and name, and a broken file is a problem at its line. The files' contents are proven against the tools themselves in
tests/test_tool_vocabulary_proofs.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup

_GLOSSARY = glossary_without_rows()
TOOLS = _GLOSSARY.tool_options
MESSAGES = _GLOSSARY.error_messages
NAME_LISTS = _GLOSSARY.name_lists

# A hand-made table: the reading rules, apart from what the real files hold.
TABLE = kb.Index({"tool_options": {
    "--use_fast_math": [["nvcc", "fast-math-intrinsics", "optimization", "nvcc 13.0"]],
    "-G": [["nvcc", "debugger", "debugging", "nvcc 13.0"], ["other", "kernel-profiler", "x", "other 1"]],
    "-o": [["nvcc", None, "files", "nvcc 13.0"], ["clang", None, "files", "clang 19"]],
    "--leak-check": [["compute-sanitizer", "sanitizer", "memcheck", "compute-sanitizer 13.0"]],
}, "error_messages": [
    [kb.message_key("the launch timed out and was terminated"), "cudaErrorLaunchTimeout", "error-handling", "CUDA runtime 13.0"],
    [kb.message_key("out of memory"), "cudaErrorMemoryAllocation", "error-handling", "CUDA runtime 13.0"],
    [kb.message_key("unspecified launch failure"), "cudaErrorLaunchFailure", "error-handling", "CUDA runtime 13.0"],
]})


@pytest.mark.parametrize(("query", "option", "tools"), [
    ("--use_fast_math", "--use_fast_math", ["nvcc"]),
    ("nvcc --use_fast_math=true kernel.cu", "--use_fast_math", ["nvcc"]),  # a value and operands around it
    ("compute-sanitizer --leak-check full ./app", "--leak-check", ["compute-sanitizer"]),
    ("-G", "-G", ["nvcc", "other"]),
    ("other -G", "-G", ["other"]),  # the tool the line names decides
    ("clang -o", "-o", ["clang"]),
    ("use fast math", "", []),  # words, not an option
    ("--no-such-option", "", []),
])
def test_a_command_line_names_its_option_and_the_tool_narrows_it(query: str, option: str, tools: list[str]) -> None:
    found, entries = kb.option_entries(TABLE, query)
    assert (found, [e[0] for e in entries]) == (option, tools)


@pytest.mark.parametrize(("query", "name"), [
    ("the launch timed out and was terminated", "cudaErrorLaunchTimeout"),
    ("CUDA error: the launch timed out and was terminated.", "cudaErrorLaunchTimeout"),  # quoted in a log line
    ("RuntimeError: CUDA error: unspecified launch failure", "cudaErrorLaunchFailure"),
    ("Out Of Memory", "cudaErrorMemoryAllocation"),  # a short string as the whole query
    ("CUDA error: out of memory", "cudaErrorMemoryAllocation"),  # ... or after the word "error"
    ("MLX runs out of memory on M3", None),  # ... but not among other words
    ("the launch timed out", None),  # part of a string is not the string
    ("was terminated", None),
])
def test_an_error_string_is_read_whole_inside_a_log_line(query: str, name: str | None) -> None:
    found = kb.error_message(TABLE, query)
    assert (found[0] if found else None) == name


def _listed_options() -> list[tuple[str, str, str]]:
    """(tool, option, card or "") for each option of each tool file."""
    return [(tool.tool, option, group.card or "") for tool in TOOLS for group in tool.groups for option in group.options]


@pytest.mark.slow
def test_lookup_answers_every_listed_option_with_its_card_when_its_tool_is_named() -> None:
    if not TOOLS:
        pytest.skip("no tool vocabulary in this glossary")
    index = kb.load_index()
    wrong = []
    for tool, option, card in _listed_options():
        line = f"{tool} {option}"
        got = kb.search(index, line)
        # A card or row that spells the option itself answers before the vocabulary does.
        spelled_by_a_card = bool(got) and got[0].kind != "option"
        if card and (not got or got[0].concept != card) and not spelled_by_a_card:
            wrong.append((line, card, [m.concept for m in got[:2]]))
        if not card and got and got[0].kind == "option":
            wrong.append((line, None, [m.concept for m in got[:2]]))
    assert not wrong, wrong[:20]


@pytest.mark.slow
def test_lookup_answers_every_error_string_with_its_row_or_card() -> None:
    if not MESSAGES:
        pytest.skip("no error-string vocabulary in this glossary")
    index = kb.load_index()
    wrong = []
    for api in MESSAGES:
        for error in api.errors:
            if len(kb.message_key(error.message).split()) < 3:
                continue
            got = kb.search(index, f"error: {error.message}")
            named = kb.error_message(index, error.message)
            if not got or named is None:
                wrong.append((error.message, error.name, None))
            elif got[0].kind == "message" and got[0].matched != named[0]:
                wrong.append((error.message, error.name, got[0].matched))
    assert not wrong, wrong[:20]


@pytest.mark.slow
def test_lookup_answers_every_listed_name_with_its_card_or_says_none_covers_it() -> None:
    """A name of a name list (an environment variable, a struct member) answers its card, unless a card
    or row spells it (that answer comes first) or another list placed the same name first."""
    if not NAME_LISTS:
        pytest.skip("no name lists in this glossary")
    index = kb.load_index()
    wrong = []
    for names in NAME_LISTS:
        for group in names.groups:
            for name in group.names:
                entry = kb.vocabulary_entry(index, name)
                got = kb.search(index, name)
                if entry is None:
                    wrong.append((name, "not in the index"))
                elif got and got[0].kind == "package" and got[0].concept != entry[0]:
                    wrong.append((name, got[0].concept))
                elif entry[0] is None and got and got[0].kind == "package":
                    wrong.append((name, got[0].concept))
                elif entry[0] is not None and not got:
                    wrong.append((name, None))
    assert not wrong, wrong[:20]


def test_an_option_no_card_covers_is_named_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    nulls = [(t.tool, o) for t in TOOLS for g in t.groups if g.card is None for o in g.options]
    if not nulls:
        pytest.skip("no option placed under no card")
    tool, option = nulls[0]
    assert lookup.run(f"{tool} {option}") == 1
    err = capsys.readouterr().err
    assert f"{option} is an option of {tool}" in err and "no concept card" in err


BROKEN = {
    "tool-bad-option": ("tool: t\nversion: '1'\nsource: https://example.org/x\nlisted_by: t --help\n"
                        "groups:\n  - {section: S, card: null, options: [no-dash]}\n", "options"),
    "tool-twice": ("tool: t\nversion: '1'\nsource: https://example.org/x\nlisted_by: t --help\n"
                   "groups:\n  - {section: S, card: null, options: [-a]}\n  - {section: T, card: null, options: [-a]}\n",
                   "listed twice"),
    "tool-card": ("tool: t\nversion: '1'\nsource: https://example.org/x\nlisted_by: t --help\n"
                  "groups:\n  - {section: S, card: no-such-card, options: [-a]}\n", "no concept 'no-such-card'"),
    "errors-card": ("messages_of: X\nversion: '1'\nsource: https://example.org/x\nlisted_by: run\ncard: nope\n"
                    "errors:\n  - {name: xErr, message: a b c}\n", "no concept 'nope'"),
    "names-twice": ("names_of: X\nversion: '1'\nsource: https://example.org/x\nlisted_by: run\n"
                    "groups:\n  - {section: S, card: null, names: [aName]}\n  - {section: T, card: null, names: [aName]}\n",
                    "listed twice"),
    "names-card": ("names_of: X\nversion: '1'\nsource: https://example.org/x\nlisted_by: run\n"
                   "groups:\n  - {section: S, card: nope, names: [aName]}\n", "no concept 'nope'"),
    "errors-field": ("messages_of: X\nversion: '1'\nsource: https://example.org/x\nlisted_by: run\n"
                     "card: error-handling\nerrors:\n  - {name: 'not a name', message: a b c}\n", "name"),
}


def test_a_broken_tool_or_error_file_is_a_problem_at_its_line(tmp_path: Path) -> None:
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root, ignore=shutil.ignore_patterns("symbols", "translate"))
    for name, (text, _) in BROKEN.items():
        (root / "vocabulary" / f"{name}.yaml").write_text(text)
    problems = [str(p) for p in kb.load_glossary(root, with_rows=False).problems]
    for name, (_, message) in BROKEN.items():
        mine = [p for p in problems if f"{name}.yaml:" in p]
        assert mine and any(message.lower() in p.lower() for p in mine), (name, problems)
