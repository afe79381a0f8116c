"""Architecture diagrams drawn at build time from the glossary: every label is a vendor's own term, every
number comes from a spec sheet in glossary/gpus/, and what a vendor does not document is drawn as such.

The drawings carry width and height (so they have a real size), use `currentColor` for ink and the
site's CSS variables for fills, so the light and the dark scheme each get their own version.
"""

from __future__ import annotations

import re
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


VENDOR_NAME = {"cuda": "NVIDIA", "hip": "AMD", "metal": "Apple", "mlx": "Apple", "triton": "Triton"}
# A "none" mapping whose caveat says the vendor does not document the part: the part may exist, its
# details are not public. Any other "none" is a part the vendor's design does not have.
_UNDOCUMENTED = re.compile(r"\b(?:does not|doesn't|do not) (?:document|describe|publish)|\bdocuments? no\b|"
                           r"\b(?:publish|document)(?:es|s)? neither\b|\bnot documented\b|\bno (?:public|published)\b", re.I)
MIN_TEXT_PX = 9  # the smallest a label may be drawn on screen; figures scroll rather than shrink below it


def _term(g: Glossary, cid: str, backend: str, href_prefix: str) -> Label:
    c = g.concepts.get(cid)
    if c is None:
        return Label("?", None, True)
    t = getattr(c.terms, backend)
    href = f"{href_prefix}glossary/{c.category.value}/{c.id}.html"
    vendor = VENDOR_NAME.get(backend, backend)
    if t is None:
        return Label(f"not in the glossary for {vendor}", href, True)
    if t.relation.value == "none":
        if _UNDOCUMENTED.search(t.caveat or ""):
            return Label(f"not documented by {vendor}", href, True)
        return Label(f"no {vendor} equivalent", href, True)
    name = (t.names or t.symbols or [c.title])[0]
    return Label(name + (" (approx.)" if t.relation.value == "approximate" else ""), href, False)


def text_width(text: str, size: float) -> float:
    """A generous estimate of a label's drawn width in the site's sans-serif font (no font metrics at build time)."""
    wide = sum(1 for ch in text if ch.isupper() or ch in "mwMW@%")
    return size * (0.56 * (len(text) - wide) + 0.72 * wide)


def fit(text: str, width: float, size: float, smallest: float = 10) -> tuple[float, list[str]]:
    """The font size and lines that keep `text` inside `width`: one line at `size` if it fits, else a
    smaller size down to `smallest`, else two (or more) lines at `smallest`, broken at spaces."""
    s = size
    while s > smallest and text_width(text, s) > width:
        s -= 0.5
    if text_width(text, s) <= width:
        return s, [text]
    lines, line = [], ""
    for word in text.split(" "):
        trial = f"{line} {word}".strip()
        if line and text_width(trial, s) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return s, lines + [line]


def _svg(width: int, height: int, label: str, body: list[str], smallest: float = 10) -> str:
    # width/height give the drawing its size; the style keeps its smallest text at MIN_TEXT_PX or more on
    # a narrow screen (the figure scrolls sideways there instead of shrinking the text away).
    floor = int(width * MIN_TEXT_PX / smallest + 0.999)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'style="min-width:{min(floor, width)}px" role="img" aria-label="{attr(label)}" class="xl-svg xl-diagram">'
            f"<title>{attr(label)}</title>" + "".join(body) + "</svg>")


def _lines(x: float, y: float, lines: list[str], size: float, anchor: str = "middle", extra: str = "") -> str:
    """Text of one or more lines, the first baseline at y."""
    if len(lines) == 1:
        return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size:g}" fill="currentColor"{extra}>'
                f"{attr(lines[0])}</text>")
    spans = "".join(f'<tspan x="{x:.1f}" dy="{0 if i == 0 else size * 1.15:.1f}">{attr(t)}</tspan>' for i, t in enumerate(lines))
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size:g}" fill="currentColor"{extra}>{spans}</text>'


def _box(x: float, y: float, w: float, h: float, lab: Label, strong: bool = False, size: int = 12, sub: str = "") -> str:
    cls = "xl-fill-strong" if strong else "xl-fill"
    dash = ' stroke-dasharray="4 3"' if lab.missing else ""
    opacity = ' fill-opacity="0.7" font-style="italic"' if lab.missing else ""
    fs, rows = fit(lab.text, w - 10, size)
    block = fs * 1.15 * (len(rows) - 1)
    top = y + h / 2 - (block + (13 if sub else 0)) / 2 + fs / 3
    text = _lines(x + w / 2, top, rows, fs, extra=opacity)
    if sub:
        ss, srows = fit(sub, w - 10, 10)
        text += _lines(x + w / 2, top + block + 13, srows[:1], ss, extra=' fill-opacity="0.75"')
    rect = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" class="{cls} xl-stroke" '
            f'stroke-width="1"{dash}/>')
    body = rect + text
    if lab.href:
        body = f'<a href="{attr(lab.href)}"><title>{attr(lab.text)}</title>{body}</a>'
    return body


def _heads(y: int) -> list[str]:
    return [f'<text x="{LEFT + i * (COL_W + GAP) + COL_W / 2}" y="{y}" text-anchor="middle" font-size="13" '
            f'font-weight="bold" fill="currentColor">{attr(title)}</text>' for i, (_, title) in enumerate(VENDORS)]


NARROW = 340  # the concept pages' diagrams: one vendor under another, readable on a 360 px phone unscaled


def thread_hierarchy(g: Glossary, href_prefix: str = "../../") -> str:
    """Grid > cluster > block > warp > thread, nested, in CUDA's, AMD's and Apple's words, one vendor under another."""
    head, level, inner_h, pad = 22, 21, 24, 5
    block_h = level * (len(HIERARCHY) - 1) + inner_h + pad * (len(HIERARCHY) - 1) + 6
    height = len(VENDORS) * (head + block_h + 12)
    body: list[str] = []
    y0 = 0.0
    for backend, title in VENDORS:
        body.append(f'<text x="2" y="{y0 + 15:.1f}" font-size="12" font-weight="bold" fill="currentColor">{attr(title)}</text>')
        top = y0 + head
        for depth, cid in enumerate(HIERARCHY):
            inset = depth * 9
            x, y = 1 + inset, top + depth * level
            w = NARROW - 2 - 2 * inset
            last = depth == len(HIERARCHY) - 1
            h = inner_h if last else block_h - depth * (level + pad)
            lab = _term(g, cid, backend, href_prefix)
            dash = ' stroke-dasharray="4 3"' if lab.missing else ""
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
                        f'class="{"xl-fill" if depth % 2 else "xl-fill-strong"} xl-stroke"{dash}/>')
            fs, rows = fit(lab.text, w - 16, 11.5)
            text = _lines(x + 8, y + 15, rows[:1], fs, anchor="start",
                          extra=' fill-opacity="0.7" font-style="italic"' if lab.missing else "")
            body.append(f'<a href="{attr(lab.href)}">{text}</a>' if lab.href else text)
        y0 += head + block_h + 12
    return _svg(NARROW, int(height), "The thread hierarchy in CUDA's, AMD's and Apple's words", body, smallest=11)


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
            if field_name == "shared_memory_per_cu_kb" and spec is not None:
                unit = f"KiB per {spec.compute_unit_name}"  # each vendor's own word for its core
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


_SM = re.compile(r"\bsm_(\d+)|compute capability (\d+)\.(\d)")


def _sm_number(text: str) -> int | None:
    m = _SM.search(text or "")
    if m is None:
        return None
    return int(m.group(1)) if m.group(1) else int(m.group(2)) * 10 + int(m.group(3))


def _newer_than(g: Glossary, cid: str, backend: str, spec: GpuSpec | None) -> str:
    """'from sm_100a, not on H100 SXM' when the term's `since` names a later compute capability than the
    architecture of the sheet's GPU; '' otherwise (or where either is not stated)."""
    c = g.concepts.get(cid)
    term = getattr(c.terms, backend) if c is not None else None
    if term is None or not term.since or spec is None:
        return ""
    since, have = _sm_number(term.since), _sm_number(spec.architecture)
    if since is None or have is None or since <= have:
        return ""
    return f"not on {spec.name.removeprefix('NVIDIA ')} (since sm_{since})"


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
            later = _newer_than(g, cid, backend, spec)
            if later:  # a part of a later architecture than the sheet's GPU: said so, drawn as absent
                lab = Label(f"{lab.text}: {later}", lab.href, True)
            x = x0 + 10 + depth * 16
            body.append(_box(x, 70 + r * (row_h + gap), COL_W - 20 - depth * 16, row_h, lab, size=11))
    return _svg(width, height, "One SM, one CU and one Apple GPU core, part by part", body)


# ---- Key-concept diagrams: each drawn on its concept's page, one vendor under another, NARROW wide. ----

_BITS = re.compile(r"\b(\d+)[- ]bits?\b")


def _mask_bits(g: Glossary, backend: str) -> int | None:
    """The width of a ballot's lane mask on a backend, as the warp-ballot concept's caveat states it."""
    c = g.concepts.get("warp-ballot")
    term = getattr(c.terms, backend) if c is not None else None
    m = _BITS.search(term.caveat or "") if term is not None else None
    return int(m.group(1)) if m else None


def _family(spec: GpuSpec) -> str:
    """'CDNA' for 'CDNA3 (gfx942)', 'RDNA' for 'RDNA4 (gfx1201)': the architecture's name without its generation."""
    return re.sub(r"\d+$", "", spec.architecture.split(" ")[0])


def lanes(g: Glossary, href_prefix: str = "../../") -> str:
    """The lanes of one warp, wavefront or SIMD-group and the bits of its ballot mask, lane i to bit i,
    for every wave size the spec sheets give (wave64 on CDNA, wave32 on RDNA, 32 on NVIDIA and Apple)."""
    groups: dict[tuple[str, int], list[GpuSpec]] = {}
    for spec in sorted(g.gpus.values(), key=lambda s: ({"nvidia": 0, "amd": 1, "apple": 2}.get(s.vendor.value, 9), s.name)):
        if spec.wave_size.value:
            groups.setdefault((spec.vendor.value, int(spec.wave_size.value)), []).append(spec)
    if not groups:
        return ""  # no spec sheet gives a wave size: nothing to draw to scale
    backend_of = {"nvidia": "cuda", "amd": "hip", "apple": "metal"}
    cell, left, per_row, row_h = 9, 40, 32, 13
    body: list[str] = []
    y = 0.0
    for (vendor, size), specs in groups.items():
        backend = backend_of.get(vendor, "cuda")
        word = _term(g, "warp", backend, href_prefix).text.replace(" (approx.)", "")
        families = sorted({_family(s) for s in specs})
        where = f" on {', '.join(families)}" if vendor == "amd" else ""
        title = f"{VENDOR_NAME[backend]} {word}{where}: {size} lanes"
        body.append(f'<text x="0" y="{y + 13:.1f}" font-size="12" font-weight="bold" fill="currentColor">{attr(title)}</text>')
        fs, rows = fit(", ".join(s.name for s in specs), NARROW - 4, 10)
        body.append(_lines(0, y + 27, rows, fs, anchor="start", extra=' fill-opacity="0.75"'))
        y += 34 + fs * 1.15 * (len(rows) - 1)
        bits = _mask_bits(g, backend) or size

        def strip(label: str, count: int, live: int, y: float, strong: bool) -> float:
            for r in range((count + per_row - 1) // per_row):
                top = y + r * (row_h + 12)
                body.append(f'<text x="0" y="{top + 10:.1f}" font-size="10" fill="currentColor">{label if r == 0 else ""}</text>')
                # One path per row and kind of cell (a lane's or no lane's): a few elements, not one per cell.
                live_cells: list[str] = []
                dead_cells: list[str] = []
                for i in range(per_row):
                    n = r * per_row + i
                    if n >= count:
                        break
                    (live_cells if n < live else dead_cells).append(f"M{left + i * cell} {top:g}h{cell - 1}v{row_h}h{1 - cell}z")
                if live_cells:
                    body.append(f'<path d="{"".join(live_cells)}" class="{"xl-fill-strong" if strong else "xl-fill"} xl-stroke" '
                                f'stroke-width="0.6"/>')
                if dead_cells:
                    body.append(f'<path d="{"".join(dead_cells)}" class="xl-fill-none xl-stroke" stroke-width="0.6" '
                                f'stroke-dasharray="2 2"/>')
                first, last = r * per_row, min(count, (r + 1) * per_row) - 1
                body.append(f'<text x="{left:.1f}" y="{top + row_h + 10:.1f}" font-size="9.5" fill="currentColor" '
                            f'fill-opacity="0.8">{first}</text>')
                body.append(f'<text x="{left + (last - first) * cell + cell - 1:.1f}" y="{top + row_h + 10:.1f}" '
                            f'text-anchor="end" font-size="9.5" fill="currentColor" fill-opacity="0.8">{last}</text>')
            return y + ((count + per_row - 1) // per_row) * (row_h + 12)

        y = strip("lanes", size, size, y, True)
        y = strip("mask", bits, size, y + 2, False)
        note = f"ballot mask: {bits}-bit, bit i = lane i" + (f"; bits {size}-{bits - 1} belong to no lane" if bits > size else "")
        fs, rows = fit(note, NARROW - 4, 10.5)
        body.append(_lines(0, y + 10, rows, fs, anchor="start"))
        y += 14 + fs * 1.15 * (len(rows) - 1) + 16
    return _svg(NARROW, int(y), "The lanes of a warp, a wavefront and a SIMD-group, and the bits of their ballot masks", body,
                smallest=9.5)


def scratch(g: Glossary, href_prefix: str = "../../") -> str:
    """Where shared memory, LDS and threadgroup memory sit: inside one SM, CU or GPU core, beside its
    registers, with the L2 and device memory outside it; sizes from the spec sheets."""
    body: list[str] = []
    y = 0.0
    if not any(g.gpus.get(SHEETS[b]) for b, _ in VENDORS):
        return ""  # no sizes to give
    for backend, title in VENDORS:
        spec = g.gpus.get(SHEETS[backend])
        core = spec.compute_unit_name if spec else _term(g, "streaming-multiprocessor", backend, href_prefix).text
        count = _figure(spec, "compute_units")
        head = f"{spec.name if spec else title}: {count:,.0f} × {core}" if count and spec else title
        fs, rows = fit(head, NARROW - 4, 12)
        body.append(_lines(0, y + 13, rows[:1], fs, anchor="start", extra=' font-weight="bold"'))
        y += 20
        # One core: its registers and its scratchpad side by side.
        body.append(f'<rect x="1" y="{y:.1f}" width="{NARROW - 2}" height="70" rx="8" class="xl-fill xl-stroke"/>')
        body.append(f'<text x="9" y="{y + 15:.1f}" font-size="11" fill="currentColor">one {attr(core)}</text>')
        half = (NARROW - 30) / 2
        body.append(_box(9, y + 22, half, 40, _term(g, "register-file", backend, href_prefix), size=11))
        shared = _term(g, "shared-memory", backend, href_prefix)
        size = _size(_figure(spec, "shared_memory_per_cu_kb"), f"KiB per {core}")
        body.append(_box(21 + half, y + 22, half, 40, shared, strong=True, size=12, sub=size))
        y += 76
        for cid, field_name, unit in (("l2-cache", "l2_cache_mb", "MB"), ("hbm", "memory_gb", "GB")):
            lab = _term(g, cid, backend, href_prefix)
            value = _figure(spec, field_name)
            sub = _size(value, unit) if value is not None or not lab.missing else ""
            if lab.missing and value is not None:
                lab = Label(lab.text, lab.href, False)
            body.append(f'<line x1="{NARROW / 2:.0f}" y1="{y - 6:.1f}" x2="{NARROW / 2:.0f}" y2="{y:.1f}" class="xl-stroke"/>')
            body.append(_box(1, y, NARROW - 2, 36 if sub else 28, lab, strong=cid == "hbm", size=11, sub=sub))
            y += (36 if sub else 28) + 6
        y += 14
    return _svg(NARROW, int(y), "Where shared memory, LDS and threadgroup memory sit, with sizes from the spec sheets", body)


_NVIDIA_SHAPE = re.compile(r"\bm(\d+)n(\d+)k(\d+)\b")
_AMD_SHAPE = re.compile(r"_(\d+)x(\d+)x(\d+)_?f16\b")
_APPLE_SHAPE = re.compile(r"simdgroup_(?:half|float)(\d+)x(\d+)\b")


def tile_shapes(g: Glossary) -> list[tuple[str, str, tuple[int, int, int], int]]:
    """(backend, the instruction or type, (M, N, K), lanes) of one 16-bit matrix multiply-accumulate per
    vendor, read from the glossary's own spellings: NVIDIA's mma shape in the warp-level MMA concept's
    text, AMD's MFMA f16 builtin among its symbols, Apple's simdgroup matrix type among the fragment API's."""
    out: list[tuple[str, str, tuple[int, int, int], int]] = []
    mma, frag = g.concepts.get("warp-mma"), g.concepts.get("matrix-fragment-api")
    wave = {v: int(s.wave_size.value) for v, s in ((b, g.gpus.get(SHEETS[b])) for b in SHEETS) if s and s.wave_size.value}
    if mma is not None:
        m = _NVIDIA_SHAPE.search(mma.summary)
        if m and "cuda" in wave:
            out.append(("cuda", f"mma.sync m{m[1]}n{m[2]}k{m[3]}", (int(m[1]), int(m[2]), int(m[3])), wave["cuda"]))
        for s in (mma.terms.hip.symbols if mma.terms.hip else []):
            m = _AMD_SHAPE.search(s)
            if m and "hip" in wave:
                out.append(("hip", s, (int(m[1]), int(m[2]), int(m[3])), wave["hip"]))
                break
    if frag is not None and frag.terms.metal is not None:
        for s in frag.terms.metal.symbols:
            m = _APPLE_SHAPE.search(s)
            if m and "metal" in wave:
                out.append(("metal", s, (int(m[1]), int(m[2]), int(m[1])), wave["metal"]))
                break
    return out


def tiles(g: Glossary, href_prefix: str = "../../") -> str:
    """One matrix multiply-accumulate per vendor drawn to one scale: A (M x K), B (K x N) and the C tile
    (M x N) it adds into, and how many C values each lane holds in its registers."""
    unit = 4  # pixels per matrix element, the same for every vendor so the sizes compare
    body: list[str] = []
    y = 0.0
    shapes = tile_shapes(g)
    if not shapes:
        return ""
    for backend, op, (m, n, k), lanes_ in shapes:
        spec = g.gpus.get(SHEETS[backend])
        title = f"{VENDOR_NAME[backend]}: {op}"
        fs, rows = fit(title, NARROW - 4, 12)
        body.append(_lines(0, y + 13, rows[:1], fs, anchor="start", extra=' font-weight="bold"'))
        y += 22
        ax, by_ = 14, y + 12  # A at the left under B's height; B above C
        cx, cy = ax + k * unit + 6, by_ + k * unit + 6

        def grid(x: float, top: float, rows_: int, cols: int, label: str, strong: bool) -> None:
            body.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="{cols * unit}" height="{rows_ * unit}" '
                        f'class="{"xl-fill-strong" if strong else "xl-fill"} xl-stroke" stroke-width="0.8">'
                        f"<title>{label}: {rows_} x {cols}</title></rect>")
            if label == "B":  # above B
                at = f'x="{x + cols * unit / 2:.1f}" y="{top - 3:.1f}" text-anchor="middle"'
            elif label == "A":  # left of A
                at = f'x="{x - 3:.1f}" y="{top + rows_ * unit / 2 + 3:.1f}" text-anchor="end"'
            else:  # inside C
                at = f'x="{x + cols * unit / 2:.1f}" y="{top + rows_ * unit / 2 + 3.5:.1f}" text-anchor="middle"'
            body.append(f'<text {at} font-size="10" fill="currentColor">{label}</text>')

        grid(cx, by_, k, n, "B", False)
        grid(ax, cy, m, k, "A", False)
        grid(cx, cy, m, n, "C", True)
        per_lane = m * n / lanes_
        facts = [f"A {m}×{k}, B {k}×{n}, C {m}×{n}", f"{m * n * k * 2:,} FLOPs per instruction",
                 f"C: {m * n:,} values over {lanes_} lanes", f"= {per_lane:g} accumulator registers per lane"]
        tx, ty = max(cx + n * unit + 14, 150), by_ + 10
        for line in facts:
            fs, rows = fit(line, NARROW - tx - 2, 10.5)
            body.append(_lines(tx, ty, rows, fs, anchor="start"))
            ty += 15 + fs * 1.15 * (len(rows) - 1)
        y = max(cy + m * unit, ty) + 18
        _ = spec
    return _svg(NARROW, int(y), "One matrix multiply-accumulate on NVIDIA, AMD and Apple, drawn to one scale", body)


# The key-concept diagrams and the concept pages that show them (each concept id to its drawings).
KEY_DIAGRAMS = {
    "warp": ("lanes", "thread_hierarchy"), "warp-size": ("lanes",), "warp-ballot": ("lanes",), "lane-id": ("lanes",),
    "warp-active-mask": ("lanes",), "shared-memory": ("scratch",), "dynamic-shared-memory": ("scratch",),
    "warp-mma": ("tiles",), "tensor-core": ("tiles",), "matrix-fragment-api": ("tiles",),
    "thread": ("thread_hierarchy",), "thread-block": ("thread_hierarchy",), "grid": ("thread_hierarchy",),
    "thread-block-cluster": ("thread_hierarchy",),
}
CAPTIONS = {
    "lanes": "Lanes and ballot-mask bits for every wave size on the spec sheets (bit i of the mask is lane i; "
             "dashed cells hold no lane).",
    "scratch": "Shared memory (AMD: LDS, Apple: threadgroup memory) sits inside each SM, CU or GPU core, beside the "
               "registers; the L2 and device memory are outside it. Sizes from the spec sheets.",
    "tiles": "One 16-bit matrix multiply-accumulate per vendor, to one scale (4 px per element); the C tile is spread "
             "over the lanes' registers.",
    "thread_hierarchy": "The thread hierarchy in each vendor's words (dashed: not documented or no equivalent).",
}


def for_concept(g: Glossary, cid: str, href_prefix: str = "../../") -> list[tuple[str, str]]:
    """(drawing, caption) of each key-concept diagram for a concept page (none for most concepts)."""
    drawn = [(globals()[name](g, href_prefix), CAPTIONS[name]) for name in KEY_DIAGRAMS.get(cid, ())]
    return [(svg, caption) for svg, caption in drawn if svg]
