"""MLX's C API as a name list (glossary/vocabulary/names-mlx-c.yaml): every listed name is one that
scripts/list_mlx_c_names.py read from the mlx-c headers (tests/data/names-mlx-c.txt, repository and
commit on its first line), in the header its group names; each group's card is the one the script's
rule gives (the card of the name's Python mirror in mlx.core, else its header's topic); lookup answers
every name of the stored list with that card, listed or not; and a name is listed only where its card
is null or lookup did not answer that card without the list."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from conftest import GLOSSARY, REPO
from xlate import kb
from scripts_loader import load_script

FILE = GLOSSARY / "vocabulary" / "names-mlx-c.yaml"
DATA = REPO / "tests" / "data" / "names-mlx-c.txt"
COMMIT = "fba4470b89073180056c9ea46c443051375f7399"


def _script() -> ModuleType:
    return load_script("list_mlx_c_names")


@cache
def _stored() -> tuple[str, list[tuple[str, str, str]]]:
    """The stored list's first line and its (header, kind, name) rows."""
    first, *rest = DATA.read_text().splitlines()
    return first, [tuple(line.split("\t")) for line in rest]  # type: ignore[misc]


@cache
def _listed() -> list[tuple[str, str | None, str]]:
    """(header, card, name) for each listed name."""
    data = yaml.safe_load(FILE.read_text())
    return [(g["section"].split(",", 1)[0], g["card"], n) for g in data["groups"] for n in g["names"]]


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _answer(index: kb.Index, query: str) -> str | None:
    got = kb.search(index, query, limit=1)
    return got[0].concept if got else None


@cache
def _rule_cards() -> dict[str, str | None]:
    """Each stored name -> the card the script's rule gives it, from the installed mlx and lookup."""
    mx = pytest.importorskip("mlx.core")
    script = _script()
    index = _index()

    def has(module: str, attribute: str) -> bool:
        owner = mx if not module else mx.array if module == "array" else getattr(mx, module)
        return not attribute.startswith("_") and hasattr(owner, attribute)

    return {
        name: script.card_for(header, name, script.python_counterpart(header, name, has), lambda spelled: _answer(index, spelled))
        for header, _, name in _stored()[1]
    }


def test_the_stored_list_names_its_source_and_is_well_formed() -> None:
    first, rows = _stored()
    assert first == f"# ml-explore/mlx-c {COMMIT} mlx/c"
    assert COMMIT in FILE.read_text()
    assert len(rows) == 655
    assert all(len(r) == 3 and r[0].endswith(".h") and r[1] in ("function", "macro", "type") for r in rows)
    names = [r[2] for r in rows]
    assert len(names) == len(set(names)) and all(n.startswith("mlx_") for n in names)
    assert {r[0] for r in rows} == set(_script().HEADERS)


def test_each_listed_name_is_declared_in_its_groups_header_and_listed_once() -> None:
    declared = {name: header for header, _, name in _stored()[1]}
    listed = _listed()
    assert len({n for _, _, n in listed}) == len(listed)
    assert not [(h, n) for h, _, n in listed if declared.get(n) != h]


def test_each_listed_card_is_the_one_the_rule_gives() -> None:
    rule = _rule_cards()
    assert not [(n, card, rule[n]) for _, card, n in _listed() if rule[n] != card]


@pytest.mark.slow
def test_lookup_answers_every_stored_name_with_its_card() -> None:
    """Listed or left out, each name of the headers reaches the card the rule gives it, and a name with
    no card reaches none."""
    rule = _rule_cards()
    index = _index()
    wrong = [(n, card, _answer(index, n)) for n, card in rule.items() if _answer(index, n) != card]
    assert not wrong, wrong[:20]


@pytest.mark.slow
def test_a_name_is_listed_only_where_lookup_missed_its_card(tmp_path: Path) -> None:
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    (root / "vocabulary" / FILE.name).unlink()
    before = kb.load_index(root)
    rule = _rule_cards()
    listed = {n for _, _, n in _listed()}
    should = {n for n, card in rule.items() if card is None or _answer(before, n) != card}
    assert listed == should, (sorted(listed - should)[:20], sorted(should - listed)[:20])


def test_a_listed_name_with_no_card_is_named_and_answers_nothing() -> None:
    index = _index()
    entry = kb.vocabulary_entry(index, "mlx_add")
    assert entry is not None and entry[0] is None and "MLX C API name" in entry[2]
    assert kb.search(index, "mlx_add") == []


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("mlx_random_bits", "rng"),
        ("mlx_linalg_inv", "solver"),
        ("mlx_fast_rms_norm", "inference-kernels"),
        ("mlx_stream_new", "stream"),
        ("mlx_array", "device-array"),
        ("mlx_stream_free", "stream"),
        ("mlx_sum_axes", "warp-reduce"),
        ("mlx_closure_new_func", "function-transformations"),
    ],
)
def test_sample_names_answer_their_card(name: str, card: str) -> None:
    assert _answer(_index(), name) == card


def test_the_parser_reads_declarations_typedefs_and_macros() -> None:
    header = """
    /* Copyright */
    #ifndef X_H
    #define mlx_thing(...) _mlx_thing(__FILE__, __VA_ARGS__)
    #ifdef __cplusplus
    extern "C" {
    #endif
    #ifdef _MSC_VER
    typedef _Fcomplex mlx_c64;
    #else
    typedef float _Complex mlx_c64;
    #endif
    typedef struct mlx_box_ { void* ctx; int (*call)(void*); } mlx_box;
    typedef enum mlx_kind_ { MLX_A, MLX_B } mlx_kind;
    typedef void (*mlx_handler)(const char* msg, void* data);
    /** Make one. */
    mlx_box mlx_box_new(void);
    int mlx_box_apply(mlx_box* res, int (*fun)(mlx_box), void (*dtor)(void*));
    void _mlx_thing(const char* file, ...);
    #ifdef __cplusplus
    }
    #endif
    """
    assert _script().parse(header) == [
        ("macro", "mlx_thing"),
        ("type", "mlx_c64"),
        ("type", "mlx_box"),
        ("type", "mlx_kind"),
        ("type", "mlx_handler"),
        ("function", "mlx_box_new"),
        ("function", "mlx_box_apply"),
    ]


# --- MLX's "not implemented on the GPU" texts (glossary/vocabulary/errors-mlx-unsupported.yaml) ----------

ERRORS = GLOSSARY / "vocabulary" / "errors-mlx-unsupported.yaml"
ERROR_DATA = REPO / "tests" / "data" / "errors-mlx-unsupported.txt"
MLX_COMMIT = "846d176227a0ac13d2667e58d2bb68b322109ab0"
LINEAR_ALGEBRA = {"QRF", "SVD", "Inverse", "Cholesky", "Eig", "Eigh", "LUF", "check_cpu_stream"}


def _error_rows() -> list[tuple[str, str, str]]:
    """(where, name, message) for each text of the stored list."""
    first, *rest = ERROR_DATA.read_text().splitlines()
    assert first.startswith(f"# ml-explore/mlx {MLX_COMMIT} ")
    return [tuple(line.split("\t")) for line in rest]  # type: ignore[misc]


def test_the_error_file_holds_every_linear_algebra_text_of_the_stored_list_and_no_other() -> None:
    data = yaml.safe_load(ERRORS.read_text())
    assert data["card"] == "solver" and MLX_COMMIT in ERRORS.read_text()
    stored = [(name, message) for _, name, message in _error_rows()]
    assert [(e["name"], e["message"]) for e in data["errors"]] == [(n, m) for n, m in stored if n in LINEAR_ALGEBRA]
    assert all(len(kb.message_key(m).split()) >= 4 for _, m in stored)


def test_no_error_text_repeats_another_error_file() -> None:
    from conftest import glossary_without_rows

    ours = yaml.safe_load(ERRORS.read_text())["messages_of"]
    loaded = glossary_without_rows().error_messages
    assert [m for m in loaded if m.messages_of == ours]
    others = {kb.message_key(e.message) for m in loaded if m.messages_of != ours for e in m.errors}
    mine = [kb.message_key(e["message"]) for e in yaml.safe_load(ERRORS.read_text())["errors"]]
    assert len(mine) == len(set(mine)) and not set(mine) & others


@pytest.mark.parametrize(
    ("where", "name", "message"), [r for r in _error_rows() if r[1] in LINEAR_ALGEBRA], ids=lambda v: str(v)[:40]
)
def test_a_log_line_quoting_the_text_answers_the_solver_card(where: str, name: str, message: str) -> None:
    prefix = "[linalg::inv] " if name == "check_cpu_stream" else ""
    got = kb.search(_index(), f"RuntimeError: {prefix}{message}")
    assert got and (got[0].concept, got[0].kind, got[0].matched) == ("solver", "message", name)


# --- MLX's C++ namespaces (glossary/vocabulary/names-mlx-cpp.yaml) ----------------------------------------

CPP = GLOSSARY / "vocabulary" / "names-mlx-cpp.yaml"
CPP_DATA = REPO / "tests" / "data" / "names-mlx-cpp.txt"
# Namespaces placed by judgement rather than through an mx submodule of the same name.
CPP_JUDGED = {"mlx::core::distributed::mpi": "collectives", "mlx::core::allocator": "device-malloc"}


def test_each_listed_namespace_is_read_from_the_headers_and_answers_its_mirrors_card() -> None:
    first, *stored = CPP_DATA.read_text().splitlines()
    assert first.startswith(f"# ml-explore/mlx {MLX_COMMIT} ") and MLX_COMMIT in CPP.read_text()
    listed = {n: g["card"] for g in yaml.safe_load(CPP.read_text())["groups"] for n in g["names"]}
    assert set(listed) <= set(stored) and len(stored) == 15
    index = _index()
    for name, card in listed.items():
        mirror = "mx." + name.removeprefix("mlx::core::")
        assert card == CPP_JUDGED.get(name) or card == _answer(index, mirror), (name, card, mirror)
        assert _answer(index, name) == card, name
