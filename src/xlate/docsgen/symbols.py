"""Symbol-table pages: every row of one API family (or of the curated device-side tables) as a table.

The pages read the compiled index's rows, the same ones lookup, explain and translate answer from, so
a row shows the same spelling, relation and source everywhere. They are left out of the site's search
(a symbol is found through its concept page and `xlate lookup`), and long families are one page each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlate.docsgen.text import prose
from xlate.glossary import Glossary

SIDES = ("hip", "roc", "miopen", "metal", "mlx", "triton")
SIDE_TITLE = {"hip": "HIP", "roc": "ROC library", "miopen": "MIOpen", "metal": "Metal", "mlx": "MLX", "triton": "Triton"}
CURATED = "device-and-language"


def _cell(side: dict[str, Any] | None) -> str:
    if not side:
        return "?"
    symbol = side.get("symbol")
    rel = side.get("relation") or "unknown"
    if symbol is None:
        return "*none*"
    code = "`" + symbol.replace("|", "\\|").replace("`", "'") + "`"
    marks = {"same": "", "renamed": "", "approximate": " ≈"}.get(rel, "")
    if side.get("derived"):
        marks += " (derived)"
    return code + marks


def _family_rows(index: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    from xlate import index as ix

    out: dict[str, list[dict[str, Any]]] = {}
    for i in range(ix.row_count(index)):
        row = ix.decode_row(index, i)
        if not row["sides"]:
            continue  # a concept's symbol no row pairs: its counterparts are unknown, nothing to list
        curated = any(s.get("origin") in ("curated", "override") for s in row["sides"].values())
        family = row.get("family") or CURATED
        out.setdefault(family, []).append(row)
        if curated and family != CURATED:
            out.setdefault(CURATED, []).append(row)
    return out


def page_path(family: str) -> str:
    return f"symbols/{family}.md"


def section(g: Glossary, root: Path) -> dict[str, str]:
    from xlate import index as ix

    index = ix.load_index(root)
    families = _family_rows(index)
    titles = {f["family"]: f["title"] for f in _family_titles(root)}
    titles[CURATED] = "Device functions, types and language (curated rows)"
    pages: dict[str, str] = {}
    listing = ["# Symbol tables", "",
               "Every CUDA spelling xlate knows, paired with its spelling on each other backend. HIP, ROC-library and "
               "MIOpen sides come from AMD's HIPIFY tables, with newer facts from cited overrides; Metal, MLX and "
               "Triton sides are curated from the vendors' specifications. `?` is unknown, *none* means no "
               "counterpart exists, ≈ marks an approximate counterpart (its caveat says how it differs: "
               "`xlate lookup NAME` prints it).", "",
               "| table | rows | with a HIP name | with a Metal name |", "|---|---|---|---|"]
    for family in sorted(families, key=lambda f: (f != CURATED, f)):
        rows = sorted(families[family], key=lambda r: r["cuda"])
        used = [s for s in SIDES if any(s in r["sides"] for r in rows)]
        hip = sum(1 for r in rows if (r["sides"].get("hip") or {}).get("symbol"))
        metal = sum(1 for r in rows if (r["sides"].get("metal") or {}).get("symbol"))
        title = titles.get(family, family)
        listing.append(f"| [{prose(title)}]({family}.md) | {len(rows)} | {hip} | {metal} |")
        lines = ["---", "search:", "  exclude: true", "---", "", f"# {prose(title)}", "",
                 f"{len(rows)} rows. The concept column links to the concept's page; each side shows the counterpart's "
                 "spelling (≈ approximate, *none* no counterpart, ? unknown).", "",
                 "| CUDA | concept | " + " | ".join(SIDE_TITLE[s] for s in used) + " |",
                 "|---|---|" + "---|" * len(used)]
        for r in rows:
            cid = r.get("concept")
            concept = g.concepts.get(cid) if cid else None
            link = f"[{cid}](../glossary/{concept.category.value}/{cid}.md)" if concept else ""
            cells = [_cell(r["sides"].get(s)) for s in used]
            lines.append(f"| `{r['cuda']}` | {link} | " + " | ".join(cells) + " |")
        pages[page_path(family)] = "\n".join(lines) + "\n"
    pages["symbols/index.md"] = "\n".join(listing) + "\n"
    return pages


def _family_titles(root: Path) -> list[dict[str, str]]:
    from xlate import api

    return [{"family": f.family, "title": f.title} for f in api.load(root).families]
