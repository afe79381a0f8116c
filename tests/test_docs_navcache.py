"""The sidebar's navigation reused per section: the same bytes as rendering it for every page."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from conftest import build_minimal_site, write_glossary
from xlate.docsgen import navcache

# A stand-in theme with the shape of Material's: nav.html loops over the items with nav-item.html's macro,
# which draws the current page as active with its table of contents and every other page as a link.
_THEME = {
    "partials/nav.html": '{% import "partials/nav-item.html" as item with context %}<nav>'
                         "{% for i in nav %}{{ item.render(i, 'p', 1) }}{% endfor %}</nav>",
    "partials/nav-item.html": "{% macro render(nav_item, path, level) %}"
                              "{% if nav_item == page %}<li class=active>{{ nav_item.title }}<ul>{{ page.toc }}</ul></li>"
                              "{% else %}<li><a href='{{ nav_item.url }}'>{{ nav_item.title }}</a></li>{% endif %}"
                              "{% endmacro %}",
    "page.html": "<body>{% include 'partials/nav.html' %}</body>",
}


class _Page:
    def __init__(self, title: str, url: str, toc: str, is_index: bool = False) -> None:
        self.title, self.url, self.toc, self.is_index = title, url, toc, is_index
        self.ancestors: list[object] = []
        self.active = False


def _render_all(pages: list[_Page], cached: bool) -> list[str]:
    env = jinja2.Environment(loader=jinja2.DictLoader(_THEME))
    cache = navcache.NavCache(env)
    if cached:
        cache.install()
    out = []
    for page in pages:
        page.active = True
        out.append(env.get_template("page.html").render(page=page, nav=pages))
        page.active = False
    assert not cached or cache.reused == len([p for p in pages if not p.is_index]) - 1
    return out


def test_each_page_gets_the_navigation_it_would_have_had() -> None:
    pages = [_Page("Index", "a/index.html", "i", is_index=True), _Page("One", "a/one.html", "t1"),
             _Page("Two", "a/two.html", "t2"), _Page("Three", "a/three.html", "t3")]
    assert _render_all(pages, cached=True) == _render_all(pages, cached=False)
    assert "<li class=active>Two<ul>t2</ul></li>" in _render_all(pages, cached=True)[2]


def test_a_swap_that_cannot_find_its_item_renders_in_full() -> None:
    # Two pages with the same title and address draw the same link twice: no swap is safe, both render in full.
    pages = [_Page("One", "a/one.html", "t1"), _Page("One", "a/one.html", "t2"), _Page("Two", "a/two.html", "t3")]
    env = jinja2.Environment(loader=jinja2.DictLoader(_THEME))
    cache = navcache.NavCache(env)
    cache.install()
    got = []
    for page in pages:
        page.active = True
        got.append(env.get_template("page.html").render(page=page, nav=pages))
        page.active = False
    assert got[1].count("class=active") == 1 and "t2" in got[1]
    assert cache.full >= 2


def test_off_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLATE_DOCS_NAV_CACHE", "0")
    assert navcache.install(jinja2.Environment(loader=jinja2.DictLoader(_THEME))) is None


@pytest.mark.slow
def test_the_same_site_with_the_navigation_reused_or_rendered_per_page(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "g")
    sites = {}
    for flag in ("0", "1"):
        work = tmp_path / f"nav{flag}"
        # One process and -v: the count of reused navigations is a debug message of the process writing the site.
        proc = build_minimal_site(work, root, tmp_path / "cache", env={"XLATE_DOCS_NAV_CACHE": flag, "XLATE_DOCS_JOBS": "1"},
                                  args=("-v",))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        site = work / "site"
        sites[flag] = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*.html")}
        if flag == "1":
            reused = re.search(r"navigation: (\d+) pages reused", proc.stderr)
            assert reused and int(reused.group(1)) >= 1, proc.stderr
    assert len(sites["1"]) >= 5
    assert sites["0"] == sites["1"]
