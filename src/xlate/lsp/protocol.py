"""The wire: JSON-RPC over stdio that answers every request, whatever arrives.

pygls drops a request whose params do not fit its method (it logs and never answers, so the editor
waits forever), and a body that is not UTF-8 is lost with its message. Here:

- a request whose params do not fit (a hover without a position, a negative line, a line past
  2^31 - 1) gets an `InvalidParams` answer naming the field;
- a body that is not JSON gets a `ParseError` answer, a message that is not an object an
  `InvalidRequest` one (both with id null, as JSON-RPC says);
- a body that is not UTF-8 is decoded with U+FFFD in place of the bad bytes, and the server is told,
  so that a `didOpen` carrying it can say so in a diagnostic instead of losing the document;
- `positionEncoding` is UTF-8 when the client offers it, else UTF-16 (pygls would take the client's
  first choice, UTF-32 included).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from xlate.lsp import positions

logger = logging.getLogger(__name__)

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)\s*$", re.I)
MAX_BODY = 512 * 1024 * 1024  # a length past this is a broken header, not a document


class Unanswerable:
    """Stands for a message already answered with an error: nothing more to do with it."""


UNANSWERABLE = Unanswerable()


def describe(exc: BaseException, limit: int = 3) -> str:
    """A short account of why params did not fit: `$.position.line: ...`, never a traceback."""
    try:
        from cattrs import transform_error

        lines = transform_error(exc, path="$")
    except Exception:
        lines = [str(exc)]
    text = "; ".join(line.replace("\n", " ") for line in lines[:limit])
    more = len(lines) - limit
    return text + (f" (and {more} more)" if more > 0 else "")


class XlateProtocol(LanguageServerProtocol):
    """pygls' protocol with answers for the requests it would drop."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.lossy_body = False  # the message being handled had bytes that are not UTF-8

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "jsonrpc" in data and "method" in data and "id" in data:
                reason = describe(exc.__cause__) if exc.__cause__ is not None else exc.message
                self._send_response(data["id"], error=JsonRpcInvalidParams(
                    message=f"invalid params for {data['method']}: {reason}").to_response_error())
                return UNANSWERABLE
            if "jsonrpc" in data:
                logger.warning("dropped a malformed notification %r", data.get("method"))
                return UNANSWERABLE
            raise

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        # pygls takes the client's first offered encoding; narrow the offer to the one we choose.
        general = params.capabilities.general
        chosen = positions.choose(general.position_encodings if general else None)
        if general is not None and general.position_encodings:
            general.position_encodings = [types.PositionEncodingKind(chosen)]
        result = yield from super().lsp_initialize(params)
        return result

    def answer_error(self, code: int, message: str) -> None:
        self._send_response(None, error=types.ResponseError(code=code, message=message))  # type: ignore[arg-type]


async def _read_messages(reader: Any, protocol: XlateProtocol, stop: threading.Event) -> None:
    """The message loop: headers, body, decode, structure, dispatch; no message is lost silently."""
    length: int | None = None
    while not stop.is_set():
        header = await reader.readline()
        if not header:
            break
        match = _CONTENT_LENGTH.match(header.strip())
        if match:
            length = int(match.group(1))
            continue
        if header.strip():
            continue  # Content-Type or another header
        if length is None:
            continue  # a blank line before any header
        if length > MAX_BODY:
            protocol.answer_error(INVALID_REQUEST, f"message of {length} bytes is over the {MAX_BODY} byte limit")
            break  # the stream cannot be resynchronised past a body we will not read
        try:
            body = await reader.readexactly(length) if length else b""
        except asyncio.IncompleteReadError:
            break  # the client went away mid-message
        length = None
        try:
            text = body.decode("utf-8")
            protocol.lossy_body = False
        except UnicodeDecodeError:
            text = body.decode("utf-8", errors="replace")
            protocol.lossy_body = True
        try:
            message = json.loads(text, object_hook=protocol.structure_message)
        except JsonRpcException as exc:
            protocol.answer_error(exc.code, exc.message)
            continue
        except (ValueError, RecursionError) as exc:
            protocol.answer_error(PARSE_ERROR, f"message is not JSON: {exc}")
            continue
        if message is UNANSWERABLE:
            continue
        if not hasattr(message, "jsonrpc"):
            protocol.answer_error(INVALID_REQUEST, "message is not a JSON-RPC object")
            continue
        try:
            protocol.handle_message(message)
        except Exception:  # a handler's own failure is answered by pygls; this is the last guard
            logger.exception("failed to handle a message")
        finally:
            protocol.lossy_body = False


# How long the tasks still running when the message loop ends get to finish their cancellation.
SHUTDOWN_GRACE_S = 2.0


def _run_bounded(main: Any) -> None:
    """asyncio.run, except that the tasks left when `main` ends get SHUTDOWN_GRACE_S to finish their
    cancellation instead of as long as they like: after `exit` the server must end, and one handler
    stuck in its cancellation kept the process (and the client waiting for it) alive."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main)
    finally:
        try:
            left = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=SHUTDOWN_GRACE_S))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def serve_stdio(server: Any) -> None:
    """Run `server` on stdin and stdout with the message loop above."""
    from pygls.io_ import StdinAsyncReader, StdoutWriter

    server._stop_event = stop = threading.Event()
    reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    # The protocol's own handle on stdout: pygls closes it on `exit`, and sys.stdout must stay open
    # for the interpreter's last flush.
    import os

    server.protocol.set_writer(StdoutWriter(os.fdopen(os.dup(sys.stdout.fileno()), "wb")))
    try:
        _run_bounded(_read_messages(reader, server.protocol, stop))
    except BrokenPipeError:
        logger.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
