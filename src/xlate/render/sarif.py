"""SARIF 2.1.0 output for code-scanning services: one run, hazards as results, file errors as notifications."""

from __future__ import annotations

import json
from typing import Any, TextIO
from urllib.parse import quote

from xlate.links import rule_url

__all__ = ["LEVEL", "SCHEMA_URI", "document", "write"]

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> str:
    return quote(path.replace("\\", "/"), safe="/:._-~")


def _rule_entry(code: str, name: str, summary: str, why: str, fix: str, severity: str, backends: list[str]) -> dict[str, Any]:
    """A reportingDescriptor: every rule carries helpUri and help, so code-scanning tools can link it."""
    url = rule_url(name)
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": " ".join(why.split())},
        "defaultConfiguration": {"level": LEVEL.get(severity, "warning")},
        "helpUri": url,
        "help": {"text": f"{' '.join(fix.split())} See {url}", "markdown": f"{fix}\n\n[Rule documentation]({url})"},
        "properties": {"backends": backends},
    }


def _rules_metadata(results: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every registered rule as SARIF metadata, plus configuration notifications.

    Should the registry fail to load, that is said in a notification, and each rule that a hazard
    names still gets an entry (with its link) built from the hazard, so no result loses its rule.
    """
    entries: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    try:
        from xlate.rules import all_rules

        for rule in all_rules():
            entries.append(_rule_entry(rule.code, rule.name, rule.summary, str(rule.why), str(rule.fix),
                                       getattr(rule.severity, "value", str(rule.severity)), list(rule.backends)))
    except Exception as exc:  # a broken rule module: reported below, never a silently empty table
        notes.append({"level": "error", "message": {"text": f"hazard rules unavailable: {type(exc).__name__}: {exc}"}})
    known = {e["id"] for e in entries}
    for r in results:
        for h in r["hazards"]:
            if h["rule"] not in known:
                known.add(h["rule"])
                entries.append(_rule_entry(h["rule"], h["name"], h["message"], h["message"], "", h["severity"], list(h["backends"])))
    return entries, notes


def document(results: list[dict[str, Any]], project: dict[str, Any] | None = None) -> dict[str, Any]:
    rules, config_notes = _rules_metadata(results)
    index = {r["id"]: i for i, r in enumerate(rules)}
    sarif_results = []
    notifications = []
    for r in results:
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(r["path"])}}}
        for h in r["hazards"]:
            region: dict[str, Any] = {"startLine": h["line"], "startColumn": h["column"]}
            if h.get("end_line"):
                region["endLine"] = max(h["end_line"], h["line"])
            res: dict[str, Any] = {
                "ruleId": h["rule"],
                "level": LEVEL.get(h["severity"], "warning"),
                "message": {"text": h["message"]},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(r["path"])}, "region": region}}],
                "properties": {"name": h["name"], "backends": h["backends"]},
                "ruleIndex": index[h["rule"]],
            }
            sarif_results.append(res)
        for e in r["errors"]:
            loc = json.loads(json.dumps(location))
            if "line" in e:
                loc["physicalLocation"]["region"] = {"startLine": e["line"], "startColumn": e["column"]}
            level = "warning" if e["kind"] in ("syntax", "encoding", "empty") else "error"
            notifications.append({"level": level, "message": {"text": f"{e['kind']}: {e['message']}"}, "locations": [loc]})
    from xlate import __version__ as version

    run = {
        "tool": {"driver": {"name": "xlate", "version": version, "rules": rules}},
        "results": sarif_results,
        "invocations": [{"executionSuccessful": not any(n["level"] == "error" for n in notifications + config_notes),
                         "toolExecutionNotifications": notifications,
                         "toolConfigurationNotifications": config_notes}],
        "columnKind": "unicodeCodePoints",
    }
    # The symbol rows behind the annotations: each CUDA spelling's counterpart per backend, with its
    # relation, `derived` flag, versions and source (the same sides explain's JSON gives).
    symbols: dict[str, Any] = {}
    for r in results:
        concept_of = {a["symbol"]: a["concept"] for a in r.get("annotations", ())}
        for name, info in (r.get("symbols") or {}).items():
            if name not in symbols and info.get("sides") is not None:
                symbols[name] = {"concept": concept_of.get(name), "family": info.get("family"),
                                 "derived": bool(info.get("derived")), "sides": info["sides"]}
    properties: dict[str, Any] = {}
    if symbols:
        properties["xlateSymbols"] = symbols
    if project:  # a tree's own findings (its warp-width decision), with the places they rest on
        properties["xlateProject"] = project
    users = {_uri(r["path"]): r["users"] for r in results if r.get("users")}
    if users:  # each shared header's findings hold for the files that include it
        properties["xlateHeaderUsers"] = users
    if properties:
        run["properties"] = properties
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all", project: dict[str, Any] | None = None,
          show_all: bool = False) -> None:
    """Every hazard whatever `show_all` says: SARIF is read by tools, which filter it themselves."""
    # Indented for a person at a terminal; one line otherwise, which json encodes in C (several times faster).
    isatty = getattr(out, "isatty", None)
    indent = 1 if isatty and isatty() else None
    out.write(json.dumps(document(results, project), indent=indent, ensure_ascii=False))
    out.write("\n")
