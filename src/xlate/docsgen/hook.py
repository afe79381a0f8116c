"""mkdocs hooks (named under `hooks:` in mkdocs.yml): the generated pages, their navigation, the search index.

mkdocs loads this file by its path, so a fresh clone needs nothing installed or generated first: the
package's own `src/` goes on the import path when xlate is not importable.

- on_startup / on_post_build / on_build_error: no cyclic garbage collection during a plain build (processes.pause_gc);
- on_config / on_nav / on_env: the theme's templates compiled once, by a helper process (docsgen/templates.py);
- on_config: render every generated page in memory and add them to the navigation;
- on_files: hand them to mkdocs as virtual files (nothing is written into docs/);
- on_env / on_page_context / on_post_page / on_post_build: the generated pages' theme output taken from a
  cache by content hash, or written by a second process (docsgen/pagecache.py);
- on_page_markdown: fill the hand-written pages' placeholders from the glossary (the home page's table);
- on_page_content: keep page titles (taken from headings) escaped wherever the theme prints them;
- on_page_context: hand the search plugin each page without the tags its indexer discards (faster, same index);
- on_serve: rebuild when glossary/ or kernels/ change, not only docs/;
- on_post_build: tune the search index (docsgen/search.py).

Only public mkdocs events and page attributes are used: nothing here depends on mkdocs' or the theme's
private names.
"""

from __future__ import annotations

import html as _html
import sys
from pathlib import Path
from typing import Any

_SRC = Path(__file__).resolve().parents[2]
# The site is built from this checkout's package, even where another checkout is installed: put this
# tree first (a fresh clone needs nothing installed), and drop an xlate imported from elsewhere.
if str(_SRC) not in sys.path[:1]:
    sys.path.insert(0, str(_SRC))
_loaded = sys.modules.get("xlate")
if _loaded is not None and not Path(_loaded.__file__ or "").resolve().is_relative_to(_SRC):
    for _name in [m for m in sys.modules if m == "xlate" or m.startswith("xlate.")]:
        del sys.modules[_name]

from xlate import kb  # noqa: E402
from xlate.docsgen import build as _build  # noqa: E402
from xlate.docsgen.placeholders import fill_placeholders  # noqa: E402

assert Path(_build.__file__).resolve().is_relative_to(_SRC), f"xlate imported from {_build.__file__}, not {_SRC}"

_state: dict[str, Any] = {}


def copies_enabled() -> bool:
    from xlate.docsgen import pagecache

    return pagecache.copies_enabled()


def _fail(message: str) -> None:
    from mkdocs.exceptions import PluginError

    raise PluginError(message)


def on_startup(command: str, dirty: bool) -> None:
    from xlate import processes

    if command == "build":  # not under `mkdocs serve`, which rebuilds in one long-lived process
        _state["gc"] = processes.pause_gc()
        _state["plain_build"] = True


def on_config(config: Any) -> Any:
    _state.pop("outputs", None)
    if _state.get("plain_build") and copies_enabled():
        from xlate.docsgen import templates

        # On the other CPU while this one loads the glossary (docsgen/templates.py).
        _state["templates"] = templates.start(config)
    try:
        g = _build.load_checked()
        pages = _build.render(g=g, split=copies_enabled())
    except _build.DocsError as exc:
        _fail(f"xlate: {exc}")
    _state.update(glossary=g, pages=pages)
    if not config.get("repo_url"):
        # No repository named (XLATE_REPO_URL unset): no "Edit this page" either, where mkdocs would
        # otherwise warn on every hand-written page (and fail a strict build) that edit_uri is relative.
        config["edit_uri"] = ""
    config["nav"] = _build.expand_nav(config.get("nav") or [], pages, _build.titles_of(pages))
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for rel, text in _state["pages"].items():
        old = files.get_file_from_path(rel)
        if old is not None:  # a copy left in docs/ by an older `xlate docs generate`: the fresh one wins
            files.remove(old)
        files.append(File.generated(config, rel, content=text))
    return files


def _fill_placeholders(markdown: str, page: Any, config: Any, files: Any) -> str:
    return fill_placeholders(markdown, _state["glossary"])


def _known_rendering(markdown: str, page: Any, config: Any, files: Any) -> str:
    outputs = _state.get("outputs")
    return outputs.markdown(page, markdown) if outputs is not None else markdown


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    outputs = _state.get("outputs")
    if outputs is not None:  # a generated page rendered by the cache or the second process (pagecache.py)
        html = outputs.content(page, html, config, files)
    # mkdocs takes a page's title from its heading as plain text, unescaped, and the theme writes it into
    # <title>, the navigation and the search index as markup: escape it so glossary text stays text. The
    # escaped title goes into the page's front matter, which `page.title` answers first (main.html prints it
    # as it is); only where escaping changes it, so that the other pages keep their title from the heading.
    title = page.meta.get("title") or page.title
    if isinstance(title, str):
        escaped = _html.escape(_html.unescape(title), quote=False)
        if escaped != title or "title" in page.meta:
            page.meta["title"] = escaped
    return html


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    repo = _build.repo_root()
    # Each rebuild loads the config again, so on_config re-reads the data; Python code changes need a restart.
    for path in (kb.glossary_root(), repo / "kernels" / "examples", repo / "kernels" / "evidence"):
        if path.exists():
            server.watch(str(path))
    return server


try:
    from mkdocs.plugins import CombinedEvent, event_priority
except ImportError:  # imported outside mkdocs (zensical staging): the hook functions are not events there
    def event_priority(priority: float) -> Any:  # type: ignore[misc]  # stands in for mkdocs' decorator
        return lambda f: f

    def CombinedEvent(*methods: Any) -> Any:  # type: ignore[no-redef]  # noqa: N802 (stands in for mkdocs' class)
        return methods[0]


@event_priority(-100)  # after any plugin's changes to the navigation
def on_nav(nav: Any, config: Any, files: Any) -> Any:
    from xlate.docsgen import pagecache, search

    _state["nav"] = nav  # as every plugin left it: the page cache's keys and the second process read it
    # Before the second process is forked, so that it annotates the search entries of its pages too.
    _state["vocabulary"] = search.Vocabulary.of(_state["glossary"])
    helper = _state.pop("templates", None)
    if helper is not None:  # the compiled templates, for this process and the second one
        import logging

        _state["compiled_templates"] = helper.take()
        logging.getLogger("mkdocs.hooks.xlate").debug("templates: %d compiled by the helper", len(_state["compiled_templates"]))
    # The generated pages' Markdown rendered from the cache, or by a second process (pagecache.py).
    outputs = _state["outputs"] = pagecache.PageOutputs()
    outputs.start_rendering(_state.get("pages", {}), config, files, fork=bool(_state.get("plain_build")) and copies_enabled())
    return nav


@event_priority(-100)  # after any plugin's changes to the environment: the second process forks here
def on_env(env: Any, config: Any, files: Any) -> Any:
    from xlate.docsgen import pagecache, templates

    templates.install(env, _state.get("compiled_templates"))
    # Every page is rendered by now: the generated pages' outputs from the cache, or from a second process.
    outputs = _state.get("outputs") or pagecache.PageOutputs()
    _state["outputs"] = outputs
    vocabulary = _state.get("vocabulary")
    outputs.prepare(set(_state.get("pages", ())), config, files, _state.get("nav"), env,
                    vocabulary.name if vocabulary is not None else "",
                    fork=bool(_state.get("plain_build")) and copies_enabled())
    return env


@event_priority(100)  # before the search plugin (priority 0) reads the page
def _content_for_search(context: Any, page: Any, config: Any, nav: Any) -> Any:
    from markupsafe import Markup

    from xlate.docsgen import pagecache, search

    outputs = _state.get("outputs")
    output = outputs.prebuilt(page) if outputs is not None else None
    if output is not None:  # printed by its template as it is; the search plugin skips it (pagecache.py)
        context["xlate_prebuilt"] = Markup(output)
        return context
    slim = search.for_indexing(page.content or "")
    if slim is not None:
        _state.setdefault("full_content", {})[id(page)] = page.content
        page.content = slim
    plugin = pagecache.search_plugin(config)
    _state["entries_before"] = len(plugin.search_index.entries) if plugin is not None else None
    return context


@event_priority(-100)  # after it: the theme renders the page as it was
def _content_for_reader(context: Any, page: Any, config: Any, nav: Any) -> Any:
    from xlate.docsgen import pagecache, search

    outputs = _state.get("outputs")
    if outputs is not None and outputs.restore(page, config):  # its entries came with its output
        return context
    full = _state.get("full_content", {}).pop(id(page), None)
    if full is not None:
        page.content = full
    before, vocab = _state.pop("entries_before", None), _state.get("vocabulary")
    plugin = pagecache.search_plugin(config)
    if before is not None and vocab is not None and plugin is not None:
        entries = plugin.search_index.entries[before:]  # this page's entries
        for entry in entries:
            search.annotate(entry, vocab)
        if outputs is not None:
            outputs.written_here(page, entries)
    return context


@event_priority(100)  # the theme's output, before any plugin changes it
def on_post_page(output: str, page: Any, config: Any) -> str:
    outputs = _state.get("outputs")
    if outputs is not None:
        outputs.output(page, output)
    return output


# The search plugin reads every tag of a page; it is handed the page without the tags it discards. Its
# entries for the page are then annotated for the tuning after the build (docsgen/search.py), in the
# process that builds the page.
on_page_context = CombinedEvent(_content_for_search, _content_for_reader)
# The placeholders filled first; a generated page whose rendering is known is then left with its heading.
on_page_markdown = CombinedEvent(_fill_placeholders, event_priority(-100)(_known_rendering))


def on_build_error(error: Exception) -> None:
    from xlate import processes

    outputs = _state.pop("outputs", None)
    if outputs is not None:
        outputs.finish(store=False)
    helper = _state.pop("templates", None)
    if helper is not None:  # the build failed before it took them
        helper.take()
    processes.resume_gc(_state.pop("gc", None), keep=False)


@event_priority(-100)  # after the search plugin has written its index
def on_post_build(config: Any) -> None:
    from xlate import processes

    try:
        _finish_build(config)
    finally:
        processes.resume_gc(_state.pop("gc", None), keep=True)


def _finish_build(config: Any) -> None:
    import logging

    from xlate.docsgen import search

    log = logging.getLogger("mkdocs.hooks.xlate")
    outputs = _state.pop("outputs", None)
    if outputs is not None:  # every page is written by now
        outputs.finish(store=True)
    index = Path(config["site_dir"]) / "search" / "search_index.json"
    if not index.exists():
        return
    result = search.tune_index(index, _state["glossary"])
    log.info("search: %d spelling entries added, boosted for %d own queries", result.entries, len(result.queries))
    log.debug("search: %d page entries annotated as they were indexed", result.annotated)
