"""Entry point. `xlate lookup` takes a fast path that skips the CLI framework (the editor's hot path)."""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "lookup" and "--install-completion" not in argv and "--show-completion" not in argv:
        from xlate.lookup import main as lookup_main

        try:
            code = lookup_main(argv[1:])
        except BrokenPipeError:
            code = 0
        except KeyboardInterrupt:
            code = 130
        sys.exit(code)
    if argv and argv[0] in ("explain", "translate") and "--install-completion" not in argv and "--show-completion" not in argv:
        import os

        if argv[0] == "translate":
            from xlate.translate.cli import main as explain_main
        else:
            from xlate.explain import main as explain_main

        try:
            code = explain_main(argv[1:])
            sys.stdout.flush()
        except BrokenPipeError:
            code = 0
        except KeyboardInterrupt:
            code = 130
        try:
            sys.stderr.flush()
        except OSError:
            pass
        # Output is flushed and nothing else is pending: leave without tearing down every parsed
        # node and result object one by one, which costs a large file several milliseconds.
        os._exit(code)
    from xlate.cli import app

    app()


if __name__ == "__main__":
    main()
