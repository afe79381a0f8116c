"""Hazard rule pages: one per rule (what it detects, why it breaks, example, fix) and an index."""

from __future__ import annotations

from pathlib import Path

from xlate.docsgen.text import prose, rule_title
from xlate.kb import Glossary

BACKEND_TITLE = {"hip": "HIP/ROCm", "metal": "Metal", "cuda": "CUDA", "triton": "Triton", "mlx": "MLX"}


def rule_page_path(name: str) -> str:
    from xlate.links import rule_page  # the one home of page paths, shared with every link to them

    return rule_page(name)


def _code_block(text: str, lang: str = "cuda") -> list[str]:
    fence = "````" if "```" in text else "```"
    return [f"{fence} {lang}", text.strip("\n"), fence]


def section(g: Glossary, root: Path) -> dict[str, str]:
    from xlate.rules import all_rules

    rules = all_rules()
    if not rules:
        return {}
    out: dict[str, str] = {}
    rows = ["| code | rule | severity | breaks on | what it detects |", "|---|---|---|---|---|"]
    for r in rules:
        backends = ", ".join(BACKEND_TITLE.get(b, b) for b in r.backends)
        rows.append(f"| {r.code} | [{rule_title(r.name)}]({r.name}.md) | {r.severity.value} | {backends} | {prose(r.summary)} |")
        lines = [f"# {rule_title(r.name)} ({r.code})", "",
                 f'<p class="xl-meta">rule <code>{r.name}</code> · severity <b>{r.severity.value}</b> · concerns {backends}</p>', "",
                 "## What it detects", "", prose(r.summary), "",
                 "## Why it breaks", "", prose(r.why), "",
                 "## Example", "", *_code_block(r.example), "",
                 "## Fix", "", prose(r.fix), ""]
        if r.fixed_example:
            lines += [*_code_block(r.fixed_example), ""]
        related = [g.concepts[c] for c in getattr(r, "concepts", ()) if c in g.concepts]
        if related:
            lines += ["## Concepts", ""]
            lines += [f"- [{prose(c.title)}](../glossary/{c.category.value}/{c.id}.md)" for c in related]
            lines.append("")
        refs = list(getattr(r, "references", ()))
        if refs:
            from xlate.docsgen.concepts import doc_title
            from xlate.docsgen.text import attr, escape

            lines += ["## References", ""]
            for u in refs:
                title, site = doc_title(u, {})
                lines.append(f'- [{escape(title)}]({u}){{ title="{attr(u)}" }} <span class="xl-site">({escape(site)})</span>')
            lines.append("")
        lines += ["Run `xlate explain FILE.cu` to find it in your code; in the editor, the language server shows it as you type.", ""]
        out[rule_page_path(r.name)] = "\n".join(lines)
    intro = ["# Portability hazards", "",
             f"`xlate explain` checks CUDA source against {len(rules)} rules. Each finding names the rule's code and "
             "page, says which backend it breaks on, and what to write instead.", ""]
    out["rules/index.md"] = "\n".join(intro + rows) + "\n"
    return out
