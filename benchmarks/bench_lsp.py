"""Language server speed through the real protocol: `xlate lsp` as a subprocess, pygls' client on stdio.

Prints hover latency (p50, p99) against a no-op hover on blank text (the protocol's own round trip),
the time from the last change of a 5,000-line CUDA file to its diagnostics, and the server's memory
before and after 1,000 change cycles. Run: python benchmarks/bench_lsp.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from xlate.lsp.server import DEBOUNCE_S

KERNEL = """\
__global__ void reduce_{i}(const float* x, float* out, int n) {{
    __shared__ float partial[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}}

"""


def corpus(lines: int) -> str:
    out, i = [], 0
    while sum(s.count("\n") for s in out) < lines:
        out.append(KERNEL.format(i=i))
        i += 1
    return "".join(out)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def raw_diagnostics_latency(text: str, edits: int = 15) -> list[float]:
    """Server-side latency without a client library: time from writing a didChange to the first byte
    of the publishDiagnostics that answers it (no JSON decoding on our side)."""
    import json
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "xlate", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ids = iter(range(1, 10**6))

    def send(obj: dict) -> None:
        body = json.dumps(obj).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    def read() -> tuple[float, bytes]:
        length = 0
        first = None
        while True:
            line = proc.stdout.readline()
            first = first or time.perf_counter()
            if line in (b"\r\n", b"\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return first, proc.stdout.read(length)

    def wait_for(method: bytes) -> float:
        while True:
            when, body = read()
            if method in body:
                return when

    send({"jsonrpc": "2.0", "id": next(ids), "method": "initialize", "params": {"capabilities": {}}})
    wait_for(b'"result"')
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uri = "file:///tmp/bench_raw.cu"
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}})
    wait_for(b"publishDiagnostics")
    lines = text.split("\n")
    delays = []
    for version in range(2, 2 + edits):
        edited = lines[:]
        at = 2500 + 10 * version
        edited.insert(at - at % 10 + 3, f"    v += {version}.0f;")
        sent = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": "\n".join(edited)}]}})
        delays.append((wait_for(b"publishDiagnostics") - sent) * 1000)
        time.sleep(0.3)
        # drain the whole-file pass that follows a pause
        wait_for(b"publishDiagnostics")
    send({"jsonrpc": "2.0", "id": next(ids), "method": "shutdown"})
    wait_for(b'"result"')
    send({"jsonrpc": "2.0", "method": "exit"})
    proc.wait(timeout=10)
    return delays


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


async def main() -> None:
    client = LanguageClient("bench", "1")
    published: dict[str, tuple[float, int]] = {}
    got = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.uri] = (time.perf_counter(), len(params.diagnostics))
        got.set()

    await client.start_io(sys.executable, "-m", "xlate", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    server_pid = client._server.pid

    text = corpus(5000)
    uri = Path("/tmp/bench_lsp_kernel.cu").as_uri()
    got.clear()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=1, text=text)))
    await got.wait()

    async def hover(line: int, character: int) -> float:
        start = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)))
        return (time.perf_counter() - start) * 1000

    for _ in range(50):  # warm-up: first hover loads the index
        await hover(4, 70)
    symbol_hovers = [await hover(4 + 10 * (i % 400), 70) for i in range(1000)]  # on __shfl_down_sync
    blank_hovers = [await hover(9 + 10 * (i % 400), 0) for i in range(1000)]  # an empty line: no lookup

    # Diagnostics latency: time from a change inside one kernel to the first publish after it.
    lines = text.split("\n")
    delays = []
    for version in range(2, 22):
        edited = lines[:]
        at = 2500 + 10 * version  # inside a kernel in the middle of the file
        edited.insert(at - at % 10 + 3, f"    v += {version}.0f;")
        got.clear()
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(edited))]))
        await got.wait()
        delays.append((published[uri][0] - sent) * 1000)
        await asyncio.sleep(0.8)  # let the whole-file pass that follows a pause finish
    diagnostics_count = published[uri][1]

    before = rss_kb(server_pid)
    for version in range(100, 1100):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text[: 2000 + version] + "\n")]))
        if version % 50 == 0:
            got.clear()
            await got.wait()
    got.clear()
    await got.wait()
    after = rss_kb(server_pid)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    print("xlate lsp through the protocol (stdio, pygls client)")
    print(f"  hover on a symbol       p50 {pct(symbol_hovers, 50):6.2f} ms   p99 {pct(symbol_hovers, 99):6.2f} ms   (1000 requests)")
    print(f"  hover on blank text     p50 {pct(blank_hovers, 50):6.2f} ms   p99 {pct(blank_hovers, 99):6.2f} ms   (round-trip reference)")
    print(f"  ratio symbol/reference  p50 {pct(symbol_hovers, 50) / pct(blank_hovers, 50):6.2f}x")
    print(f"  diagnostics, 5,000-line file, last change -> publish: median {statistics.median(delays):6.1f} ms, "
          f"max {max(delays):6.1f} ms ({diagnostics_count} diagnostics; includes the {1000 * DEBOUNCE_S:.0f} ms debounce)")
    print(f"  server RSS before/after 1,000 change cycles: {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB")
    raw = raw_diagnostics_latency(text)
    print(f"  diagnostics, server side (raw stdio client, no decoding): median {statistics.median(raw):6.1f} ms, "
          f"max {max(raw):6.1f} ms")
    print("  targets: hover p99 < 5 ms; diagnostics within 100 ms of the last change")


if __name__ == "__main__":
    asyncio.run(main())
