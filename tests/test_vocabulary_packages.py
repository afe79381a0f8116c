"""The vocabularies of MLX's and Triton's Python subpackages (mlx.nn, mlx.optimizers, mlx.utils,
triton.testing, triton.runtime, triton.tools, triton.profiler): the names code writes, dotted or bare,
reach the card their file gives them. For mlx.nn, mlx.optimizers and mlx.utils, which carry no
__version__ of their own, the names are also checked against the installed mlx distribution here."""

from __future__ import annotations

import importlib
import importlib.metadata
import types

import pytest

from conftest import glossary_without_rows
from xlate import kb

_MLX_SUBPACKAGES = [v for v in glossary_without_rows().vocabularies
                    if v.package in ("mlx.nn", "mlx.optimizers", "mlx.utils")]

# (spelling, card): the dotted name as the package's reference writes it, the short form code writes
# after `import mlx.nn as nn`, and the bare name after `from ... import`.
REACHED = [
    ("mlx.nn.QQLinear", "block-scaled-formats"),
    ("nn.QQLinear", "block-scaled-formats"),
    ("QQLinear", "block-scaled-formats"),
    ("nn.QuantizedShardedToAllLinear", "collectives"),
    ("QuantizedShardedToAllLinear", "collectives"),
    ("triton.testing.do_bench", "event"),
    ("do_bench", "event"),
    ("triton.tools.tensor_descriptor.TensorDescriptor", "tensor-memory-accelerator"),
    ("triton.profiler.scope", "profiling-markers"),
    # The card spells nn.QuantizedLinear only, and lookup does not read mlx.nn. as nn. the way it reads
    # mlx.core. as mx.
    pytest.param("mlx.nn.QuantizedLinear", "block-scaled-formats",
                 marks=pytest.mark.xfail(strict=True, reason="lookup does not map the mlx.nn. prefix to nn.")),
]


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


@pytest.mark.parametrize(("query", "card"), REACHED)
def test_a_dotted_or_bare_spelling_reaches_its_card(index: kb.Index, query: str, card: str) -> None:
    top = kb.search(index, query, limit=1)
    assert top and top[0].concept == card, (query, top[:1])


def _installed(vocab: kb.PackageVocabulary) -> types.ModuleType:
    try:
        module = importlib.import_module(vocab.package)
        installed = importlib.metadata.version("mlx")
    except (ImportError, importlib.metadata.PackageNotFoundError):
        pytest.skip(f"{vocab.package} is not installed here")
    if installed != vocab.version:
        pytest.skip(f"mlx {installed} is installed; the vocabulary lists {vocab.version}'s names")
    return module


def _submodule(package: types.ModuleType, dotted: str, vocab: kb.PackageVocabulary) -> object:
    module: object = package
    for part in dotted[len(vocab.package):].strip(".").split(".") if dotted != vocab.package else ():
        module = getattr(module, part)
    return module


@pytest.mark.parametrize("vocab", _MLX_SUBPACKAGES, ids=lambda v: v.package)
def test_every_listed_mlx_subpackage_name_exists(vocab: kb.PackageVocabulary) -> None:
    package = _installed(vocab)
    missing = [e.qualified for e in kb.vocabulary_entries(vocab)
               if not hasattr(_submodule(package, e.module, vocab), e.name)]
    assert not missing, missing


@pytest.mark.slow
@pytest.mark.parametrize("vocab", _MLX_SUBPACKAGES, ids=lambda v: v.package)
def test_every_public_mlx_subpackage_name_is_spelled_or_listed(index: kb.Index, vocab: kb.PackageVocabulary) -> None:
    package = _installed(vocab)
    listed = {e.qualified for e in kb.vocabulary_entries(vocab)}
    modules = {e.module for e in kb.vocabulary_entries(vocab)}
    unplaced = []
    for dotted in sorted(modules):
        module = _submodule(package, dotted, vocab)
        for name in (n for n in dir(module) if not n.startswith("_")):
            qualified = f"{dotted}.{name}"
            if qualified in listed or isinstance(getattr(module, name), types.ModuleType):
                continue
            spelled = vocab.namespaces[0] + qualified[len(vocab.package):]
            top = kb.search(index, spelled, limit=1)
            if not (top and top[0].score >= kb.SCORE_LOOSE - 1 and top[0].kind != "package"):
                unplaced.append(spelled)
    assert not unplaced, f"public names neither spelled by a card or row nor listed: {unplaced}"
