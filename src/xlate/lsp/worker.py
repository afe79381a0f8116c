"""The pass worker: a separate process that explains documents, so no pass runs where requests are
answered. It keeps one incremental tracker per document and turns findings into diagnostics in
wire form, with columns already in the client's encoding.

Messages from the server (over a pipe, one job at a time):
  ("check", job, uri, text, mode, encoding)  mode "quick" (changed pieces only; falls back to a whole
                                             pass when the quick pass declines) or "whole"
  ("translate", job, uri, text, scope)       scope "file" or "lines": the file translated to HIP
  ("forget", uri)
Answers: ("ready", pid) once, then ("done", job, result) or ("failed", job, message) per job.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections import OrderedDict
from typing import Any

from xlate.lsp import positions

MAX_DOCUMENTS = 64
SYMBOL_TAIL = re.compile(r"[A-Za-z0-9_]*")
SEVERITY = {"error": 1, "warning": 2, "info": 3}


# Filled by xlate.lsp.preload in the fork server, before any worker is forked from it.
PRELOADED: dict[str, Any] = {}


class State:
    def __init__(self) -> None:
        from xlate import kb
        from xlate.explain import load_rules

        self.smap = PRELOADED.get("map") or kb.load_symbols()
        self.rules = PRELOADED.get("rules") or load_rules()
        self.trackers: OrderedDict[str, Any] = OrderedDict()

    def explain(self, uri: str, source: bytes) -> dict[str, list[dict[str, Any]]]:
        """explain's findings, the annotations cut down to what a code action needs."""
        from xlate.explain import explain_source

        result = explain_source(uri, source, self.smap, self.rules)
        relations = {s: (v.get("relations") or {}).get("hip") for s, v in result["symbols"].items()}
        occurrences = [{"line": a["line"], "column": a["column"], "symbol": a["symbol"],
                        "hip": (a.get("equivalents") or {}).get("hip"), "relation": relations.get(a["symbol"])}
                       for a in result["annotations"]]
        return {"hazards": result["hazards"], "annotations": occurrences, "errors": result["errors"]}

    def tracker(self, uri: str) -> Any:
        from xlate.incremental import IncrementalHazards

        tracker = self.trackers.get(uri)
        if tracker is None:
            tracker = self.trackers[uri] = IncrementalHazards(lambda source: self.explain(uri, source))
            while len(self.trackers) > MAX_DOCUMENTS:
                self.trackers.popitem(last=False)
        self.trackers.move_to_end(uri)
        return tracker

    def check(self, uri: str, text: str, mode: str, encoding: str) -> dict[str, Any]:
        start = time.perf_counter()
        tracker = self.tracker(uri)
        findings, declined = None, None
        if mode == "quick":
            findings = tracker.update(text)
            declined = tracker.declined
        if findings is None:
            mode = "whole"
            findings = self.explain(uri, text.encode("utf-8", errors="replace"))
            tracker.absorb(text, findings)
        lines = text.split("\n")
        return {"mode": mode, "declined": declined, "seconds": time.perf_counter() - start,
                "diagnostics": diagnostics(findings, lines, encoding),
                "occurrences": occurrences(findings, lines, encoding)}

    def translate(self, uri: str, text: str, scope: str) -> dict[str, Any]:
        from xlate.translate.engine import translate_source
        from xlate.translate.options import Options

        shown = uri.rsplit("/", 1)[-1] or "file.cu"
        # A line or a selection is taken from the whole file's translation, without the runtime
        # include the file as a whole would get at its top.
        options = Options() if scope == "file" else Options(runtime_include=False)
        result = translate_source(shown, text.encode("utf-8", errors="replace"), self.smap, options, self.rules)
        if result.text is None:
            return {"text": None, "errors": [e["message"] for e in result.errors]}
        return {"text": result.text.decode("utf-8", errors="replace"), "errors": [e["message"] for e in result.errors]}


@functools.lru_cache(maxsize=1024)
def rule_url(name: str) -> str:
    """A rule's page (links resolves the site's root from the file system: once per rule, not per finding)."""
    from xlate import links

    return links.rule_url(name)


def _token_end(line: str, col: int) -> int:
    end = col + 1
    m = SYMBOL_TAIL.match(line, end)
    return m.end() if m else end


def _range(lines: list[str], line: int, col: int, end_col: int, encoding: str) -> dict[str, Any]:
    text = lines[line] if 0 <= line < len(lines) else ""
    return {"start": {"line": line, "character": positions.to_client(text, col, encoding)},
            "end": {"line": line, "character": positions.to_client(text, end_col, encoding)}}


def renamed(o: dict[str, Any]) -> bool:
    """An occurrence whose row gives HIP another spelling (a known one: not none, not unknown)."""
    return bool(o.get("hip")) and o["hip"] != o["symbol"] and o.get("relation") not in (None, "none", "unknown")


def diagnostics(findings: dict[str, list[dict[str, Any]]], lines: list[str], encoding: str) -> list[dict[str, Any]]:
    """Hazards, and the errors an editor should show (encoding, rules that gave up), in wire form.

    Each carries in `data` its rule and backends, and the occurrence explain found at the flagged
    token (its exact span and HIP spelling), from which code actions are built."""
    at = {(o["line"], o["column"]): o for o in findings.get("annotations", ())}
    out = []
    for h in findings.get("hazards", ()):
        line, col = h["line"] - 1, h["column"] - 1
        text = lines[line] if 0 <= line < len(lines) else ""
        occurrence = at.get((h["line"], h["column"]))
        end = col + len(occurrence["symbol"]) if occurrence else _token_end(text, col)
        data: dict[str, Any] = {"rule": h["rule"], "name": h["name"], "backends": h.get("backends") or []}
        if occurrence and text[col : col + len(occurrence["symbol"])] == occurrence["symbol"]:
            data["occurrence"] = {"range": _range(lines, line, col, end, encoding), "symbol": occurrence["symbol"],
                                  "hip": occurrence["hip"] if renamed(occurrence) else None,
                                  "relation": occurrence["relation"]}
        out.append({"range": _range(lines, line, col, end, encoding), "message": h["message"],
                    "severity": SEVERITY.get(h["severity"], 2), "code": f"{h['rule']} {h['name']}",
                    "codeDescription": {"href": rule_url(h["name"])}, "source": "xlate", "data": data})
    for e in findings.get("errors", ()):
        if e.get("kind") in ("encoding", "rule", "parse", "internal"):
            line = max(0, (e.get("line") or 1) - 1)
            col = max(0, (e.get("column") or 1) - 1)
            out.append({"range": _range(lines, line, col, col, encoding), "message": f"xlate: {e['message']}",
                        "severity": 3, "source": "xlate", "data": {"error": e["kind"], "backends": []}})
    return out


def occurrences(findings: dict[str, list[dict[str, Any]]], lines: list[str], encoding: str) -> list[dict[str, Any]]:
    """The CUDA symbols with another HIP spelling, each with its exact span: what a replace action edits."""
    out = []
    for o in findings.get("annotations", ()):
        if not renamed(o):
            continue
        line, col = o["line"] - 1, o["column"] - 1
        text = lines[line] if 0 <= line < len(lines) else ""
        if text[col : col + len(o["symbol"])] != o["symbol"]:
            continue  # spelled across lines or with blanks inside (`cg :: x`): no one-token edit
        out.append({"range": _range(lines, line, col, col + len(o["symbol"]), encoding), "symbol": o["symbol"],
                    "hip": o["hip"], "relation": o["relation"]})
    return out


def main(conn: Any, nice: int = 0) -> None:
    """The process body (a spawn target)."""
    from xlate.incremental import exit_with_parent

    exit_with_parent()
    if nice:
        try:
            os.nice(nice)  # requests come first: the server's own process keeps the CPU
        except OSError:
            pass
    state = State()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "forget":
            state.trackers.pop(message[1], None)
            continue
        if kind == "stop":
            return
        job = message[1]
        try:
            if kind == "check":
                result = state.check(*message[2:])
            elif kind == "translate":
                result = state.translate(*message[2:])
            else:
                raise ValueError(f"unknown job {kind!r}")
            conn.send(("done", job, result))
        except RecursionError:
            conn.send(("failed", job, "code nested too deeply to explain"))
        except Exception as exc:  # one bad document must not end the worker
            conn.send(("failed", job, f"{type(exc).__name__}: {exc}"))
