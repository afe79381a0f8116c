"""Glossary pages: one per concept, one per category, the overview and the Rosetta table."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from xlate.docsgen import snippets, terms
from xlate.docsgen.text import attr, code, escape, prose, prose_linked, table_cell
from xlate.kb import Category, Concept, Glossary, Term

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
        # The vendor's word for it, not a code spelling (`rocwmma::mma_sync` is in the table below).
        words = [n for n in term.names if not _looks_like_code(n)]
        if not words:
            continue
        name = words[0]
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


def _gallery(c: Concept, examples: list[dict[str, Any]], kernels: Path, via_parts: list[tuple[Concept, dict[str, Any]]]) -> list[str]:
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
        shown_example = first[0].example
        if shown_example in parts:
            why = "the line that uses " + ", ".join(prose(t) for t in dict.fromkeys(part_names[shown_example])) + " highlighted"
        elif shown_example in merged:
            why = "the line where its symbol appears highlighted"
        else:
            why = "the line that uses it highlighted"
        lines += [f"[{prose(shown_example)}](../../kernels/{shown_example}.md), {why}:", ""]
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


_MASS_ENDINGS = ("ing", "ion", "ity", "ism", "ence", "ance", "ncy", "sis", "memory", "ware", "ness", "work", "flow", "math",
                 "ment", "code", "access", "pressure", "storage", "data", "i/o", "precision", "bandwidth", "assembly", "interop")
_BRANDS = {"amd", "apple", "nvidia", "cuda", "hip", "rocm", "metal", "mlx", "triton", "hipify", "intel"}


def what_is(c: Concept) -> str:
    """'What is a warp?', 'What is shared memory?', 'What are warp-level primitives?': the question a
    definition answers, from the title (the part before a parenthesis decides: an article for a
    countable noun, none for a mass noun or a brand's name, 'are' for a plural)."""
    title = c.title
    main = title.split(" (", 1)[0].strip()
    words = main.split()
    first = words[0]
    # A plain capitalised first word reads in lower case mid-sentence; names and acronyms keep theirs.
    plain = first[:1].isupper() and first[1:] == first[1:].lower() and not any(ch.isdigit() for ch in first) \
        and not any(w[:1].isupper() for w in words[1:])  # "Tensor Core" is a name: kept as written
    shown = first[:1].lower() + title[1:] if plain and first.casefold() not in _BRANDS else title
    last = words[-1].casefold()
    if last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        return f"What are {shown}?"
    acronym = first.isupper() or any(ch.isdigit() for ch in first)
    if first.casefold() in _BRANDS or last.endswith(_MASS_ENDINGS) or (acronym and len(words) == 1):
        return f"What is {shown}?"
    if acronym:
        article = "an" if first[0] in "AEFHILMNORSX" else "a"
    else:
        article = "an" if shown[:1].lower() in "aeio" else "a"
    return f"What is {article} {shown}?"


_FAMILY_WORDS = {"amd": "on"}


def _widths(g: Glossary, backend: str) -> str:
    """' (64 lanes on CDNA, 32 on RDNA)': the wave sizes the spec sheets give for a vendor's GPUs."""
    vendor = {"cuda": "nvidia", "hip": "amd", "metal": "apple", "mlx": "apple"}.get(backend)
    sizes: dict[int, list[str]] = {}
    for spec in g.gpus.values():
        if spec.vendor.value == vendor and spec.wave_size.value:
            family = spec.architecture.split(" ")[0].rstrip("0123456789")
            sizes.setdefault(int(spec.wave_size.value), [])
            if family not in sizes[int(spec.wave_size.value)]:
                sizes[int(spec.wave_size.value)].append(family)
    if not sizes:
        return ""
    if len(sizes) == 1:
        return f" ({next(iter(sizes))} lanes)"
    parts = [f"{n}{' lanes' if i == 0 else ''} on {', '.join(sorted(f))}" for i, (n, f) in enumerate(sorted(sizes.items(), reverse=True))]
    return " (" + ", ".join(parts) + ")"


# Concepts whose equivalence line carries each vendor's wave size from the spec sheets.
WAVE_SIZED = ("warp", "warp-size", "lane-id", "warp-ballot", "warp-active-mask")
RELATION_SIGN = {"same": "=", "renamed": "=", "approximate": "≈"}


def equivalence(g: Glossary, c: Concept) -> str:
    """One line: CUDA's word = AMD's word ≈ Apple's word ... (Triton's, MLX's), '=' where the mapping is the
    same or renamed, '≈' where approximate, each vendor's missing equivalent said last."""
    shown: list[str] = []
    missing: list[str] = []
    for backend in ("cuda", "hip", "metal", "triton", "mlx"):
        term = getattr(c.terms, backend)
        if term is None:
            continue
        if term.relation.value == "none":
            missing.append(BACKEND_TITLE[backend])
            continue
        word = (term.names or term.symbols or [c.title])[0]
        spelled = code(word) if word in term.symbols and word not in term.names or _looks_like_code(word) else f"**{prose(word)}**"
        widths = _widths(g, backend) if c.id in WAVE_SIZED else ""
        sign = "" if not shown else f" {RELATION_SIGN[term.relation.value]} "
        shown.append(f"{sign}{BACKEND_TITLE[backend]} {spelled}" + (f" {prose(widths.strip())}" if widths else ""))
    if len(shown) < 2 and not missing:
        return ""
    line = "".join(shown)
    if missing:
        line += ("; " if shown else "") + "no equivalent in " + ", ".join(missing)
    return line


def _looks_like_code(word: str) -> bool:
    from xlate.docsgen.text import codify

    return codify(word) != word


def _parts(g: Glossary) -> dict[str, list[Concept]]:
    """For each concept, the concepts that are part of it (their part-of edges read backwards)."""
    out: dict[str, list[Concept]] = defaultdict(list)
    for part in g.concepts.values():
        for e in part.relations:
            if e.type.value == "part-of":
                out[e.target].append(part)
    return out


def _rules_through_parts(g: Glossary, c: Concept, hazards: dict[str, list[tuple[str, str, str]]],
                         parts: dict[str, list[Concept]] | None = None) -> list[tuple[str, str, str, str]]:
    """The rules of a concept, then those of its parts (concepts that are part of it): the Warp page lists
    the rules about warp size and lane ids. (name, code, summary, the part it comes through or '')."""
    out = [(name, code_, summary, "") for name, code_, summary in hazards.get(c.id, [])]
    seen = {name for name, *_ in out}
    for part in (parts if parts is not None else _parts(g)).get(c.id, []):
        for name, code_, summary in hazards.get(part.id, []):
            if name not in seen:
                seen.add(name)
                out.append((name, code_, summary, part.id))
    return sorted(out, key=lambda r: r[1])


_DOC_HOSTS = {"docs.nvidia.com": "NVIDIA", "developer.nvidia.com": "NVIDIA", "rocm.docs.amd.com": "AMD ROCm",
              "www.amd.com": "AMD", "gpuopen.com": "AMD GPUOpen", "developer.apple.com": "Apple", "triton-lang.org": "Triton",
              "ml-explore.github.io": "MLX", "llvm.org": "LLVM", "github.com": "GitHub"}
_SKIP_SEGMENTS = re.compile(r"^(?:en|latest|main|stable|docs?(?:-[\d.]+)?|html|build|projects|documentation|index|v?\d+(?:\.\d+)*)$", re.I)
_ACRONYMS = {"cuda": "CUDA", "hip": "HIP", "rocm": "ROCm", "api": "API", "gpu": "GPU", "mlx": "MLX", "amd": "AMD", "lds": "LDS",
             "cdna": "CDNA", "rdna": "RDNA", "ptx": "PTX", "sass": "SASS", "isa": "ISA", "msl": "MSL", "cpp": "C++", "hipify": "HIPIFY",
             "nvcc": "NVCC", "mi300": "MI300", "smi": "SMI", "rccl": "RCCL", "nccl": "NCCL", "mps": "MPS", "llvm": "LLVM", "faq": "FAQ", "c": "C"}


def doc_title(url: str, spellings: dict[str, str]) -> tuple[str, str]:
    """(title, site) for a documentation link: the page's own name from its address, humanised, with
    the section it points at; API names keep the spelling the concept's text gives them."""
    from urllib.parse import unquote, urlparse

    u = urlparse(url)
    parts = [unquote(p) for p in u.path.split("/") if p]
    segs = [re.sub(r"\.(?:html?|pdf|md)$", "", p) for p in parts]
    segs = [p for p in segs if p and not _SKIP_SEGMENTS.match(p)]

    def human(seg: str) -> str:
        if seg.casefold() in spellings:
            return spellings[seg.casefold()]
        words = re.sub(r"^\d+[-_]", "", seg).replace("_", " ").replace("-", " ").split()
        out = [_ACRONYMS.get(w.casefold(), w) for w in words]
        text = " ".join(out)
        if "." in seg:  # an API name (triton.Config): spelled as it is
            return seg
        return text[:1].upper() + text[1:] if text else seg

    title = human(segs[-1]) if segs else u.netloc
    if len(segs) > 1 and u.netloc == "developer.apple.com" and "/documentation/" in u.path:
        title = f"{human(segs[-2])}: {title}"
    else:
        # The book a page belongs to, where its address names one ("cuda-programming-guide").
        books = [p for p in segs[:-1] if len(re.split(r"[-_]", re.sub(r"^\d+[-_]", "", p))) >= 3]
        if books:
            title = f"{human(books[-1])}: {title}"
    if u.fragment:
        title += " › " + human(u.fragment)
    if parts and parts[-1].lower().endswith(".pdf"):
        title += " (PDF)"
    site = _DOC_HOSTS.get(u.netloc, u.netloc.removeprefix("www."))
    return title, site


_MIXED_CASE = re.compile(r"\b[A-Za-z_]\w*?[A-Z]\w*")


def _spellings(c: Concept) -> dict[str, str]:
    """Every identifier-like word of a concept's text, by its casefolded spelling (for doc link titles)."""
    texts = [c.summary] + [t.caveat or "" for t in (getattr(c.terms, b) for b in BACKEND_ORDER) if t is not None]
    texts += [" ".join(t.symbols + t.names) for t in (getattr(c.terms, b) for b in BACKEND_ORDER) if t is not None]
    return {w.casefold(): w for w in _MIXED_CASE.findall(" ".join(texts))}


def _vendor_table(c: Concept) -> list[str]:
    # A table on a wide screen; one card per backend on a phone (the stylesheet restacks the rows).
    lines = ['<div class="xl-vendors" markdown="1">', "", "| backend | term | relation | caveat |", "|---|---|---|---|"]
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is None:
            continue
        since = f" (since {prose(term.since)})" if term.since else ""
        lines.append(f"| {BACKEND_TITLE[backend]} | {_terms_spelled(term)} | {_relation(term)} | {table_cell(term.caveat or '')}{since} |")
    return lines + ["", "</div>", ""]


def concept_page(g: Glossary, c: Concept, examples: list[dict[str, Any]], kernels: Path, linker: terms.Linker,
                 rules: list[tuple[str, str, str, str]], via_parts: list[tuple[Concept, dict[str, Any]]],
                 into: dict[str, list[tuple[str, Concept]]] | None = None) -> str:
    from xlate.docsgen import diagrams

    lines = _front_matter(c) + [f"# {prose(headline(c))}", ""]
    meta = [f"[{CATEGORY_TITLE[c.category.value]}](index.md)"]
    also = list(dict.fromkeys(c.abbreviations + c.aliases))
    if also:
        # A few names in view; the rest stay searchable and listed, folded away.
        shown = ", ".join(prose(a) for a in also[:5])
        meta.append("also called " + shown + (f" and [{len(also) - 5} more](#all-names)" if len(also) > 5 else ""))
    lines += [" · ".join(meta), "{: .xl-meta }", ""]
    # The idea first (a learner needs it before the mapping), then the one-line equivalence, then the table.
    lines += [f"## {prose(what_is(c))} {{#what-is-it}}", "", prose_linked(c.summary, linker.for_concept(c)), ""]
    line = equivalence(g, c)
    if line:
        lines += [line, "{: .xl-equiv }", ""]
    lines += ["## In each vocabulary {#vocabulary}", ""]
    lines += _vendor_table(c)
    for drawing, caption in diagrams.for_concept(g, c.id):
        lines += ['<figure class="xl-figure xl-key" markdown="0">', drawing, f"<figcaption>{attr(caption)}</figcaption>",
                  "</figure>", ""]
    lines += _gallery(c, examples, kernels, via_parts)
    if rules:
        lines += ["## Portability hazards", "", "What `xlate explain` flags about it when CUDA code moves to another vendor:", ""]
        for name, code_, summary, through in rules:
            via = ""
            if through and through in g.concepts:
                part = g.concepts[through]
                via = f" (about its part [{prose(part.title)}]({_link_from_concept(part)}))"
            lines.append(f"- [{prose(rule_title(name))}](../../rules/{name}.md) ({code_}){via}: {prose(summary)}")
        lines.append("")
    neighbours = _neighbours(g, c, into)
    if neighbours:
        # One line per kind of relation; no drawing, which would only repeat this list.
        lines += ["## Related", ""]
        by_label: dict[str, list[Concept]] = {}
        for label, target in neighbours:
            by_label.setdefault(label, []).append(target)
        for label, targets in by_label.items():
            links = ", ".join(f"[{prose(t.title)}]({_link_from_concept(t)})" for t in targets)
            words = label.replace("-", " ")
            lines.append(f"- {words[:1].upper() + words[1:]}: {links}")
        lines.append("")
    lines += _package_names(g, c)
    lines += ["## Official documentation", ""]
    # Only Apple's addresses spell API names in lower case (threadexecutionwidth): restored from the text.
    apple = any("developer.apple.com/documentation" in u for b in BACKEND_ORDER if (t := getattr(c.terms, b)) for u in t.docs)
    spellings = _spellings(c) if apple else {}
    for backend in BACKEND_ORDER:
        term = getattr(c.terms, backend)
        if term is None or not term.docs:
            continue
        doc_links: list[str] = []
        for u in term.docs:
            title, site = doc_title(u, spellings)
            doc_links.append(f'[{escape(title)}]({u}){{ title="{attr(u)}" }} <span class="xl-site">({escape(site)})</span>')
        lines.append(f"- {BACKEND_TITLE[backend]}: " + "; ".join(doc_links))
    lines.append("")
    if len(also) > 5:
        lines += ["## All names {#all-names}", "", ", ".join(prose(a) for a in also), ""]
    return "\n".join(lines)


def _package_names(g: Glossary, c: Concept) -> list[str]:
    """The package names, counter-name prefixes, listed names and tool options the glossary's
    vocabularies send to this card, so a reader who arrived from `tl.sort` or `nvcc -G` sees why; the
    same data lookup answers from."""
    from xlate import kb

    lines: list[str] = []
    for vocab in g.vocabularies:
        spelled = [e for e in kb.vocabulary_entries(vocab) if e.card == c.id]
        if not spelled:
            continue
        by_section: dict[str, list[str]] = {}
        for e in spelled:
            by_section.setdefault(e.section, []).append(f"`{kb.vocabulary_spelling(vocab, e)}`")
        parts = "; ".join(f"{', '.join(names)} ({escape(section)})" for section, names in by_section.items())
        lines.append(f"- {escape(vocab.package)} {escape(vocab.version)}: {parts}")
    families = [f for f in g.name_families if f.card == c.id]
    for tool in dict.fromkeys(f.tool for f in families):
        prefixes = ", ".join(f"`{f.prefix}` ({escape(f.unit)})" for f in families if f.tool == tool)
        lines.append(f"- {escape(tool)} counter names beginning {prefixes}")
    for names in g.name_lists:
        listed = [f"`{n}`" for group in names.groups if group.card == c.id for n in group.names]
        if listed:
            lines.append(f"- {escape(names.names_of)}s ({escape(names.version)}): {', '.join(listed)}")
    for listed_tool in g.tool_options:
        options = [f"`{o}`" for group in listed_tool.groups if group.card == c.id for o in group.options]
        if options:
            lines.append(f"- {escape(listed_tool.tool)} {escape(listed_tool.version)} options: {', '.join(options)}")
    if not lines:
        return []
    return ["## Names that lead here {#package-names}", "",
            "Names that no row pairs across vendors, which lookup answers with this card:", "", *lines, ""]


def rule_title(name: str) -> str:
    from xlate.docsgen.text import rule_title as title

    return title(name)


MAX_CELL_NAMES = 3  # a cell of the overview tables shows this many names; all are on the concept's page
MAX_CELL_SYMBOL = 24


def _cell(term: Term | None, short: bool = False) -> str:
    if term is None:
        return ""
    if term.relation.value == "none":
        return '<span class="xl-rel xl-rel-none">none</span>'
    spelled = _terms_spelled(term)
    if short:
        # Names first, then the symbols short enough for a narrow column (a long one, such as
        # hipDeviceAttributeMultiprocessorCount, would widen its column for every row); all are counted.
        symbols = [s for s in term.symbols if s not in term.names]
        names = [prose(n) for n in term.names] + [code(s) for s in symbols if len(s) <= MAX_CELL_SYMBOL]
        names = names or [code(s) for s in symbols[:1]]
        hidden = len(term.names) + len(symbols) - len(names)
        spelled = ", ".join(names[:MAX_CELL_NAMES])
        hidden += max(0, len(names) - MAX_CELL_NAMES)
        if hidden:
            spelled += f" and {hidden} more"
    if term.relation.value in ("approximate",):
        return f"{spelled} {_relation(term)}"
    return spelled


def _aka(c: Concept) -> str:
    """Every other name of a concept (aliases, abbreviations, each vendor's names and symbols), for the
    Rosetta filter: an attribute of the row's link, read by the filter and not indexed as text."""
    words = list(c.aliases) + list(c.abbreviations)
    for b in BACKEND_ORDER:
        t = getattr(c.terms, b)
        if t is not None:
            words += list(t.names) + list(t.symbols)
    # A table cell ends at a pipe or a newline.
    return " ; ".join(re.sub(r"[|\n]+", " ", w).strip() for w in dict.fromkeys(words))


def _row(c: Concept, link: str, short: bool = False) -> str:
    # The link as HTML: Markdown would read the names in the attribute (`__shared__` as bold text).
    href = link[:-3] + ".html" if link.endswith(".md") else link
    cells = [f'<a href="{attr(href)}" data-aka="{attr(_aka(c))}">{attr(c.title)}</a>'] + \
        [_cell(getattr(c.terms, b), short) for b in ("cuda", "hip", "metal", "triton")]
    return "| " + " | ".join(cells) + " |"


TABLE_HEAD = ["| concept | CUDA | HIP / ROCm | Metal / MLX | Triton |", "|---|---|---|---|---|"]


FOLDER_SOURCE = ["---", "source: glossary/", "---", ""]


def weight(c: Concept, into: dict[str, list[tuple[str, Concept]]]) -> int:
    """How central a concept is: its relations, both ways (the warp and shared memory before a niche
    scheduling trick). Orders the rows of the category tables and the Rosetta table."""
    return len(c.relations) + len(into.get(c.id, []))


def by_weight(concepts: list[Concept], into: dict[str, list[tuple[str, Concept]]]) -> list[Concept]:
    return sorted(concepts, key=lambda c: (-weight(c, into), c.title.casefold()))


def category_page(category: Category, concepts: list[Concept], figure: str = "",
                  into: dict[str, list[tuple[str, Concept]]] | None = None) -> str:
    # No table of contents (the page has one table): its width goes to the table.
    lines = ["---", f"source: glossary/{category.value}/", "hide: [toc]", "---", "", f"# {CATEGORY_TITLE[category.value]}", "",
             f"{len(concepts)} concepts, the most connected first. Approximate mappings are marked; "
             "open a concept for the caveats and the official documentation.", ""]
    if figure:
        lines += ['<figure class="xl-figure" markdown="0">', figure, "</figure>", ""]
    lines += ['<div class="xl-long" markdown="1">', ""]
    lines += TABLE_HEAD
    lines += [_row(c, f"{c.id}.md", short=True) for c in by_weight(concepts, into or {})]
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


def rosetta_page(concepts: list[Concept], into: dict[str, list[tuple[str, Concept]]] | None = None) -> str:
    # No sidebars (the page has no sections; the glossary is a click away in the tabs): their width goes to the table.
    lines = ["---", "source: glossary/", "hide: [navigation, toc]", "---", "", "# Rosetta table", "",
             "Every concept in one table, by category, the most connected concepts of each first. Type in the filter "
             "to narrow it: it matches whole words of every name, alias and code symbol (`wave64`, `LDS`, "
             "`simd_shuffle_down`). The table scrolls inside its frame; its header row and first column stay in view.", "",
             '<input class="xl-filter" type="search" placeholder="filter: warp, LDS, wave64, simd_shuffle ..." '
             'aria-label="filter the table" data-target="xl-rosetta">', "", '<div id="xl-rosetta" class="xl-long" markdown="1">', ""]
    lines += TABLE_HEAD
    groups: dict[Category, list[Concept]] = defaultdict(list)
    for c in concepts:
        groups[c.category].append(c)
    for cat in Category:
        if not groups.get(cat):
            continue
        lines.append(f'| <span class="xl-group-name">{CATEGORY_TITLE[cat.value]}</span> | | | | |')
        lines += [_row(c, concept_path(c), short=True) for c in by_weight(groups[cat], into or {})]
    lines += ["", "</div>"]
    return "\n".join(lines) + "\n"


def mini_rosetta(g: Glossary, ids: list[str], prefix: str = "") -> str:
    """A short table of the given concepts, for the home page (links relative to the docs root)."""
    missing = [i for i in ids if i not in g.concepts]
    if missing:
        raise ValueError(f"unknown concept id(s) in a rosetta placeholder: {', '.join(missing)}")
    rows = ['<div class="xl-long xl-mini" markdown="1">', "", *TABLE_HEAD]
    for cid in ids:
        c = g.concepts[cid]
        rows.append(_row(c, f"{prefix}{concept_path(c)}", short=True))
    return "\n".join(rows + ["", "</div>"]) + "\n"


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
    via_parts: dict[str, list[tuple[Concept, dict[str, Any]]]] = defaultdict(list)
    for part in g.concepts.values():
        for e in part.relations:
            # An example of a part of c, of something that uses c or that c implements shows c at work.
            if e.type.value in ("part-of", "uses", "implemented-by"):
                via_parts[e.target] += [(part, ex) for ex in examples.get(part.id, [])]
    into = incoming(g)
    parts = _parts(g)
    for c in g.concepts.values():
        by_category[c.category].append(c)
        out[concept_path(c)] = concept_page(g, c, examples.get(c.id, []), kernels, linker, _rules_through_parts(g, c, hazards, parts),
                                            via_parts.get(c.id, []), into)
    from xlate.docsgen import diagrams

    figures = {"execution-model": diagrams.thread_hierarchy(g, "../../")}
    for cat, items in by_category.items():
        out[f"glossary/{cat.value}/index.md"] = category_page(cat, items, figures.get(cat.value, ""), into)
    out["glossary/index.md"] = overview_page(by_category)
    out["rosetta.md"] = rosetta_page(list(g.concepts.values()), into)
    return out
