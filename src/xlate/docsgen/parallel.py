"""Half of the generated pages built in a second process while mkdocs builds the rest.

mkdocs builds every page in one process, one page after another: first it renders each page's Markdown,
then it renders each page into the theme and writes it. The generated pages (a few hundred concept, rule
and kernel pages) are most of the build. After the navigation is made, a forked copy of the build takes
every other generated page through both steps:

1. it renders the page's Markdown with mkdocs' own `Page.render` and sends back what rendering sets on a
   page (its HTML, table of contents, title, anchors, links to anchors) and the log records it made;
   mkdocs' loop in this process reaches those pages, replays their records (so warnings still count in
   strict mode) and takes the result instead of rendering them again;
2. once this process has every page's Markdown rendered, it tells the copy every page's title and front
   matter (what the navigation and the footer show of other pages) and which of its pages it took; the
   copy builds those pages with mkdocs' own `_build_page` (theme, search plugin, writing the HTML file)
   and sends back each page's search entries and log records. Here mkdocs' page loop skips those pages
   but adds their search entries where the page would have added them, so the index comes out the same.

Anything unexpected (no fork, a page the copy could not render or build, Markdown that differs from what
this process holds, a copy that died) falls back to doing the page here, as mkdocs would have. It runs
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
    """Whether this build shares its pages with a second process: where it can fork and has a second CPU,
    unless XLATE_DOCS_JOBS=1 asks for one process.

    (Choosing one process on a busy machine was tried: over three benchmark runs at load averages of 3 to 9
    on two CPUs, neither choice was faster on the whole, while on a quiet machine two processes are.)
    """
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


def _send(out: BinaryIO, key: Any, result: dict[str, Any] | None) -> None:
    blob = pickle.dumps((key, result), protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEADER.pack(len(blob)) + blob)
    out.flush()


def _capture_logs() -> _Capture:
    capture = _Capture()
    for logger in (logging.getLogger(), logging.getLogger("mkdocs")):
        logger.handlers = [capture]
    return capture


def _render_in_copy(pages: list[Any], config: Any, files: Any, out: BinaryIO) -> None:
    """In the forked copy: render each page as mkdocs' _populate_page does, send one result per page."""
    capture = _capture_logs()
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
        _send(out, page.file.src_uri, result)
        if result is not None:  # this copy may build the page next: bring it where _populate_page leaves it
            try:
                page.content = config.plugins.on_page_content(page.content, page=page, config=config, files=files)
            except Exception:  # noqa: BLE001 - the site's process renders it, and fails there
                page.content = None
    config._current_page = None


def _build_in_copy(config: Any, files: Any, nav: Any, out: BinaryIO, inbox: BinaryIO) -> None:
    """In the forked copy: once told the other pages' titles, build the pages this process may build."""
    from mkdocs.structure.files import InclusionLevel

    try:
        told = pickle.load(inbox)
    except Exception:  # noqa: BLE001 - no message (the site's process builds everything itself)
        return
    pages = {f.src_uri: f.page for f in files.documentation_pages() if f.page is not None}
    for uri, (meta, title) in told["pages"].items():
        page = pages.get(uri)
        if page is None:
            continue
        # What the theme reads of a page other than the one it renders: its title and front matter.
        if page.markdown is None:
            page.markdown = ""
        if page.content is None:
            page.content = ""
        page.meta, page._title_from_render = meta, title
    capture = _capture_logs()
    env = config.plugins.on_env(config.theme.get_env(), config=config, files=files)
    doc_files = files.documentation_pages(inclusion=InclusionLevel.is_included)
    search = search_plugin(config)
    for uri in told["build"]:
        capture.records = []
        page = pages[uri]
        before = len(search.search_index.entries) if search is not None else 0
        result: dict[str, Any] | None
        try:
            _ORIGINAL_BUILD_PAGE(page, config, doc_files, nav, env)
            entries = search.search_index.entries[before:] if search is not None else []
            result = {"entries": entries, "records": capture.records}
        except Exception:  # noqa: BLE001 - the page is built again where the site is written, and fails there
            result = None
        _send(out, ("built", uri), result)


def search_plugin(config: Any) -> Any:
    """Material's (or mkdocs') search plugin of this build, if it keeps its index as Material's does."""
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None and isinstance(getattr(index, "entries", None), list):
            return plugin
    return None


class _Results:
    """The copy's results, read in the order it sends them (the order mkdocs asks for them)."""

    def __init__(self, fd: int, pid: int, outbox: BinaryIO | None = None) -> None:
        self.stream: BinaryIO | None = os.fdopen(fd, "rb")
        self.outbox = outbox
        self.pid = pid
        self.got: dict[Any, dict[str, Any] | None] = {}
        self.rendered: list[str] = []  # the pages whose rendering this process took from the copy
        self.building: set[str] = set()  # the pages the copy was asked to build
        self.built = 0  # and how many of them it built

    def take(self, key: Any) -> dict[str, Any] | None:
        while key not in self.got and self.stream is not None:
            head = self.stream.read(_HEADER.size)
            if len(head) < _HEADER.size:
                self.close()
                break
            (size,) = _HEADER.unpack(head)
            try:
                got, result = pickle.loads(self.stream.read(size))
            except Exception:  # noqa: BLE001 - a truncated message: do the rest here
                self.close()
                break
            self.got[got] = result
        return self.got.pop(key, None)

    def build_rest(self, files: Any) -> None:
        """Every page is rendered: send the copy every page's title and front matter, and let it build its pages."""
        if self.outbox is None:
            return
        told = {
            "pages": {f.src_uri: (f.page.meta, f.page._title_from_render) for f in files.documentation_pages()
                      if f.page is not None and f.page.markdown is not None},
            "build": [uri for uri in self.rendered if files.get_file_from_path(uri).inclusion.is_included()],
        }
        try:
            pickle.dump(told, self.outbox, protocol=pickle.HIGHEST_PROTOCOL)
            self.outbox.close()
        except Exception:  # noqa: BLE001 - the copy is gone: every page is built here
            return
        finally:
            self.outbox = None
        self.building = set(told["build"])

    def build_page(self, page: Any, config: Any, doc_files: Any, nav: Any, env: Any, dirty: bool = False,
                   excluded: bool = False) -> None:
        """mkdocs' _build_page, for a page the copy built: its log records and search entries, nothing else."""
        uri = page.file.src_uri
        result = self.take(("built", uri)) if uri in self.building and not dirty and not excluded else None
        if result is None:
            _ORIGINAL_BUILD_PAGE(page, config, doc_files, nav, env, dirty, excluded)
            return
        self.built += 1
        for record in result["records"]:
            logging.getLogger(record.name).handle(record)
        search = search_plugin(config)
        if search is not None:
            search.search_index.entries.extend(result["entries"])

    def close(self) -> None:
        if self.outbox is not None:
            self.outbox.close()
            self.outbox = None
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


def _original_build_page() -> Any:
    from mkdocs.commands import build as mk_build

    return getattr(mk_build._build_page, "__wrapped__", mk_build._build_page)


_ORIGINAL_BUILD_PAGE: Any = None


def start(pages: list[Any], config: Any, files: Any, nav: Any = None) -> _Results | None:
    """Fork a copy that renders `pages` (and, with a navigation, builds them); each of them renders from
    its result when mkdocs asks it to."""
    global _ORIGINAL_BUILD_PAGE
    if not pages:
        return None
    _ORIGINAL_BUILD_PAGE = _original_build_page()
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    back_read, back_write = os.pipe() if nav is not None else (-1, -1)
    pid = os.fork()
    if pid == 0:  # the copy
        os.close(read)
        if back_write >= 0:
            os.close(back_write)
        code = 0
        try:
            with os.fdopen(write, "wb") as out:
                _render_in_copy(pages, config, files, out)
                if back_read >= 0:
                    with os.fdopen(back_read, "rb") as inbox:
                        _build_in_copy(config, files, nav, out, inbox)
        except BaseException:  # noqa: BLE001 - the pages it did not send are done by the parent
            code = 1
        os._exit(code)
    os.close(write)
    if back_read >= 0:
        os.close(back_read)
    results = _Results(read, pid, os.fdopen(back_write, "wb") if back_write >= 0 else None)
    for page in pages:
        page.render = _deferred(page, results)  # this page only; mkdocs calls page.render(config, files)
    return results


def take_over_building(results: _Results, files: Any) -> None:
    """Every page is rendered: the copy builds its pages, and mkdocs' page loop here skips them."""
    from mkdocs.commands import build as mk_build

    results.build_rest(files)
    if not results.building:
        return

    def build_page(*args: Any, **kwargs: Any) -> None:
        results.build_page(*args, **kwargs)

    build_page.__wrapped__ = _ORIGINAL_BUILD_PAGE  # type: ignore[attr-defined]
    mk_build._build_page = build_page


def finish(results: _Results) -> None:
    """After the page loop (or a failed build): mkdocs' own _build_page back, the copy reaped."""
    from mkdocs.commands import build as mk_build

    if _ORIGINAL_BUILD_PAGE is not None:
        mk_build._build_page = _ORIGINAL_BUILD_PAGE
    results.close()


def _deferred(page: Any, results: _Results) -> Any:
    def render(config: Any, files: Any) -> None:
        del page.render  # from now on the page renders as any page does
        result = results.take(page.file.src_uri)
        if result is None or result["markdown"] != _digest(page.markdown):
            page.render(config, files)
            return
        _apply(page, result, files)
        results.rendered.append(page.file.src_uri)

    return render
