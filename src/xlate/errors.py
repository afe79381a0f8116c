"""The errors every command reports, and the exit codes they map to (the table in docs/cli.md).

Imported on every command's start-up, the fast lookup and explain paths included: standard library
only, and argparse only when a parser is built.

A command either answers (exit 0), answers "no" (exit 1: nothing matched, or findings at the level the
caller asked to fail on), or cannot do its job (exit 2): a bad option or argument, a glossary that is
missing or has defects, an input path that does not exist or cannot be read. Every refusal is one line
on stderr, `error: <what> [; what to do]`, never a traceback and never a success.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn, TextIO

if TYPE_CHECKING:
    import argparse

__all__ = [
    "EXIT_CODES",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_RUN",
    "EXIT_OK",
    "GlossaryError",
    "InputError",
    "NoMatch",
    "UsageError",
    "XlateError",
    "argument_parser",
    "one_line",
    "report",
]

EXIT_OK = 0
EXIT_FINDINGS = 1  # the command answered "no": no match, or findings at or above --fail-on, or check problems
EXIT_ERROR = 2  # the command could not do its job: usage, glossary or input error
EXIT_NOT_RUN = 3  # `xlate kernels run`: the backend cannot run on this machine (no GPU, toolchain or package)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it

# (code, name, meaning): docs/cli.md shows this table and a test keeps the two the same.
EXIT_CODES: tuple[tuple[int, str, str], ...] = (
    (EXIT_OK, "ok", "the command did its job"),
    (EXIT_FINDINGS, "findings", "it ran and the answer is no: nothing matched, hazards at or above `--fail-on`, "
                                "problems found by `glossary check`, concepts not connected, a kernel that fails its check"),
    (EXIT_ERROR, "error", "it could not run: an unknown or malformed option or argument, a glossary that is "
                          "missing or has defects, an input path that is missing or unreadable"),
    (EXIT_NOT_RUN, "skipped", "`kernels run` could not run the example here: no GPU, compiler or package for that backend"),
    (EXIT_INTERRUPTED, "interrupted", "stopped with Ctrl-C"),
)


def one_line(text: str) -> str:
    """The message folded onto one line (a message may quote a multi-line tool output)."""
    return "; ".join(part.strip() for part in str(text).splitlines() if part.strip())


class XlateError(Exception):
    """A refusal the user can act on: reported as one line, mapped to an exit code, never a traceback."""

    exit_code: int = EXIT_ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        text = one_line(self.message)
        return f"{text}; {self.hint}" if self.hint else text


class UsageError(XlateError):
    """An unknown option, a missing argument, or a value an option does not take."""


class GlossaryError(XlateError):
    """The glossary folder is missing, or files in it are malformed or invalid."""

    def __init__(self, message: str, hint: str | None = "run `xlate glossary check`") -> None:
        super().__init__(message, hint)


class InputError(XlateError):
    """A path the user named does not exist or cannot be read."""


class NoMatch(XlateError):
    """Nothing matched the query: an answer, not a failure, hence exit 1."""

    exit_code = EXIT_FINDINGS


def report(exc: BaseException, err: TextIO | None = None) -> int:
    """Print an error as one line on stderr and return its exit code."""
    err = err or sys.stderr
    code = exc.exit_code if isinstance(exc, XlateError) else EXIT_ERROR
    print(f"error: {one_line(str(exc))}", file=err)
    return code


def argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An argparse parser whose usage errors are one `error:` line and exit code 2, like every command's."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            print(f"error: {self.prog}: {one_line(message)} (see `{self.prog} --help`)", file=sys.stderr)
            raise SystemExit(EXIT_ERROR)

    return _Parser(prog=prog, description=description)
