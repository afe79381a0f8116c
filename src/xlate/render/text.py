"""Terminal output.

By default, what differs: per file its hazards first, grouped by rule with the advice they share said
once, each in the compiler style `file:line:col: CODE name message`; then one line per symbol whose
counterpart differs (with the lines that use it and its caveats); then one line naming the symbols
that keep their name. With `--all` (show_all), the whole source, each annotated line followed by its
HIP and Metal equivalents and caveats, then the hazards and errors, as before.

Colours come from rich when writing to a terminal and NO_COLOR is unset; otherwise the output is
plain text and rich is not even imported.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from xlate.links import rule_url
from xlate.render import BACKEND_LABEL, backends_for

__all__ = ["Segment", "render_differences", "render_file", "render_project", "rule_links", "shared_advice",
           "use_color", "write"]

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


def _file_head(r: dict[str, Any]) -> list[Segment]:
    head = f"{r['path']}: {len(r['annotations'])} annotation(s), {len(r['hazards'])} hazard(s)"
    if r["errors"]:
        head += f", {len(r['errors'])} error(s)"
    return [(head, "bold")]


def _error_lines(r: dict[str, Any]) -> list[list[Segment]]:
    out: list[list[Segment]] = []
    for e in r["errors"]:
        where = f"{r['path']}:{e['line']}:{e['column']}" if "line" in e else r["path"]
        out.append([(f"{where}: ", "bold"), (f"error[{e['kind']}]", "red"), (f" {e['message']}", "")])
    return out


def _wrap(text: str, indent: str, width: int = 100) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=indent, subsequent_indent=indent)


def render_file(r: dict[str, Any], backend: str = "all") -> list[list[Segment]]:
    shown = backends_for(backend)
    out: list[list[Segment]] = []
    out.append(_file_head(r))
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
                seg += _equivalents(a, info, shown)
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
    out += _error_lines(r)
    return out


def shared_advice(messages: list[str]) -> str:
    """The sentences every message of a group ends with (said once for the group), or ""."""
    if len(messages) < 2:
        return ""
    first = messages[0]
    n = 0
    while n < len(first) and all(len(m) > n and m[-1 - n] == first[-1 - n] for m in messages):
        n += 1
    tail = first[len(first) - n:]
    cut = tail.find(". ")  # start on a sentence: never half a word
    if cut == -1 or len(tail) - cut < 40:
        return ""
    return tail[cut + 2:]


def _is_same(info: dict[str, Any], symbol: str, eq: dict[str, Any], backend: str) -> bool:
    """A symbol that keeps its name and needs no word on the backend that decides (HIP unless only
    Metal is shown): `threadIdx -> threadIdx`."""
    side = "metal" if backend == "metal" else "hip"
    return eq.get(side) == symbol and not (info.get("caveats") or {}).get(side) and \
        (info.get("relations") or {}).get(side) in (None, "same")


def symbol_uses(r: dict[str, Any], backend: str) -> tuple[dict[str, list[int]], dict[str, dict[str, Any]], list[str], list[str]]:
    """A file's annotations by symbol: (the lines each symbol is used on, its first annotation, the
    symbols that keep their name, the symbols that differ), in order of first use."""
    symbols = r.get("symbols", {})
    uses: dict[str, list[int]] = {}
    first: dict[str, dict[str, Any]] = {}
    for a in r["annotations"]:
        lines = uses.setdefault(a["symbol"], [])
        if not lines or lines[-1] != a["line"]:
            lines.append(a["line"])
        first.setdefault(a["symbol"], a)
    same = [s for s in uses if _is_same(symbols.get(s, {}), s, first[s]["equivalents"], backend)]
    return uses, first, same, [s for s in uses if s not in same]


def _equivalents(a: dict[str, Any], info: dict[str, Any], shown: Sequence[str]) -> list[Segment]:
    """Each shown backend's spelling of an annotated symbol, coloured by what the row says of it."""
    seg: list[Segment] = []
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
    return seg


def _lines_text(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:8])
    return f"line {shown}" if len(lines) == 1 else f"lines {shown}" + (f" (+{len(lines) - 8})" if len(lines) > 8 else "")


def render_differences(r: dict[str, Any], backend: str = "all", said: set[str] | None = None) -> list[list[Segment]]:
    """One file, default view: hazards by rule, then the symbols whose counterpart differs, then one
    line for those that keep their name. A symbol's caveats are written once per output: `said`
    holds the symbols whose caveats an earlier file of the same output already gave."""
    said = set() if said is None else said
    shown = backends_for(backend)
    out: list[list[Segment]] = []
    out.append(_file_head(r))
    if r.get("users") and r["hazards"]:
        users = r["users"]
        listed = ", ".join(users[:6]) + (f" and {len(users) - 6} more" if len(users) > 6 else "")
        out.append([(f"  shared header: its findings hold for the {len(users)} file(s) that include it: {listed}", "dim")])
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for h in r["hazards"]:
        groups.setdefault((h["rule"], h["name"]), []).append(h)
    for (code, name), hazards in sorted(groups.items(), key=lambda g: (-_rank(g[1]), g[0][0])):
        advice = shared_advice([h["message"] for h in hazards])
        color = "red" if any(h["severity"] == "error" for h in hazards) else "yellow"
        title = [(f"{code} {name}", color), (f": {len(hazards)} place(s)", "")]
        if advice:
            title.append((f". {advice}", ""))
        out.append(title)
        for h in hazards:
            message = h["message"][: len(h["message"]) - len(advice) - 1].rstrip() if advice else h["message"]
            out.append([(f"{r['path']}:{h['line']}:{h['column']}: ", "bold"), (f"{code} {name}", color), (f" {message}", "")])
    out += _error_lines(r)
    symbols = r.get("symbols", {})
    uses, first, same, differ = symbol_uses(r, backend)
    if differ:
        out.append([("differs:", "bold")])
    for sym in differ:
        a, info = first[sym], symbols.get(sym, {})
        seg: list[Segment] = [("  ", ""), (sym, "cyan"), *_equivalents(a, info, shown)]
        seg.append((f"  {_lines_text(uses[sym])}", "dim"))
        if sym in said and any((info.get("caveats") or {}).get(b) for b in shown):
            seg.append(("  (caveats above)", "dim"))
        out.append(seg)
        if sym in said:
            continue
        said.add(sym)
        for b in shown:
            cav = (info.get("caveats") or {}).get(b)
            if cav:
                for line in _wrap(f"{BACKEND_LABEL[b]}: {cav}", "      "):
                    out.append([(line, "dim")])
    if same:
        side = "Metal" if backend == "metal" else "HIP"
        names = ", ".join(f"{s} x{len(uses[s])}" if len(uses[s]) > 1 else s for s in same)
        out.append([(f"same name on {side} ({len(same)}; --all shows each use): ", "bold"), (names, "dim")])
    return out


def _rank(hazards: list[dict[str, Any]]) -> int:
    return max({"info": 0, "warning": 1, "error": 2}.get(h["severity"], 0) for h in hazards)


def render_project(project: dict[str, Any] | None) -> list[list[Segment]]:
    """The project's own findings (its warp-width decision), before its files."""
    if not project or "warp" not in project:
        return []
    warp = project["warp"]
    out: list[list[Segment]] = [[("project: ", "bold"), (f"warp width: {warp['decision']}", "magenta")]]
    out += [[(line, "")] for line in _wrap(warp["message"], "  ")]
    sites = warp["sites"]
    out.append([(f"  places: {', '.join(sites[:12])}" + (f" and {len(sites) - 12} more" if len(sites) > 12 else ""), "dim")])
    runtime = warp.get("warpsize_sites") or []
    if runtime:
        out.append([(f"  warpSize read at: {', '.join(runtime[:12])}" + (f" and {len(runtime) - 12} more" if len(runtime) > 12 else ""), "dim")])
    return out


def rule_links(results: list[dict[str, Any]]) -> list[list[Segment]]:
    """One line per rule that fired, with the address of its page, in code order."""
    fired = sorted({(h["rule"], h["name"]) for r in results for h in r["hazards"]})
    if not fired:
        return []
    return [[("rule pages:", "bold")]] + [[(f"  {code} {name}: ", ""), (rule_url(name), "dim")] for code, name in fired]


def write(results: list[dict[str, Any]], out: TextIO, backend: str = "all", project: dict[str, Any] | None = None,
          show_all: bool = False) -> None:
    color = use_color(out)
    console = None
    if color:
        from rich.console import Console
        from rich.text import Text

        console = Console(file=out, highlight=False, soft_wrap=True)
    total_h = sum(len(r["hazards"]) for r in results)
    total_a = sum(len(r["annotations"]) for r in results)
    total_e = sum(len(r["errors"]) for r in results)
    head = render_project(project) if backend != "metal" else []  # the warp-width decision is about HIP
    if head:
        head.append([("", "")])
    for segments in head:
        if console is not None:
            console.print(Text.assemble(*segments))
        else:
            out.write("".join(t for t, _ in segments) + "\n")
    said: set[str] = set()  # symbols whose caveats are already written (once per output)
    for i, r in enumerate(results):
        if i:
            out.write("\n")
        for segments in (render_file(r, backend) if show_all else render_differences(r, backend, said)):
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
