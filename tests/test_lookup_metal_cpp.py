"""metal-cpp spellings (MTL::Device::newBuffer, MTL::ComputePipelineState) are read as the Objective-C
method or class they wrap, never as the English words of a member: MTL::ComputeCommandEncoder::
dispatchThreads once answered the copy-engine card and MTL::Device::newBuffer the stream card."""

from __future__ import annotations

import pytest

from xlate import kb


@pytest.mark.parametrize(("query", "card"), [
    ("MTL::Device::newBuffer", "device-malloc"),            # newBufferWithLength:options: and siblings
    ("MTL::ComputeCommandEncoder::dispatchThreads", "kernel-launch"),
    ("MTL::CommandBuffer::commit", "stream"),
    ("MTL::CommandBuffer::waitUntilCompleted", "device-synchronize"),
    ("MTL::ComputePipelineState", "module-loading"),       # the class, as MTLComputePipelineState
    ("MTL::CreateSystemDefaultDevice", "device-selection"),
    ("MTL::SharedEvent", "event"),
])
def test_a_metal_cpp_name_answers_what_metal_spells_it_as(query: str, card: str) -> None:
    top = kb.search(kb.load_index(), query, limit=1)
    assert top and top[0].concept == card, top


def test_an_unknown_metal_cpp_name_answers_nothing() -> None:
    assert kb.search(kb.load_index(), "NS::SharedPtr", limit=1) == []
