"""Half of the generated pages' Markdown rendered in a second process while mkdocs renders the rest.

mkdocs renders every page's Markdown in one process, one page after another, and the generated pages
(a few hundred concept, rule and kernel pages) are most of the build. After the navigation is made, a
forked copy of the build renders every other generated page with mkdocs' own `Page.render` and sends
back what rendering sets on a page (its HTML, table of contents, title, anchors, links to anchors) and
the log records it made. mkdocs' loop in this process then reaches those pages, replays their records
(so warnings still count in strict mode) and takes the result instead of rendering them again.

Anything unexpected (no fork, a page the copy could not render, Markdown that differs from what this
process holds, a copy that died) falls back to rendering the page here, as mkdocs would have. It runs
only for a plain build: not under `mkdocs serve` (other threads are running there, and a fork copies
none of them), not when XLATE_DOCS_JOBS=1 asks for one process.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import struct
import sys
import threading
from typing import Any, BinaryIO

_HEADER = struct.Struct("<Q")


def enabled() -> bool:
    if os.environ.get("XLATE_DOCS_JOBS", "").strip() == "1":
        return False
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1


def _digest(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


class _Capture(logging.Handler):
    """Keeps the records a page's rendering makes, to be replayed by the process that writes the site."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []
        self._seen: set[int] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if id(record) in self._seen:  # reached through two loggers
            return
        self._seen.add(id(record))
        record.msg, record.args = record.getMessage(), None  # arguments may not pickle
        record.exc_info = record.exc_text = None
        self.records.append(record)


def _render_in_copy(pages: list[Any], config: Any, files: Any, out: BinaryIO) -> None:
    """In the forked copy: render each page as mkdocs' _populate_page does, send one result per page."""
    capture = _Capture()
    for logger in (logging.getLogger(), logging.getLogger("mkdocs")):
        logger.handlers = [capture]
    for page in pages:
        capture.records = []
        result: dict[str, Any] | None
        try:
            config._current_page = page
            page.read_source(config)
            page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
            source = _digest(page.markdown)
            page.render(config, files)
            links = page.links_to_anchors
            result = {
                "markdown": source, "content": page.content, "toc": page.toc, "title": page._title_from_render,
                "anchors": page.present_anchor_ids, "records": capture.records,
                "links": None if links is None else {f.src_uri: d for f, d in links.items()},
            }
        except Exception:  # noqa: BLE001 - the page is rendered again where the site is written, and fails there
            result = None
        blob = pickle.dumps((page.file.src_uri, result), protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(blob)) + blob)
        out.flush()


class _Results:
    """The copy's results, read in the order it sends them (the order mkdocs asks for them)."""

    def __init__(self, fd: int, pid: int) -> None:
        self.stream: BinaryIO | None = os.fdopen(fd, "rb")
        self.pid = pid
        self.got: dict[str, dict[str, Any] | None] = {}

    def take(self, src_uri: str) -> dict[str, Any] | None:
        while src_uri not in self.got and self.stream is not None:
            head = self.stream.read(_HEADER.size)
            if len(head) < _HEADER.size:
                self.close()
                break
            (size,) = _HEADER.unpack(head)
            try:
                key, result = pickle.loads(self.stream.read(size))
            except Exception:  # noqa: BLE001 - a truncated message: render the rest here
                self.close()
                break
            self.got[key] = result
        return self.got.pop(src_uri, None)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


def _apply(page: Any, result: dict[str, Any], files: Any) -> None:
    for record in result["records"]:
        logging.getLogger(record.name).handle(record)
    page.content, page.toc, page._title_from_render = result["content"], result["toc"], result["title"]
    page.present_anchor_ids = result["anchors"]
    if result["links"] is not None:
        page.links_to_anchors = {files.get_file_from_path(uri): d for uri, d in result["links"].items()}


def start(pages: list[Any], config: Any, files: Any) -> _Results | None:
    """Fork a copy that renders `pages`; each of them renders from its result when mkdocs asks it to."""
    if not pages:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy
        os.close(read)
        code = 0
        try:
            with os.fdopen(write, "wb") as out:
                _render_in_copy(pages, config, files, out)
        except BaseException:  # noqa: BLE001 - the pages it did not send are rendered by the parent
            code = 1
        os._exit(code)
    os.close(write)
    results = _Results(read, pid)
    for page in pages:
        page.render = _deferred(page, results)  # this page only; mkdocs calls page.render(config, files)
    return results


def _deferred(page: Any, results: _Results) -> Any:
    def render(config: Any, files: Any) -> None:
        del page.render  # from now on the page renders as any page does
        result = results.take(page.file.src_uri)
        if result is None or result["markdown"] != _digest(page.markdown):
            page.render(config, files)
            return
        _apply(page, result, files)

    return render
