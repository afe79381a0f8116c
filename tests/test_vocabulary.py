"""Package vocabularies (glossary/vocabulary/*.yaml): every listed name exists in the installed package,
every public name of the package is either spelled by a card or row or listed, lookup answers a listed
name with its card (or says what it is and exits 1 when no card covers it), and a broken file is a
problem at its line."""

from __future__ import annotations

import importlib
import importlib.metadata
import io
import inspect
import json
import re
import shutil
import types
from pathlib import Path

import pytest

from conftest import GLOSSARY, glossary_without_rows
from xlate import kb, lookup

_GLOSSARY = glossary_without_rows()
VOCABULARIES = _GLOSSARY.vocabularies


def _distribution_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _module(vocab: kb.PackageVocabulary, dotted: str) -> object:
    try:
        package = importlib.import_module(vocab.package)
    except ImportError:
        pytest.skip(f"{vocab.package} is not installed here (pip install -e .[test] installs it)")
    # mlx.nn and mlx.optimizers carry no __version__ (only mlx.core does): the distribution's metadata does.
    installed = getattr(package, "__version__", None) or getattr(importlib.import_module(vocab.package.split(".")[0]), "__version__", None) \
        or _distribution_version(vocab.package.split(".")[0])
    if installed != vocab.version:
        pytest.skip(f"{vocab.package} {installed} is installed; the vocabulary lists {vocab.version}'s names")
    module: object = package
    for part in dotted[len(vocab.package):].strip(".").split(".") if dotted != vocab.package else ():
        module = getattr(module, part)
    return module


def _parameters(owner: object) -> set[str]:
    """A callable's parameter names: its signature, or for a compiled binding that has none (nanobind),
    the signature line its docstring opens with."""
    try:
        return set(inspect.signature(owner).parameters)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        head = (getattr(owner, "__doc__", "") or "").split("\n", 1)[0]
        return set(re.findall(r"[(,]\s*\*?\s*([A-Za-z_]\w*)\s*[:=]", head))


def _answer(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("vocab", VOCABULARIES, ids=lambda v: v.package)
def test_every_listed_name_exists_in_the_installed_package(vocab: kb.PackageVocabulary) -> None:
    if not vocab.namespaces:
        # A framework this machine cannot load (Metal): each group names the header that declares it.
        assert all(g.header for g in vocab.groups), [g.section for g in vocab.groups if not g.header]
        return
    missing = []
    for e in kb.vocabulary_entries(vocab):
        module = _module(vocab, e.module)
        if e.parameter_of:
            present = e.name in _parameters(getattr(module, e.parameter_of.rsplit(".", 1)[-1]))
        else:
            present = hasattr(module, e.name)
        if not present:
            missing.append(e.qualified)
    assert not missing, missing


@pytest.mark.slow
@pytest.mark.parametrize("vocab", VOCABULARIES, ids=lambda v: v.package)
def test_every_public_name_is_spelled_by_the_glossary_or_listed(vocab: kb.PackageVocabulary) -> None:
    if not vocab.namespaces:
        pytest.skip(f"{vocab.package} cannot be introspected here; its names come from the headers each group cites")
    index = kb.load_index()
    listed = {e.qualified for e in kb.vocabulary_entries(vocab)}
    modules = {e.module for e in kb.vocabulary_entries(vocab) if not e.parameter_of}
    ns = vocab.namespaces[0]
    unplaced = []
    for dotted in sorted(modules):
        module = _module(vocab, dotted)
        for name in (n for n in dir(module) if not n.startswith("_")):
            qualified = f"{dotted}.{name}"
            if qualified in listed or qualified in modules or isinstance(getattr(module, name), types.ModuleType):
                continue  # listed, or a submodule (its names are listed under it where they are API)
            if isinstance(module, type) and hasattr(_module(vocab, vocab.package), name):
                continue  # a method the package also has as a function (mx.array.cummax): read as that function

            spelled = ns + qualified[len(vocab.package):]
            top = kb.search(index, spelled, limit=1)
            if not (top and top[0].score >= kb.SCORE_LOOSE - 1 and top[0].kind != "package"):
                unplaced.append(spelled)
    assert not unplaced, f"public names neither spelled by a card or row nor listed: {unplaced}"


@pytest.mark.slow
@pytest.mark.parametrize("vocab", VOCABULARIES, ids=lambda v: v.package)
def test_lookup_answers_each_listed_name_with_its_card_or_says_none_covers_it(vocab: kb.PackageVocabulary) -> None:
    wrong = []
    for i, entry in enumerate(kb.vocabulary_entries(vocab)):
        for ns in vocab.namespaces[:None if i < 20 else 1] or [None]:  # the long spelling of the first twenty
            query = kb.vocabulary_spelling(vocab, entry, ns)
            code, payload = _answer(query)
            if entry.card is None:
                ok = code == 1 and not payload["matches"] and payload.get("package", {}).get("card") is None
            else:
                # The package's card, reached through this file: a name a card or row also spells would
                # have answered first, so this also shows that no name is listed twice.
                top = payload["matches"][0] if payload["matches"] else {}
                ok = code == 0 and top.get("concept") == entry.card and top.get("matched_kind") == "package"
            if not ok:
                wrong.append(query)
    assert not wrong, wrong


@pytest.mark.parametrize("vocab", VOCABULARIES, ids=lambda v: v.package)
def test_no_card_names_what_the_vocabulary_says_no_card_covers(vocab: kb.PackageVocabulary) -> None:
    named = []
    for entry in kb.vocabulary_entries(vocab):
        if entry.card is None and not entry.parameter_of:
            spelled = kb.vocabulary_spelling(vocab, entry)
            named += [f"{spelled} (named by {cid})" for cid in sorted(_NAMED_IN_PROSE.get(spelled, ()))]
    assert not named, named


def _names_in_prose() -> dict[str, set[str]]:
    """Every code-like word of the cards' summaries and caveats (and each leading dotted part of it:
    tl.reshape of tl.reshape.foo) -> the cards whose prose writes it."""
    out: dict[str, set[str]] = {}
    for cid, c in _GLOSSARY.concepts.items():
        text = " ".join([c.summary, *(t.caveat or "" for _, t in c.terms.items())])
        for token in re.findall(r"(?<![\w.])[A-Za-z_][\w.]*", text):
            parts = token.rstrip(".").split(".")
            for end in range(1, len(parts) + 1):
                out.setdefault(".".join(parts[:end]), set()).add(cid)
    return out


_NAMED_IN_PROSE = _names_in_prose()


FAMILIES = _GLOSSARY.name_families


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.prefix)
def test_a_counter_name_of_each_family_reaches_its_card(family: kb.NameFamily) -> None:
    name = family.prefix + ("warps_launched.sum" if family.prefix.islower() else "BUSY_CYCLES")
    code, payload = _answer(name)
    assert code == 0 and payload["matches"][0]["concept"] == family.card
    assert payload["matches"][0]["matched_kind"] == "family"


def test_a_prefix_alone_is_no_counter_name() -> None:
    index = kb.load_index()
    assert kb.name_family(index, "SQ_") is None and kb.name_family(index, "smsp__") is None
    assert kb.name_family(index, "SQ WAVES") is None


def test_a_name_no_card_covers_is_named_in_text_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert lookup.run("tl.reshape") == 1
    err = capsys.readouterr().err
    assert "triton.language.reshape" in err and "Shape Manipulation Ops" in err and "no concept card" in err


def test_a_backend_filter_keeps_another_packages_name_out() -> None:
    index = kb.load_index()
    assert kb.search(index, "tl.sort", backend="mlx") == []
    assert kb.search(index, "tl.sort", backend="triton")[0].concept == "parallel-primitives"


BROKEN = {
    "unknown-card": ("groups:\n  - {section: S, card: no-such-card, names: [sort]}\n", "no concept 'no-such-card'"),
    "repeated": ("groups:\n  - {section: S, card: null, names: [sort]}\n  - {section: T, card: null, names: [sort]}\n",
                 "listed twice"),
    "not-a-name": ("groups:\n  - {section: S, card: null, names: ['not a name']}\n", "names"),
}


def test_a_broken_vocabulary_file_is_a_problem_at_its_line(tmp_path: Path) -> None:
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root, ignore=shutil.ignore_patterns("symbols", "translate"))
    head = "package: triton.language\nversion: '1'\nnamespaces: [tl]\nsource: https://example.org/x\n"
    for name, (groups, _) in BROKEN.items():
        (root / "vocabulary" / f"{name}.yaml").write_text(head + groups)
    (root / "vocabulary" / "not-yaml.yaml").write_text("package: [oops\n")
    (root / "vocabulary" / "bad-family.yaml").write_text(
        "families:\n  - {prefix: smsp__, tool: T, unit: U, card: no-such-card, source: https://example.org/x}\n")
    problems = [str(p) for p in kb.load_glossary(root, with_rows=False).problems]
    for name, (_, message) in {**BROKEN, "not-yaml": ("", ""), "bad-family": ("", "no concept")}.items():
        mine = [p for p in problems if f"{name}.yaml:" in p]
        assert mine and any(message.lower() in p.lower() for p in mine), (name, problems)


def test_an_array_method_is_answered_as_the_function_of_the_same_name() -> None:
    """MLX documents most array methods as its functions ("See :func:`cummax`"); lookup answers
    mx.array.NAME and mlx.core.array.NAME(...) as mx.NAME wherever mlx.core has NAME."""
    mx = pytest.importorskip("mlx.core")
    index = kb.load_index()
    methods = [n for n in dir(mx.array) if not n.startswith("_") and hasattr(mx, n)]
    assert len(methods) > 30, methods
    differ = []
    for name in methods:
        as_function = [m.concept for m in kb.search(index, f"mx.{name}", limit=1)]
        for spelled in (f"mx.array.{name}", f"mlx.core.array.{name}(x)"):
            if [m.concept for m in kb.search(index, spelled, limit=1)] != as_function:
                differ.append(spelled)
    assert not differ, differ
    # An attribute only the array has is its own entry, not a function's.
    assert kb.search(index, "mx.array.shape", limit=1)[0].concept == "device-array"
