"""`xlate lookup`: find a concept from any vendor's vocabulary and print its card.

Kept free of typer, rich, pydantic and networkx so that a cold lookup stays fast.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

from xlate import kb
from xlate.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK

BACKEND_LABEL = {"cuda": "CUDA", "hip": "HIP/ROCm", "metal": "Metal", "triton": "Triton", "mlx": "MLX"}


def _wrap(text: str, width: int, indent: str) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)


_LINK = re.compile(r"\s*\(?https?://[^\s),]+\)?")


def brief(text: str, limit: int = 100) -> str:
    """A vocabulary's release or section as one short line: links dropped (the card and the
    vocabulary file carry them), cut at a word past `limit` characters."""
    text = " ".join(_LINK.sub("", text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0].rstrip(",;:(") + " ..."


def card(index: kb.Index, m: kb.Match, width: int = 100) -> str:
    c = index.concept(m.concept)
    if c is None:
        raise KeyError(m.concept)  # a match names a concept of this index
    how = f"{m.kind}, score {m.score:g}"
    entry = kb.vocabulary_entry(index, m.matched) if m.kind == "package" else None
    if entry is not None:
        how = f"{brief(entry[3], 60)}, {brief(entry[2])}; score {m.score:g}"
    family = kb.name_family(index, m.matched) if m.kind == "family" else None
    if family is not None:
        how = f"{family[2]} counter name, unit: {family[3]} ({family[0]}); score {m.score:g}"
    option = kb.option_entries(index, m.matched)[1] if m.kind == "option" else []
    if option:
        how = f"option of {', '.join(dict.fromkeys(e[3] for e in option))}, {option[0][2]}; score {m.score:g}"
    if m.kind == "message":
        how = f"error string; score {m.score:g}"
    if m.kind == "twin":
        how = f"no row spells the HIP name; read as the CUDA name it follows, {m.matched}; score {m.score:g}"
    lines = [f"{c.title}  [{m.concept}, {c.category}]  matched {m.matched!r} ({how})", ""]
    lines.append(_wrap(c.summary, width, "  "))
    lines.append("")
    for backend, term in c.terms.items():
        spelled = ", ".join(term.spellings()) or "-"
        head = f"  {BACKEND_LABEL[backend]:<9} {term.relation:<12} {spelled}"
        lines.append(head)
        if term.caveat:
            lines.append(_wrap(term.caveat, width, " " * 24))
        if term.since:
            lines.append(" " * 24 + f"since {term.since}")
    if c.related:
        lines.append("")
        rel = ", ".join(f"{e.type} {e.target}" for e in c.related)
        lines.append(_wrap("related: " + rel, width, "  "))
    if c.examples:
        lines.append("  examples: " + ", ".join(c.examples))
    docs = [(b, u) for b, t in c.terms.items() for u in t.docs]
    if docs:
        lines.append("")
        lines.append("  docs:")
        lines.extend(f"    {BACKEND_LABEL[b]:<9} {u}" for b, u in docs)
    return "\n".join(lines)


SIDE_LABEL = {"cuda": "CUDA", "hip": "HIP", "roc": "ROC lib", "miopen": "MIOpen", "metal": "Metal", "mlx": "MLX",
              "triton": "Triton"}


def side_json(side: kb.Side | None) -> dict[str, Any]:
    """One side of a row as every output format carries it: unknown sides say so."""
    return kb.side_json(side)


def row_json(row: kb.Row, matched_side: str) -> dict[str, Any]:
    return row.json(matched_side)


def row_card(row: kb.Row, matched_side: str, query: str, width: int = 100) -> str:
    """A symbol's spelling on every backend, with relation, caveat, version facts and source."""
    what = " · ".join(x for x in (row.kind, row.family, row.section) if x)
    head = f"{row.cuda}" + (f"  ({what})" if what else "")
    if matched_side != "cuda":
        head = f"{query} is the {SIDE_LABEL[matched_side]} spelling of CUDA {head}"
    if row.derived:
        head += "  [derived by a naming rule: in no table]"
    lines = [head]
    if row.cuda_versions:
        lines.append("  CUDA      " + ", ".join(f"{k} {v}" for k, v in row.cuda_versions.items()))
    for s in kb.ROW_SIDES:
        side = row.sides.get(s)
        if side is None:
            if s in ("hip", "metal"):
                lines.append(f"  {SIDE_LABEL[s]:<9} {'unknown':<12} (no row gives this side)")
            continue
        spelled = side.symbol or "-"
        if side.also:
            spelled += " (also " + ", ".join(side.also) + ")"
        flags = [v for w, v in side.versions() if w in ("since", "deprecated", "removed")]
        if side.derived:
            flags.insert(0, "DERIVED, unverified")
        lines.append(f"  {SIDE_LABEL[s]:<9} {side.relation or 'unknown':<12} {spelled}"
                     + (f"   [{'; '.join(flags)}]" if flags else ""))
        if side.caveat:
            lines.append(_wrap(side.caveat, width, " " * 24))
        if side.source:
            lines.append(" " * 24 + "source: " + side.source)
        for fact in side.rocm:
            # What one ROCm release's headers declare, where it differs from the spelling above.
            said = fact.symbol if fact.symbol and fact.symbol != side.symbol else None
            if said or fact.note:
                lines.append(_wrap(f"ROCm {fact.version}: " + "; ".join(x for x in (said, fact.note) if x), width, " " * 24))
    return "\n".join(lines)


def gpu_card(sheet: kb.GpuSheet, width: int = 100) -> str:
    lines = [f"{sheet.name}  [{sheet.id}, {sheet.vendor}, {sheet.architecture}]  spec sheet", ""]
    for key, (label, unit) in kb.GPU_FIGURES.items():
        fig = sheet.figures.get(key)
        if fig is None:
            continue
        value = "-" if fig.value is None else f"{fig.value:g}"
        unit = sheet.compute_unit_name if key == "compute_units" else unit
        lines.append(f"  {label:<40} {value} {unit}".rstrip())
        if fig.note:
            lines.append(_wrap(fig.note, width, " " * 43))
    sources = sorted({f.source for f in sheet.figures.values() if f.source})
    if sources:
        lines.append("")
        lines.append("  sources:")
        lines.extend(f"    {u}" for u in sources)
    lines.append("")
    lines.append("  compare with others: xlate compare " + sheet.id + " ...")
    return "\n".join(lines)


def _derived_row(query: str) -> kb.Row | None:
    """A name in no row that an API family's naming rule answers: shown, and marked derived."""
    from xlate import kb

    try:
        entry = kb.load_symbols().get(query)
    except kb.IndexBuildError:
        return None
    return entry.row if entry is not None and entry.derived else None


def _found_without_filter(index: kb.Index, query: str) -> str | None:
    """What an unfiltered lookup answers for a query a backend filter left unanswered, in a few words
    ("a cuda spelling of the Cooperative groups card"), or None."""
    rows = kb.find_rows(index, query, None)
    if rows:
        row, spelled_by = rows[0]
        title = index["concepts"][row.concept]["title"] if row.concept in index["concepts"] else None
        return f"a {spelled_by} spelling" + (f" on the {title} card" if title else " of a symbol row")
    matches = kb.search(index, query, limit=1)
    if matches and matches[0].score >= kb.SCORE_LOOSE:
        m = matches[0]
        return (f"a {m.backend} spelling" if m.backend else "a name") + f" on the {index['concepts'][m.concept]['title']} card"
    return None


def run(query: str, backend: str | None = None, fmt: str = "text", limit: int = 5, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = sys.stderr
    if backend is not None and backend not in kb.BACKENDS:
        print(f"error: unknown backend {backend!r}; choose from {', '.join(kb.BACKENDS)}", file=err)
        return EXIT_ERROR
    if fmt not in ("text", "json"):
        print(f"error: unknown format {fmt!r}; choose text or json", file=err)
        return EXIT_ERROR
    cleaned = kb.clean_query(query)
    if not cleaned:
        print("error: empty query; try a term from any vendor, e.g. `xlate lookup wavefront`", file=err)
        return EXIT_ERROR
    try:
        index = kb.load_index()
    except kb.IndexBuildError as exc:
        from xlate.errors import report

        return report(exc, err)
    rows = kb.find_rows(index, cleaned, backend)[:3]
    gpu = kb.resolve_gpu(cleaned, index=index, within=True) if backend is None else None
    matches = kb.search(index, cleaned, backend=backend, limit=max(1, limit))
    if gpu is None and backend is None and not rows and not matches:
        gpu = kb.resolve_gpu(cleaned, index=index, within=True, suffixless=True)
    # A name in no row may be answered by a family's naming rule, but never when it is a slip of a
    # spelling some row really has (cublasLtMatmulAlgoGetHeurstic): that row answers, not a row made up
    # under the misspelled name.
    slip_of_row = bool(matches) and matches[0].kind == "fuzzy" and bool(kb.find_rows(index, matches[0].matched, backend))
    if not rows and not slip_of_row and cleaned.startswith(tuple(index.get("prefixes", ()))):
        derived = _derived_row(cleaned)
        if derived is not None:
            rows = [(derived, "cuda")]
    spelled = cleaned  # the spelling the rows were found under
    if not rows and not matches and gpu is None:
        # A slip of a row's spelling (cudaDeviceScheduleBlokingSync): that row, also when it has no concept.
        slip = kb.row_slip(index, cleaned)
        if slip is not None:
            rows, spelled = kb.find_rows(index, slip, backend)[:3], slip
    from_span = False
    # The symbol the question names, misspells (a CUDA or HIP spelling) or is the HIP twin of.
    if not rows and matches and (matches[0].kind in ("span", "twin")
                                 or (matches[0].kind == "fuzzy" and matches[0].backend in ("cuda", "hip"))):
        rows = kb.find_rows(index, matches[0].matched, None if matches[0].kind == "twin" else backend)[:3]
        spelled, from_span = matches[0].matched, matches[0].kind == "span"
    # A row that pairs nothing (a CUDA name a concept lists, with no side known: a tool such as nsys)
    # would only say "unknown" where the concept's card, shown anyway, names the counterparts.
    concepts_shown = {m.concept for m in matches}
    rows = [(r, s) for r, s in rows if r.sides or r.concept not in concepts_shown]
    # What the reader sees first: a CUDA symbol's row (and its concept's card), unless the query is
    # exactly a concept's own name and matched other rows only as another backend's spelling.
    # A sentence that names another backend's spelling (mx.fast.metal_kernel in a bug title) is about
    # that spelling's own concept first; the CUDA row it pairs with follows.
    row_leads = bool(rows) and (rows[0][1] == "cuda" or not matches or matches[0].score < kb.SCORE_NAME
                                or matches[0].concept == rows[0][0].concept) and not (from_span and rows[0][1] != "cuda")
    if row_leads:
        first = rows[0][0].concept
        matches.sort(key=lambda m: m.concept != first)
    lead = "row" if row_leads else ("gpu" if gpu else ("concept" if matches else ("row" if rows else None)))
    found = bool(rows or gpu or matches)
    package = kb.vocabulary_entry(index, cleaned) if not found else None
    option, tools = kb.option_entries(index, cleaned) if not found and package is None else ("", [])
    if not kb.option_asked(cleaned, tools):
        option, tools = "", []  # an option among another tool's words says nothing about this line
    if fmt == "json":
        payload: dict[str, Any] = {"query": cleaned, "lead": lead, "rows": [row_json(r, s) for r, s in rows],
                                   "gpu": {"id": gpu.id, **gpu.card()} if gpu else None,
                                   "matches": [kb.match_json(index, m) for m in matches]}
        if not found and package is None and not tools:
            payload["suggestions"] = kb.suggestions(index, cleaned)
        if package is not None:
            payload["package"] = {"name": package[1], "section": package[2], "release": package[3], "card": package[0]}
        if tools:
            payload["option"] = {"name": option, "of": [{"release": t[3], "section": t[2], "card": t[1]} for t in tools]}
        json.dump(payload, out, indent=2)
        out.write("\n")
        return EXIT_OK if found else EXIT_FINDINGS
    if package is not None:
        # Known, but about nothing the glossary covers (tl.reshape): say what it is, and still exit 1.
        if package[1] == cleaned:  # a listed name (a heading, a variable): what the list says it is
            print(f"{cleaned}: {brief(package[2])} ({brief(package[3], 60)}); no concept card covers it.", file=err)
        else:
            print(f"{cleaned} is {package[1]} ({package[3]}, {package[2]}); no concept card covers it.", file=err)
        return EXIT_FINDINGS
    if tools:
        # A known option: about nothing the glossary covers (nvcc --output-file), or about different cards
        # in the tools that share its spelling (-G) when the line names no tool.
        of = "; ".join(f"{t[3]} ({t[2]})" for t in tools)
        why = "no concept card covers it" if all(t[1] is None for t in tools) else \
            "name the tool for its card (e.g. `" + tools[0][0] + " " + option + "`)"
        print(f"{option} is an option of {of}; {why}.", file=err)
        return EXIT_FINDINGS
    if not found:
        shown = cleaned if len(cleaned) <= 60 else cleaned[:57] + "..."
        elsewhere = _found_without_filter(index, cleaned) if backend is not None else None
        if elsewhere:
            # cg::reduce under --backend hip: the name is another backend's spelling; "nearest terms"
            # would list the very name typed.
            print(f"no {backend} spelling matches {shown!r}; it is {elsewhere}. Run it without --backend "
                  f"to see its card and its {backend} side.", file=err)
            return EXIT_FINDINGS
        near = kb.suggestions(index, cleaned)
        hint = f" Nearest terms: {', '.join(near)}." if near else ""
        print(f"no concept, symbol or GPU matches {shown!r}.{hint}", file=err)
        return EXIT_FINDINGS
    row_cards = [row_card(r, s, spelled) for r, s in rows]
    if matches and matches[0].kind == "twin":
        # Say that the HIP name itself is in no row before showing the CUDA row it follows.
        out.write(_wrap(f"{cleaned}: no row spells this HIP name; shown below is the CUDA name it follows, "
                        f"{matches[0].matched}, with what its HIP side is known to be.", 100, "") + "\n\n")
    concept_cards = [card(index, matches[0])] if matches else []
    parts = row_cards + ([gpu_card(gpu)] if gpu else []) + concept_cards
    if not row_leads:
        parts = ([gpu_card(gpu)] if gpu else []) + concept_cards + row_cards
    out.write("\n\n".join(parts) + "\n")
    if len(matches) > 1:
        others = ", ".join(f"{m.concept} ({m.score:g})" for m in matches[1:])
        out.write(f"\nalso: {others}\n")
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Fast entry for `xlate lookup ...`: argparse only, no CLI framework."""
    from xlate.errors import argument_parser

    parser = argument_parser("xlate lookup", "Find a GPU concept from any vendor's vocabulary.")
    parser.add_argument("query", nargs="+", help="a term, symbol or alias: warp, wavefront, __shfl_down, LDS ...")
    parser.add_argument("--backend", "-b", choices=kb.BACKENDS, help="match only this backend's names and symbols")
    parser.add_argument("--format", "-f", dest="fmt", choices=("text", "json"), default="text")
    parser.add_argument("--limit", "-n", type=int, default=5, help="how many matches (default 5)")
    args = parser.parse_args(argv)
    return run(" ".join(args.query), args.backend, args.fmt, args.limit)
