"""Addresses of the documentation site, for links printed by explain, SARIF and the language server.

The site base can be pointed at a local build or a mirror with $XLATE_DOCS_URL.
"""

from __future__ import annotations

import os

DEFAULT_DOCS_URL = "https://xlate.dev/"


def docs_base() -> str:
    base = os.environ.get("XLATE_DOCS_URL", DEFAULT_DOCS_URL)
    return base if base.endswith("/") else base + "/"


def concept_url(category: str, concept_id: str) -> str:
    return f"{docs_base()}glossary/{category}/{concept_id}.html"


def rule_url(rule_name: str) -> str:
    return f"{docs_base()}rules/{rule_name}.html"
