"""`xlate lsp`: a language server (pygls) that brings the glossary and the hazard rules into the editor.

- hover: the concept card for the CUDA, HIP or Metal symbol under the cursor;
- diagnostics: explain's hazards for CUDA files, on open and (debounced) on change;
- code actions: replace a CUDA symbol with its HIP spelling; open the concept's or rule's docs page;
- completion: glossary symbols of every backend, each with its equivalents.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from xlate import __version__, links
from xlate import index as ix

CUDA_SUFFIXES = (".cu", ".cuh")
# A symbol may carry scope or member separators: wmma::mma_sync, mx.fast.metal_kernel, cg::this_grid.
SYMBOL_CHARS = re.compile(r"[A-Za-z0-9_.:]")
DEBOUNCE_S = 0.01
SETTLE_S = 0.6
MAX_COMPLETIONS = 60
BACKEND_LABEL = {"cuda": "CUDA", "hip": "HIP/ROCm", "metal": "Metal", "triton": "Triton", "mlx": "MLX"}
OPEN_DOCS = "xlate.openDocs"


class RawDiagnostics(types.PublishDiagnosticsParams):
    """Diagnostics already in wire form: a large file's thousands of diagnostics are built as plain
    dicts (cached per hazard) instead of protocol objects that the converter would take apart again."""

    def __init__(self, uri: str, version: int | None, raw: list[dict[str, Any]]) -> None:
        super().__init__(uri=uri, version=version, diagnostics=[])
        object.__setattr__(self, "raw", raw)


def converter() -> Any:
    """pygls' converter, taught to send RawDiagnostics as they are (public cattrs hook API)."""
    from pygls.protocol import default_converter

    conv = default_converter()
    default = conv.get_unstructure_hook(types.PublishDiagnosticsParams)

    def unstructure(params: types.PublishDiagnosticsParams) -> Any:
        if isinstance(params, RawDiagnostics):
            out: dict[str, Any] = {"uri": params.uri, "diagnostics": params.raw}
            if params.version is not None:
                out["version"] = params.version
            return out
        return default(params)

    conv.register_unstructure_hook(types.PublishDiagnosticsParams, unstructure)
    return conv


class XlateServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("xlate", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         converter_factory=converter)
        self._wire: dict[tuple, dict[str, Any]] = {}
        self._index: dict[str, Any] | None = None
        self._symbol_map: Any = None
        self._rules: list[Any] | None = None
        self._pending: dict[str, asyncio.Task] = {}
        self._trackers: dict[str, Any] = {}
        self._worker: Any = None

    @property
    def index(self) -> dict[str, Any]:
        if self._index is None:
            self._index = ix.load_index()
        return self._index

    @property
    def worker(self) -> Any:
        """One worker process for whole-file passes (started on first use, spawned: no forked threads)."""
        if self._worker is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from xlate.incremental import exit_with_parent

            self._worker = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=exit_with_parent)
        return self._worker

    def restart_worker(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)
            self._worker = None

    @property
    def symbol_map(self) -> Any:
        """Loaded once per server: the glossary does not change under a running editor session."""
        if self._symbol_map is None:
            from xlate import symbols

            self._symbol_map = symbols.load()
        return self._symbol_map

    @property
    def rules(self) -> list[Any]:
        if self._rules is None:
            from xlate.explain import load_rules

            self._rules = load_rules()
        return self._rules


server = XlateServer()


# --- symbols under the cursor ------------------------------------------------------------------


def symbol_at(line: str, character: int) -> list[str]:
    """Candidate symbols at a position, longest first: `wmma::mma_sync`, then `mma_sync`."""
    if not line or character > len(line):
        return []
    start = end = min(character, len(line))
    while start > 0 and SYMBOL_CHARS.match(line[start - 1]):
        start -= 1
    while end < len(line) and SYMBOL_CHARS.match(line[end]):
        end += 1
    whole = line[start:end].strip(".:")
    if not whole:
        return []
    candidates = [whole]
    # The identifier part under the cursor, without the scope or member path.
    parts = re.split(r"(::|\.)", whole)
    offset = start
    for part in parts:
        if offset <= character <= offset + len(part) and part not in ("::", ".") and part not in candidates:
            candidates.append(part)
        offset += len(part)
    return candidates


def find_concept(index: dict[str, Any], candidates: list[str]) -> ix.Match | None:
    """Exact or spelling-insensitive matches only: a hover never guesses."""
    for text in candidates:
        found = ix.search(index, text, limit=1)
        if found and found[0].kind != "fuzzy":
            return found[0]
    return None


def card_markdown(index: dict[str, Any], match: ix.Match) -> str:
    c = index["concepts"][match.concept]
    url = links.concept_url(c["category"], match.concept)
    lines = [f"**{c['title']}** · {c['category']} · [docs]({url})", "", c["summary"], "",
             "| backend | term | relation |", "|---|---|---|"]
    for backend, term in c["terms"].items():
        spelled = ", ".join(f"`{s}`" for s in term["symbols"]) or ", ".join(term["names"]) or "—"
        lines.append(f"| {BACKEND_LABEL[backend]} | {spelled} | {term['relation']} |")
    caveats = [(b, t["caveat"]) for b, t in c["terms"].items() if t.get("caveat")]
    if caveats:
        lines += [""] + [f"- *{BACKEND_LABEL[b]}*: {text}" for b, text in caveats]
    return "\n".join(lines)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: XlateServer, params: types.HoverParams) -> types.Hover | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    lines = doc.lines
    if params.position.line >= len(lines):
        return None
    candidates = symbol_at(lines[params.position.line].rstrip("\r\n"), params.position.character)
    match = find_concept(ls.index, candidates)
    if match is not None:
        value = card_markdown(ls.index, match)
        entry = next((e for e in map(ls.symbol_map.get, candidates) if e is not None), None)
        if entry is not None and entry.row and entry.row.get("sides"):
            value = api_card_markdown(ls.index, entry) + "\n\n---\n\n" + value  # the symbol's own row first
    else:
        entry = next((e for e in map(ls.symbol_map.get, candidates) if e is not None), None)
        if entry is None:
            return None
        value = api_card_markdown(ls.index, entry)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


def api_card_markdown(index: dict[str, Any], entry: Any) -> str:
    """A CUDA API name the glossary knows through its API tables rather than a concept's own symbols."""
    lines = [f"**`{entry.symbol}`**" + (f" · {entry.family}" if entry.family else ""), ""]
    hip = f"`{entry.hip}`" if entry.hip else "no equivalent"
    lines.append(f"- HIP/ROCm: {hip} ({entry.hip_relation or 'unknown'})" + (f": {entry.hip_caveat}" if entry.hip_caveat else ""))
    if entry.metal or entry.metal_relation:
        metal = f"`{entry.metal}`" if entry.metal else "no equivalent"
        lines.append(f"- Metal: {metal} ({entry.metal_relation or 'unknown'})" + (f": {entry.metal_caveat}" if entry.metal_caveat else ""))
    concept = index["concepts"].get(entry.concept) if entry.concept else None
    if concept:
        lines += ["", f"Concept: [{concept['title']}]({links.concept_url(concept['category'], entry.concept)})"]
    return "\n".join(lines)


# --- diagnostics -----------------------------------------------------------------------------------


def is_cuda(uri: str) -> bool:
    return uri.lower().split("?")[0].endswith(CUDA_SUFFIXES)


def to_wire(ls: XlateServer, hazards: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """explain's hazards as LSP diagnostics in wire form, each spanning the flagged token.

    Built once per (position, rule, message) and reused while that hazard stays where it is.
    """
    lines = text.splitlines()
    cache = ls._wire
    out = []
    for h in hazards:
        line, col = h["line"] - 1, h["column"] - 1
        source_line = lines[line] if 0 <= line < len(lines) else ""
        end = col + 1
        while end < len(source_line) and SYMBOL_CHARS.match(source_line[end]):
            end += 1
        key = (line, col, end, h["rule"], h["message"], h["severity"])
        wire = cache.get(key)
        if wire is None:
            wire = {
                "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": end}},
                "message": h["message"],
                "severity": SEVERITY.get(h["severity"], types.DiagnosticSeverity.Warning).value,
                "code": f"{h['rule']} {h['name']}",
                "codeDescription": {"href": links.rule_url(h["name"])},
                "source": "xlate",
                "data": {"rule": h["rule"], "name": h["name"]},
            }
            if len(cache) > WIRE_CACHE_LIMIT:
                cache.clear()
            cache[key] = wire
        out.append(wire)
    return out


WIRE_CACHE_LIMIT = 50_000
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}


def _tracker(ls: XlateServer, uri: str) -> Any:
    from xlate.explain import explain_source
    from xlate.incremental import IncrementalHazards, findings_of

    tracker = ls._trackers.get(uri)
    if tracker is None:
        tracker = IncrementalHazards(lambda source: findings_of(explain_source(uri, source, ls.symbol_map, ls.rules)))
        ls._trackers[uri] = tracker
    return tracker


def send(ls: XlateServer, uri: str, version: int | None, text: str, hazards: list[dict[str, Any]]) -> None:
    ls.text_document_publish_diagnostics(RawDiagnostics(uri, version, to_wire(ls, hazards, text)))


async def whole_pass(ls: XlateServer, uri: str) -> None:
    """Explain the whole document in the worker process, so the server keeps answering meanwhile."""
    doc = ls.workspace.get_text_document(uri)
    text, version = doc.source, doc.version
    from xlate.incremental import explain_findings

    try:
        findings = await asyncio.get_running_loop().run_in_executor(ls.worker, explain_findings, uri, text)
    except Exception as exc:  # a broken file or a lost worker must never take the server down
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"xlate: explain failed on {uri}: {exc}"))
        ls.restart_worker()
        return
    current = ls.workspace.get_text_document(uri)
    if current.version != version or uri not in ls._trackers:
        return  # the text moved on (or closed); a newer pass follows
    _tracker(ls, uri).absorb(text, findings)
    send(ls, uri, version, text, findings["hazards"])


def quick_pass(ls: XlateServer, uri: str) -> bool:
    """Re-explain only the changed pieces; False when the declarations changed and a whole pass is needed."""
    doc = ls.workspace.get_text_document(uri)
    try:
        findings = _tracker(ls, uri).update(doc.source)
    except Exception as exc:
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"xlate: explain failed on {uri}: {exc}"))
        return False
    if findings is None:
        return False
    send(ls, uri, doc.version, doc.source, findings["hazards"])
    return True


async def _after_change(ls: XlateServer, uri: str) -> None:
    await asyncio.sleep(DEBOUNCE_S)
    if not quick_pass(ls, uri):
        await whole_pass(ls, uri)
        return
    # Once typing pauses, a whole-file pass settles anything that spans functions.
    await asyncio.sleep(SETTLE_S)
    await whole_pass(ls, uri)


def schedule(ls: XlateServer, uri: str) -> None:
    """Debounce: a burst of changes re-explains once, shortly after the last one."""
    pending = ls._pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls._pending[uri] = asyncio.get_running_loop().create_task(_after_change(ls, uri))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: XlateServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    if is_cuda(uri):
        _tracker(ls, uri)
        ls._pending[uri] = asyncio.get_running_loop().create_task(whole_pass(ls, uri))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: XlateServer, params: types.DidChangeTextDocumentParams) -> None:
    if is_cuda(params.text_document.uri):
        schedule(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: XlateServer, params: types.DidCloseTextDocumentParams) -> None:
    pending = ls._pending.pop(params.text_document.uri, None)
    if pending is not None:
        pending.cancel()
    ls._trackers.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


# --- code actions -------------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Empty]))
def code_action(ls: XlateServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    actions: list[types.CodeAction] = []
    pos = params.range.start
    if pos.line < len(doc.lines):
        line = doc.lines[pos.line].rstrip("\r\n")
        candidates = symbol_at(line, pos.character)
        actions += _replace_with_hip(ls, params.text_document.uri, line, pos, candidates)
        match = find_concept(ls.index, candidates)
        if match is not None:
            concept = ls.index["concepts"][match.concept]
            url = links.concept_url(concept["category"], match.concept)
            actions.append(types.CodeAction(title=f"xlate: open the docs for {concept['title']}", kind=types.CodeActionKind.Empty,
                                            command=types.Command(title="Open docs", command=OPEN_DOCS, arguments=[url])))
    for diag in params.context.diagnostics:
        if diag.source == "xlate" and isinstance(diag.data, dict) and diag.data.get("name"):
            url = links.rule_url(diag.data["name"])
            actions.append(types.CodeAction(title=f"xlate: why is {diag.data['name']} a hazard?", kind=types.CodeActionKind.QuickFix,
                                            diagnostics=[diag], command=types.Command(title="Open rule", command=OPEN_DOCS, arguments=[url])))
    return actions


def _replace_with_hip(ls: XlateServer, uri: str, line: str, pos: types.Position, candidates: list[str]) -> list[types.CodeAction]:
    """Offer the HIP spelling of the CUDA symbol under the cursor, from the symbol map (concepts and API tables)."""
    for symbol in candidates:
        entry = ls.symbol_map.get(symbol)
        if entry is None or not entry.hip or entry.hip == symbol or entry.hip_relation == "none":
            continue
        start = line.find(symbol, max(0, pos.character - len(symbol)))
        if start < 0 or not (start <= pos.character <= start + len(symbol)):
            continue
        edit = types.TextEdit(range=types.Range(start=types.Position(line=pos.line, character=start),
                                                end=types.Position(line=pos.line, character=start + len(symbol))),
                              new_text=entry.hip)
        title = f"xlate: replace {symbol} with HIP {entry.hip}"
        if entry.hip_relation == "approximate":
            title += " (approximate: check the caveat)"
        return [types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, edit=types.WorkspaceEdit(changes={uri: [edit]}))]
    return []


@server.command(OPEN_DOCS)
def open_docs(ls: XlateServer, args: list[Any]) -> None:
    if args and isinstance(args[0], str) and args[0].startswith(("https://", "http://", "file://")):
        ls.window_show_document(types.ShowDocumentParams(uri=args[0], external=True))


# --- completion ---------------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["_", ":", "."]))
def completion(ls: XlateServer, params: types.CompletionParams) -> types.CompletionList:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    if params.position.line >= len(doc.lines):
        return types.CompletionList(is_incomplete=False, items=[])
    line = doc.lines[params.position.line][: params.position.character]
    m = re.search(r"[A-Za-z0-9_.:]*$", line)
    prefix = m.group(0) if m else ""
    if len(prefix) < 2:
        return types.CompletionList(is_incomplete=True, items=[])
    items = []
    for label, cid, kind, backend in ls.index["labels"]:
        if kind != "symbol" or not label.startswith(prefix):
            continue
        concept = ls.index["concepts"][cid]
        others = [f"{BACKEND_LABEL[b]}: {t['symbols'][0]}" for b, t in concept["terms"].items() if t["symbols"] and b != backend]
        items.append(types.CompletionItem(label=label, kind=types.CompletionItemKind.Function,
                                          detail=f"{BACKEND_LABEL.get(backend or '', '')} · {concept['title']}",
                                          documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value="; ".join(others) or concept["summary"])))
        if len(items) >= MAX_COMPLETIONS:
            break
    return types.CompletionList(is_incomplete=len(items) >= MAX_COMPLETIONS, items=items)


@server.feature(types.SHUTDOWN)
def shutdown(ls: XlateServer, params: None) -> None:
    ls.restart_worker()


def main() -> None:
    server.start_io()
