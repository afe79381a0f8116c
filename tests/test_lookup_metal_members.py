"""A Metal class's property or method written with its class (MTLDevice.maxThreadgroupMemoryLength, and
.NET's binding IMTLDevice.MaxThreadgroupMemoryLength) is the member, answered as the member alone is; a
Swift enum case written with its type (MTLStorageMode.shared, one lower-case word) stays the constant it
names."""

from __future__ import annotations

import io
import json

import pytest

from xlate import lookup
from xlate.kb import _index


def _payload(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, None, "json", 3, out=out)
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize(("query", "member"), [
    ("MTLDevice.maxThreadgroupMemoryLength", "maxThreadgroupMemoryLength"),
    ("IMTLDevice.MaxThreadgroupMemoryLength", "maxThreadgroupMemoryLength"),
    ("IMTL4RenderCommandEncoder.SetThreadgroupMemoryLength", "setThreadgroupMemoryLength"),
])
def test_a_member_with_its_class_is_read_as_the_member(query: str, member: str) -> None:
    assert member in _index.symbol_variants(query)


@pytest.mark.parametrize("query", ["MTLDevice.maxThreadgroupMemoryLength", "IMTLDevice.MaxThreadgroupMemoryLength"])
def test_the_member_s_row_answers(query: str) -> None:
    code, payload = _payload(query)
    assert code == 0 and payload["lead"] == "row" and payload["rows"][0]["cuda"] == "cudaDevAttrMaxSharedMemoryPerBlock", payload


def test_a_swift_enum_case_stays_its_constant() -> None:
    assert "shared" not in _index.symbol_variants("MTLStorageMode.shared")
    code, payload = _payload("MTLStorageMode.shared")
    assert code == 0 and payload["matches"][0]["concept"] == "unified-memory", payload


@pytest.mark.parametrize(("query", "card"), [
    ("generate_mipmaps", "texture-memory"), ("copy_from_buffer", "memcpy"), ("fill_buffer", "memset"),
    ("synchronizeTexture_slice_level", "texture-memory"), ("generateMipmaps", "texture-memory"),
])
def test_a_metal_method_as_rust_bindings_spell_it_is_the_method(query: str, card: str) -> None:
    # metal-rs writes Metal's methods in snake_case, objc2 joins a selector's parts with underscores;
    # generateMipmaps is the method Objective-C names generateMipmapsForTexture:.
    out = io.StringIO()
    assert lookup.run(query, None, "json", 3, out=out) == 0
    assert json.loads(out.getvalue())["matches"][0]["concept"] == card



@pytest.mark.parametrize(("query", "card"), [
    ("MTLCaptureDestination.developerTools", "kernel-profiler"), ("MTLCaptureDestination.gpuTraceDocument", "kernel-profiler"),
    ("MTLDispatchType.concurrent", "kernel-launch"),
])
def test_a_metal_enumerator_as_swift_writes_it_is_the_enumerator(query: str, card: str) -> None:
    # Swift writes MTLCaptureDestinationDeveloperTools as its type, a dot and the case (.developerTools).
    out = io.StringIO()
    assert lookup.run(query, None, "json", 3, out=out) == 0
    assert json.loads(out.getvalue())["matches"][0]["concept"] == card


def test_a_swift_case_of_no_metal_enumerator_finds_nothing() -> None:
    assert lookup.run("MTLCaptureDestination.nowhere", None, "json", 3, out=io.StringIO()) == 1
