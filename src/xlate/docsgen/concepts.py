"""Glossary pages: one per concept, one per category, the overview and the Rosetta table."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from xlate.docsgen import svg
from xlate.docsgen.text import code, prose, table_cell
from xlate.glossary import Glossary
from xlate.model import REVERSE_LABEL, SYMMETRIC_EDGES, Category, Concept, Term

BACKEND_TITLE = {"cuda": "CUDA", "hip": "HIP / ROCm", "metal": "Metal", "mlx": "MLX", "triton": "Triton"}
BACKEND_ORDER = ("cuda", "hip", "metal", "mlx", "triton")
RELATION_BADGE = {"same": "same", "renamed": "renamed", "approximate": "approximate", "none": "none"}
CATEGORY_TITLE = {
    "hardware": "Hardware", "execution-model": "Execution model", "memory": "Memory", "synchronization": "Synchronization",
    "warp-ops": "Warp / wave / SIMD-group operations", "matrix": "Matrix units", "host-api": "Host API",
    "toolchain": "Toolchain and IR", "libraries": "Libraries", "profiling": "Profiling and debugging",
    "interconnect": "Interconnect and multi-GPU",
}
KERNEL_FILES = {"cuda": "{n}.cu", "hip": "{n}.hip", "triton": "{n}_triton.py", "metal": "{n}.metal", "mlx": "{n}_mlx.py"}
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


def _neighbours(g: Glossary, c: Concept) -> list[tuple[str, Concept]]:
    out: list[tuple[str, Concept]] = []
    for e in c.relations:
        if e.target in g.concepts:
            out.append((e.type.value, g.concepts[e.target]))
    for other in g.concepts.values():
        for e in other.relations:
            if e.target == c.id and e.type not in SYMMETRIC_EDGES:
                out.append((REVERSE_LABEL[e.type], other))
    # One entry per related concept, its edge labels joined, in first-seen order.
    labels: dict[str, list[str]] = {}
    targets: dict[str, Concept] = {}
    for label, target in out:
        targets.setdefault(target.id, target)
        if label not in labels.setdefault(target.id, []):
            labels[target.id].append(label)
    return [(", ".join(labels[tid]), targets[tid]) for tid in labels]


def _snippet(kernels: Path, example: str, backend: str, symbol: str) -> tuple[str, int, str] | None:
    """(file name, 1-based line, a few lines of code) where the symbol first occurs in the example."""
    pattern = KERNEL_FILES.get(backend)
    if not pattern:
        return None
    path = kernels / example / pattern.format(n=example.replace("-", "_"))
    if not path.exists():
        path = kernels / example / pattern.format(n=example)
    if not path.exists():
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for i, line in enumerate(lines):
        if symbol in line:
            lo, hi = max(0, i - 1), min(len(lines), i + 2)
            return path.name, i + 1, "\n".join(lines[lo:hi])
    return None


# Concept pages are the definitions: rank them above pages that merely mention a term often.
FRONT_MATTER = ["---", "search:", "  boost: 4", "---", ""]


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


def concept_page(g: Glossary, c: Concept, examples: list[dict], kernels: Path) -> str:
    lines = FRONT_MATTER + [f"# {prose(headline(c))}", ""]
    meta = [f"[{CATEGORY_TITLE[c.category.value]}](index.md)"]
    if c.aliases or c.abbreviations:
        meta.append("also called " + ", ".join(prose(a) for a in c.abbreviations + c.aliases))
    lines += [" · ".join(meta), "{: .xl-meta }", "", prose(c.summary), ""]
    lines += ["## Across vendors", "", "| backend | term | relation | caveat |", "|---|---|---|---|"]
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is None:
            continue
        since = f" (since {prose(term.since)})" if term.since else ""
        lines.append(f"| {BACKEND_TITLE[backend]} | {_terms_spelled(term)} | {_relation(term)} | {table_cell(term.caveat or '')}{since} |")
    lines.append("")
    if examples:
        lines += ["## In the kernel gallery", ""]
        for ex in examples:
            name = ex["example"]
            lines.append(f"**[{prose(name)}](../../kernels/{name}.md)**")
            lines.append("")
            for backend, symbol in ex["symbols"].items():
                found = _snippet(kernels, name, backend, symbol)
                if found is None:
                    continue
                fname, lineno, text = found
                lang = SNIPPET_LANG.get(backend, "text")
                lines += [f'``` {lang} title="{fname}, line {lineno} ({BACKEND_TITLE.get(backend, backend)})"', text, "```", ""]
    neighbours = _neighbours(g, c)
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


def category_page(category: Category, concepts: list[Concept]) -> str:
    lines = [f"# {CATEGORY_TITLE[category.value]}", "", f"{len(concepts)} concepts. Approximate mappings are marked; "
             "open a concept for the caveats and the official documentation.", ""] + TABLE_HEAD
    lines += [_row(c, f"{c.id}.md") for c in sorted(concepts, key=lambda c: c.title.casefold())]
    return "\n".join(lines) + "\n"


def overview_page(by_category: dict[Category, list[Concept]]) -> str:
    total = sum(len(v) for v in by_category.values())
    lines = ["# Glossary", "", f"{total} concepts, each with its CUDA, HIP/ROCm, Metal/MLX and Triton terms. "
             "Every term cites official documentation; approximate and missing equivalents say why.", "",
             "| category | concepts |", "|---|---|"]
    for cat in Category:
        if by_category.get(cat):
            lines.append(f"| [{CATEGORY_TITLE[cat.value]}]({cat.value}/index.md) | {len(by_category[cat])} |")
    lines += ["", "See also the [Rosetta table](../rosetta.md): every concept in one table."]
    return "\n".join(lines) + "\n"


def rosetta_page(concepts: list[Concept]) -> str:
    lines = ["# Rosetta table", "", "Every concept in one table. Type in the filter to narrow it, or use the site search.", "",
             '<input class="xl-filter" type="search" placeholder="filter: warp, LDS, simd_shuffle ..." '
             'aria-label="filter the table" data-target="xl-rosetta">', "", '<div id="xl-rosetta" markdown="1">', ""]
    lines += TABLE_HEAD
    lines += [_row(c, concept_path(c)) for c in sorted(concepts, key=lambda c: (c.category.value, c.title.casefold()))]
    lines += ["", "</div>"]
    return "\n".join(lines) + "\n"


def section(g: Glossary, root: Path) -> dict[str, str]:
    """Every glossary page as {site path: Markdown}."""
    from xlate.index import example_links

    examples = example_links(root)
    kernels = root.parent / "kernels" / "examples"
    out: dict[str, str] = {}
    by_category: dict[Category, list[Concept]] = defaultdict(list)
    for c in g.concepts.values():
        by_category[c.category].append(c)
        out[concept_path(c)] = concept_page(g, c, examples.get(c.id, []), kernels)
    for cat, items in by_category.items():
        out[f"glossary/{cat.value}/index.md"] = category_page(cat, items)
    out["glossary/index.md"] = overview_page(by_category)
    out["rosetta.md"] = rosetta_page(list(g.concepts.values()))
    return out
