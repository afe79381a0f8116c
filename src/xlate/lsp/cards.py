"""What hover and completion show: the hovered name's own symbol row first, then its concept.

A row pairs one CUDA spelling with its spelling on each other backend (relation, caveat, version,
source). In a CUDA file the row is the hovered name's own; in a HIP or Metal file it is every row that
spells the name on that backend (`hipMemcpy2DAsync` -> the `cudaMemcpy2DAsync` row). A backend the
row says nothing about is shown as unknown, never filled from the concept.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left

from xlate import kb, links

LABEL = {"cuda": "CUDA", "hip": "HIP", "roc": "ROCm library", "miopen": "MIOpen", "metal": "Metal",
         "mlx": "MLX", "triton": "Triton"}
# Every card has these lines, known or not; the rest appear when the row has them.
ALWAYS = ("hip", "metal")
SIDES = kb.ROW_SIDES
MAX_ROWS = 4
# links finds the site's root on the file system: once per concept, not on every hover.
concept_url = functools.lru_cache(maxsize=4096)(links.concept_url)
SYMBOL_CHARS = re.compile(r"[A-Za-z0-9_.:]")


def symbol_at(line: str, character: int) -> list[str]:
    """Candidate symbols at a position, longest first: `wmma::mma_sync`, then `mma_sync`."""
    if not line or character > len(line) or character < 0:
        return []
    start = end = min(character, len(line))
    while start > 0 and SYMBOL_CHARS.match(line[start - 1]):
        start -= 1
    while end < len(line) and SYMBOL_CHARS.match(line[end]):
        end += 1
    whole = line[start:end].strip(".:")
    if not whole:
        return []
    candidates = [whole]
    # The identifier part under the cursor, without the scope or member path.
    offset = start
    for part in re.split(r"(::|\.)", whole):
        if offset <= character <= offset + len(part) and part not in ("::", ".") and part not in candidates:
            candidates.append(part)
        offset += len(part)
    return candidates


def find_concept(index: kb.Index, candidates: list[str]) -> kb.Match | None:
    """Exact or spelling-insensitive matches only: a hover never guesses."""
    for text in candidates:
        found = kb.search(index, text, limit=1)
        if found and found[0].kind != "fuzzy":
            return found[0]
    return None


def rows_at(smap: kb.SymbolMap, candidates: list[str], backend: str) -> list[tuple[kb.Entry, str]]:
    """(entry, side) for the hovered spelling: its own CUDA row in a CUDA file, else the rows that
    spell it on the file's backend first, then on any backend."""
    for name in candidates:
        if backend == "cuda":
            entry = smap.get(name)
            if entry is not None and entry.sides:
                return [(entry, "cuda")]
        found = smap.find_any(name)
        if found:
            mine = [f for f in found if f[1] == backend or kb.SIDE_BACKEND[f[1]] == backend]
            return (mine or found)[:MAX_ROWS]
        if backend != "cuda":
            entry = smap.get(name)  # CUDA spellings are legal in HIP files (HIP keeps many names)
            if entry is not None and entry.sides:
                return [(entry, "cuda")]
    return []


def _side_line(backend: str, side: kb.Side | None) -> str:
    if side is None:
        return f"- {LABEL[backend]}: unknown (no row gives one)"
    symbol = f"`{side.symbol}`" if side.symbol else "no equivalent"
    facts = [side.relation or "unknown"]
    if side.derived:
        facts.append("derived by a naming rule: check that it exists")
    facts += [f"{word} {value}" for word, value in side.versions()]
    line = f"- {LABEL[backend]}: {symbol} ({', '.join(facts)})"
    if side.caveat:
        line += f": {side.caveat}"
    return line


def row_markdown(index: kb.Index, entry: kb.Entry, side: str) -> str:
    """One row, led by the hovered name and the counterpart it is read against."""
    row = entry.row
    sides = entry.sides
    own = sides.get(side)
    head = f"**`{entry.symbol}`**" if side == "cuda" else f"**`{own.symbol if own else None}`** ({LABEL[side]}) · CUDA `{entry.symbol}`"
    facts = [f for f in ((row.kind, row.family, row.section) if row else ()) if f]
    lines = [head + (" · " + " · ".join(facts) if facts else "")]
    lines.append("")
    order = [s for s in SIDES if s != side]
    if side != "cuda":
        versions = row.cuda_versions if row else {}
        extra = ", ".join(f"{k} {v}" for k, v in versions.items() if v)
        lines.append(f"- CUDA: `{entry.symbol}`" + (f" ({extra})" if extra else ""))
    for backend in order:
        if backend in sides or backend in ALWAYS:
            lines.append(_side_line(backend, sides.get(backend)))
    concept = index.concept(entry.concept) if entry.concept else None
    if concept is not None:
        lines += ["", f"Concept: [{concept.title}]({concept_url(concept.category, entry.concept)})"]
    return "\n".join(lines)


def concept_markdown(index: kb.Index, match: kb.Match) -> str:
    c = index.concept(match.concept)
    if c is None:
        raise KeyError(match.concept)  # a match names a concept of this index
    url = concept_url(c.category, match.concept)
    lines = [f"**{c.title}** · {c.category} · [docs]({url})", "", c.summary, "",
             "| backend | term | relation |", "|---|---|---|"]
    for backend, term in c.terms.items():
        spelled = ", ".join(f"`{s}`" for s in term.symbols) or ", ".join(term.names) or "—"
        lines.append(f"| {LABEL.get(backend, backend)} | {spelled} | {term.relation} |")
    caveats = [(b, t.caveat) for b, t in c.terms.items() if t.caveat]
    if caveats:
        lines += [""] + [f"- *{LABEL.get(b, b)}*: {text}" for b, text in caveats]
    return "\n".join(lines)


def hover_markdown(index: kb.Index, smap: kb.SymbolMap, candidates: list[str], backend: str) -> str | None:
    """The hover card: the symbol's own rows, then the concept card; None when neither knows the name."""
    rows = rows_at(smap, candidates, backend)
    match = find_concept(index, candidates)
    parts = [row_markdown(index, entry, side) for entry, side in rows]
    if match is not None and not (rows and all(e.concept == match.concept for e, _ in rows) and len(parts) > 1):
        parts.append(concept_markdown(index, match))
    return "\n\n---\n\n".join(parts) if parts else None


class Completions:
    """Every spelling the symbol rows know, sorted once for prefix search."""

    def __init__(self, smap: kb.SymbolMap) -> None:
        self.smap = smap
        names = set(smap.names())
        self.cuda = names
        # The other backends' spellings too: a HIP or Metal file completes `hipMal` to `hipMalloc`.
        self.spellings = sorted(names | set(smap.index.get("spell_keys") or ()))

    def complete(self, prefix: str, limit: int) -> list[tuple[str, str, str]]:
        """(label, detail, documentation) for spellings that start with `prefix`."""
        out: list[tuple[str, str, str]] = []
        i = bisect_left(self.spellings, prefix)
        while i < len(self.spellings) and len(out) < limit and self.spellings[i].startswith(prefix):
            label = self.spellings[i]
            i += 1
            if label in self.cuda:
                entry = self.smap.get(label)
                if entry is None:
                    continue
                sides = entry.sides
                hip = entry.hip
                detail = f"HIP: {hip}" if hip else f"HIP: {'none' if 'hip' in sides else 'unknown'}"
                metal = entry.metal
                docs = "; ".join(f"{LABEL[s]}: {sides[s].symbol or 'none'}" for s in SIDES if s in sides)
                out.append((label, detail + (f" · Metal: {metal}" if metal else ""), docs))
            else:
                rows = self.smap.find_any(label)[:MAX_ROWS]
                if not rows:
                    continue
                detail = "CUDA: " + ", ".join(e.symbol for e, _ in rows)
                out.append((label, f"{LABEL.get(rows[0][1], rows[0][1])} · {detail}", detail))
        return out
