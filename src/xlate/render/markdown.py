"""Markdown output for docs pages and pull-request comments."""

from __future__ import annotations

from typing import Any, TextIO

from xlate.links import rule_url
from xlate.render import BACKEND_LABEL, backends_for

__all__ = ["render", "write"]


def _cell(text: str | None) -> str:
    if not text:
        return "—"
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _side_cell(text: str | None, info: dict[str, Any], backend: str) -> str:
    """The counterpart, or *none* (a row says none exists) or ? (no row says): unknown is not none."""
    relation = (info.get("relations") or {}).get(backend)
    if not text:
        return "*none*" if relation == "none" else "?"
    marks = " ≈" if relation == "approximate" else ""
    if ((info.get("sides") or {}).get(backend) or {}).get("derived"):
        marks += " (derived)"
    return _cell(text) + marks


def render(results: list[dict[str, Any]], backend: str = "all") -> str:
    shown = backends_for(backend)
    parts: list[str] = []
    for r in results:
        parts.append(f"## `{r['path']}`\n")
        counts = f"{len(r['annotations'])} annotation(s), {len(r['hazards'])} hazard(s)"
        parts.append(counts + (f", {len(r['errors'])} error(s)" if r["errors"] else "") + "\n")
        if r["errors"]:
            parts.append("**Errors**\n")
            for e in r["errors"]:
                where = f"line {e['line']}:{e['column']}: " if "line" in e else ""
                parts.append(f"- {where}{e['kind']}: {e['message']}")
            parts.append("")
        if r["hazards"]:
            parts.append("**Hazards**\n")
            for h in r["hazards"]:
                backends = ", ".join(BACKEND_LABEL.get(b, b) for b in h["backends"])
                parts.append(f"- line {h['line']}:{h['column']} `{h['rule']}` [{h['name']}]({rule_url(h['name'])}) "
                             f"({h['severity']}; {backends}): {h['message']}")
            parts.append("")
        if r["annotations"]:
            head = "| Line | CUDA | Concept | " + " | ".join(BACKEND_LABEL[b] for b in shown) + " |"
            parts.append(head)
            parts.append("|---:|---|---|" + "---|" * len(shown))
            symbols = r.get("symbols", {})
            for a in r["annotations"]:
                eq = " | ".join(_side_cell(a["equivalents"][b], symbols.get(a["symbol"], {}), b) for b in shown)
                parts.append(f"| {a['line']} | {_cell(a['symbol'])} | {a['concept'] or '—'} | {eq} |")
            parts.append("")
            notes = [(s, b, info["caveats"][b]) for s, info in r.get("symbols", {}).items() for b in shown if info["caveats"].get(b)]
            if notes:
                parts.append("<details><summary>Caveats</summary>\n")
                for s, b, text in notes:
                    parts.append(f"- `{s}` on {BACKEND_LABEL[b]}: {' '.join(text.split())}")
                parts.append("\n</details>\n")
    return "\n".join(parts).rstrip() + "\n"


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all") -> None:
    out.write(render(results, backend))
