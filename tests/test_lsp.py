"""The language server through the real protocol: pygls' client (pytest-lsp) drives `xlate lsp` as a subprocess."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from xlate.lsp.cards import symbol_at

# Every test here starts a language server (about a second each): the full suite runs them,
# the quick loop does not.
pytestmark = pytest.mark.slow

KERNEL = """\
#include <cuda_runtime.h>
__global__ void reduce(const float* x, float* out, int n) {
    __shared__ float partial[32];
    float v = x[threadIdx.x];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
}
"""


def test_symbol_at_prefers_the_longest_spelling() -> None:
    assert symbol_at("  wmma::mma_sync(c, a, b, c);", 10)[:2] == ["wmma::mma_sync", "mma_sync"]
    assert symbol_at("x = mx.fast.metal_kernel(", 14)[0] == "mx.fast.metal_kernel"
    assert symbol_at("", 0) == []
    assert symbol_at("abc", 99) == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "xlate", "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=Path.cwd().as_uri()))
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, uri: str, text: str, language: str = "cuda") -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))


async def _hover(client: LanguageClient, uri: str, line: int, character: int) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)))


@pytest.mark.asyncio
async def test_hover_works_from_every_vendor(client: LanguageClient, tmp_path: Path) -> None:
    cuda_uri = (tmp_path / "k.cu").as_uri()
    _open(client, cuda_uri, KERNEL)
    hover = await _hover(client, cuda_uri, 5, 16)  # __shfl_down_sync
    assert hover is not None and "simd_shuffle_down" in hover.contents.value
    hip_uri = (tmp_path / "k.hip").as_uri()
    _open(client, hip_uri, "float v = __shfl_down(v, 1);\n", "cpp")
    hover = await _hover(client, hip_uri, 0, 13)
    assert hover is not None and "__shfl_down_sync" in hover.contents.value
    metal_uri = (tmp_path / "k.metal").as_uri()
    _open(client, metal_uri, "float v = simd_shuffle_down(x, 1);\n", "metal")
    hover = await _hover(client, metal_uri, 0, 14)
    assert hover is not None and "__shfl_down_sync" in hover.contents.value
    assert await _hover(client, cuda_uri, 3, 4) is None  # `float` is not a glossary symbol


@pytest.mark.asyncio
async def test_hover_on_nothing_returns_null(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "e.cu").as_uri()
    _open(client, uri, "int zzzqqq = 1;\n")
    assert await _hover(client, uri, 0, 6) is None
    assert await _hover(client, uri, 99, 0) is None


@pytest.mark.asyncio
async def test_diagnostics_on_open_and_change_link_to_rule_pages(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "r.cu").as_uri()
    _open(client, uri, KERNEL)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diags = client.diagnostics[uri]
    names = {d.code.split()[1] for d in diags}
    assert "hardcoded-warp-size" in names and "lane-mask-width" in names
    assert all(d.code_description and "/rules/" in d.code_description.href for d in diags)
    # Replace the file with portable code: the warnings go away.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="__global__ void k(float* x) { x[0] = 1.0f; }\n")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_code_action_replaces_a_cuda_symbol_with_its_hip_spelling(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "a.cu").as_uri()
    _open(client, uri, "void f() { cudaMalloc(&p, 16); }\n")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=14), end=types.Position(line=0, character=14)),
        context=types.CodeActionContext(diagnostics=[])))
    titles = [a.title for a in actions]
    replace = next(a for a in actions if "replace cudaMalloc with HIP hipMalloc" in a.title)
    edit = replace.edit.changes[uri][0]
    assert edit.new_text == "hipMalloc" and edit.range.start.character == 11
    assert any("open the docs" in t for t in titles)


@pytest.mark.asyncio
async def test_completion_offers_glossary_symbols(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "c.cu").as_uri()
    _open(client, uri, "__shfl_d\n")
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=8)))
    labels = [i.label for i in result.items]
    assert "__shfl_down_sync" in labels


@pytest.mark.asyncio
async def test_server_survives_bad_input(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "bad.cu").as_uri()
    _open(client, uri, "__global__ void k( { {{{ <<< \x00 \xff garbage" * 50)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    # An unknown method gets an error answer, and the server keeps serving.
    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("xlate/noSuchMethod", {})
    hover = await _hover(client, uri, 0, 3)  # `__global__` still hovers inside garbage
    assert hover is not None and "**Kernel**" in hover.contents.value
    # Many rapid changes: the server debounces and answers the last state.
    for v in range(2, 200):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=f"int x{v} = {v};\n")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert (await _hover(client, uri, 0, 0)) is None


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.mark.slow
@pytest.mark.asyncio
async def test_big_document_and_a_thousand_changes_keep_memory_bounded(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "big.cu").as_uri()
    # About 5 MB of portable code: the server explains it all, the answer stays small.
    portable = "__global__ void add(const float* a, float* b, int n) {\n" \
               "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) b[i] += a[i];\n}\n"
    big = portable * (5_000_000 // len(portable))
    _open(client, uri, big)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert await _hover(client, uri, 1, 17) is not None  # blockIdx
    pid = client._server.pid
    small = (tmp_path / "small.cu").as_uri()
    _open(client, small, KERNEL)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    before = _rss_kib(pid)
    for v in range(2, 1002):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=small, version=v),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=KERNEL.replace("16", str(v)))]))
        if v % 100 == 0:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    hover = await _hover(client, small, 5, 16)
    assert hover is not None
    grown = _rss_kib(pid) - before
    assert grown < 64 * 1024, f"server memory grew by {grown} KiB over 1,000 change cycles"


@pytest.mark.asyncio
async def test_api_table_symbols_hover_and_replace(client: LanguageClient, tmp_path: Path) -> None:
    """A runtime API name known from the API tables (not a concept's own symbol) still gets a card and a fix."""
    uri = (tmp_path / "api.cu").as_uri()
    _open(client, uri, "void f() { cudaMemcpy2DAsync(d, 1, s, 1, 4, 4, k, st); }\n")
    hover = await _hover(client, uri, 0, 14)
    assert hover is not None and "hipMemcpy2DAsync" in hover.contents.value
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=14), end=types.Position(line=0, character=14)),
        context=types.CodeActionContext(diagnostics=[])))
    assert any(a.edit and a.edit.changes[uri][0].new_text == "hipMemcpy2DAsync" for a in actions)
