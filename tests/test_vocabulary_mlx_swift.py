"""MLX's Swift modules (glossary/vocabulary/names-mlx-swift.yaml): each module name lands where the Python
module it mirrors lands, so the two vocabularies cannot drift apart."""

from __future__ import annotations

import io
import json
import re

import pytest

from conftest import glossary_without_rows
from xlate import lookup


def _groups() -> list[tuple[str, str | None, list[str]]]:
    names = {n.names_of: n for n in glossary_without_rows().name_lists}["MLX Swift module"]
    return [(g.section, g.card, list(g.names)) for g in names.groups]


def _top(query: str) -> tuple[int, str | None]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, (json.loads(out.getvalue())["matches"] or [{}])[0].get("concept")


@pytest.mark.parametrize("section, card, names", _groups(), ids=[g[0].split()[0] for g in _groups()])
def test_a_swift_module_lands_where_its_python_module_lands(section: str, card: str | None, names: list[str]) -> None:
    python_module = re.search(r"\((mlx\.[\w.]+)\)", section)
    assert python_module, section
    assert _top(python_module.group(1)) == ((0, card) if card else (1, None))
    for name in names:
        assert _top(name) == ((0, card) if card else (1, None)), name
