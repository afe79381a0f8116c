"""Triton IR operation names (glossary/vocabulary/names-triton-ir.yaml): every listed name is an operation
the installed Triton registers, every operation of Triton's own dialects found in its compiled libraries
is listed, and lookup answers a listed name with its group's card (or says no card covers it)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO, glossary_without_rows
from xlate import kb, lookup
from scripts_loader import load_script

NAMES_OF = "Triton IR operation"
_LISTS = [n for n in glossary_without_rows().name_lists if n.names_of == NAMES_OF]
OPS = _LISTS[0] if _LISTS else None
LISTED = {name: group.card for group in (OPS.groups if OPS else []) for name in group.names}

# Names holding another card's name or alias as a dotted part (Proton, Gluon; warp_group read as
# warpgroup): lookup answers that card before it reads the name list, so the name's own group is not
# reached yet.
_PREFIX_WINS = {"proton.record": "memory-bound-vs-compute-bound", "proton.allocate_event": "memory-bound-vs-compute-bound",
                "proton.event": "memory-bound-vs-compute-bound", "gluon.set_auto_layout": "triton-backend",
                "nvws.warp_group": "warpgroup"}


def _script() -> ModuleType:
    return load_script("list_triton_ir_ops")


def _installed_triton() -> None:
    try:
        import triton
    except ImportError:
        pytest.skip("triton is not installed here (pip install -e .[kernels] installs it)")
    assert OPS is not None
    if triton.__version__ not in OPS.version:
        pytest.skip(f"triton {triton.__version__} is installed; the list holds {OPS.version}'s operations")


def test_the_list_is_loaded_and_every_name_has_a_dialect_prefix() -> None:
    assert OPS is not None, f"no name list with names_of: {NAMES_OF}"
    prefixes = {name.split(".", 1)[0] for name in LISTED}
    assert prefixes <= set(_script().DIALECTS), prefixes - set(_script().DIALECTS)
    assert all(group.section.split(",", 1)[0] in _script().DIALECTS for group in OPS.groups)


@pytest.mark.slow
def test_every_listed_name_is_an_operation_the_installed_triton_registers() -> None:
    _installed_triton()
    script = _script()
    said = script.diagnostics(sorted(LISTED))
    not_ops = {name: text[:160] for name, text in said.items() if not script.is_registered(name, text)}
    assert not not_ops, not_ops


def test_the_probe_tells_an_operation_from_an_attribute_and_an_unknown_dialect() -> None:
    script = _script()
    assert script.is_registered("tt.make_range", "error: 'tt.make_range' op requires one result")
    assert script.is_registered("tt.grid_dependency_wait", "@parsed")
    assert not script.is_registered("tt.divisibility",
                                    "error: unregistered operation 'tt.divisibility' found in dialect ('tt')")
    assert not script.is_registered("foo.bar", "error: operation being parsed with an unregistered dialect.")
    # A complaint about another operation is not this one's verifier speaking.
    assert not script.is_registered("tt.dot", "error: 'tt.dot_scaled' op requires one result")


@pytest.mark.slow
def test_every_operation_of_tritons_dialects_in_its_libraries_is_listed() -> None:
    _installed_triton()
    if not shutil.which("strings"):
        pytest.skip("binutils' strings is not installed here")
    script = _script()
    found = {name for name, ok in script.registered(script.candidates()).items() if ok}
    assert found == set(LISTED), {"unlisted": sorted(found - set(LISTED)), "not found": sorted(set(LISTED) - found)}


@pytest.mark.slow
def test_the_index_places_every_name_on_its_groups_card() -> None:
    index = kb.load_index()
    wrong = {}
    for name, card in LISTED.items():
        entry = kb.vocabulary_entry(index, name)
        if entry is None or entry[0] != card:
            wrong[name] = entry
    assert not wrong, wrong


def _answer(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, json.loads(out.getvalue())


def _sample() -> list[object]:
    """The first two names of each group, and every name whose leading part is another card's label
    (Proton, Gluon): the list answers for the whole name, not the card its prefix names."""
    picked = {name: g.card for g in (OPS.groups if OPS else []) for name in g.names[:2]}
    picked.update({name: LISTED[name] for name in _PREFIX_WINS if name in LISTED})
    return [pytest.param(name, card, id=name) for name, card in picked.items()]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "card"), _sample())
def test_lookup_answers_a_listed_name_with_its_card_or_says_none_covers_it(name: str, card: str | None) -> None:
    code, payload = _answer(name)
    if card is None:
        assert code == 1 and not payload["matches"], payload["matches"][:1]
        assert payload.get("package", {}).get("card", "absent") is None, payload.get("package")
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert code == 0 and top.get("concept") == card, (top.get("concept"), top.get("matched_kind"))


def test_the_names_whose_prefix_is_another_cards_label_are_listed_on_their_own_card() -> None:
    assert all(name in LISTED and LISTED[name] != wrong for name, wrong in _PREFIX_WINS.items())


def test_listed_by_counts_match_the_list() -> None:
    assert OPS is not None
    assert f"{len(LISTED)} of " in OPS.listed_by, OPS.listed_by
    assert Path(REPO / "scripts" / "list_triton_ir_ops.py").is_file()
