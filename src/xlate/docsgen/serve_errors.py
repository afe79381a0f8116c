"""`mkdocs serve` with a broken glossary: every page shows the build error, instead of hanging.

mkdocs (1.6) makes each request wait until the latest rebuild has finished; a rebuild that fails
never finishes, so every request hangs with no sign in the browser. This hook (named under `hooks:`
in mkdocs.yml, loaded by its path like docsgen/hook.py) wraps the server's rebuild: when it fails, the
server serves, for every address, one page that says what failed (the glossary's problems, as the
build reported them) and reloads itself every two seconds; the next good rebuild serves the site again.
It touches only `mkdocs serve`: `mkdocs build` fails as before.
"""

from __future__ import annotations

import html
import logging
import tempfile
import traceback
from typing import Any

log = logging.getLogger("mkdocs.hooks.xlate.serve")

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="2"><title>Build failed - xlate</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:48rem;padding:0 1rem}}
pre{{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1rem;border-left:4px solid #c62828}}
@media (prefers-color-scheme:dark){{body{{background:#1e1e1e;color:#ddd}}pre{{background:#2a2a2a}}}}</style></head>
<body><h1>The site could not be rebuilt</h1>
<p>The last change broke the build; fix it and this page turns back into the site by itself.</p>
<pre>{message}</pre></body></html>
"""


def error_page(exc: BaseException, logged: list[str] | None = None) -> bytes:
    """The page served while the build is broken: the errors the build logged (mkdocs logs a plugin's
    error, such as the glossary's problems, then aborts with a message of its own), else the exception."""
    message = "\n\n".join(logged or []) or str(exc).strip() or traceback.format_exception_only(type(exc), exc)[-1].strip()
    return PAGE.format(message=html.escape(message)).encode("utf-8")


class _Errors(logging.Handler):
    """The error messages logged while a rebuild runs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _Guard:
    """Stands in for the server's rebuild: runs it, and on failure points the server at the error page."""

    def __init__(self, server: Any, build: Any) -> None:
        self.server, self.build = server, build
        self.root, self.handler = server.root, getattr(server, "error_handler", None)
        self.empty = tempfile.TemporaryDirectory(prefix="xlate-serve-")
        self.broken = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        errors = _Errors()
        logging.getLogger("mkdocs").addHandler(errors)
        try:
            result = self.build(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any failed rebuild (PluginError, strict Abort) is shown
            page = error_page(exc, errors.messages)
            log.warning("xlate: the rebuild failed; every page shows the error until it is fixed")
            # An empty root answers every address "not found", and the handler answers with the error.
            self.server.root = self.empty.name
            self.server.error_handler = lambda code: page
            self.broken = True
            return None
        finally:
            logging.getLogger("mkdocs").removeHandler(errors)
        if self.broken:
            self.server.root, self.server.error_handler = self.root, self.handler
            self.broken = False
        return result


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    # The server calls its `builder` attribute for every rebuild (mkdocs.livereload.LiveReloadServer).
    if hasattr(server, "builder") and hasattr(server, "root") and not isinstance(server.builder, _Guard):
        server.builder = _Guard(server, server.builder)
    return server
