"""The hardware page: spec sheets side by side, a roofline chart, and the model-serving arithmetic."""

from __future__ import annotations

from pathlib import Path

from xlate.docsgen import svg
from xlate.docsgen.text import prose, table_cell
from xlate.kb import Glossary, GpuSheet

# One hue per GPU, far apart (a colour-blind-safe qualitative palette, readable on the light and the dark
# background): two GPUs of one vendor (MI300X, MI325X) must not read as one line.
PALETTE = ["#4e79a7", "#59a14f", "#9c755f", "#e15759", "#f28e2b", "#b07aa1", "#76b7b2", "#ff9da7", "#bab0ac", "#edc948"]
SERVING_PARAMS = 405e9  # a 405-billion-parameter model, the size people ask about
SERVING_PRECISION = "fp8"


def _fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "—"
    if abs(value) >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def _order(gpus: dict[str, GpuSheet]) -> list[GpuSheet]:
    vendor_rank = {"nvidia": 0, "amd": 1, "apple": 2}
    return sorted(gpus.values(), key=lambda s: (vendor_rank.get(s.vendor, 9), s.name))


def section(g: Glossary, root: Path) -> dict[str, str]:
    if not g.gpus:
        return {}
    from xlate import compare

    specs = _order(g.gpu_sheets())
    sources: list[str] = []

    def ref(url: str | None) -> str:
        if not url:
            return ""
        if url not in sources:
            sources.append(url)
        return f"<sup>[{sources.index(url) + 1}](#src-{sources.index(url) + 1})</sup>"

    from xlate.docsgen.search import gpu_spellings

    # Each GPU's column head is where a search for any of its names leads.
    head = "| GPU | " + " | ".join("".join(f'<span id="{a}"></span>' for _, a in gpu_spellings(s)) + prose(s.name)
                                   for s in specs) + " |"
    # The left sidebar would hold this one page: its width goes to the nine-GPU table instead.
    lines = ["---", "source: glossary/gpus/", "hide: [navigation]", "---", "", "# Hardware", "",
             f"{len(specs)} GPUs from the spec sheets in the glossary. Every figure links to its source; a dash means the "
             "vendor does not publish it (the notes say why). TFLOP/s are dense, without structured sparsity.", "",
             '<div class="xl-wide" markdown="1">', "", head, "|---|" + "---|" * len(specs)]
    lines.append("| architecture | " + " | ".join(prose(s.architecture) for s in specs) + " |")
    for field_name, label, unit in compare.FIGURE_ROWS:
        cells = []
        for s in specs:
            fig = s.figure(field_name)
            value = _fmt(fig.value) if fig.value is not None else "—"
            if field_name == "compute_units" and fig.value is not None:
                value += f" {prose(s.compute_unit_name)}"
            cells.append(value + ref(fig.source))
        lines.append(f"| {label}{' (' + unit + ')' if unit else ''} | " + " | ".join(cells) + " |")
    for precision in compare.PRECISIONS:
        cells = [_fmt(compare.derive(s, None, precision).ridge[precision]) for s in specs]
        lines.append(f"| ridge point {precision} (FLOP/byte) | " + " | ".join(cells) + " |")
    lines += ["", "</div>", ""]

    series: list[svg.RooflineSeries] = []
    for s in specs:
        peak, bw = s.value("bf16_dense_tflops"), s.value("memory_bandwidth_tbs")
        if bw:  # a GPU without a published peak still has its memory roof
            series.append(svg.RooflineSeries(s.name, peak or None, bw, PALETTE[len(series) % len(PALETTE)]))
    no_peak = [s.name for s in specs if s.value("memory_bandwidth_tbs") and not s.value("bf16_dense_tflops")]
    lines += ["## Rooflines (dense BF16)", "",
              "A kernel whose arithmetic intensity sits left of a GPU's ridge point is limited by memory bandwidth on it; "
              "right of it, by the matrix units. The lower the ridge point, the sooner a kernel becomes compute-bound."
              + (f" {' and '.join(prose(n) for n in no_peak)}: the vendor publishes no BF16 peak, so only the "
                 "memory roof is drawn (dashed)." if no_peak else ""), "",
              '<figure class="xl-figure" markdown="0">', svg.roofline(series, "Attainable dense BF16 TFLOP/s"),
              "<figcaption>Roofline of every GPU on this page, from the spec sheets' bandwidth and dense BF16 "
              "peak.</figcaption>", "</figure>", ""]

    from xlate.docsgen import diagrams

    lines += ["## Inside one SM, CU and GPU core", "",
              "Each vendor's name for the parts of its core, from the glossary (a dashed box: the vendor does not "
              "document that part, has no such part, or a later architecture added it). Open a box for the concept. "
              "On a narrow screen the drawings scroll sideways, their text kept readable.", "",
              '<figure class="xl-figure" markdown="0">', diagrams.cores(g), "</figure>", "",
              "## Memory hierarchy", "",
              "From the registers' neighbour to device memory, with the sizes the spec sheets give; a size the vendor "
              "does not publish is said so.", "",
              '<figure class="xl-figure" markdown="0">', diagrams.memory_hierarchy(g), "</figure>", ""]

    billions = SERVING_PARAMS / 1e9
    lines += [f"## Why a {billions:.0f}B model at FP8 needs fewer MI300X than H100", "",
              f"At FP8 a weight takes one byte, so a {billions:.0f}B-parameter model is {billions:.0f} GB of weights before "
              "any KV cache. Memory per GPU decides how many GPUs it takes just to hold them, and bandwidth bounds how "
              "fast one sequence can decode: every generated token reads every weight once.", "",
              "| GPU | memory (GB) | GPUs to hold the weights | decode bound, one sequence (tokens/s) |", "|---|---|---|---|"]
    for s in specs:
        d = compare.derive(s, SERVING_PARAMS, SERVING_PRECISION)
        lines.append(f"| {prose(s.name)} | {_fmt(s.value('memory_gb'))} | {d.gpus_to_hold if d.gpus_to_hold else '—'} | "
                     f"{_fmt(d.decode_bound_across)} |")
    lines += ["", "Assumptions, as `xlate compare` prints them:", ""]
    lines += [f"- {prose(a)}" for a in compare.ASSUMPTIONS]
    lines += ["", "Reproduce any row: `xlate compare mi300x h100-sxm --params 405e9 --precision fp8`.", ""]

    notes = [(s.name, s.notes) for s in specs if s.notes]
    if notes:
        lines += ["## Notes", ""] + [f"- **{prose(name)}**: {table_cell(note)}" for name, note in notes] + [""]
    lines += ["## Sources", ""]
    # One list item per source, the anchor inside the item (an anchor before the number ends the list).
    from xlate.docsgen.concepts import doc_title
    from xlate.docsgen.text import attr, escape

    for i, url in enumerate(sources, 1):
        title, site = doc_title(url, {})
        lines.append(f'{i}. <a id="src-{i}"></a>[{escape(title)}]({url}){{ title="{attr(url)}" }} '
                     f'<span class="xl-site">({escape(site)})</span>')
    lines.append("")
    return {"hardware.md": "\n".join(lines)}
