"""Renderers for `xlate explain` results: text (terminal), markdown, json and sarif.

Each module has `write(results, out, backend=...)`; results are the plain dicts built by
`xlate.explain`. Nothing here parses or looks anything up.
"""

from __future__ import annotations

import os

# Where rule pages live, relative to the repository and the docs site (docs/rules/<name>.md).
# Set XLATE_DOCS_URL to an absolute site address to get absolute links (SARIF helpUri needs one).
RULE_DOCS_BASE = "docs/rules/"
BACKEND_LABEL = {"hip": "HIP", "metal": "Metal"}


def docs_base() -> str:
    base = os.environ.get("XLATE_DOCS_URL", RULE_DOCS_BASE)
    return base if base.endswith("/") else base + "/"


def rule_url(name: str) -> str:
    """Link to a rule's documentation page."""
    base = docs_base()
    if base.startswith(("http://", "https://")):
        return f"{base}{name}/"
    return f"{base}{name}.md"


def backends_for(backend: str) -> tuple[str, ...]:
    return ("hip", "metal") if backend == "all" else (backend,)
