"""SARIF 2.1.0 output for code-scanning services: one run, hazards as results, file errors as notifications."""

from __future__ import annotations

import json
from typing import Any, TextIO
from urllib.parse import quote

from xlate.render import docs_base, rule_url

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> str:
    return quote(path.replace("\\", "/"), safe="/:._-~")


def _rules_metadata() -> list[dict[str, Any]]:
    try:
        from xlate.rules import all_rules

        rules = all_rules()
    except Exception:
        return []
    out = []
    for rule in rules:
        entry: dict[str, Any] = {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": " ".join(str(rule.why).split())},
            "defaultConfiguration": {"level": LEVEL.get(getattr(rule.severity, "value", str(rule.severity)), "warning")},
            "help": {"text": f"{rule.fix} See {rule_url(rule.name)}", "markdown": f"{rule.fix}\n\n[Rule documentation]({rule_url(rule.name)})"},
            "properties": {"backends": list(rule.backends)},
        }
        if docs_base().startswith(("http://", "https://")):
            entry["helpUri"] = rule_url(rule.name)
        out.append(entry)
    return out


def document(results: list[dict[str, Any]]) -> dict[str, Any]:
    rules = _rules_metadata()
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
            }
            if h["rule"] in index:
                res["ruleIndex"] = index[h["rule"]]
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
        "invocations": [{"executionSuccessful": not any(n["level"] == "error" for n in notifications),
                         "toolExecutionNotifications": notifications}],
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all") -> None:
    # Indented for a person at a terminal; one line otherwise, which json encodes in C (several times faster).
    isatty = getattr(out, "isatty", None)
    indent = 1 if isatty and isatty() else None
    out.write(json.dumps(document(results), indent=indent, ensure_ascii=False))
    out.write("\n")
