"""Glossary pages: one per concept, one per category, the overview and the Rosetta table."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from xlate.docsgen import snippets, svg, terms
from xlate.docsgen.text import code, prose, prose_linked, table_cell
from xlate.kb import Glossary
from xlate.kb import Category, Concept, Term

BACKEND_TITLE = {"cuda": "CUDA", "hip": "HIP / ROCm", "metal": "Metal", "mlx": "MLX", "triton": "Triton"}
BACKEND_ORDER = ("cuda", "hip", "metal", "mlx", "triton")
RELATION_BADGE = {"same": "same", "renamed": "renamed", "approximate": "approximate", "none": "none"}
CATEGORY_TITLE = {
    "hardware": "Hardware", "execution-model": "Execution model", "memory": "Memory", "synchronization": "Synchronization",
    "warp-ops": "Warp / wave / SIMD-group operations", "matrix": "Matrix units", "host-api": "Host API",
    "toolchain": "Toolchain and IR", "libraries": "Libraries", "profiling": "Profiling and debugging",
    "interconnect": "Interconnect and multi-GPU",
}
SNIPPET_LANG = {"cuda": "cuda", "hip": "cpp", "triton": "python", "metal": "cpp", "mlx": "python"}


def concept_path(c: Concept) -> str:
    """Site path of a concept page, relative to the docs root."""
    from xlate.links import concept_page  # the one home of page paths, shared with every link to them

    return concept_page(c.category.value, c.id)


def _link_from_concept(target: Concept) -> str:
    return f"../{target.category.value}/{target.id}.md"


def _terms_spelled(term: Term) -> str:
    names = [prose(n) for n in term.names]
    symbols = [code(s) for s in term.symbols if s not in term.names]
    return ", ".join(names + symbols) or "—"


def _relation(term: Term) -> str:
    return f'<span class="xl-rel xl-rel-{term.relation.value}">{RELATION_BADGE[term.relation.value]}</span>'


def incoming(g: Glossary) -> dict[str, list[tuple[str, Concept]]]:
    """For each concept, the one-way edges that end at it (read backwards: "has part", "used by"), in glossary order."""
    return {cid: [(e.type, g.concepts[e.target]) for e in edges] for cid, edges in g.incoming().items()}


def _neighbours(g: Glossary, c: Concept, into: dict[str, list[tuple[str, Concept]]] | None = None) -> list[tuple[str, Concept]]:
    out: list[tuple[str, Concept]] = []
    for e in c.relations:
        if e.target in g.concepts:
            out.append((e.type.value, g.concepts[e.target]))
    out += (incoming(g) if into is None else into).get(c.id, [])
    # One entry per related concept, its edge labels joined, in first-seen order.
    labels: dict[str, list[str]] = {}
    targets: dict[str, Concept] = {}
    for label, target in out:
        targets.setdefault(target.id, target)
        if label not in labels.setdefault(target.id, []):
            labels[target.id].append(label)
    return [(", ".join(labels[tid]), targets[tid]) for tid in labels]


# At most this many kernel snippets per concept page (one example, a tab per backend); other examples are links.
SNIPPET_BACKENDS = ("cuda", "hip", "metal", "triton", "mlx")


def headline(c: Concept) -> str:
    """The title with AMD's and Apple's own words for it, when they differ: 'Warp · wavefront · SIMD-group'."""
    names = [c.title]
    for backend in ("hip", "metal"):
        term = getattr(c.terms, backend)
        if term is None or term.relation.value == "none" or not term.names:
            continue
        name = term.names[0]
        if all(name.casefold() != n.casefold() for n in names):
            names.append(name)
    return " · ".join(names)


def own_symbols(c: Concept) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is not None and term.relation.value != "none" and term.symbols:
            out[backend] = list(term.symbols)
    return out


def _front_matter(c: Concept) -> list[str]:
    # No table of contents column: a concept page is short, and the cross-vendor table needs the width.
    return ["---", f"source: glossary/{c.category.value}/{c.id}.yaml", "hide: [toc]", "---", ""]


def _gallery(c: Concept, examples: list[dict], kernels: Path, via_parts: list[tuple[Concept, dict]]) -> list[str]:
    """One example's snippets in tabs (the matched line highlighted), the other examples as links.

    Examples come from example.yaml (they say they show this concept), then from the concepts that are
    part of this one, use it or run on it, then from a search of the sources for this concept's own symbols, each labelled.
    """
    listed = [(ex["example"], ex["symbols"]) for ex in examples]
    named = {name for name, _ in listed}
    parts: dict[str, dict[str, str]] = {}
    part_names: dict[str, list[str]] = {}
    for part, ex in via_parts:
        if ex["example"] in named:
            continue
        parts.setdefault(ex["example"], {}).update(ex["symbols"])
        part_names.setdefault(ex["example"], []).append(part.title)
    named |= set(parts)
    found = [(name, {b: s}) for name, b, s in snippets.mentions(kernels, own_symbols(c)) if name not in named]
    merged: dict[str, dict[str, str]] = {}
    for name, syms in found:
        merged.setdefault(name, {}).update(syms)
    shown_by_spelling = list(merged.items())
    if not listed and not parts and not shown_by_spelling:
        return []
    lines = ["## In the kernel gallery", ""]
    first: list[snippets.Snippet] = []
    for name, syms in listed + list(parts.items()) + shown_by_spelling:
        first = [sn for b in SNIPPET_BACKENDS if b in syms and (sn := snippets.snippet(kernels, name, b, syms[b]))]
        if first:
            break
    if first:
        ex = first[0].example
        if ex in parts:
            why = "the line that uses " + ", ".join(prose(t) for t in dict.fromkeys(part_names[ex])) + " highlighted"
        elif ex in merged:
            why = "the line where its symbol appears highlighted"
        else:
            why = "the line that uses it highlighted"
        lines += [f"[{prose(ex)}](../../kernels/{ex}.md), {why}:", ""]
        for sn in first:
            fence = "````" if "```" in sn.code else "```"
            lines += [f'=== "{BACKEND_TITLE[sn.backend]}"', "",
                      f'    {fence} {SNIPPET_LANG[sn.backend]} title="{sn.file}" linenums="{sn.start}" hl_lines="{sn.highlight}"']
            lines += [("    " + ln) if ln else "" for ln in sn.code.splitlines()]
            lines += [f"    {fence}", ""]
    shown = first[0].example if first else None

    def item(name: str, syms: dict[str, str]) -> str:
        spelled = ", ".join(code(v) for v in dict.fromkeys(syms.values()))
        return f"- [{prose(name)}](../../kernels/{name}.md)" + (f": {spelled}" if spelled else "")

    others = [item(n, s) for n, s in listed if n != shown]
    if others:
        lines += ["Also shown in:", "", *others, ""]
    through = [f"- [{prose(n)}](../../kernels/{n}.md): " + ", ".join(prose(t) for t in dict.fromkeys(part_names[n]))
               for n in parts if n != shown]
    if through:
        lines += ["Shown through the concepts that are part of it, use it or run on it:", "", *through, ""]
    spelled = [item(n, s) for n, s in shown_by_spelling if n != shown]
    if spelled:
        lines += ["Its symbols also appear in (found by spelling in the source):", "", *spelled, ""]
    return lines


def concept_page(g: Glossary, c: Concept, examples: list[dict], kernels: Path, linker: terms.Linker,
                 rules: list[tuple[str, str, str]], via_parts: list[tuple[Concept, dict]],
                 into: dict[str, list[tuple[str, Concept]]] | None = None) -> str:
    lines = _front_matter(c) + [f"# {prose(headline(c))}", ""]
    meta = [f"[{CATEGORY_TITLE[c.category.value]}](index.md)"]
    also = list(dict.fromkeys(c.abbreviations + c.aliases))
    if also:
        # A few names in view; the rest stay searchable and listed, folded away.
        shown = ", ".join(prose(a) for a in also[:5])
        meta.append("also called " + shown + (f" and [{len(also) - 5} more](#all-names)" if len(also) > 5 else ""))
    lines += [" · ".join(meta), "{: .xl-meta }", ""]
    # The mapping first: it is what a reader comes for; the definition follows it.
    lines += ['<div class="xl-vendors" markdown="1">', "", "| backend | term | relation | caveat |", "|---|---|---|---|"]
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is None:
            continue
        since = f" (since {prose(term.since)})" if term.since else ""
        lines.append(f"| {BACKEND_TITLE[backend]} | {_terms_spelled(term)} | {_relation(term)} | {table_cell(term.caveat or '')}{since} |")
    lines += ["", "</div>", "", prose_linked(c.summary, linker.for_concept(c)), ""]
    lines += _gallery(c, examples, kernels, via_parts)
    if rules:
        lines += ["## Portability hazards", "", "What `xlate explain` flags about it when CUDA code moves to another vendor:", ""]
        lines += [f"- [{name}](../../rules/{name}.md) ({code_}): {prose(summary)}" for name, code_, summary in rules]
        lines.append("")
    neighbours = _neighbours(g, c, into)
    if neighbours:
        lines += ["## Related", ""]
        for label, target in neighbours:
            lines.append(f"- {label}: [{prose(target.title)}]({_link_from_concept(target)})")
        lines.append("")
        center = svg.Node(c.title, None, c.category.value)
        around = [(label, svg.Node(t.title, f"../{t.category.value}/{t.id}.html", t.category.value)) for label, t in neighbours]
        lines += ['<figure class="xl-graph" markdown="0">', svg.neighbourhood(center, around), "</figure>", ""]
    lines += ["## Official documentation", ""]
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is None or not term.docs:
            continue
        links = ", ".join(f"<{u}>" for u in term.docs)
        lines.append(f"- {BACKEND_TITLE[backend]}: {links}")
    lines.append("")
    if len(also) > 5:
        lines += ["## All names {#all-names}", "", ", ".join(prose(a) for a in also), ""]
    return "\n".join(lines)


def _cell(term: Term | None) -> str:
    if term is None:
        return ""
    spelled = _terms_spelled(term)
    if term.relation.value == "none":
        return '<span class="xl-rel xl-rel-none">none</span>'
    if term.relation.value in ("approximate",):
        return f"{spelled} {_relation(term)}"
    return spelled


def _row(c: Concept, link: str) -> str:
    cells = [f"[{prose(c.title)}]({link})"] + [_cell(getattr(c.terms, b)) for b in ("cuda", "hip", "metal", "triton")]
    return "| " + " | ".join(cells) + " |"


TABLE_HEAD = ["| concept | CUDA | HIP / ROCm | Metal / MLX | Triton |", "|---|---|---|---|---|"]


FOLDER_SOURCE = ["---", "source: glossary/", "---", ""]


def category_page(category: Category, concepts: list[Concept], figure: str = "") -> str:
    lines = ["---", f"source: glossary/{category.value}/", "---", "", f"# {CATEGORY_TITLE[category.value]}", "",
             f"{len(concepts)} concepts. Approximate mappings are marked; "
             "open a concept for the caveats and the official documentation.", ""]
    if figure:
        lines += ['<figure class="xl-figure" markdown="0">', figure, "</figure>", ""]
    lines += ['<div class="xl-long" markdown="1">', ""]
    lines += TABLE_HEAD
    lines += [_row(c, f"{c.id}.md") for c in sorted(concepts, key=lambda c: c.title.casefold())]
    return "\n".join(lines + ["", "</div>"]) + "\n"


def overview_page(by_category: dict[Category, list[Concept]]) -> str:
    total = sum(len(v) for v in by_category.values())
    lines = FOLDER_SOURCE + ["# Glossary", "", f"{total} concepts, each with its CUDA, HIP/ROCm, Metal/MLX and Triton terms. "
             "Every term cites official documentation; approximate and missing equivalents say why.", "",
             "| category | concepts |", "|---|---|"]
    for cat in Category:
        if by_category.get(cat):
            lines.append(f"| [{CATEGORY_TITLE[cat.value]}]({cat.value}/index.md) | {len(by_category[cat])} |")
    lines += ["", "See also the [Rosetta table](../rosetta.md): every concept in one table."]
    return "\n".join(lines) + "\n"


def rosetta_page(concepts: list[Concept]) -> str:
    # No table of contents (the page has no sections): its column goes to the table.
    lines = ["---", "source: glossary/", "hide: [toc]", "---", "", "# Rosetta table", "",
             "Every concept in one table. Type in the filter to narrow it, or use the site search. "
             "The table scrolls inside its frame, its header row stays in view.", "",
             '<input class="xl-filter" type="search" placeholder="filter: warp, LDS, simd_shuffle ..." '
             'aria-label="filter the table" data-target="xl-rosetta">', "", '<div id="xl-rosetta" class="xl-long" markdown="1">', ""]
    lines += TABLE_HEAD
    lines += [_row(c, concept_path(c)) for c in sorted(concepts, key=lambda c: (c.category.value, c.title.casefold()))]
    lines += ["", "</div>"]
    return "\n".join(lines) + "\n"


def mini_rosetta(g: Glossary, ids: list[str], prefix: str = "") -> str:
    """A short table of the given concepts, for the home page (links relative to the docs root)."""
    missing = [i for i in ids if i not in g.concepts]
    if missing:
        raise ValueError(f"unknown concept id(s) in a rosetta placeholder: {', '.join(missing)}")
    head = ["| CUDA | HIP / ROCm | Metal / MLX | concept |", "|---|---|---|---|"]
    rows = []
    for cid in ids:
        c = g.concepts[cid]
        cells = [_cell(getattr(c.terms, b)) for b in ("cuda", "hip", "metal")]
        rows.append("| " + " | ".join(cells) + f" | [{prose(c.title)}]({prefix}{concept_path(c)}) |")
    return "\n".join(head + rows) + "\n"


def rules_by_concept() -> dict[str, list[tuple[str, str, str]]]:
    from xlate.rules import all_rules

    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for r in all_rules():
        for cid in getattr(r, "concepts", ()):
            out[cid].append((r.name, r.code, r.summary))
    return out


def section(g: Glossary, root: Path) -> dict[str, str]:
    """Every glossary page as {site path: Markdown}."""
    from xlate.kb import example_links

    examples = example_links(root)
    kernels = root.parent / "kernels" / "examples"
    snippets.forget()
    linker = terms.Linker(g, lambda src, dst: _link_from_concept(dst))
    hazards = rules_by_concept()
    out: dict[str, str] = {}
    by_category: dict[Category, list[Concept]] = defaultdict(list)
    via_parts: dict[str, list[tuple[Concept, dict]]] = defaultdict(list)
    for part in g.concepts.values():
        for e in part.relations:
            # An example of a part of c, of something that uses c or that c implements shows c at work.
            if e.type.value in ("part-of", "uses", "implemented-by"):
                via_parts[e.target] += [(part, ex) for ex in examples.get(part.id, [])]
    into = incoming(g)
    for c in g.concepts.values():
        by_category[c.category].append(c)
        out[concept_path(c)] = concept_page(g, c, examples.get(c.id, []), kernels, linker, hazards.get(c.id, []),
                                            via_parts.get(c.id, []), into)
    from xlate.docsgen import diagrams

    figures = {"execution-model": diagrams.thread_hierarchy(g, "../../")}
    for cat, items in by_category.items():
        out[f"glossary/{cat.value}/index.md"] = category_page(cat, items, figures.get(cat.value, ""))
    out["glossary/index.md"] = overview_page(by_category)
    out["rosetta.md"] = rosetta_page(list(g.concepts.values()))
    return out
