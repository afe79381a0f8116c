"""Terminal output: the source, each annotated line followed by its HIP and Metal equivalents and
caveats, then hazards and errors in the compiler style `file:line:col: CODE name message`.

Colours come from rich when writing to a terminal and NO_COLOR is unset; otherwise the output is
plain text and rich is not even imported.
"""

from __future__ import annotations

import os
import textwrap
from typing import Any, TextIO

from xlate.links import rule_url
from xlate.render import BACKEND_LABEL, backends_for

__all__ = ["Segment", "render_file", "rule_links", "use_color", "write"]

Segment = tuple[str, str]  # (text, rich style)


def use_color(out: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def _source_lines(path: str) -> list[str] | None:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None


def _wrap(text: str, indent: str, width: int = 100) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=indent, subsequent_indent=indent)


def render_file(r: dict[str, Any], backend: str = "all") -> list[list[Segment]]:
    shown = backends_for(backend)
    out: list[list[Segment]] = []
    head = f"{r['path']}: {len(r['annotations'])} annotation(s), {len(r['hazards'])} hazard(s)"
    if r["errors"]:
        head += f", {len(r['errors'])} error(s)"
    out.append([(head, "bold")])
    by_line: dict[int, list[dict[str, Any]]] = {}
    for a in r["annotations"]:
        by_line.setdefault(a["line"], []).append(a)
    hazards_by_line: dict[int, list[dict[str, Any]]] = {}
    for h in r["hazards"]:
        hazards_by_line.setdefault(h["line"], []).append(h)
    source = _source_lines(r["path"]) if (by_line or hazards_by_line) else None
    width = len(str(len(source))) if source else 4
    explained: set[str] = set()
    if source is not None:
        for no, text in enumerate(source, start=1):
            style = "bold" if no in by_line or no in hazards_by_line else "dim"
            out.append([(f"{no:>{width}} | ", "dim"), (text, style)])
            pad = " " * width + " |   "
            for a in by_line.get(no, []):
                seg: list[Segment] = [(pad, "dim"), (a["symbol"], "cyan")]
                if a["concept"]:
                    seg.append((f" [{a['concept']}]", "dim"))
                info = r.get("symbols", {}).get(a["symbol"], {})
                for b in shown:
                    eq = a["equivalents"][b]
                    rel = (info.get("relations") or {}).get(b)
                    seg.append((f"  {BACKEND_LABEL[b]}: ", "bold"))
                    # No equivalent and no relation: nobody knows, which is not the same as "none".
                    seg.append((eq or ("none" if rel == "none" else "unknown"), "green" if eq else ("red" if rel == "none" else "dim")))
                    if eq and rel and rel not in ("same", "renamed"):
                        seg.append((f" ({rel})", "yellow"))
                if info.get("kind") == "derived":
                    seg.append(("  (by naming rule)", "dim"))
                out.append(seg)
                if a["symbol"] not in explained:
                    explained.add(a["symbol"])
                    for b in shown:
                        cav = (info.get("caveats") or {}).get(b)
                        if cav:
                            for line in _wrap(f"{BACKEND_LABEL[b]}: {cav}", pad + "  "):
                                out.append([(line, "dim")])
            for h in hazards_by_line.get(no, []):
                out.append([(" " * width + " |   ", "dim"), (f"^ {h['rule']} {h['name']}", "magenta")])
        out.append([("", "")])
    for h in r["hazards"]:
        color = "red" if h["severity"] == "error" else "yellow"
        out.append([(f"{r['path']}:{h['line']}:{h['column']}: ", "bold"), (f"{h['rule']} {h['name']}", color), (f" {h['message']}", "")])
    for e in r["errors"]:
        where = f"{r['path']}:{e['line']}:{e['column']}" if "line" in e else r["path"]
        out.append([(f"{where}: ", "bold"), (f"error[{e['kind']}]", "red"), (f" {e['message']}", "")])
    return out


def rule_links(results: list[dict[str, Any]]) -> list[list[Segment]]:
    """One line per rule that fired, with the address of its page, in code order."""
    fired = sorted({(h["rule"], h["name"]) for r in results for h in r["hazards"]})
    if not fired:
        return []
    return [[("rule pages:", "bold")]] + [[(f"  {code} {name}: ", ""), (rule_url(name), "dim")] for code, name in fired]


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all") -> None:
    color = use_color(out)
    console = None
    if color:
        from rich.console import Console
        from rich.text import Text

        console = Console(file=out, highlight=False, soft_wrap=True)
    total_h = sum(len(r["hazards"]) for r in results)
    total_a = sum(len(r["annotations"]) for r in results)
    total_e = sum(len(r["errors"]) for r in results)
    for i, r in enumerate(results):
        if i:
            out.write("\n")
        for segments in render_file(r, backend):
            if console is not None:
                console.print(Text.assemble(*segments))
            else:
                out.write("".join(t for t, _ in segments) + "\n")
    links = rule_links(results)
    if links:
        out.write("\n") if console is None else console.print()
        for segments in links:
            if console is not None:
                console.print(Text.assemble(*segments))
            else:
                out.write("".join(t for t, _ in segments) + "\n")
    summary = f"{len(results)} file(s): {total_a} annotation(s), {total_h} hazard(s), {total_e} error(s)"
    if console is not None:
        console.print(Text(summary, style="bold"))
    else:
        out.write(summary + "\n")
