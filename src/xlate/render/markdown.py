"""Markdown output for docs pages and pull-request comments.

By default hazards come first, grouped by rule, then a table of the symbols whose counterpart differs
(one row per symbol, with the lines that use it) and one line naming those that keep their name;
`--all` (show_all) gives one table row per use, as the text view's `--all` does.
"""

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


def render(results: list[dict[str, Any]], backend: str = "all", project: dict[str, Any] | None = None,
           show_all: bool = False) -> str:
    from xlate.render.text import shared_advice, symbol_uses

    shown = backends_for(backend)
    parts: list[str] = []
    if project and "warp" in project and backend != "metal":  # the warp-width decision is about HIP
        warp = project["warp"]
        parts.append(f"## Project: warp width ({warp['decision']})\n")
        parts.append(warp["message"] + "\n")
        parts.append("Places: " + ", ".join(f"`{s}`" for s in warp["sites"]) + "\n")
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
        if r.get("users"):
            parts.append(f"Shared header, included by: {', '.join(f'`{u}`' for u in r['users'])}\n")
        if r["hazards"] and show_all:
            parts.append("**Hazards**\n")
            for h in r["hazards"]:
                backends = ", ".join(BACKEND_LABEL.get(b, b) for b in h["backends"])
                parts.append(f"- line {h['line']}:{h['column']} `{h['rule']}` [{h['name']}]({rule_url(h['name'])}) "
                             f"({h['severity']}; {backends}): {h['message']}")
            parts.append("")
        elif r["hazards"]:
            parts.append("**Hazards**\n")
            groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for h in r["hazards"]:
                groups.setdefault((h["rule"], h["name"]), []).append(h)
            for (code, name), hazards in groups.items():
                advice = shared_advice([h["message"] for h in hazards])
                backends = ", ".join(BACKEND_LABEL.get(b, b) for b in hazards[0]["backends"])
                parts.append(f"- `{code}` [{name}]({rule_url(name)}) ({hazards[0]['severity']}; {backends}), "
                             f"{len(hazards)} place(s){'. ' + advice if advice else ''}")
                for h in hazards:
                    message = h["message"][: len(h["message"]) - len(advice) - 1].rstrip() if advice else h["message"]
                    parts.append(f"  - line {h['line']}:{h['column']}: {message}")
            parts.append("")
        if r["annotations"] and not show_all:
            symbols = r.get("symbols", {})
            uses, first, same, differ = symbol_uses(r, backend)
            if differ:
                parts.append("| Lines | CUDA | Concept | " + " | ".join(BACKEND_LABEL[b] for b in shown) + " |")
                parts.append("|---|---|---|" + "---|" * len(shown))
                for x in differ:
                    a = first[x]
                    eq = " | ".join(_side_cell(a["equivalents"][b], symbols.get(x, {}), b) for b in shown)
                    parts.append(f"| {', '.join(map(str, uses[x]))} | {_cell(x)} | {a['concept'] or '—'} | {eq} |")
                parts.append("")
            if same:
                side = "Metal" if backend == "metal" else "HIP"
                parts.append(f"Same name on {side}: " + ", ".join(f"`{x}`" for x in same) + "\n")
            notes = [(x, b, symbols[x]["caveats"][b]) for x in differ if x in symbols for b in shown
                     if (symbols[x].get("caveats") or {}).get(b)]
            if notes:
                parts.append("<details><summary>Caveats</summary>\n")
                for x, b, text in notes:
                    parts.append(f"- `{x}` on {BACKEND_LABEL[b]}: {' '.join(text.split())}")
                parts.append("\n</details>\n")
        elif r["annotations"]:
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


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all", project: dict[str, Any] | None = None,
          show_all: bool = False) -> None:
    out.write(render(results, backend, project, show_all))
