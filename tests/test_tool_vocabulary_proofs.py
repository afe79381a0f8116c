"""The tool and error-string vocabularies checked against the tools themselves, where this machine has
them: every option a file lists is one the tool's own help prints, and for a tool whose file says it
lists all of them, every option the help defines is listed; every error string is the one the runtime
returns for that error. A tool that is not installed is skipped with the reason."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xlate import kb

GLOSSARY = Path(__file__).resolve().parents[1] / "glossary"
_GLOSSARY = kb.load_glossary(GLOSSARY, with_rows=False)
TOOLS = {t.tool: t for t in _GLOSSARY.tool_options}
MESSAGES = {m.messages_of: m for m in _GLOSSARY.error_messages}

# A token of help text that is an option: leading dashes, then the name up to a space, `=`, `[`, `<`,
# a comma, a closing bracket or a sentence's full stop.
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9_.+:-]*?)(?=[\s=\[<,;)\]]|\.(?:\s|$)|$)")
# A line of help that defines options (its first text is an option), not one that mentions one.
_DEFINING = re.compile(r"^\s{0,8}(?:-\w\s*\[\s*)?--?[A-Za-z0-9]")


def _sanitizer() -> str | None:
    """compute-sanitizer on PATH, else the binary the nvidia-cuda-sanitizer-api wheel installs."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in spec.submodule_search_locations or [] if spec else []:
        for candidate in Path(root).glob("cu*/bin/compute-sanitizer"):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def _help(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    return proc.stdout + proc.stderr


def _listed(tool: str) -> set[str]:
    return {o for g in TOOLS[tool].groups for o in g.options}


def _defined(text: str) -> set[str]:
    """Options the help text defines: those at the head of a line that begins with one ("-h [ --help ]",
    nvcc's "--cuda   (-cuda)"), not those its descriptions mention."""
    out: set[str] = set()
    for line in text.splitlines():
        if not _DEFINING.match(line):
            continue
        chunks = re.split(r"\s{2,}", line.strip())
        heads = [chunks[0]] + [c for c in chunks[1:2] if c.startswith("(") and c.endswith(")")]
        out |= {m for head in heads for m in _OPTION.findall(head)}
    return out


def _check(tool: str, text: str, complete: bool) -> None:
    mentioned = set(_OPTION.findall(text))
    listed = _listed(tool)
    assert not listed - mentioned, f"{tool}: listed but not in its help: {sorted(listed - mentioned)[:20]}"
    if complete:
        missing = _defined(text) - listed
        assert not missing, f"{tool}: in its help but not listed: {sorted(missing)[:20]}"


@pytest.mark.slow
def test_compute_sanitizer_options_are_those_its_help_prints() -> None:
    if "compute-sanitizer" not in TOOLS:
        pytest.skip("no compute-sanitizer vocabulary")
    binary = _sanitizer()
    if binary is None:
        pytest.skip("compute-sanitizer is not installed (the nvidia-cuda-sanitizer-api wheel of the test extras)")
    text = _help([binary, "--help"])
    version = re.search(r"Version (\d+\.\d+\.\d+)", text)
    assert version and version.group(1) in TOOLS["compute-sanitizer"].version, "another release than the file lists"
    _check("compute-sanitizer", text, complete=True)


def test_the_help_reader_finds_defined_options() -> None:
    text = ("General options:\n  -h [ --help ]                  Produce help.\n"
            "  --leak-check arg (=no)          Print leaks; see --print-limit.\n"
            "--cuda                                          (-cuda)\n        Compile to .cu.cpp.ii\n")
    assert _defined(text) == {"-h", "--help", "--leak-check", "--cuda", "-cuda"}
    assert "--print-limit" in set(_OPTION.findall(text)) and "--print-limit" not in _defined(text)


if __name__ == "__main__":  # print what the help of each installed tool defines, for writing a file
    print(sorted(_defined(_help(sys.argv[1:]))))
