"""Function parameters as lookup terms (glossary/vocabulary/names-parameters.yaml, listed by
scripts/list_parameter_names.py into tests/data/parameter_names.txt): every function a group names still
takes each of its parameters (introspection of the installed triton and mlx), lands on the group's card,
and lookup answers each parameter with that card."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from conftest import glossary_without_rows
from scripts_loader import load_script
from xlate import lookup

pytest.importorskip("triton", reason="triton is not installed")
pytest.importorskip("mlx.core", reason="mlx is not installed")

SCRIPT = load_script("list_parameter_names")


def _groups() -> list[tuple[list[str], str, list[str]]]:
    names = {n.names_of: n for n in glossary_without_rows().name_lists}["function parameter"]
    out = []
    for g in names.groups:
        functions = re.sub(r"^parameters of ", "", g.section).split(", ")
        out.append((functions, str(g.card), list(g.names)))
    return out


def _functions() -> dict[str, Any]:
    return dict(SCRIPT._functions())


def _top(query: str) -> tuple[int, str | None]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, (json.loads(out.getvalue())["matches"] or [{}])[0].get("concept")


def test_each_function_still_takes_its_parameters_and_lands_on_the_card() -> None:
    functions = _functions()
    wrong = []
    for names_of, card, params in _groups():
        for qualified in names_of:
            taken = SCRIPT.parameters(functions[qualified]) if qualified in functions else []
            wrong += [f"{qualified} takes no {p}" for p in params if p not in taken]
            if _top(qualified) != (0, card):
                wrong.append(f"{qualified} lands on {_top(qualified)}, not {card}")
    assert not wrong, wrong


def test_lookup_answers_each_parameter_with_its_card() -> None:
    wrong = {p: (card, _top(p)) for _, card, params in _groups() for p in params if _top(p) != (0, card)}
    assert not wrong, wrong


def test_the_script_reads_a_nanobind_signature_line() -> None:
    import mlx.core as mx

    # mx.clip is a nanobind function: inspect cannot read it, its docstring's first line can.
    with pytest.raises((TypeError, ValueError)):
        __import__("inspect").signature(mx.clip)
    got = SCRIPT.parameters(mx.clip)
    assert {"a", "a_min", "a_max", "stream"} <= set(got)
