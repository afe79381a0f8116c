"""Entry point. `xlate lookup`, `xlate explain` and `xlate translate` take a fast path that skips the
CLI framework (the editor's hot path); every other command goes through the typer app in `xlate.cli`.

Both paths report errors the same way (`xlate.errors`): one `error:` line and the exit code of the
table in docs/cli.md.
"""

from __future__ import annotations

import sys

__all__ = ["main", "run"]

# Commands whose module has its own argparse front end `main(argv) -> int`, defined once there.
FAST_PATHS = {"lookup": "xlate.lookup", "explain": "xlate.explain", "translate": "xlate.translate.cli"}
# Commands that may hold large parse trees when they finish: they leave without tearing them down.
FAST_EXIT = ("explain", "translate")


def run(argv: list[str]) -> int:
    """Run one command line and return its exit code (no process exit: tests call this in-process)."""
    from xlate.errors import EXIT_INTERRUPTED, EXIT_OK, XlateError, report

    module = FAST_PATHS.get(argv[0]) if argv else None
    if module is None:
        from xlate.cli import main as cli_main

        try:
            return cli_main(argv)
        except BrokenPipeError:
            return EXIT_OK
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
    import importlib

    try:
        code: int = importlib.import_module(module).main(argv[1:])  # every command module's main returns its exit code
        return code
    except SystemExit as exc:  # argparse: --help (0) or a usage error it already reported (2)
        return exc.code if isinstance(exc.code, int) else 0
    except XlateError as exc:
        return report(exc)
    except BrokenPipeError:  # the reader (head, less) went away: not an error of ours
        return EXIT_OK
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def main() -> None:
    import os

    argv = sys.argv[1:]
    code = run(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe: point the stream at /dev/null so the exit flush stays quiet
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            except (OSError, ValueError):
                pass
    if argv[:1] and argv[0] in FAST_EXIT:
        # Output is flushed and nothing else is pending: leave without tearing down every parsed
        # node and result object one by one, which costs a large file several milliseconds.
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
