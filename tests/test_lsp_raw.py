"""The language server against malformed traffic on its stdin: it answers or declines and stays up."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Every test here starts a language server (about a second each): the full suite runs them,
# the quick loop does not.
pytestmark = pytest.mark.slow


class RawClient:
    """Just enough LSP framing to send bytes a well-behaved client never would."""

    def __init__(self) -> None:
        # Unbuffered, so that select() on the pipe sees every byte not yet read.
        self.proc = subprocess.Popen([sys.executable, "-m", "xlate", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)

    def send_bytes(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, obj: dict) -> None:
        self.send_bytes(json.dumps(obj).encode())

    def read(self, timeout: float = 30.0) -> dict:
        # Wait for the next message with a deadline, so a server that stays silent fails the test
        # instead of hanging it.
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            raise TimeoutError("the server sent nothing")
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        body = b""
        while len(body) < length:
            chunk = self.proc.stdout.read(length - len(body))
            if not chunk:
                raise EOFError("server closed its output")
            body += chunk
        return json.loads(body)

    def answer(self, request_id: int, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read()
            if message.get("id") == request_id and "method" not in message:
                return message
        raise TimeoutError(f"no answer to request {request_id}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def raw() -> RawClient:
    client = RawClient()
    client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    assert "result" in client.answer(1)
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield client
    client.close()


def test_malformed_messages_do_not_stop_the_server(raw: RawClient) -> None:
    raw.send_bytes(b"{ this is not json")
    raw.send_bytes(b'"a string, not a message"')
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"nonsense": True}})
    raw.send({"jsonrpc": "2.0", "id": 3, "method": "xlate/noSuchMethod", "params": {}})
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": "file:///t.cu", "languageId": "cuda", "version": 1,
                                          "text": "__global__ void k() { __syncthreads(); }\n"}}})
    raw.send({"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": "file:///t.cu"}, "position": {"line": 0, "character": 25}}})
    # Request 2 has parameters that are not a hover's: pygls reports it with window/showMessage and
    # sends no answer to it. What matters is that the server goes on answering the next requests.
    assert raw.answer(3)["error"]["code"] == -32601  # method not found
    assert "__syncthreads" in json.dumps(raw.answer(4)["result"])
    assert raw.proc.poll() is None


def _children(pid: int) -> list[str]:
    """Processes whose parent is pid, read from /proc/<n>/stat (field 4 is the parent's pid)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid):
            out.append(stat.parent.name)
    return out


def test_the_worker_process_ends_when_the_server_is_killed(raw: RawClient) -> None:
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": "file:///w.cu", "languageId": "cuda", "version": 1,
                                          "text": "__global__ void k(unsigned* m) { *m = __ballot_sync(0xffffffff, 1); }\n"}}})
    while "publishDiagnostics" not in json.dumps(raw.read()):
        pass  # the whole-file pass ran in the worker, so the worker exists now
    children = _children(raw.proc.pid)
    assert children, "the server started no worker"
    raw.proc.kill()
    raw.proc.wait(timeout=10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
        time.sleep(0.2)
    alive = [pid for pid in children if Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()]
    assert alive == [], f"worker processes outlived the server: {alive}"
