"""A GNU attribute as code writes it, __attribute__((name(args))), is asked about as the attribute it names;
clang's AMDGPU kernel attributes reach the cards of what they bound (registers, launch shape)."""

from __future__ import annotations

import pytest

from xlate import kb


@pytest.mark.parametrize(("query", "card"), [
    ("__attribute__((amdgpu_num_sgpr))", "register-pressure"),
    ("__attribute__((amdgpu_num_vgpr(64)))", "register-pressure"),
    ("amdgpu-num-vgpr", "register-pressure"),
    ("__attribute__((amdgpu_flat_work_group_size(1, 256)))", "launch-bounds"),
    ("amdgpu_max_num_work_groups", "launch-bounds"),
    ("__attribute__((address_space(3)))", "address-spaces"),
])
def test_an_attribute_reaches_its_card(query: str, card: str) -> None:
    top = kb.search(kb.load_index(), query, limit=1)
    assert top and top[0].concept == card, top
