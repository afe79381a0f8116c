"""Language server speed through the real protocol: `xlate lsp` as a subprocess, pygls' client on stdio.

Each figure is printed next to a reference measured in the same run:
- hover on a symbol of a 5,000-line CUDA file, p50 and p99, next to a hover on blank text (the
  protocol's own round trip, no look-up);
- diagnostics after an edit of that file (didChange to the publishDiagnostics of that version), p50
  and p99, next to a whole-file explain of the same text in this process (what a server without
  the per-function pass would need at least);
- the worst hover latency while a pathological file (a 1.1 MB literal expression) is being checked,
  next to the worst over the same time with nothing being checked;
- the server's memory before and after 1,000 change cycles.
Run: python benchmarks/bench_lsp.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

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
    out, count, i = [], 0, 0
    while count < lines:
        out.append(KERNEL.format(i=i))
        count += KERNEL.count("\n")
        i += 1
    return "".join(out)


def pathological(terms: int = 60000) -> str:
    return "__global__ void k(int* x) {\n  int v = " + " + ".join(["threadIdx.x & 31"] * terms) + ";\n  x[0] = v;\n}\n"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def whole_file_reference(text: str, runs: int = 5) -> float:
    from xlate import kb
    from xlate.explain import explain_source, load_rules

    smap, rules = kb.load_symbols(), load_rules()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        explain_source("bench.cu", text.encode(), smap, rules)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def main() -> None:
    client = LanguageClient("bench", "1")
    published: dict[str, tuple[float, int | None, int]] = {}
    got = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.uri] = (time.perf_counter(), params.version, len(params.diagnostics))
        got.set()

    async def published_version(uri: str, version: int, timeout: float = 60) -> float:
        deadline = time.perf_counter() + timeout
        while not (uri in published and published[uri][1] == version):
            got.clear()
            await asyncio.wait_for(got.wait(), max(0.01, deadline - time.perf_counter()))
        return published[uri][0]

    await client.start_io(sys.executable, "-m", "xlate", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         initialization_options={"xlate": {"passBudgetSeconds": 3}}))
    client.initialized(types.InitializedParams())
    server_pid = client._server.pid

    text = corpus(5000)
    uri = Path("/tmp/bench_lsp_kernel.cu").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="cuda", version=1, text=text)))
    await published_version(uri, 1)

    async def hover(target: str, line: int, character: int) -> float:
        start = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=target), position=types.Position(line=line, character=character)))
        return (time.perf_counter() - start) * 1000

    for _ in range(50):  # warm-up
        await hover(uri, 4, 70)
    symbol_hovers = [await hover(uri, 4 + 10 * (i % 500), 70) for i in range(1000)]  # on __shfl_down_sync
    blank_hovers = [await hover(uri, 9 + 10 * (i % 500), 0) for i in range(1000)]  # an empty line: no look-up

    # Diagnostics after an edit inside one kernel in the middle of the file.
    lines = text.split("\n")
    delays = []
    for version in range(2, 42):
        edited = lines[:]
        at = 2500 + 10 * version
        edited.insert(at - at % 10 + 3, f"    v += {version}.0f;")
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(edited))]))
        delays.append((await published_version(uri, version) - sent) * 1000)
        await asyncio.sleep(0.2)
    diagnostics_count = published[uri][2]

    # Worst request latency while a pathological file is checked, against the same probe idle.
    small = Path("/tmp/bench_lsp_small.cu").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=small, language_id="cuda", version=1, text=KERNEL.format(i=0))))
    await published_version(small, 1)

    async def probe(seconds: float) -> list[float]:
        out, start = [], time.perf_counter()
        while time.perf_counter() - start < seconds:
            out.append(await hover(small, 4, 70))
            await asyncio.sleep(0.02)
        return out

    await asyncio.sleep(1.0)  # let the settle pass of the last edit finish
    idle = await probe(2.5)
    slow = Path("/tmp/bench_lsp_slow.cu").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=slow, language_id="cuda", version=1, text=pathological())))
    busy = await probe(2.5)
    await published_version(slow, 1)

    before = rss_kb(server_pid)
    for version in range(100, 1100):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text[: 2000 + version] + "\n")]))
        if version % 50 == 0:
            await published_version(uri, version)
    after = rss_kb(server_pid)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    reference = whole_file_reference(text)

    print("xlate lsp through the protocol (stdio, pygls client), 5,000-line CUDA file")
    print(f"  hover on a symbol        p50 {pct(symbol_hovers, 50):7.2f} ms  p99 {pct(symbol_hovers, 99):7.2f} ms  (1000 requests)")
    print(f"  hover on blank text      p50 {pct(blank_hovers, 50):7.2f} ms  p99 {pct(blank_hovers, 99):7.2f} ms  (reference: the round trip)")
    print(f"  ratio symbol/reference   p50 {pct(symbol_hovers, 50) / pct(blank_hovers, 50):7.2f}x  p99 {pct(symbol_hovers, 99) / pct(blank_hovers, 99):7.2f}x")
    print(f"  diagnostics after edit   p50 {pct(delays, 50):7.1f} ms  p99 {pct(delays, 99):7.1f} ms  ({len(delays)} edits, {diagnostics_count} diagnostics)")
    print(f"  whole-file explain       median {reference:7.1f} ms in-process (reference; p99/reference {pct(delays, 99) / reference:.2f}x)")
    print(f"  worst hover while a pathological file is checked {max(busy):7.1f} ms ({len(busy)} hovers; p99 {pct(busy, 99):.1f} ms)")
    print(f"  worst hover over the same time, nothing checked  {max(idle):7.1f} ms ({len(idle)} hovers; p99 {pct(idle, 99):.1f} ms) (reference)")
    print(f"  server RSS before/after 1,000 change cycles: {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB")
    print("  targets: hover p99 < 5 ms; no request more than 200 ms behind a re-check")


if __name__ == "__main__":
    asyncio.run(main())
