"""The vocabularies of MLX's and Triton's Python subpackages (mlx.nn, mlx.optimizers, mlx.utils,
triton.testing, triton.runtime, triton.tools, triton.profiler, Gluon's architecture modules): the names
code writes, dotted or bare, reach the card their file gives them (tests/test_vocabulary.py checks every listed name against the installed
packages)."""

from __future__ import annotations


import pytest

from xlate import kb

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
    # The card spells nn.QuantizedLinear: mlx.nn. is read as nn. as mlx.core. is read as mx.
    ("mlx.nn.QuantizedLinear", "block-scaled-formats"),
    # Gluon's architecture modules, written out in full: Blackwell's tensor memory is not shared memory,
    # and a name a card spells bare (tcgen05_mma, warpgroup_mma) reaches that card in the long form too.
    ("triton.experimental.gluon.language.nvidia.rubin.allocate_tensor_memory", "tensor-memory"),
    ("triton.experimental.gluon.language.nvidia.blackwell.tcgen05_mma", "tcgen05"),
    ("triton.experimental.gluon.language.amd.cdna4.mfma_scaled", "block-scaled-formats"),
    ("triton.experimental.gluon.language.nvidia.hopper.warpgroup_mma", "wgmma"),
    ("triton.experimental.gluon.language.nvidia.hopper.tma.async_copy_global_to_shared", "tensor-memory-accelerator"),
    ("gl.amd.gfx1250.tdm.async_load", "tensor-memory-accelerator"),
    ("gl.nvidia.blackwell.mbarrier.expect", "async-barrier"),
    ("gl.amd.cdna3.buffer_atomic_add", "atomic-add"),
    # A bare name several modules define answers the card most of its full spellings give, not the
    # architecture card a part of one spelling names (buffer_load is in amdg and four Gluon AMD modules),
    # nor the alphabetically first card (async_store is a TMA store in five modules, a cluster store in one).
    ("buffer_load", "load-store-unit"),
    ("buffer_store", "load-store-unit"),
    ("async_store", "tensor-memory-accelerator"),
]


@pytest.fixture(scope="module")
def index() -> kb.Index:
    return kb.load_index()


@pytest.mark.parametrize(("query", "card"), REACHED)
def test_a_dotted_or_bare_spelling_reaches_its_card(index: kb.Index, query: str, card: str) -> None:
    top = kb.search(index, query, limit=1)
    assert top and top[0].concept == card, (query, top[:1])
