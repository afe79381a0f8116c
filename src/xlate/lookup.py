"""`xlate lookup`: find a concept from any vendor's vocabulary and print its card.

Kept free of typer, rich, pydantic and networkx so that a cold lookup stays fast.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from xlate import index as ix

BACKEND_LABEL = {"cuda": "CUDA", "hip": "HIP/ROCm", "metal": "Metal", "triton": "Triton", "mlx": "MLX"}
EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE = 0, 1, 2


def _wrap(text: str, width: int, indent: str) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)


def card(index: dict[str, Any], m: ix.Match, width: int = 100) -> str:
    c = index["concepts"][m.concept]
    lines = [f"{c['title']}  [{m.concept}, {c['category']}]  matched {m.matched!r} ({m.kind}, score {m.score:g})", ""]
    lines.append(_wrap(c["summary"], width, "  "))
    lines.append("")
    for backend, term in c["terms"].items():
        spelled = ", ".join(dict.fromkeys(term["names"] + term["symbols"])) or "-"
        head = f"  {BACKEND_LABEL[backend]:<9} {term['relation']:<12} {spelled}"
        lines.append(head)
        if term.get("caveat"):
            lines.append(_wrap(term["caveat"], width, " " * 24))
        if term.get("since"):
            lines.append(" " * 24 + f"since {term['since']}")
    if c.get("related"):
        lines.append("")
        rel = ", ".join(f"{kind} {target}" for kind, target in c["related"])
        lines.append(_wrap("related: " + rel, width, "  "))
    if c.get("examples"):
        lines.append("  examples: " + ", ".join(e["example"] for e in c["examples"]))
    docs = [(b, u) for b, t in c["terms"].items() for u in t["docs"]]
    if docs:
        lines.append("")
        lines.append("  docs:")
        lines.extend(f"    {BACKEND_LABEL[b]:<9} {u}" for b, u in docs)
    return "\n".join(lines)


def run(query: str, backend: str | None = None, fmt: str = "text", limit: int = 5, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = sys.stderr
    if backend is not None and backend not in ix.BACKENDS:
        print(f"error: unknown backend {backend!r}; choose from {', '.join(ix.BACKENDS)}", file=err)
        return EXIT_USAGE
    if fmt not in ("text", "json"):
        print(f"error: unknown format {fmt!r}; choose text or json", file=err)
        return EXIT_USAGE
    cleaned = ix.clean_query(query)
    if not cleaned:
        print("error: empty query; try a term from any vendor, e.g. `xlate lookup wavefront`", file=err)
        return EXIT_USAGE
    try:
        index = ix.load_index()
    except ix.IndexError_ as exc:
        from xlate.errors import report

        return report(exc, err)
    matches = ix.search(index, cleaned, backend=backend, limit=max(1, limit))
    if fmt == "json":
        payload: dict[str, Any] = {"query": cleaned, "matches": [ix.match_json(index, m) for m in matches]}
        if not matches:
            payload["suggestions"] = ix.suggestions(index, cleaned)
        json.dump(payload, out, indent=2)
        out.write("\n")
        return EXIT_OK if matches else EXIT_NO_MATCH
    if not matches:
        near = ix.suggestions(index, cleaned)
        hint = f" Nearest terms: {', '.join(near)}." if near else ""
        shown = cleaned if len(cleaned) <= 60 else cleaned[:57] + "..."
        print(f"no concept matches {shown!r}.{hint}", file=err)
        return EXIT_NO_MATCH
    out.write(card(index, matches[0]) + "\n")
    if len(matches) > 1:
        others = ", ".join(f"{m.concept} ({m.score:g})" for m in matches[1:])
        out.write(f"\nalso: {others}\n")
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Fast entry for `xlate lookup ...`: argparse only, no CLI framework."""
    from xlate.errors import argument_parser

    parser = argument_parser("xlate lookup", "Find a GPU concept from any vendor's vocabulary.")
    parser.add_argument("query", nargs="+", help="a term, symbol or alias: warp, wavefront, __shfl_down, LDS ...")
    parser.add_argument("--backend", "-b", choices=ix.BACKENDS, help="match only this backend's names and symbols")
    parser.add_argument("--format", "-f", dest="fmt", choices=("text", "json"), default="text")
    parser.add_argument("--limit", "-n", type=int, default=5, help="how many matches (default 5)")
    args = parser.parse_args(argv)
    return run(" ".join(args.query), args.backend, args.fmt, args.limit)
