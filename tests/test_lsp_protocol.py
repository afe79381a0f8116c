"""The language server on the wire, through a raw client: every request answered, columns in the
negotiated encoding, diagnostics in CUDA, HIP and Metal files, the settings and commands, and no
request waiting behind a pathological re-check."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from test_lsp_raw import RawClient

# Every test here starts a language server (about a second each): the full suite runs them,
# the quick loop does not.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]

REDUCE_HIP = """\
#include <hip/hip_runtime.h>
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  if ((threadIdx.x & 31) == 0) x[threadIdx.x >> 5] = v;
}
"""
KERNEL = """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::thread_block b = cg::this_thread_block();
  if ((threadIdx.x & 31) == 0) x[i] = __shfl_down_sync(0xffffffff, x[i], 16);
  cudaStreamSynchronize(0);
}
void host(float* p) { cudaFree(p); cg::wait(b); }
"""


class Client(RawClient):
    def __init__(self, capabilities: dict | None = None, options: dict | None = None) -> None:
        super().__init__()
        self.ids = iter(range(100, 10**6))
        self.notifications: list[dict] = []
        self.seen: list[dict] = []  # every message the server sent, in order
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"capabilities": capabilities or {}, "initializationOptions": options}})
        self.init = self.answer(1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def read(self, timeout: float = 30.0) -> dict:
        message = super().read(timeout)
        self.seen.append(message)
        return message

    def answer(self, request_id: int, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read(max(0.01, deadline - time.monotonic()))
            if message.get("id") == request_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a request from the server: accept it
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self.notifications.append(message)
        raise TimeoutError(f"no answer to request {request_id}")

    def request(self, method: str, params: object, timeout: float = 30.0) -> dict:
        rid = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.answer(rid, timeout)

    def open(self, uri: str, text: str, language: str = "cuda", version: int = 1) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                   "params": {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}})

    def change(self, uri: str, version: int, text: str) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                   "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60.0) -> list[dict]:
        """The first diagnostics published for uri (at `version` when given) from now on or already seen."""
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.notifications):
                p = m.get("params") or {}
                if m.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri and (version is None or p.get("version") == version):
                    del self.notifications[: i + 1]
                    return p["diagnostics"]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no diagnostics for {uri}")
            message = self.read(max(0.01, deadline - time.monotonic()))
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self.notifications.append(message)

    def hover(self, uri: str, line: int, character: int) -> dict:
        return self.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})


@pytest.fixture
def client():
    c = Client()
    yield c
    c.close()


def test_every_malformed_request_gets_an_error_answer_within_a_second(client: Client) -> None:
    client.open("file:///m.cu", "__global__ void k() { __syncthreads(); }\n")
    client.hover("file:///m.cu", 0, 25)  # the server has started and loaded the glossary
    bad = [
        ("textDocument/hover", {"nonsense": True}),
        ("textDocument/hover", {"textDocument": {"uri": "file:///m.cu"}, "position": {"line": -1, "character": 0}}),
        ("textDocument/hover", {"textDocument": {"uri": "file:///m.cu"}, "position": {"line": 0, "character": -5}}),
        ("textDocument/hover", {"textDocument": {"uri": "file:///m.cu"}, "position": {"line": 2**31, "character": 0}}),
        ("textDocument/completion", {"textDocument": {"uri": "file:///m.cu"}, "position": {"line": "zero", "character": 0}}),
        ("textDocument/codeAction", {"textDocument": {"uri": "file:///m.cu"}}),
        ("textDocument/hover", "a string"),
        ("workspace/executeCommand", {"command": "xlate.lookup", "arguments": []}),
        ("workspace/executeCommand", {"command": "xlate.noSuchCommand", "arguments": []}),
    ]
    for method, params in bad:
        answer = client.request(method, params, timeout=10.0)
        assert answer["error"]["code"] == -32602, (method, params, answer)
        assert "traceback" not in json.dumps(answer).lower()
    # Positions that fit the protocol but not the document are answered empty.
    assert client.hover("file:///m.cu", 2**31 - 1, 2**31 - 1)["result"] is None
    assert client.hover("file:///never-opened.cu", 0, 0)["result"] is None
    # Bodies that are not JSON, or not a message, get a JSON-RPC error with id null.
    client.send_bytes(b"{ not json")
    assert client.answer(None, timeout=1.0)["error"]["code"] == -32700
    client.send_bytes(b"[1, 2]")
    assert client.answer(None, timeout=1.0)["error"]["code"] == -32600
    assert "__syncthreads" in json.dumps(client.hover("file:///m.cu", 0, 25)["result"])


def test_invalid_utf8_in_did_open_is_read_and_said(client: Client) -> None:
    body = (b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///u.cu",'
            b'"languageId":"cuda","version":1,"text":"// caf\xe9\\n__global__ void k(unsigned* m) '
            b'{ *m = __ballot_sync(0xffffffff, 1); }\\n"}}}')
    client.send_bytes(body)
    diags = client.diagnostics("file:///u.cu")
    assert any("not valid UTF-8" in d["message"] for d in diags)
    assert any("lane-mask-width" in d.get("code", "") for d in diags)
    answer = client.hover("file:///u.cu", 1, 40)
    assert "error" not in answer and "__ballot_sync" in json.dumps(answer["result"])


def test_utf16_columns_after_an_astral_character(client: Client) -> None:
    # U+1F600 is one code point, two UTF-16 units, four UTF-8 bytes.
    text = '__global__ void k(float* x) { /* \U0001F600 */ x[0] = __shfl_down_sync(0xffffffff, x[0], 16); }\n'
    client.open("file:///e.cu", text)
    diags = client.diagnostics("file:///e.cu")
    mask = next(d for d in diags if "lane-mask-width" in d["code"])
    col = text.index("0xffffffff")
    assert mask["range"]["start"]["character"] == col + 1  # UTF-16: the emoji counts twice
    hover = client.hover("file:///e.cu", 0, text.index("__shfl_down_sync") + 1 + 3)
    assert "__shfl_down_sync" in json.dumps(hover["result"])
    assert client.init["result"]["capabilities"]["positionEncoding"] == "utf-16"


def test_utf8_is_taken_when_the_client_offers_it() -> None:
    c = Client({"general": {"positionEncodings": ["utf-32", "utf-8", "utf-16"]}})
    try:
        assert c.init["result"]["capabilities"]["positionEncoding"] == "utf-8"
        text = '__global__ void k(float* x) { /* \U0001F600 */ x[0] = __shfl_down_sync(0xffffffff, x[0], 16); }\n'
        c.open("file:///e8.cu", text)
        mask = next(d for d in c.diagnostics("file:///e8.cu") if "lane-mask-width" in d["code"])
        assert mask["range"]["start"]["character"] == len(text[: text.index("0xffffffff")].encode())
    finally:
        c.close()


def test_hip_and_metal_files_get_diagnostics(client: Client) -> None:
    client.open("file:///reduce.hip", REDUCE_HIP, "cpp")
    names = {d["code"].split()[1] for d in client.diagnostics("file:///reduce.hip") if d.get("code")}
    assert "hardcoded-warp-size" in names
    metal = "kernel void k(device uint* x, uint t [[thread_index_in_simdgroup]]) {\n  x[t] = x[t] & 31;\n  if ((t & 31) == 0) x[0] = 1;\n}\n"
    client.open("file:///k.metal", metal, "metal")
    assert isinstance(client.diagnostics("file:///k.metal"), list)  # checked (what explain's rules find)


def test_hover_leads_with_the_row_and_reads_hip_and_metal_names(client: Client) -> None:
    client.open("file:///h.cu", KERNEL)
    card = client.hover("file:///h.cu", 6, 5)["result"]["contents"]["value"]  # cudaStreamSynchronize
    first = card.split("---")[0]
    assert first.index("`hipStreamSynchronize`") < first.index("Metal")
    client.open("file:///p.cu", "int n = __popc(m) + __hadd2(a, b);\n")
    popc = client.hover("file:///p.cu", 0, 10)["result"]["contents"]["value"]
    assert "Metal: `popcount`" in popc
    assert "Metal:" in client.hover("file:///p.cu", 0, 22)["result"]["contents"]["value"]
    client.open("file:///a.hip", "hipMemcpy2DAsync(d, 1, s, 1, 4, 4, k, st);\nint w = hipDeviceAttributeWarpSize;\n", "cpp")
    hip = client.hover("file:///a.hip", 0, 3)["result"]["contents"]["value"]
    assert "CUDA `cudaMemcpy2DAsync`" in hip
    assert "cudaDevAttrWarpSize" in client.hover("file:///a.hip", 1, 12)["result"]["contents"]["value"]
    client.open("file:///s.metal", "float v = simd_shuffle_down(x, 1);\n", "metal")
    assert "__shfl_down_sync" in client.hover("file:///s.metal", 0, 14)["result"]["contents"]["value"]


def test_completion_shows_the_rows_own_hip_name(client: Client) -> None:
    client.open("file:///c.cu", "cudaMemcpyAsy\n")
    items = client.request("textDocument/completion", {"textDocument": {"uri": "file:///c.cu"},
                                                       "position": {"line": 0, "character": 13}})["result"]["items"]
    item = next(i for i in items if i["label"] == "cudaMemcpyAsync")
    assert item["detail"].startswith("HIP: hipMemcpyAsync")


def _actions(client: Client, uri: str, line: int, character: int, diagnostics: list[dict]) -> list[dict]:
    return client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}},
        "context": {"diagnostics": diagnostics}})["result"]


def _apply(text: str, edit: dict) -> str:
    lines = text.split("\n")
    r = edit["range"]
    assert r["start"]["line"] == r["end"]["line"]
    line = lines[r["start"]["line"]]
    lines[r["start"]["line"]] = line[: r["start"]["character"]] + edit["newText"] + line[r["end"]["character"]:]
    return "\n".join(lines)


def test_replace_actions_come_from_explains_occurrences(client: Client) -> None:
    uri = "file:///q.cu"
    client.open(uri, KERNEL)
    client.diagnostics(uri)  # the first pass has run
    lines = KERNEL.split("\n")
    # blockDim.x and cg::this_thread_block keep their spelling in HIP (or the row gives none): no
    # action may rewrite them into something else (a regex over the line made `blockDim` and
    # `cg::cooperative_groups()` of them).
    for line, character in ((3, 27), (3, 31), (4, 30), (4, 36)):
        for action in _actions(client, uri, line, character, []):
            if action.get("edit"):
                fixed = _apply(KERNEL, action["edit"]["changes"][uri][0]).split("\n")[line]
                assert "blockDim.x" in fixed and "cg::cooperative_groups" not in fixed, (action["title"], fixed)
    # A qualified name is replaced whole by its row's HIP spelling.
    col = lines[8].index("cg::wait") + 5
    edit = next(a["edit"]["changes"][uri][0] for a in _actions(client, uri, 8, col, []) if a.get("edit"))
    assert _apply(KERNEL, edit).split("\n")[8].endswith("cooperative_groups::wait(b); }")
    # A diagnostic on an occurrence carries it, and its action edits exactly that span.
    fixture = (REPO / "tests/fixtures/rules/cache-config-hint/positive.cu").read_text()
    client.open("file:///hint.cu", fixture)
    d = next(d for d in client.diagnostics("file:///hint.cu") if (d["data"].get("occurrence") or {}).get("hip"))
    occurrence = d["data"]["occurrence"]
    action = next(a for a in _actions(client, "file:///hint.cu", d["range"]["start"]["line"], d["range"]["start"]["character"], [d])
                  if a.get("edit"))
    edit = action["edit"]["changes"]["file:///hint.cu"][0]
    assert edit["range"] == occurrence["range"] and edit["newText"] == occurrence["hip"]
    line = fixture.split("\n")[edit["range"]["start"]["line"]]
    assert line[edit["range"]["start"]["character"]:edit["range"]["end"]["character"]] == occurrence["symbol"]
    # cudaStreamSynchronize -> hipStreamSynchronize at the cursor.
    edit = next(a["edit"]["changes"][uri][0] for a in _actions(client, uri, 6, 5, []) if a.get("edit"))
    assert edit["newText"] == "hipStreamSynchronize" and edit["range"]["start"]["character"] == 2


def test_settings_choose_backends_and_rules() -> None:
    c = Client(options={"xlate": {"backends": ["hip"], "ignore": ["XL001"]}})
    try:
        c.open("file:///s.cu", KERNEL)
        diags = c.diagnostics("file:///s.cu")
        codes = {d["code"].split()[0] for d in diags if d.get("code")}
        assert "XL010" in codes and "XL001" not in codes
        assert all("metal" not in d["data"]["backends"] or "hip" in d["data"]["backends"] for d in diags)
        c.send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                "params": {"settings": {"xlate": {"backends": ["metal"], "select": ["XL09"], "ignore": []}}}})
        again = c.diagnostics("file:///s.cu")
        assert again and all(d["code"].startswith("XL09") for d in again if d.get("code"))
    finally:
        c.close()


def test_lookup_command_answers_like_the_cli(client: Client) -> None:
    answer = client.request("workspace/executeCommand", {"command": "xlate.lookup", "arguments": ["hipMemcpy2DAsync"]})["result"]
    assert answer["found"] and answer["rows"][0]["cuda"] == "cudaMemcpy2DAsync"
    none = client.request("workspace/executeCommand", {"command": "xlate.lookup", "arguments": ["excel pivot table"]})["result"]
    assert none["found"] is False


def pathological(terms: int = 60000, term: str = "threadIdx.x & 31") -> str:
    """A long literal expression (1.1 MB): explaining it takes seconds."""
    return "__global__ void k(int* x) {\n  int v = " + " + ".join([term] * terms) + ";\n  x[0] = v;\n}\n"


@pytest.mark.slow
def test_requests_do_not_wait_behind_a_pathological_recheck() -> None:
    c = Client({"window": {"workDoneProgress": True}}, {"xlate": {"passBudgetSeconds": 60}})

    def budget(seconds: float) -> None:
        c.send({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                "params": {"settings": {"xlate": {"passBudgetSeconds": seconds}}}})

    try:
        c.open("file:///small.cu", KERNEL)
        c.diagnostics("file:///small.cu")
        def slow_published() -> bool:
            return any(m.get("method") == "textDocument/publishDiagnostics"
                       and (m.get("params") or {}).get("uri") == "file:///slow.cu" for m in c.seen)

        # Hovers are answered while the re-check of another document is still running: the order of
        # the messages shows it, not a wall-clock bound (how long a hover takes is measured in
        # benchmarks/bench_lsp.py).
        c.open("file:///slow.cu", pathological())
        for _ in range(3):
            answer = c.hover("file:///small.cu", 6, 5)
            assert "hipStreamSynchronize" in json.dumps(answer["result"])
        assert not slow_published(), "the hovers were answered only after the pathological pass ended"
        c.diagnostics("file:///slow.cu", timeout=60)
        methods = [m.get("method") for m in c.seen]
        assert "window/workDoneProgress/create" in methods
        progress = [m["params"]["value"]["kind"] for m in c.seen if m.get("method") == "$/progress"]
        assert "begin" in progress and "end" in progress, methods

        # Over the budget, the pass is ended and the document says so. The budget is read when a
        # pass starts, so a short one applies to the next version.
        budget(0.2)
        c.change("file:///slow.cu", 2, pathological(term="threadIdx.y & 31"))  # its one piece changed
        over = c.diagnostics("file:///slow.cu", version=2, timeout=30)
        assert any("budget" in d["message"] for d in over), over

        # A newer version cancels the pass still running for the old one: its diagnostics come at
        # once, not after the old pass (which needs over a second) or the budget.
        budget(60)
        c.change("file:///slow.cu", 3, pathological(term="threadIdx.z & 31"))
        time.sleep(0.5)  # the new pass is well under way
        c.change("file:///slow.cu", 4, "__global__ void k(unsigned* m) { *m = __ballot_sync(0xffffffff, 1); }\n")
        fresh = c.diagnostics("file:///slow.cu", version=4, timeout=30)
        versions = [(m.get("params") or {}).get("version") for m in c.seen
                    if m.get("method") == "textDocument/publishDiagnostics" and (m.get("params") or {}).get("uri") == "file:///slow.cu"]
        assert 3 not in versions, f"the cancelled pass for version 3 still published ({versions})"
        assert any("lane-mask-width" in d.get("code", "") for d in fresh)
    finally:
        c.close()


def test_translate_actions_rewrite_a_line_to_hip(client: Client) -> None:
    from xlate.lsp.server import translate_available

    if not translate_available():
        pytest.skip("xlate translate is not part of this version")
    uri = "file:///t.cu"
    client.open(uri, KERNEL)
    client.diagnostics(uri)
    actions = _actions(client, uri, 8, 24, [])  # the host function: a runtime call in a kernel stays CUDA's
    line = next(a for a in actions if a["title"] == "xlate: translate this line to HIP")
    assert any(a["title"] == "xlate: translate this file to HIP" for a in actions)
    rid = next(client.ids)
    client.send({"jsonrpc": "2.0", "id": rid, "method": "workspace/executeCommand", "params": line["command"]})
    deadline = time.monotonic() + 30
    while True:  # the server asks the editor to apply the edit, then answers the command
        message = client.read(max(0.01, deadline - time.monotonic()))
        if message.get("method") == "workspace/applyEdit":
            edit = message["params"]["edit"]["documentChanges"][0]["edits"][0]
            client.send({"jsonrpc": "2.0", "id": message["id"], "result": {"applied": True}})
        elif message.get("id") == rid:
            break
    assert message["result"]["applied"] is True
    assert edit["range"]["start"]["line"] <= 8 < edit["range"]["end"]["line"]
    assert "hipFree(p);" in edit["newText"] and "cudaFree" not in edit["newText"]
