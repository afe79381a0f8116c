"""Renderers for `xlate explain` results: text (terminal), markdown, json and sarif.

Each module has `write(results, out, backend=...)`; results are the plain dicts built by
`xlate.explain`. Nothing here parses or looks anything up. Links to rule pages come from
`xlate.links.rule_url`, the one place that builds site addresses.
"""

from __future__ import annotations

from xlate.links import rule_url

__all__ = ["BACKEND_LABEL", "backends_for", "rule_url"]

BACKEND_LABEL = {"hip": "HIP", "metal": "Metal"}


def backends_for(backend: str) -> tuple[str, ...]:
    """The equivalents a `--backend` choice shows: both for `all`, else the one named."""
    return ("hip", "metal") if backend == "all" else (backend,)
