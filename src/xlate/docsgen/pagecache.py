"""The generated pages written into the theme once per content: a cache by content hash, and a second
process for the pages the cache does not hold. Public mkdocs events and attributes only (hook.py).

The generated pages (a few hundred concept, rule and kernel pages) are most of a build, and writing a page
into the theme (the navigation, header and footer around it, and the search plugin reading it) is about
half of each page's cost. When every page's Markdown is rendered (the `env` event):

1. each generated page gets a key: a SHA-256 over what its theme output is made of, the page's own
   rendered state (URL, title, front matter, table of contents, HTML) and the site's fingerprint
   (every page's URL, title and front matter, the navigation, the configuration, the theme folder,
   the installed versions of mkdocs and its theme and extensions, the search vocabulary, this
   package's docs code). A page whose key the cache holds takes its output and search entries from it;
2. where this process can fork and has a second CPU, a forked copy writes the last of the other pages,
   about half their bytes, into the theme as mkdocs does (`get_context`, the `page_context` events,
   the page's template) and sends back each page's output and search entries; this process writes the
   rest meanwhile, in mkdocs' own page loop;
3. every page with an output from the cache or the copy names the template `xlate-prebuilt.html` (a
   page's `template` front matter, which mkdocs honours): at `page_context` it is handed its output,
   which the template prints as it is, and it is kept out of the search plugin, which gets the page's
   entries instead. A page the copy could not write (or wrote with a warning) gets no output, and the
   same template then extends `main.html`: the page is written here as any other;
4. after a build with no warning, the outputs of the generated pages are stored under their keys
   (XDG cache folder, `xlate/docs-pages/`), and outputs no page of this build uses are removed.

XLATE_DOCS_JOBS=1 asks for one process; XLATE_DOCS_CACHE=0 neither reads nor writes the cache (a test
builds the site every way and compares every byte).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xlate import processes

TEMPLATE = "xlate-prebuilt.html"
_FORMAT = "1"  # bump when what a cache file holds changes
_log = logging.getLogger("mkdocs.hooks.xlate")
# The share of the uncached generated pages (by cost) each copy takes: this process also has the hand-written
# pages, the static files and the search index to do. Tuned on the 2-core build machine with the waits the
# debug log prints (`mkdocs build -v`): with more, this process waited seconds for the copies.
RENDER_SHARE = 0.5
WRITE_SHARE = 0.6


def copies_enabled() -> bool:
    """Whether this build hands work to a second process: where it has a second CPU, unless
    XLATE_DOCS_JOBS=1 asks for one process (forking itself is checked when it happens)."""
    if os.environ.get("XLATE_DOCS_JOBS", "").strip() == "1":
        return False
    return (os.cpu_count() or 1) > 1


def cache_enabled() -> bool:
    return os.environ.get("XLATE_DOCS_CACHE", "").strip() != "0"


def cache_folder() -> Path:
    from xlate import kb

    return kb.cache_dir() / "docs-pages"


# --- keys -----------------------------------------------------------------------------------------


def _toc(items: Iterable[Any]) -> list[Any]:
    return [(a.title, a.id, a.level, _toc(a.children)) for a in items]


def _tree(items: Iterable[Any]) -> list[Any]:
    """The navigation as the theme draws it: titles, URLs and nesting."""
    out: list[Any] = []
    for item in items:
        children = getattr(item, "children", None)
        out.append((type(item).__name__, item.title, getattr(item, "url", None), _tree(children) if children else None))
    return out


def _versions() -> list[str]:
    from importlib import metadata

    found = []
    for name in ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "pygments", "jinja2", "markupsafe"):
        try:
            found.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}=none")
    return found


def _folder_digest(folder: Path, h: Any) -> None:
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")


def _own_theme_dirs(theme: Any) -> list[Path]:
    """The theme's template folders outside the installed packages (the site's custom folder): the
    installed themes' own templates are covered by their versions."""
    import importlib.util

    installed = []
    for name in ("material", "mkdocs"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            installed.append(Path(spec.origin).resolve().parent)
    out = []
    for folder in theme.dirs:
        path = Path(folder).resolve()
        if path.is_dir() and not any(path.is_relative_to(p) for p in installed):
            out.append(path)
    return out


def site_fingerprint(config: Any, files: Any, nav: Any, vocabulary: str) -> str:
    """What every page's theme output may show of the site besides the page itself."""
    h = hashlib.sha256(_FORMAT.encode())
    h.update(repr(_versions()).encode())
    h.update(vocabulary.encode())
    config_file = getattr(config, "config_file_path", None)
    if config_file and os.path.isfile(config_file):
        h.update(Path(config_file).read_bytes())
    for key in ("site_name", "site_url", "site_description", "site_author", "repo_url", "repo_name", "edit_uri",
                "copyright", "use_directory_urls", "extra", "extra_css", "extra_javascript", "markdown_extensions",
                "mdx_configs"):
        h.update(f"{key}={config.get(key)!r}\n".encode())
    theme = config.theme
    h.update(repr(sorted((k, repr(v)) for k, v in theme.items())).encode())
    for folder in _own_theme_dirs(theme):
        _folder_digest(folder, h)
    _folder_digest(Path(__file__).parent, h)  # this package's docs code (hooks, search annotations)
    h.update(repr(sorted(f.src_uri for f in files)).encode())
    for f in files.documentation_pages():
        page = f.page
        if page is not None:
            h.update(repr((f.src_uri, page.url, page.title, sorted((k, repr(v)) for k, v in page.meta.items()))).encode())
    h.update(repr(_tree(nav)).encode())
    return h.hexdigest()


def page_key(fingerprint: str, page: Any) -> str:
    h = hashlib.sha256(fingerprint.encode())
    h.update(repr((page.file.src_uri, page.url, page.title, page.edit_url, page.canonical_url,
                   sorted((k, repr(v)) for k, v in page.meta.items()), _toc(page.toc))).encode())
    h.update((page.content or "").encode("utf-8"))
    return h.hexdigest()


# --- the cache ------------------------------------------------------------------------------------


def _load(folder: Path, key: str) -> tuple[str, list[dict[str, Any]]] | None:
    """A page's theme output and search entries (None when the cache does not hold them)."""
    got = _load_file(folder / f"{key}.page")
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], str) and isinstance(got[1], list):
        return got
    return None


def _load_rendered(folder: Path, key: str) -> dict[str, Any] | None:
    """What rendering a page's Markdown set on it (None when the cache does not hold it)."""
    got = _load_file(folder / f"{key}.render")
    return got if isinstance(got, dict) and {"markdown", "content", "title", "toc", "anchors", "records", "links"} <= got.keys() else None


def _load_file(path: Path) -> Any:
    try:
        return processes.unpack(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _store(folder: Path, values: dict[str, Any], keep: set[str]) -> int:
    """Write the values (by file name) not yet stored; remove the cache files not named in `keep`. A cache
    that cannot be written only costs the next build its speed."""
    written = 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, value in values.items():
            path = folder / name
            if path.exists():
                continue
            tmp = folder / f"{name}.{os.getpid()}.tmp"
            tmp.write_bytes(processes.pack(value))
            os.replace(tmp, path)
            written += 1
        for old in folder.iterdir():
            if old.suffix in (".page", ".render") and old.name not in keep:
                old.unlink(missing_ok=True)
    except OSError as exc:
        _log.debug("page cache not written: %s", exc)
    return written


# --- the copy -------------------------------------------------------------------------------------


def search_plugin(config: Any) -> Any:
    """The search plugin of this build, if it keeps its index as Material's does (a list of entries)."""
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None and isinstance(getattr(index, "entries", None), list):
            return plugin
    return None


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def write_pages(uris: list[str], config: Any, files: Any, nav: Any, env: Any) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Each page's theme output (before the post_page events, which run where the site is written) and
    the search entries made for it, as mkdocs' page loop makes them. In the copy; a page that fails or
    logs a warning is left out (written again where the site is written, where its messages show)."""
    from mkdocs.commands.build import get_context
    from mkdocs.structure.files import InclusionLevel

    doc_files = files.documentation_pages(inclusion=InclusionLevel.is_included)
    search = search_plugin(config)
    warnings = _Warnings()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    out: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for uri in uris:
        file = files.get_file_from_path(uri)
        page = file.page if file is not None else None
        if page is None:
            continue
        before = len(search.search_index.entries) if search is not None else 0
        seen = warnings.count
        page.active = True  # what mkdocs' page loop does: the theme draws this page as the current one
        try:
            context = get_context(nav, doc_files, config, page)
            template = env.get_template(page.meta.get("template", "main.html"))
            context = config.plugins.on_page_context(context, page=page, config=config, nav=nav)
            output = template.render(context)
        except Exception:  # noqa: BLE001 - written again where the site is written, and fails there
            continue
        finally:
            page.active = False
        if warnings.count == seen:
            out[uri] = (output, search.search_index.entries[before:] if search is not None else [])
    return out


# --- the Markdown of the generated pages ---------------------------------------------------------


def markdown_fingerprint(config: Any, files: Any) -> str:
    """What rendering a page's Markdown depends on besides its text: the Markdown configuration, the
    installed versions, the files a link may point to (and their URLs), this package's docs code."""
    h = hashlib.sha256(("md" + _FORMAT).encode())
    h.update(repr(_versions()).encode())
    config_file = getattr(config, "config_file_path", None)
    if config_file and os.path.isfile(config_file):
        h.update(Path(config_file).read_bytes())
    for key in ("markdown_extensions", "mdx_configs", "use_directory_urls", "validation"):
        h.update(f"{key}={config.get(key)!r}\n".encode())
    h.update(repr(sorted((f.src_uri, f.url) for f in files)).encode())
    _folder_digest(Path(__file__).parent, h)
    h.update(str(logging.getLogger("mkdocs").getEffectiveLevel()).encode())  # links are kept above DEBUG only
    return h.hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stub(markdown: str) -> str | None:
    """The page's first `# heading` line: all mkdocs needs to render for the page's title."""
    for line in markdown.split("\n"):
        if line.startswith("# "):
            return line + "\n"
    return None


class _Records(logging.Handler):
    """The records a page's rendering logs (INFO and above), to be logged again where the page is used."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))


def _rendered(page: Any, markdown: str, records: list[tuple[str, int, str]]) -> dict[str, Any]:
    """What rendering set on a page, as plain data."""
    links = page.links_to_anchors
    return {"markdown": _digest(markdown), "content": page.content, "title": page.title, "toc": _toc(page.toc),
            "anchors": sorted(page.present_anchor_ids or ()), "records": records,
            "links": None if links is None else {f.src_uri: dict(d) for f, d in links.items()}}


def render_pages(uris: list[str], config: Any, files: Any) -> dict[str, dict[str, Any]]:
    """In the copy: each page's Markdown read and rendered as mkdocs' page loop does (the page_markdown
    events, `Page.render`), and what rendering set on it; a page that fails is left out."""
    handler = _Records()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    out: dict[str, dict[str, Any]] = {}
    for uri in uris:
        file = files.get_file_from_path(uri)
        page = file.page if file is not None else None
        if page is None:
            continue
        handler.records = []
        try:
            page.read_source(config)
            page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
            markdown = page.markdown
            page.render(config, files)
        except Exception:  # noqa: BLE001 - rendered again where the site is written, and fails there
            continue
        out[uri] = _rendered(page, markdown, handler.records)
    return out


def _apply(page: Any, result: dict[str, Any], files: Any) -> None:
    from mkdocs.structure.toc import AnchorLink, TableOfContents

    def links(items: list[Any]) -> list[Any]:
        made = []
        for title, anchor, level, children in items:
            link = AnchorLink(title, anchor, level)
            link.children = links(children)
            made.append(link)
        return made

    page.toc = TableOfContents(links(result["toc"]))
    page.present_anchor_ids = set(result["anchors"])
    if result["links"] is not None:
        page.links_to_anchors = {files.get_file_from_path(uri): d for uri, d in result["links"].items()}
    for name, level, message in result["records"]:
        logging.getLogger(name).log(level, message)


# --- one build ------------------------------------------------------------------------------------


class PageOutputs:
    """The generated pages' outputs for one build: from the cache, from the copy, or written here."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}  # generated page -> its key
        self.ready: dict[str, tuple[str, list[dict[str, Any]]]] = {}  # page -> output, entries
        self.copy: processes.Copy[dict[str, tuple[str, list[dict[str, Any]]]]] | None = None
        self.copy_pages: set[str] = set()
        self.written: dict[str, tuple[str, list[dict[str, Any]]]] = {}  # key -> output, entries made this build
        self.entries_here: dict[str, list[dict[str, Any]]] = {}  # page written here -> its search entries
        self.held: dict[str, tuple[Any, list[dict[str, Any]]]] = {}  # page -> (its search front matter, entries)
        self.warnings = _Warnings()
        self.hits = self.from_copy = 0
        # The Markdown stage (start_rendering, markdown, content): what rendering set on each page.
        self.md_keys: dict[str, str] = {}
        self.rendered: dict[str, dict[str, Any]] = {}  # page -> its rendering (cache or copy)
        self.md_copy: processes.Copy[dict[str, dict[str, Any]]] | None = None
        self.md_copy_pages: set[str] = set()
        self.stubbed: dict[str, tuple[dict[str, Any], str]] = {}  # page -> (its rendering, its full Markdown)
        self.md_written: dict[str, dict[str, Any]] = {}  # Markdown key -> rendering made this build
        self.md_hits = self.md_from_copy = 0
        self.waited = self.md_waited = 0.0  # seconds this process waited for each copy (tuning SHARE)
        self.records = _Records()
        self.capturing: str | None = None
        logging.getLogger("mkdocs").addHandler(self.warnings)
        logging.getLogger("mkdocs").addHandler(self.records)

    def start_rendering(self, sources: dict[str, str], config: Any, files: Any, fork: bool) -> None:
        """Before mkdocs reads the pages: key each generated page's Markdown by its source, take the
        renderings the cache holds and start a copy rendering the last of the others."""
        from mkdocs.structure.files import InclusionLevel

        order = [f.src_uri for f in files.documentation_pages(inclusion=InclusionLevel.is_included)
                 if f.src_uri in sources and "<!-- xlate:" not in sources[f.src_uri]]  # placeholders: filled per build
        if not order:
            return
        fingerprint = markdown_fingerprint(config, files)
        self.md_keys = {uri: hashlib.sha256((fingerprint + uri + "\0" + sources[uri]).encode("utf-8")).hexdigest()
                        for uri in order}
        if cache_enabled():
            folder = cache_folder()
            for uri, key in self.md_keys.items():
                got = _load_rendered(folder, key)
                if got is not None:
                    self.rendered[uri] = got
        self.md_hits = len(self.rendered)
        misses = [uri for uri in order if uri not in self.rendered]
        if fork and len(misses) >= 4:
            # The last pages of mkdocs' loop, about half the bytes: this process renders the first ones meanwhile.
            cost = [len(sources[uri]) for uri in misses]
            half, total, k = 0, sum(cost), len(misses)
            while k > 0 and half + cost[k - 1] <= total * RENDER_SHARE:
                k -= 1
                half += cost[k]
            self.md_copy = processes.start_copy(functools.partial(render_pages, misses[k:], config, files))
            if self.md_copy is not None:
                self.md_copy_pages = set(misses[k:])

    def _take_md_copy(self) -> None:
        copy, self.md_copy = self.md_copy, None
        if copy is not None:
            start = time.perf_counter()
            got = copy.result(dict)
            self.md_waited += time.perf_counter() - start
            if isinstance(got, dict):
                for uri, result in got.items():
                    if uri in self.md_copy_pages:
                        self.rendered[uri] = result
                        self.md_from_copy += 1
        self.md_copy_pages = set()

    def markdown(self, page: Any, markdown: str) -> str:
        """page_markdown, last: for a page whose rendering is known (for this very Markdown), only its
        heading is left to render (mkdocs takes the title from it); `content` puts the rest back."""
        uri = page.file.src_uri
        if uri not in self.md_keys:
            return markdown
        if uri in self.md_copy_pages:
            self._take_md_copy()
        result = self.rendered.get(uri)
        stub = _stub(markdown) if result is not None and result["markdown"] == _digest(markdown) else None
        if result is not None and stub is not None:
            self.stubbed[uri] = (result, markdown)
            self.capturing = None
            return stub
        self.capturing = uri  # rendered here: its rendering is kept for the cache
        self.records.records = []
        return markdown

    def content(self, page: Any, html: str, config: Any, files: Any) -> str:
        """page_content, first: the page's rendering put back (or kept for the cache)."""
        uri = page.file.src_uri
        held = self.stubbed.pop(uri, None)
        if held is not None:
            result, markdown = held
            page.markdown = markdown
            if page.title != result["title"]:  # not the heading mkdocs took the title from: render it all here
                page.render(config, files)
                return str(page.content)
            _apply(page, result, files)
            self.md_written[self.md_keys[uri]] = result
            return str(result["content"])
        if self.capturing == uri:
            self.capturing = None
            self.md_written[self.md_keys[uri]] = _rendered(page, page.markdown, list(self.records.records))
        return html

    def prepare(self, generated: set[str], config: Any, files: Any, nav: Any, env: Any, vocabulary: str,
                fork: bool) -> None:
        """Key every generated page, take what the cache holds, start the copy on part of the rest and
        route the pages with an output through the prebuilt template."""
        from mkdocs.structure.files import InclusionLevel

        pages = [f.page for f in files.documentation_pages(inclusion=InclusionLevel.is_included)
                 if f.src_uri in generated and f.page is not None]
        if not pages:
            return
        fingerprint = site_fingerprint(config, files, nav, vocabulary)
        self.keys = {p.file.src_uri: page_key(fingerprint, p) for p in pages}
        folder = cache_folder()
        if cache_enabled():
            for uri, key in self.keys.items():
                got = _load(folder, key)
                if got is not None:
                    self.ready[uri] = got
        self.hits = len(self.ready)
        misses = [p for p in pages if p.file.src_uri not in self.ready]
        if fork and len(misses) >= 4:
            # The copy takes the last pages of mkdocs' loop (this process reaches them after its own), about
            # half the bytes: a page's theme output costs about the same whatever its size, plus its HTML's.
            cost = [1 + len(p.content or "") / 20_000 for p in misses]
            half, total, k = 0.0, sum(cost), len(misses)
            while k > 0 and half + cost[k - 1] <= total * WRITE_SHARE:
                k -= 1
                half += cost[k]
            uris = [p.file.src_uri for p in misses[k:]]
            self.copy = processes.start_copy(functools.partial(write_pages, uris, config, files, nav, env))
            if self.copy is not None:
                self.copy_pages = set(uris)
        for page in pages:  # after the fork: the copy writes its pages with their own template
            if page.file.src_uri in self.ready or page.file.src_uri in self.copy_pages:
                page.meta["template"] = TEMPLATE

    def _take_copy(self) -> None:
        copy, self.copy = self.copy, None
        if copy is not None:
            start = time.perf_counter()
            got = copy.result(dict)
            self.waited += time.perf_counter() - start
            if isinstance(got, dict):
                for uri, value in got.items():
                    if uri in self.copy_pages:
                        self.ready[uri] = value
                        self.from_copy += 1
        self.copy_pages = set()

    def prebuilt(self, page: Any) -> str | None:
        """The page's output, if it has one (waiting for the copy if it is the copy's); the page is then
        kept out of the search plugin until `restore`."""
        uri = page.file.src_uri
        if uri in self.copy_pages:
            self._take_copy()
        got = self.ready.get(uri)
        if got is None:
            return None
        self.held[uri] = (page.meta.get("search", _ABSENT), got[1])
        page.meta["search"] = {"exclude": True}
        return got[0]

    def restore(self, page: Any, config: Any) -> bool:
        """After the search plugin: the page's front matter back and its entries added. False for a page
        written here (without an output)."""
        held = self.held.pop(page.file.src_uri, None)
        if held is None:
            return False
        search, entries = held
        if search is _ABSENT:
            page.meta.pop("search", None)
        else:
            page.meta["search"] = search
        plugin = search_plugin(config)
        if plugin is not None:
            plugin.search_index.entries.extend(entries)
        return True

    def written_here(self, page: Any, entries: list[dict[str, Any]]) -> None:
        """The search entries of a generated page this process wrote into the theme itself."""
        if page.file.src_uri in self.keys:
            self.entries_here[page.file.src_uri] = list(entries)

    def output(self, page: Any, output: str) -> None:
        """A page's theme output (post_page, before any other plugin changes it): kept for the cache."""
        uri = page.file.src_uri
        key = self.keys.get(uri)
        if key is None:
            return
        got = self.ready.get(uri)
        if got is not None:
            self.written[key] = got  # (stored only where the cache does not hold it yet)
        elif uri in self.entries_here:
            self.written[key] = (output, self.entries_here.pop(uri))

    def finish(self, store: bool) -> None:
        """After the build: the copies reaped; the renderings and outputs stored when the build logged no
        warning."""
        for copy in (self.copy, self.md_copy):
            if copy is not None:
                copy.kill()
        self.copy = self.md_copy = None
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        logging.getLogger("mkdocs").removeHandler(self.records)
        if store and cache_enabled() and not self.warnings.count and (self.keys or self.md_keys):
            values: dict[str, Any] = {f"{key}.page": value for key, value in self.written.items()}
            values.update((f"{key}.render", value) for key, value in self.md_written.items())
            keep = {f"{key}.page" for key in self.keys.values()} | {f"{key}.render" for key in self.md_keys.values()}
            written = _store(cache_folder(), values, keep)
            _log.debug("page cache: %d written", written)
        _log.debug("generated pages rendered: %d from the cache, %d by the second process, %d here (waited %.2f s)",
                   self.md_hits, self.md_from_copy, len(self.md_keys) - self.md_hits - self.md_from_copy, self.md_waited)
        _log.debug("generated pages: %d from the cache, %d written by the second process, %d here (waited %.2f s)",
                   self.hits, self.from_copy, len(self.keys) - self.hits - self.from_copy, self.waited)


_ABSENT = object()
