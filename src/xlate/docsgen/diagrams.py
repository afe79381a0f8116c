"""Architecture diagrams drawn at build time from the glossary: every label is a vendor's own term, every
number comes from a spec sheet in glossary/gpus/, and what a vendor does not document is drawn as such.

The drawings carry width and height (so they have a real size), use `currentColor` for ink and the
site's CSS variables for fills, so the light and the dark scheme each get their own version.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlate.docsgen.text import attr
from xlate.kb import Glossary
from xlate.kb import GpuSpec

VENDORS = (("cuda", "NVIDIA (CUDA)"), ("hip", "AMD (HIP / ROCm)"), ("metal", "Apple (Metal)"))
# The GPU whose spec sheet gives each vendor's numbers in the diagrams.
SHEETS = {"cuda": "h100-sxm", "hip": "mi300x", "metal": "m3-ultra"}
HIERARCHY = ("grid", "thread-block-cluster", "thread-block", "warp", "thread")  # outermost first
COL_W, GAP, LEFT = 250, 18, 16


@dataclass(frozen=True)
class Label:
    text: str
    href: str | None
    missing: bool  # the vendor has no such thing, or does not document it


def _term(g: Glossary, cid: str, backend: str, href_prefix: str) -> Label:
    c = g.concepts.get(cid)
    if c is None:
        return Label("?", None, True)
    t = getattr(c.terms, backend)
    href = f"{href_prefix}glossary/{c.category.value}/{c.id}.html"
    if t is None or t.relation.value == "none":
        return Label("none documented", href, True)
    name = (t.names or t.symbols or [c.title])[0]
    return Label(name + (" (approx.)" if t.relation.value == "approximate" else ""), href, False)


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{attr(label)}" class="xl-svg xl-diagram"><title>{attr(label)}</title>' + "".join(body) + "</svg>")


def _box(x: float, y: float, w: float, h: float, lab: Label, strong: bool = False, size: int = 12, sub: str = "") -> str:
    cls = "xl-fill-strong" if strong else "xl-fill"
    dash = ' stroke-dasharray="4 3"' if lab.missing else ""
    opacity = ' fill-opacity="0.55"' if lab.missing else ""
    text = (f'<text x="{x + w / 2:.1f}" y="{y + (h / 2 if not sub else h / 2 - 4) + size / 3:.1f}" text-anchor="middle" '
            f'font-size="{size}" fill="currentColor"{opacity}>{attr(lab.text)}</text>')
    if sub:
        text += (f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 12:.1f}" text-anchor="middle" font-size="10" '
                 f'fill="currentColor" fill-opacity="0.7">{attr(sub)}</text>')
    rect = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" class="{cls} xl-stroke" '
            f'stroke-width="1"{dash}/>')
    body = rect + text
    if lab.href:
        body = f'<a href="{attr(lab.href)}"><title>{attr(lab.text)}</title>{body}</a>'
    return body


def _heads(y: int) -> list[str]:
    return [f'<text x="{LEFT + i * (COL_W + GAP) + COL_W / 2}" y="{y}" text-anchor="middle" font-size="13" '
            f'font-weight="bold" fill="currentColor">{attr(title)}</text>' for i, (_, title) in enumerate(VENDORS)]


def thread_hierarchy(g: Glossary, href_prefix: str = "../../") -> str:
    """Grid > cluster > block > warp > thread, nested, in CUDA's, AMD's and Apple's words."""
    width = LEFT * 2 + 3 * COL_W + 2 * GAP
    step, inner_h = 30, 34
    height = 40 + step * (len(HIERARCHY) - 1) * 2 + inner_h + 20
    body = _heads(22)
    for i, (backend, _) in enumerate(VENDORS):
        x0, y0 = LEFT + i * (COL_W + GAP), 34
        for depth, cid in enumerate(HIERARCHY):
            inset = depth * 12
            x, y = x0 + inset, y0 + depth * step
            w = COL_W - 2 * inset
            h = height - 20 - y - depth * step if depth < len(HIERARCHY) - 1 else inner_h
            lab = _term(g, cid, backend, href_prefix)
            # Nested boxes: the label sits at the top of each box; the innermost is a plain box.
            dash = ' stroke-dasharray="4 3"' if lab.missing else ""
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="7" '
                        f'class="{"xl-fill" if depth % 2 else "xl-fill-strong"} xl-stroke"{dash}/>')
            text = f'<text x="{x + 10:.1f}" y="{y + 19:.1f}" font-size="12" fill="currentColor"' + (
                ' fill-opacity="0.55"' if lab.missing else "") + f">{attr(lab.text)}</text>"
            body.append(f'<a href="{attr(lab.href)}">{text}</a>' if lab.href else text)
    return _svg(width, height, "The thread hierarchy in CUDA's, AMD's and Apple's words", body)


def _figure(spec: GpuSpec | None, field_name: str) -> float | None:
    return getattr(spec, field_name).value if spec is not None else None


def _size(value: float | None, unit: str) -> str:
    if value is None:
        return "size not published"
    return f"{value:,.0f} {unit}" if float(value).is_integer() or value >= 100 else f"{value:,.1f} {unit}"


def memory_hierarchy(g: Glossary, href_prefix: str = "") -> str:
    """Per-CU scratch, L2, last-level cache and device memory of H100, MI300X and M3 Ultra, from their sheets."""
    levels = [("shared-memory", "shared_memory_per_cu_kb", "KiB per SM / CU"), ("l2-cache", "l2_cache_mb", "MB"),
              ("infinity-cache", "last_level_cache_mb", "MB"), ("hbm", "memory_gb", "GB")]
    width = LEFT * 2 + 3 * COL_W + 2 * GAP
    row_h, gap = 46, 14
    height = 40 + len(levels) * (row_h + gap) + 10
    body = _heads(22)
    for i, (backend, _) in enumerate(VENDORS):
        spec = g.gpus.get(SHEETS[backend])
        x0 = LEFT + i * (COL_W + GAP)
        body.append(f'<text x="{x0 + COL_W / 2}" y="36" text-anchor="middle" font-size="10" fill="currentColor" '
                    f'fill-opacity="0.7">{attr(spec.name if spec else SHEETS[backend])}</text>')
        for r, (cid, field_name, unit) in enumerate(levels):
            lab = _term(g, cid, backend, href_prefix)
            value = _figure(spec, field_name)
            if field_name == "memory_gb" and spec is not None and spec.memory_bandwidth_tbs.value:
                sub = f"{_size(value, unit)} · {spec.memory_bandwidth_tbs.value:g} TB/s"
            else:
                sub = _size(value, unit) if not lab.missing else ""
            if lab.missing and value is not None:
                lab = Label(lab.text, lab.href, False)
                sub = _size(value, unit)
            # Wider boxes further from the cores: capacity grows down the hierarchy.
            inset = (len(levels) - 1 - r) * 14
            y = 44 + r * (row_h + gap)
            body.append(_box(x0 + inset, y, COL_W - 2 * inset, row_h, lab, strong=r == len(levels) - 1, sub=sub))
    return _svg(width, height, "Memory hierarchy of H100, MI300X and M3 Ultra, sizes from the spec sheets", body)


def cores(g: Glossary, href_prefix: str = "") -> str:
    """What one SM, one CU and one Apple GPU core hold, from the glossary's part-of edges."""
    direct = sorted(c.id for c in g.concepts.values() for e in c.relations
                    if e.type.value == "part-of" and e.target == "streaming-multiprocessor")
    inner = {p: sorted(c.id for c in g.concepts.values() for e in c.relations if e.type.value == "part-of" and e.target == p)
             for p in direct}
    rows = [(p, 0) for p in direct if not inner[p]] + [(p, 0) for p in direct if inner[p]]
    rows = [r for p, _ in rows for r in [(p, 0)] + [(q, 1) for q in inner[p]]]
    width = LEFT * 2 + 3 * COL_W + 2 * GAP
    row_h, gap = 26, 6
    height = 70 + len(rows) * (row_h + gap) + 14
    body = _heads(22)
    for i, (backend, _) in enumerate(VENDORS):
        spec = g.gpus.get(SHEETS[backend])
        x0 = LEFT + i * (COL_W + GAP)
        core = _term(g, "streaming-multiprocessor", backend, href_prefix)
        count = _figure(spec, "compute_units")
        sub = f"{count:,.0f} on {spec.name}" if count and spec else ""
        body.append(f'<rect x="{x0}" y="30" width="{COL_W}" height="{height - 40}" rx="8" class="xl-fill xl-stroke"/>')
        body.append(f'<a href="{attr(core.href or "")}"><text x="{x0 + 10}" y="48" font-size="12" font-weight="bold" '
                    f'fill="currentColor">one {attr(core.text)}</text></a>')
        if sub:
            body.append(f'<text x="{x0 + 10}" y="62" font-size="10" fill="currentColor" fill-opacity="0.7">{attr(sub)}</text>')
        for r, (cid, depth) in enumerate(rows):
            lab = _term(g, cid, backend, href_prefix)
            x = x0 + 10 + depth * 16
            body.append(_box(x, 70 + r * (row_h + gap), COL_W - 20 - depth * 16, row_h, lab, size=11))
    return _svg(width, height, "One SM, one CU and one Apple GPU core, part by part", body)
