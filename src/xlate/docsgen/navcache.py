"""The sidebar's navigation rendered once per section and reused, with the active item moved, for its pages.

Material renders the whole navigation tree into every page, and with a few hundred pages that is the
largest part of the theme's work. Two pages in the same section and folder get the same navigation
except for the item of the page itself: the page's own item is drawn as active (with its table of
contents), every other page's as a plain link. So the first page of a group is rendered in full, and
every later page of that group gets that HTML with two items swapped: the first page's active item
becomes its plain link, and this page's plain link becomes its active item. Both items are rendered
by the theme's own `nav-item.html` macro, exactly as the full template would render them, and a swap
that does not find each item exactly once falls back to rendering the page's navigation in full.

Only for mkdocs (installed from the hook's on_env): zensical renders its own navigation.
XLATE_DOCS_NAV_CACHE=0 turns it off (a test builds the site both ways and compares every byte).
"""

from __future__ import annotations

import os
import posixpath
from typing import Any

import jinja2
from markupsafe import Markup

NAV = "partials/nav.html"
_ORIGINAL = "xlate-theme"  # prefix under which the theme's own templates stay reachable
_WRAPPER = "{{ xlate_nav() }}"
# One item of the navigation, drawn by the theme's macro in the calling page's context.
_ITEM = '{% import "partials/nav-item.html" as item with context %}{{ item.render(xlate_item, "", 0) }}'


def enabled() -> bool:
    return os.environ.get("XLATE_DOCS_NAV_CACHE", "").strip() != "0"


class NavCache:
    """Per build: the navigation HTML of the first page of each group, and how often it was reused."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self.groups: dict[tuple[Any, ...], tuple[Any, str, str]] = {}
        self.reused = 0
        self.full = 0

    def install(self) -> None:
        """Put `partials/nav.html` behind the cache, the theme's template still reachable for full renders."""
        theme = self.env.loader
        assert theme is not None
        self.env.loader = jinja2.ChoiceLoader([
            jinja2.DictLoader({NAV: _WRAPPER, "xlate/nav-item.html": _ITEM}),
            jinja2.PrefixLoader({_ORIGINAL: theme}),
            theme,
        ])
        self.env.globals["xlate_nav"] = jinja2.pass_context(lambda context: self.render(context))

    @staticmethod
    def key(page: Any) -> tuple[Any, ...] | None:
        """Pages whose navigation differs only in their own item: the same sections above, the same folder.

        An index page is drawn as its section's link, not as an item of its own: it is always rendered in full.
        """
        if page is None or getattr(page, "is_index", True) or not getattr(page, "url", None):
            return None
        ancestors = tuple(id(a) for a in getattr(page, "ancestors", ()))
        return (ancestors, posixpath.dirname(page.url))

    def _full(self, context: jinja2.runtime.Context) -> str:
        self.full += 1
        return self.env.get_template(f"{_ORIGINAL}/{NAV}").render(context.get_all())

    def _item(self, context: jinja2.runtime.Context, item: Any, page: Any) -> str:
        values = {**context.get_all(), "xlate_item": item, "page": page}
        return self.env.get_template("xlate/nav-item.html").render(values)

    def render(self, context: jinja2.runtime.Context) -> Markup:
        page = context.get("page")
        key = self.key(page)
        if key is None:
            return Markup(self._full(context))
        got = self.groups.get(key)
        if got is None:
            html = self._full(context)
            active = self._item(context, page, page)
            if html.count(active) == 1:
                self.groups[key] = (page, html, active)
            return Markup(html)
        first, html, first_active = got
        first_link = self._item(context, first, page)  # the first page as a plain link, seen from this page
        # This page as a plain link, as the first page's navigation shows it: rendered with the first page
        # current and this one not active (restored at once: mkdocs marks the current page and its sections).
        was = page.active
        page.active = False
        try:
            own_link = self._item(context, page, first)
        finally:
            page.active = was
        own_active = self._item(context, page, page)
        swapped = html.replace(first_active, first_link)
        if swapped.count(own_link) != 1 or first_link == first_active:
            return Markup(self._full(context))
        self.reused += 1
        return Markup(swapped.replace(own_link, own_active))


def install(env: jinja2.Environment) -> NavCache | None:
    """Route the theme's navigation through a new cache (None when XLATE_DOCS_NAV_CACHE=0)."""
    if not enabled():
        return None
    cache = NavCache(env)
    cache.install()
    return cache
