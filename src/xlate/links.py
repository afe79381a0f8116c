"""Addresses of pages on the documentation site: the one place that builds them.

Text, markdown and SARIF output, the language server and the docs generator all link through here.
`$XLATE_DOCS_URL` means one thing: the root of a built site, so a page's address is that root plus the
page's path in the built site (`rules/hardcoded-warp-size.html`). Unset, links point at the site built
in this checkout (`xlate docs build` writes `site/`), a `file://` address that exists once the site is
built; point it at `http://127.0.0.1:8000/` for a served copy, or at a published mirror.

No heavy imports: the language server and explain read these on every link.
"""

from __future__ import annotations

import os

__all__ = [
    "DOCS_URL_ENV",
    "SITE_DIR",
    "built_page",
    "concept_page",
    "concept_url",
    "default_site_root",
    "page_url",
    "rule_page",
    "rule_url",
    "site_root",
]

DOCS_URL_ENV = "XLATE_DOCS_URL"
SITE_DIR = "site"  # mkdocs' default output folder, beside mkdocs.yml
# mkdocs.yml sets use_directory_urls: false, so docs/a/b.md is built as site/a/b.html.
BUILT_SUFFIX = ".html"


def default_site_root() -> str:
    """The locally built site of this checkout, as a `file://` address ending in a slash."""
    from xlate.kb import repo_root

    return (repo_root() / SITE_DIR).as_uri() + "/"


def site_root() -> str:
    """$XLATE_DOCS_URL (the root of a built site), else the local build; always ends in a slash."""
    base = os.environ.get(DOCS_URL_ENV, "").strip() or default_site_root()
    return base if base.endswith("/") else base + "/"


def rule_page(name: str) -> str:
    """A rule's page in the docs source tree (docs/ relative), as the docs generator writes it."""
    return f"rules/{name}.md"


def concept_page(category: str, concept_id: str) -> str:
    """A concept's page in the docs source tree (docs/ relative)."""
    return f"glossary/{category}/{concept_id}.md"


def built_page(page: str) -> str:
    """The path in the built site of a docs source page: `rules/x.md` -> `rules/x.html`."""
    return page.removesuffix(".md") + BUILT_SUFFIX if page.endswith(".md") else page


def page_url(page: str) -> str:
    """The address of a docs source page on the site."""
    return site_root() + built_page(page)


def rule_url(name: str) -> str:
    """The address of a hazard rule's page (`name` is the rule's name, e.g. hardcoded-warp-size)."""
    return page_url(rule_page(name))


def concept_url(category: str, concept_id: str) -> str:
    """The address of a concept's page."""
    return page_url(concept_page(category, concept_id))

