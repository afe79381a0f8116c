"""The roofline chart, drawn at build time: no script and nothing fetched when the page is read."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xlate.docsgen.text import attr


@dataclass(frozen=True)
class RooflineSeries:
    label: str
    peak_tflops: float | None  # None: the vendor publishes no peak; only the bandwidth slope is drawn
    bandwidth_tbs: float
    colour: str


def roofline(series: list[RooflineSeries], title: str, width: int = 820, height: int = 460) -> str:
    """Log-log roofline: attainable TFLOP/s against arithmetic intensity (FLOP/byte), one roof per GPU.

    Every part is drawn and named: both axes with their units, the sloped memory roof and the flat compute
    roof of each GPU, its ridge point (where they meet) marked and labelled, the memory-bound and
    compute-bound sides, and a legend. A GPU without a published peak gets its slope only, dashed.
    """
    left, right, top, bottom = 64, 250, 34, 56
    x_min, x_max = 1.0, 4096.0
    peaks = [s.peak_tflops for s in series if s.peak_tflops]
    y_max = 10 ** math.ceil(math.log10(max(peaks or [1.0]) * 1.2))
    y_min = y_max / 1e5
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(ai: float) -> float:
        return left + (math.log10(ai) - math.log10(x_min)) / (math.log10(x_max) - math.log10(x_min)) * plot_w

    def py(tf: float) -> float:
        tf = min(max(tf, y_min), y_max)
        return top + (1 - (math.log10(tf) - math.log10(y_min)) / (math.log10(y_max) - math.log10(y_min))) * plot_h

    # The smallest text is 10 units: the drawing never shrinks below 9 px text (its figure scrolls instead).
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'style="min-width:{int(width * 0.9)}px" role="img" aria-label="{attr(title)}" class="xl-svg xl-roofline">',
           f'<title>{attr(title)}</title>',
           f'<text x="{left}" y="20" font-size="14" font-weight="bold" fill="currentColor">{attr(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="currentColor" stroke-opacity="0.4"/>']
    ai = x_min
    while ai <= x_max:
        x = px(ai)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="currentColor" stroke-opacity="0.12"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" font-size="11" fill="currentColor">{ai:g}</text>')
        ai *= 4
    tf = y_min
    while tf <= y_max * 1.0001:
        y = py(tf)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="currentColor" stroke-opacity="0.12"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="currentColor">{tf:g}</text>')
        tf *= 10
    out.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 14}" text-anchor="middle" font-size="12" fill="currentColor">'
               'arithmetic intensity (FLOP per byte of DRAM traffic, log scale)</text>')
    mid = top + plot_h / 2
    out.append(f'<text x="16" y="{mid:.0f}" font-size="12" fill="currentColor" transform="rotate(-90 16 {mid:.0f})" '
               'text-anchor="middle">attainable TFLOP/s (log scale)</text>')
    # Which side is which: left of a ridge point the memory roof binds, right of it the compute roof.
    out.append(f'<text x="{px(2):.1f}" y="{top + 16}" font-size="11" fill="currentColor" fill-opacity="0.75">'
               '\u2190 memory-bound: the sloped roof (bandwidth \u00d7 intensity)</text>')
    out.append(f'<text x="{px(x_max) - 6:.1f}" y="{top + plot_h - 8}" text-anchor="end" font-size="11" fill="currentColor" '
               'fill-opacity="0.75">compute-bound: the flat roof (peak) \u2192</text>')
    legend_y = top + 4
    for s in series:
        if s.bandwidth_tbs <= 0:
            continue
        dashed = ' stroke-dasharray="6 4"' if not s.peak_tflops else ""
        if s.peak_tflops:
            ridge = s.peak_tflops / s.bandwidth_tbs
            start_ai = max(x_min, y_min / s.bandwidth_tbs)
            pts = [(start_ai, s.bandwidth_tbs * start_ai), (min(ridge, x_max), min(s.peak_tflops, s.bandwidth_tbs * x_max)),
                   (x_max, s.peak_tflops)]
            path = " ".join(f"{px(a):.1f},{py(t):.1f}" for a, t in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="2.2"><title>{attr(s.label)}: '
                       f'{s.bandwidth_tbs:g} TB/s, {s.peak_tflops:g} TFLOP/s, ridge point {ridge:.0f} FLOP/byte</title></polyline>')
            if ridge <= x_max:
                out.append(f'<circle cx="{px(ridge):.1f}" cy="{py(s.peak_tflops):.1f}" r="4" fill="{s.colour}"/>')
            note = f"ridge {ridge:.0f}"
        else:
            # Only the memory roof: its slope is known, its top (the peak) is not published.
            end_ai = x_max
            pts = [(x_min, s.bandwidth_tbs * x_min), (end_ai, s.bandwidth_tbs * end_ai)]
            path = " ".join(f"{px(a):.1f},{py(t):.1f}" for a, t in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="2.2"{dashed}>'
                       f'<title>{attr(s.label)}: {s.bandwidth_tbs:g} TB/s; no published peak</title></polyline>')
            note = "no published peak"
        lx = left + plot_w + 14
        out.append(f'<line x1="{lx}" y1="{legend_y + 5}" x2="{lx + 22}" y2="{legend_y + 5}" stroke="{s.colour}" stroke-width="2.5"{dashed}/>')
        out.append(f'<text x="{lx + 28}" y="{legend_y + 9}" font-size="11" fill="currentColor">{attr(s.label)}</text>')
        out.append(f'<text x="{lx + 28}" y="{legend_y + 22}" font-size="10" fill="currentColor" fill-opacity="0.7">'
                   f'{s.bandwidth_tbs:g} TB/s \u00b7 {attr(note)}</text>')
        legend_y += 34
    out.append(f'<text x="{left + plot_w + 14}" y="{legend_y + 12}" font-size="10" fill="currentColor" fill-opacity="0.7">'
               '\u25cf ridge point (FLOP/byte)</text>')
    out.append("</svg>")
    return "".join(out)
