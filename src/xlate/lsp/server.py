"""`xlate lsp`: a language server (pygls) that brings the symbol rows and the hazard rules into the editor.

- hover: the hovered name's own symbol row (its HIP, Metal, MLX ... spelling, relation, caveat,
  version), then its concept card, in CUDA, HIP and Metal files;
- diagnostics: explain's hazards in `.cu`, `.cuh`, `.hip` and `.metal` files, on open and as you type,
  checked in a worker process (see passes.py), filtered by the settings (settings.py);
- code actions: replace a CUDA symbol with its HIP spelling, built from explain's occurrences (the
  exact span explain found, carried in the diagnostic's `data` or kept from the last pass); translate
  this line, the selection or the file to HIP (`xlate translate`); open the docs of a concept or rule;
- completion: every spelling the rows know, each with its own row's counterpart;
- commands: `xlate.lookup` (what `xlate lookup --json` answers), `xlate.translate`, `xlate.openDocs`.
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import io
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from xlate import __version__, links
from xlate import kb
from xlate.lsp import cards, positions
from xlate.lsp import settings as cfg
from xlate.lsp.passes import Cancelled, Failed, Job, OverBudget, Passes
from xlate.lsp.protocol import XlateProtocol, serve_stdio

logger = logging.getLogger(__name__)

BACKEND_OF_SUFFIX = {".cu": "cuda", ".cuh": "cuda", ".hip": "hip", ".metal": "metal"}
BACKEND_OF_LANGUAGE = {"cuda": "cuda", "cuda-cpp": "cuda", "hip": "hip", "metal": "metal"}
DEBOUNCE_S = 0.01
SETTLE_S = 0.6
MAX_COMPLETIONS = 60
CODE_ACTION_WAIT_S = 2.0
OPEN_DOCS, LOOKUP, TRANSLATE = "xlate.openDocs", "xlate.lookup", "xlate.translate"


def converter() -> Any:
    """pygls' converter, taught to send diagnostics that are already in wire form (built by the
    worker) as they are, instead of structuring and unstructuring thousands of objects."""
    from pygls.protocol import default_converter

    conv = default_converter()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    default = conv.get_unstructure_hook(types.PublishDiagnosticsParams)

    def unstructure(params: types.PublishDiagnosticsParams) -> Any:
        raw = getattr(params, "raw", None)
        if raw is not None:
            out: dict[str, Any] = {"uri": params.uri, "diagnostics": raw}
            if params.version is not None:
                out["version"] = params.version
            return out
        return default(params)

    conv.register_unstructure_hook(types.PublishDiagnosticsParams, unstructure)
    return conv


class RawDiagnostics(types.PublishDiagnosticsParams):
    def __init__(self, uri: str, version: int | None, raw: list[dict[str, Any]]) -> None:
        super().__init__(uri=uri, version=version, diagnostics=[])
        object.__setattr__(self, "raw", raw)


@dataclass
class Doc:
    """What the server knows of one open document beyond its text."""

    uri: str
    backend: str  # cuda, hip or metal: what hover reads names as
    checked: bool  # diagnostics are computed for it
    lossy: bool = False  # its text arrived with bytes that are not UTF-8
    result_version: int | None = None
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    occurrences: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)  # budget and failure notes
    pending: asyncio.TimerHandle | None = None
    progress: str | None = None
    lines_version: int | None = None
    lines: list[str] = field(default_factory=list)


class XlateServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("xlate", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         converter_factory=converter, protocol_cls=XlateProtocol)
        self._index: kb.Index | None = None
        self._symbol_map: kb.SymbolMap | None = None
        self._completions: cards.Completions | None = None
        self.docs: dict[str, Doc] = {}
        self.settings = cfg.Settings()
        self.passes = Passes(on_slow=self._progress_begin, on_done=self._progress_end)
        self.progress_tokens = 0

    @property
    def index(self) -> kb.Index:
        if self._index is None:
            self._index = kb.load_index()
        return self._index

    @property
    def symbol_map(self) -> kb.SymbolMap:
        """Loaded once per server: the glossary does not change under a running editor session."""
        if self._symbol_map is None:
            from xlate import kb

            self._symbol_map = kb.load_symbols()
        return self._symbol_map

    @property
    def completions(self) -> cards.Completions:
        if self._completions is None:
            self._completions = cards.Completions(self.symbol_map)
        return self._completions

    @property
    def lossy_body(self) -> bool:
        """Whether the message being handled had bytes that are not UTF-8 (our protocol class tracks it)."""
        return cast(XlateProtocol, self.protocol).lossy_body

    @property
    def encoding(self) -> str:
        return str(getattr(self.workspace.position_encoding, "value", self.workspace.position_encoding) or positions.UTF16)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # --- text ----------------------------------------------------------------------------------

    def document(self, uri: str) -> TextDocument | None:
        """The open document, or None (a request about a document never opened is answered empty)."""
        from urllib.parse import unquote

        doc: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return doc

    def lines(self, uri: str) -> list[str]:
        """The document's lines, split once per version (not once per request)."""
        doc, state = self.document(uri), self.docs.get(uri)
        if doc is None:
            return []
        if state is None:
            return doc.source.split("\n")
        if state.lines_version != doc.version or not state.lines:
            state.lines, state.lines_version = doc.source.split("\n"), doc.version
        return state.lines

    def column(self, line: str, units: int) -> int:
        return positions.from_client(line.rstrip("\r"), units, self.encoding)

    # --- progress ------------------------------------------------------------------------------

    def _client_has_progress(self) -> bool:
        window = self.client_capabilities.window if self.client_capabilities else None
        return bool(window and window.work_done_progress)

    def _progress_begin(self, job: Job) -> None:
        if job.kind != "check" or not self._client_has_progress():
            return
        self.progress_tokens += 1
        token = f"xlate-check-{self.progress_tokens}"
        job.meta["token"] = token
        name = job.uri.rsplit("/", 1)[-1]

        def created(*_: Any) -> None:
            if job.meta.get("ended"):
                return
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title="xlate", message=f"checking {name}", cancellable=False))
            job.meta["begun"] = True

        try:
            self.work_done_progress.create(token, created)
        except Exception as exc:  # a client that refuses tokens still gets its diagnostics
            logger.warning("progress not shown: %s", exc)

    def _progress_end(self, job: Job) -> None:
        job.meta["ended"] = True
        token = job.meta.get("token")
        if token and job.meta.get("begun"):
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))


server = XlateServer()


def guarded(fn: Any) -> Any:
    """A handler's failure becomes a one-line error answer (never a traceback) and a log line."""

    def failed(ls: XlateServer, exc: Exception) -> JsonRpcInternalError:
        logger.exception("handler failed")
        ls.log(f"xlate: {fn.__name__} failed: {type(exc).__name__}: {exc}", types.MessageType.Error)
        return JsonRpcInternalError(message=f"xlate: {fn.__name__} failed: {type(exc).__name__}: {exc}")

    if asyncio.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(ls: XlateServer, params: Any) -> Any:
            try:
                return await fn(ls, params)
            except JsonRpcException:
                raise
            except Exception as exc:
                raise failed(ls, exc) from None

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(ls: XlateServer, params: Any) -> Any:
        try:
            return fn(ls, params)
        except JsonRpcException:
            raise
        except Exception as exc:
            raise failed(ls, exc) from None

    return wrapper


def backend_of(uri: str, language: str | None = None) -> tuple[str, bool]:
    """(how names are read, whether diagnostics are computed) for a document."""
    path = uri.lower().split("?")[0]
    for suffix, backend in BACKEND_OF_SUFFIX.items():
        if path.endswith(suffix):
            return backend, True
    if language in BACKEND_OF_LANGUAGE:
        return BACKEND_OF_LANGUAGE[language], True
    return "cuda", False


# --- lifecycle --------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def initialize(ls: XlateServer, params: types.InitializeParams) -> None:
    ls.settings = cfg.parse(params.initialization_options)


@server.feature(types.INITIALIZED)
def initialized(ls: XlateServer, params: types.InitializedParams) -> None:
    for problem in ls.settings.problems:
        ls.log(problem, types.MessageType.Warning)
    ls.passes.start()  # the worker loads the glossary while the editor opens files
    # What hover and completion read, loaded now rather than on the first request (which would
    # otherwise wait the ~0.1 s it takes).
    try:
        _ = ls.index, ls.symbol_map, ls.completions  # each loads on first access
    except Exception as exc:  # a broken glossary: hover reports it when asked
        ls.log(f"xlate: could not load the glossary: {exc}", types.MessageType.Error)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: XlateServer, params: types.DidChangeConfigurationParams) -> None:
    ls.settings = cfg.parse(params.settings, ls.settings)
    for problem in ls.settings.problems:
        ls.log(problem, types.MessageType.Warning)
    for state in ls.docs.values():
        if state.checked and state.result_version is not None:
            publish(ls, state)


@server.feature(types.SHUTDOWN)
def shutdown(ls: XlateServer, params: None) -> None:
    ls.passes.close()


# --- diagnostics ------------------------------------------------------------------------------


def note(ls: XlateServer, state: Doc, message: str, severity: int = 3) -> dict[str, Any]:
    return {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "message": message, "severity": severity, "source": "xlate", "data": {"note": True, "backends": []}}


def publish(ls: XlateServer, state: Doc) -> None:
    keeps = ls.settings.keeps
    shown = [d for d in state.diagnostics
             if "rule" not in d["data"] or keeps(d["data"]["rule"], d["data"]["name"], d["data"]["backends"])]
    extra = list(state.notes)
    if state.lossy:
        extra.append(note(ls, state, "xlate: this document's text was not valid UTF-8; the bad bytes were read as U+FFFD", 2))
    ls.text_document_publish_diagnostics(RawDiagnostics(state.uri, state.result_version, extra + shown))


def submit(ls: XlateServer, state: Doc, mode: str) -> None:
    doc = ls.document(state.uri)
    if doc is None:
        return
    job = Job("check", state.uri, doc.version, (doc.source, mode, ls.encoding), ls.settings.budget_s)
    future = ls.passes.submit(job)
    future.add_done_callback(functools.partial(_checked, ls, state, job))


def _checked(ls: XlateServer, state: Doc, job: Job, future: asyncio.Future[Any]) -> None:
    try:
        result = future.result()
    except Cancelled:
        return
    except OverBudget:
        if ls.docs.get(state.uri) is state and _current(ls, state.uri) == job.version:
            state.result_version = job.version
            state.diagnostics, state.occurrences = [], []
            state.notes = [note(ls, state, f"xlate: checking this file took longer than the {job.budget_s:g} s budget "
                                "(setting passBudgetSeconds) and was stopped; no diagnostics for this version", 2)]
            publish(ls, state)
        return
    except Failed as exc:
        ls.log(f"xlate: checking {state.uri} failed: {exc}", types.MessageType.Error)
        return
    except Exception as exc:
        ls.log(f"xlate: checking {state.uri} failed: {type(exc).__name__}: {exc}", types.MessageType.Error)
        return
    if ls.docs.get(state.uri) is not state or _current(ls, state.uri) != job.version:
        return  # the text moved on (or the document closed): a newer pass follows
    state.result_version = job.version
    state.diagnostics, state.occurrences, state.notes = result["diagnostics"], result["occurrences"], []
    publish(ls, state)
    if result["mode"] == "quick":
        # Once typing pauses, a whole-file pass confirms (the quick pass agrees by construction; this
        # is the safety net for rules that relate two functions).
        _later(ls, state, SETTLE_S, "whole")


def _current(ls: XlateServer, uri: str) -> int | None:
    doc = ls.document(uri)
    return doc.version if doc is not None else None


def _later(ls: XlateServer, state: Doc, delay: float, mode: str) -> None:
    if state.pending is not None:
        state.pending.cancel()
    version = _current(ls, state.uri)

    def fire() -> None:
        state.pending = None
        if ls.docs.get(state.uri) is state and _current(ls, state.uri) == version:
            submit(ls, state, mode)

    state.pending = asyncio.get_running_loop().call_later(delay, fire)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded
def did_open(ls: XlateServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    backend, checked = backend_of(uri, params.text_document.language_id)
    state = ls.docs[uri] = Doc(uri, backend, checked, lossy=ls.lossy_body)
    if checked:
        submit(ls, state, "whole")
    elif state.lossy:
        publish(ls, state)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded
def did_change(ls: XlateServer, params: types.DidChangeTextDocumentParams) -> None:
    state = ls.docs.get(params.text_document.uri)
    if state is None:
        return
    if ls.lossy_body:
        state.lossy = True
    if state.checked:
        _later(ls, state, DEBOUNCE_S, "quick")


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded
def did_close(ls: XlateServer, params: types.DidCloseTextDocumentParams) -> None:
    state = ls.docs.pop(params.text_document.uri, None)
    if state is not None and state.pending is not None:
        state.pending.cancel()
    ls.passes.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


# --- hover and completion ---------------------------------------------------------------------


def _candidates(ls: XlateServer, uri: str, position: types.Position) -> list[str]:
    lines = ls.lines(uri)
    if position.line >= len(lines):
        return []
    line = lines[position.line].rstrip("\r")
    return cards.symbol_at(line, ls.column(line, position.character))


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded
def hover(ls: XlateServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    if ls.document(uri) is None:
        return None
    candidates = _candidates(ls, uri, params.position)
    if not candidates:
        return None
    state = ls.docs.get(uri)
    value = cards.hover_markdown(ls.index, ls.symbol_map, candidates, state.backend if state else "cuda")
    if value is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["_", ":", "."]))
@guarded
def completion(ls: XlateServer, params: types.CompletionParams) -> types.CompletionList:
    lines = ls.lines(params.text_document.uri)
    if params.position.line >= len(lines):
        return types.CompletionList(is_incomplete=False, items=[])
    line = lines[params.position.line].rstrip("\r")
    head = line[: ls.column(line, params.position.character)]
    m = re.search(r"[A-Za-z0-9_.:]*$", head)
    prefix = m.group(0) if m else ""
    if len(prefix) < 2:
        return types.CompletionList(is_incomplete=True, items=[])
    found = ls.completions.complete(prefix, MAX_COMPLETIONS)
    items = [types.CompletionItem(label=label, kind=types.CompletionItemKind.Function, detail=detail,
                                  documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=docs))
             for label, detail, docs in found]
    return types.CompletionList(is_incomplete=len(items) >= MAX_COMPLETIONS, items=items)


# --- code actions and commands ---------------------------------------------------------------


def _contains(rng: dict[str, Any], line: int, character: int) -> bool:
    s, e = rng["start"], rng["end"]
    return s["line"] <= line <= e["line"] and (line, character) >= (s["line"], s["character"]) and (line, character) <= (e["line"], e["character"])


def _replace_action(uri: str, occurrence: dict[str, Any], diagnostic: types.Diagnostic | None = None) -> types.CodeAction:
    r = occurrence["range"]
    edit = types.TextEdit(range=types.Range(start=types.Position(**r["start"]), end=types.Position(**r["end"])),
                          new_text=occurrence["hip"])
    title = f"xlate: replace {occurrence['symbol']} with HIP {occurrence['hip']}"
    if occurrence.get("relation") == "approximate":
        title += " (approximate: check the caveat)"
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, edit=types.WorkspaceEdit(changes={uri: [edit]}),
                            diagnostics=[diagnostic] if diagnostic else None)


def translate_available() -> bool:
    try:
        from xlate.translate import engine  # noqa: F401
    except Exception:
        return False
    return True


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite,
                                                           types.CodeActionKind.Empty]))
@guarded
async def code_action(ls: XlateServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    doc, state = ls.document(uri), ls.docs.get(uri)
    if doc is None:
        return []
    if state is not None and state.checked:
        # The occurrences come from the pass over this version: wait a little for it if it is running.
        for _ in range(int(CODE_ACTION_WAIT_S / 0.02)):
            if state.result_version == doc.version or ls.document(uri) is not doc:
                break
            await asyncio.sleep(0.02)
    actions: list[types.CodeAction] = []
    pos = params.range.start
    seen: set[tuple[Any, ...]] = set()
    # Fixes carried by the diagnostics themselves: explain's occurrence at the flagged token.
    for diag in params.context.diagnostics:
        data = diag.data if isinstance(diag.data, dict) else {}
        occurrence = data.get("occurrence")
        if diag.source == "xlate" and isinstance(occurrence, dict) and occurrence.get("hip") and isinstance(occurrence.get("range"), dict):
            key = (occurrence["symbol"], json.dumps(occurrence["range"], sort_keys=True))
            if key not in seen:
                seen.add(key)
                actions.append(_replace_action(uri, occurrence, diag))
        if diag.source == "xlate" and data.get("name"):
            url = links.rule_url(data["name"])
            actions.append(types.CodeAction(title=f"xlate: why is {data['name']} a hazard?", kind=types.CodeActionKind.QuickFix,
                                            diagnostics=[diag], command=types.Command(title="Open rule", command=OPEN_DOCS, arguments=[url])))
    # The occurrence under the cursor, from the last pass over this very version.
    if state is not None and state.result_version == doc.version:
        for occurrence in state.occurrences:
            if _contains(occurrence["range"], pos.line, pos.character):
                key = (occurrence["symbol"], json.dumps(occurrence["range"], sort_keys=True))
                if key not in seen:
                    seen.add(key)
                    actions.append(_replace_action(uri, occurrence))
    candidates = _candidates(ls, uri, pos)
    match = cards.find_concept(ls.index, candidates) if candidates else None
    if match is not None:
        concept = ls.index["concepts"][match.concept]
        url = links.concept_url(concept["category"], match.concept)
        actions.append(types.CodeAction(title=f"xlate: open the docs for {concept['title']}", kind=types.CodeActionKind.Empty,
                                        command=types.Command(title="Open docs", command=OPEN_DOCS, arguments=[url])))
    if state is not None and state.backend == "cuda" and translate_available():
        start, end = params.range.start, params.range.end
        selection = (start.line, start.character) != (end.line, end.character)
        last = end.line - (1 if selection and end.character == 0 and end.line > start.line else 0)
        scopes = [("line", "xlate: translate this line to HIP", start.line, start.line)]
        if selection:
            scopes.append(("selection", "xlate: translate the selection to HIP", start.line, last))
        scopes.append(("file", "xlate: translate this file to HIP", 0, -1))
        for _scope, title, first, final in scopes:
            actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite,
                                            command=types.Command(title=title, command=TRANSLATE,
                                                                  arguments=[uri, doc.version, first, final])))
    return actions


@server.command(OPEN_DOCS)
def open_docs(ls: XlateServer, *args: Any) -> None:
    if args and isinstance(args[0], str) and args[0].startswith(("https://", "http://", "file://")):
        ls.window_show_document(types.ShowDocumentParams(uri=args[0], external=True))
        return
    raise JsonRpcInvalidParams(message="xlate.openDocs takes one argument: an http(s) or file URL")


@server.command(LOOKUP)
def lookup_command(ls: XlateServer, *args: Any) -> dict[str, Any]:
    """What `xlate lookup QUERY [--backend B] --json` answers, plus its text card."""
    from xlate import lookup

    if not args or not isinstance(args[0], str) or not args[0].strip():
        raise JsonRpcInvalidParams(message="xlate.lookup takes a query string (and optionally a backend)")
    backend = args[1] if len(args) > 1 and isinstance(args[1], str) else None
    if backend is not None and backend not in kb.BACKENDS:
        raise JsonRpcInvalidParams(message=f"xlate.lookup: unknown backend {backend!r}; choose from {', '.join(kb.BACKENDS)}")
    out, text = io.StringIO(), io.StringIO()
    code = lookup.run(args[0], backend=backend, fmt="json", out=out)
    lookup.run(args[0], backend=backend, fmt="text", out=text)
    payload = json.loads(out.getvalue()) if out.getvalue().strip() else {}
    return {"found": code == 0, "text": text.getvalue(), **payload}


@server.command(TRANSLATE)
async def translate_command(ls: XlateServer, *args: Any) -> dict[str, Any]:
    """Translate the document to HIP in the worker, then apply the lines asked for as one edit."""
    if (len(args) != 4 or not isinstance(args[0], str) or not all(isinstance(a, int) and not isinstance(a, bool) for a in args[1:])):
        raise JsonRpcInvalidParams(message="xlate.translate takes [uri, version, first line, last line (-1: the file)]")
    uri, version, first, last = args
    doc = ls.document(uri)
    if doc is None:
        raise JsonRpcInvalidParams(message=f"xlate.translate: {uri} is not open")
    if doc.version != version:
        return {"applied": False, "reason": "the document changed since the action was offered"}
    if not translate_available():
        return {"applied": False, "reason": "xlate translate is not installed in this version"}
    text = doc.source
    scope = "file" if last < 0 else "lines"
    future = ls.passes.submit(Job("translate", uri, version, (text, scope), max(ls.settings.budget_s, 30.0)))
    try:
        result = await future
    except (Cancelled, OverBudget, Failed) as exc:
        return {"applied": False, "reason": f"translation did not finish: {type(exc).__name__} {exc}".strip()}
    if result["text"] is None:
        return {"applied": False, "reason": "; ".join(result["errors"]) or "the file could not be translated"}
    current = ls.document(uri)
    if current is None or current.version != version:
        return {"applied": False, "reason": "the document changed while it was translated"}
    edit = line_edit(text, result["text"], first, last) if scope == "lines" else whole_edit(text, result["text"])
    if edit is None:
        return {"applied": False, "reason": "nothing to change in these lines"}
    answer = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
        label="xlate: translate to HIP",
        edit=types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=[edit])])))
    return {"applied": bool(answer and answer.applied), "notes": result["errors"]}


def whole_edit(old: str, new: str) -> types.TextEdit | None:
    if old == new:
        return None
    lines = old.split("\n")
    end = types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
    return types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=new)


def line_edit(old: str, new: str, first: int, last: int) -> types.TextEdit | None:
    """The translation of lines first..last of `old`, as one edit of whole lines.

    The translation may add lines (an `// xlate:` note above a line that needs a person), so the two
    texts are aligned line by line and every change touching the lines asked for is taken whole."""
    a, b = old.split("\n"), new.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    lo, hi, touched = first, last + 1, False
    for tag, i1, i2, _, _ in ops:
        if tag != "equal" and ((i1 < last + 1 and i2 > first) or (i1 == i2 and first <= i1 <= last)):
            lo, hi, touched = min(lo, i1), max(hi, i2), True
    if not touched:
        return None

    def mapped(p: int, end: bool) -> int:
        """Line p of the old text (a start, or an exclusive end) in the new text."""
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                if (i1 < p <= i2) if end else (i1 <= p < i2):
                    return j1 + (p - i1)
            elif i1 < p == i2:
                return j2
            elif p == i1:
                return j1
        return len(b) if end else 0

    replacement = b[mapped(lo, False):mapped(hi, True)]
    if a[lo:hi] == replacement:
        return None
    return types.TextEdit(range=types.Range(start=types.Position(line=lo, character=0), end=types.Position(line=hi, character=0)),
                          new_text="".join(line + "\n" for line in replacement))


def main() -> None:
    serve_stdio(server)
