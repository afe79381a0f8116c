"""Small SVG diagrams drawn at build time: no script and nothing fetched when the page is read."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xlate.docsgen.text import attr

CATEGORY_COLOURS = {
    "hardware": "#5b8def", "execution-model": "#2fa56a", "memory": "#d9822b", "synchronization": "#c0392b",
    "warp-ops": "#8e44ad", "matrix": "#16a085", "host-api": "#2c3e50", "toolchain": "#7f8c8d",
    "libraries": "#b7950b", "profiling": "#a04000", "interconnect": "#1f618d",
}


@dataclass(frozen=True)
class Node:
    label: str
    href: str | None
    category: str


def _box(x: float, y: float, node: Node, bold: bool) -> str:
    width = max(70.0, 7.2 * len(node.label) + 18)
    colour = CATEGORY_COLOURS.get(node.category, "#555")
    rect = (f'<rect x="{x - width / 2:.1f}" y="{y - 14:.1f}" width="{width:.1f}" height="28" rx="6" '
            f'fill="{colour}" fill-opacity="{0.95 if bold else 0.15}" stroke="{colour}"/>')
    weight = ' font-weight="bold" fill="#fff"' if bold else ' fill="currentColor"'
    label = f'<text x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle" font-size="12"{weight}>{attr(node.label)}</text>'
    body = rect + label
    if node.href:
        body = f'<a href="{attr(node.href)}"><title>{attr(node.label)}</title>{body}</a>'
    return body


def neighbourhood(center: Node, neighbours: list[tuple[str, Node]], width: int = 720) -> str:
    """The concept in the middle, its related concepts around it, each edge labelled with its type."""
    shown = neighbours[:12]
    radius_x, radius_y = width * 0.36, 120.0 if len(shown) > 4 else 80.0
    height = int(2 * radius_y + 70)
    cx, cy = width / 2, height / 2
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{attr(center.label)} and related concepts" class="xlate-graph" '
             f'style="max-width:100%;height:auto;font-family:sans-serif">']
    positions = []
    for i, _ in enumerate(shown):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(shown))
        positions.append((cx + radius_x * math.cos(angle), cy + radius_y * math.sin(angle)))
    for (label, _), (x, y) in zip(shown, positions):
        parts.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="currentColor" stroke-opacity="0.35"/>')
        mx, my = (cx + x) / 2, (cy + y) / 2
        parts.append(f'<text x="{mx:.1f}" y="{my - 3:.1f}" text-anchor="middle" font-size="10" fill="currentColor" '
                     f'fill-opacity="0.7">{attr(label)}</text>')
    for (_, node), (x, y) in zip(shown, positions):
        parts.append(_box(x, y, node, bold=False))
    parts.append(_box(cx, cy, center, bold=True))
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class RooflineSeries:
    label: str
    peak_tflops: float
    bandwidth_tbs: float
    colour: str


def roofline(series: list[RooflineSeries], title: str, width: int = 760, height: int = 420) -> str:
    """Log-log roofline: attainable TFLOP/s against arithmetic intensity (FLOP/byte) for each GPU."""
    left, right, top, bottom = 70, 170, 30, 50
    x_min, x_max = 1.0, 4096.0
    peaks = [s.peak_tflops for s in series if s.peak_tflops > 0]
    y_max = 10 ** math.ceil(math.log10(max(peaks or [1.0]) * 1.2))
    y_min = y_max / 1e4

    def px(ai: float) -> float:
        return left + (math.log10(ai) - math.log10(x_min)) / (math.log10(x_max) - math.log10(x_min)) * (width - left - right)

    def py(tf: float) -> float:
        tf = max(tf, y_min)
        return top + (1 - (math.log10(tf) - math.log10(y_min)) / (math.log10(y_max) - math.log10(y_min))) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" aria-label="{attr(title)}" '
           f'style="max-width:100%;height:auto;font-family:sans-serif">',
           f'<text x="{left}" y="18" font-size="13" fill="currentColor">{attr(title)}</text>']
    ai = x_min
    while ai <= x_max:
        x = px(ai)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" stroke="currentColor" stroke-opacity="0.12"/>')
        out.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle" font-size="10" fill="currentColor">{ai:g}</text>')
        ai *= 4
    tf = y_min
    while tf <= y_max * 1.0001:
        y = py(tf)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="currentColor" stroke-opacity="0.12"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="10" fill="currentColor">{tf:g}</text>')
        tf *= 10
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 12}" text-anchor="middle" font-size="11" '
               f'fill="currentColor">arithmetic intensity (FLOP per byte of memory traffic)</text>')
    out.append(f'<text x="16" y="{(top + height - bottom) / 2:.0f}" font-size="11" fill="currentColor" '
               f'transform="rotate(-90 16 {(top + height - bottom) / 2:.0f})" text-anchor="middle">attainable TFLOP/s</text>')
    for i, s in enumerate(series):
        if s.peak_tflops <= 0 or s.bandwidth_tbs <= 0:
            continue
        ridge = s.peak_tflops / s.bandwidth_tbs
        start_ai = max(x_min, y_min / s.bandwidth_tbs)
        pts = [(start_ai, s.bandwidth_tbs * start_ai), (min(ridge, x_max), min(s.peak_tflops, s.bandwidth_tbs * x_max)), (x_max, s.peak_tflops)]
        path = " ".join(f"{px(a):.1f},{py(t):.1f}" for a, t in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="2"/>')
        ly = top + 14 + 16 * i
        out.append(f'<line x1="{width - right + 10}" y1="{ly - 4}" x2="{width - right + 28}" y2="{ly - 4}" stroke="{s.colour}" stroke-width="2"/>')
        out.append(f'<text x="{width - right + 32}" y="{ly}" font-size="10" fill="currentColor">{attr(s.label)}</text>')
    out.append("</svg>")
    return "".join(out)
