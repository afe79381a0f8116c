"""`xlate compare`: GPU spec sheets side by side, with the figures derived from them.

Every published figure comes from `glossary/gpus/*.yaml` with its source; this module only reads
those sheets and does arithmetic on them. The derived figures are bounds, not predictions:

- ridge point: dense peak FLOP/s divided by memory bandwidth (FLOP per byte). A kernel whose
  arithmetic intensity is below it cannot reach peak compute on that part;
- decode bound: at batch 1, one token per forward pass, every generated token streams all weights
  from memory once, so tokens/s cannot exceed bandwidth / bytes of weights (KV cache, activations
  and overheads only lower it; a mixture of experts reads only its active experts, and speculative
  decoding accepts several tokens per pass);
- GPUs to hold the weights: ceil(bytes of weights / memory per GPU), weights only, so a lower bound.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypedDict

from xlate import kb
from xlate.errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, GlossaryError, XlateError
from xlate.kb import GpuSheet

__all__ = [
    "ASSUMPTIONS",
    "FIGURE_ROWS",
    "PRECISIONS",
    "CompareError",
    "CompareJson",
    "Derived",
    "FigureJson",
    "GpuJson",
    "derive",
    "load_gpus",
    "parse_params",
    "render_text",
    "resolve",
    "run",
    "to_json",
]

EXIT_UNKNOWN, EXIT_USAGE = EXIT_FINDINGS, EXIT_ERROR

# Precision -> (spec-sheet field with its dense peak, bytes per weight at that precision).
PRECISIONS: dict[str, tuple[str, float]] = {
    "bf16": ("bf16_dense_tflops", 2.0),
    "fp16": ("fp16_dense_tflops", 2.0),
    "fp8": ("fp8_dense_tflops", 1.0),
}

# Published figures in display order: (field, label, unit shown after the value).
FIGURE_ROWS: list[tuple[str, str, str]] = [(f, label, unit) for f, (label, unit) in kb.GPU_FIGURES.items()]

ASSUMPTIONS = [
    "TFLOP/s are dense (no structured sparsity) vendor peaks; sustained rates are lower.",
    "Ridge point = dense peak FLOP/s / memory bandwidth, in FLOP per byte of DRAM traffic.",
    "Decode bound = memory bandwidth / bytes of weights: batch 1, one token per pass over the weights, every weight "
    "read once per token; an upper bound, not a prediction (KV cache, activations and kernel overheads only lower "
    "it). For a mixture of experts pass the active parameters, not the total; speculative decoding, which accepts "
    "several tokens per pass, can exceed it.",
    "GPUs to hold the weights counts weights only (no KV cache, activations or runtime reserve), "
    "so real deployments need at least that many.",
    "Across-GPU decode bound assumes the weights split evenly over that many GPUs and their bandwidth adds up "
    "(ideal tensor parallelism, no communication cost).",
]


class CompareError(XlateError):
    """A user-facing error: unknown GPU (exit 1), bad --params, precision or format (exit 2)."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = self.code = code


# --- loading -------------------------------------------------------------------------------------


def load_gpus(root: Path | None = None) -> dict[str, GpuSheet]:
    """Every spec sheet, from the knowledge base. A glossary with defects refuses the comparison with
    a one-line error naming the first: an answer that silently left a part out would look complete."""
    try:
        return kb.gpu_sheets(root)
    except kb.IndexBuildError as exc:
        problems = exc.problems
        if not problems:
            raise
        # A broken spec sheet is named before other defects: it is what this command reads.
        shown = next((p for p in problems if "/gpus/" in f"/{p.path}"), problems[0])
        which = "the first" if shown is problems[0] else "among them"
        raise GlossaryError(f"the glossary has {len(problems)} problem(s), {which} {shown}",
                            hint="run `xlate glossary check`") from None


def resolve(queries: list[str], root: Path | None = None) -> list[GpuSheet]:
    """The sheets the names land on (kb's one resolver), each once, in the order asked."""
    out: list[GpuSheet] = []
    for q in queries:
        sheet = kb.resolve_gpu(q, root)
        if sheet is None:
            near = kb.gpu_suggestions(q, root)
            hint = f"; did you mean: {', '.join(near)}" if near else ""
            known = ", ".join(sorted(kb.gpu_sheets(root)))
            raise CompareError(f"unknown GPU {q!r}{hint}; known GPUs: {known}", EXIT_UNKNOWN)
        if sheet not in out:
            out.append(sheet)
    return out


# --- arithmetic ----------------------------------------------------------------------------------

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def parse_params(text: str) -> float:
    """'405B', '70b', '8e9', '1.5T', '7000000000' -> parameter count."""
    cleaned = text.strip().replace("_", "").replace(",", "")
    m = re.fullmatch(r"(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([kKmMbBgGtT]?)", cleaned)
    if not m:
        raise CompareError(f"cannot read --params {text!r}; write a count such as 405B, 70b, 8e9 or 1.5T")
    value = float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    if not math.isfinite(value) or value <= 0:
        raise CompareError(f"--params must be a positive count, got {text!r}")
    return value


@dataclass
class Derived:
    ridge: dict[str, float | None]  # precision -> FLOP per byte
    weights_gb: float | None = None
    gpus_to_hold: int | None = None
    decode_bound_one_gpu: float | None = None  # tokens/s, bandwidth of one GPU / bytes of weights
    decode_bound_across: float | None = None  # tokens/s over the GPUs that hold the weights
    fits_on_one: bool | None = None


def ridge_point(tflops: float | None, tbs: float | None) -> float | None:
    """Dense FLOP/s over bytes/s: TFLOP/s / TB/s is FLOP per byte (both scale by 1e12)."""
    if tflops is None or tbs is None or tbs <= 0:
        return None
    return tflops / tbs


def weight_bytes(params: float, precision: str) -> float:
    return params * PRECISIONS[precision][1]


def decode_bound(tbs: float | None, params: float, precision: str) -> float | None:
    """Upper bound on batch-1 decode tokens/s: bandwidth / bytes of weights."""
    if tbs is None or tbs <= 0:
        return None
    return tbs * 1e12 / weight_bytes(params, precision)


def gpus_to_hold(memory_gb: float | None, params: float, precision: str) -> int | None:
    if memory_gb is None or memory_gb <= 0:
        return None
    return max(1, math.ceil(weight_bytes(params, precision) / (memory_gb * 1e9) - 1e-12))


def derive(spec: GpuSheet, params: float | None, precision: str) -> Derived:
    tbs = spec.value("memory_bandwidth_tbs")
    ridge = {p: ridge_point(spec.value(f), tbs) for p, (f, _) in PRECISIONS.items()}
    d = Derived(ridge=ridge)
    if params is None:
        return d
    d.weights_gb = weight_bytes(params, precision) / 1e9
    d.gpus_to_hold = gpus_to_hold(spec.value("memory_gb"), params, precision)
    d.decode_bound_one_gpu = decode_bound(tbs, params, precision)
    if d.gpus_to_hold is not None:
        d.fits_on_one = d.gpus_to_hold == 1
        if d.decode_bound_one_gpu is not None:
            d.decode_bound_across = d.decode_bound_one_gpu * d.gpus_to_hold
    return d


# --- sources -------------------------------------------------------------------------------------


@dataclass
class Sources:
    """Numbered source URLs and notes, in order of first use."""

    urls: list[str] = field(default_factory=list)
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (gpu name, label, note)

    def ref(self, url: str | None) -> int | None:
        if not url:
            return None
        if url not in self.urls:
            self.urls.append(url)
        return self.urls.index(url) + 1


def _fmt(x: float | None) -> str:
    """Thousands separators for big numbers, three significant figures for small ones (3.35, 0.546)."""
    if x is None:
        return "n/a"
    if float(x).is_integer() or abs(x) >= 100:
        return f"{x:,.0f}" if abs(x) >= 1000 or float(x).is_integer() else f"{x:,.1f}".rstrip("0").rstrip(".")
    return f"{x:.3g}"


def _bullet(text: str, width: int) -> str:
    import textwrap

    return textwrap.fill(" ".join(text.split()), width=width, initial_indent="  - ", subsequent_indent="    ")


# --- output --------------------------------------------------------------------------------------


class FigureJson(TypedDict):
    """A published figure as `compare --format json` prints it."""

    value: float | None
    unit: str | None
    source: str | None
    note: str | None


class GpuJson(TypedDict):
    id: str
    name: str
    vendor: str
    architecture: str
    compute_unit_name: str
    figures: dict[str, FigureJson]
    derived: dict[str, Any]  # ridge points always; the model-size bounds when --params is given
    notes: str | None


class CompareJson(TypedDict):
    params: float | None
    precision: str
    gpus: list[GpuJson]
    assumptions: list[str]
    sources: list[str]  # every cited URL, in order of first use


def to_json(specs: list[GpuSheet], params: float | None, precision: str) -> CompareJson:
    gpus: list[GpuJson] = []
    urls: list[str] = []
    for spec in specs:
        figures: dict[str, FigureJson] = {}
        for name, _, unit in FIGURE_ROWS:
            fig = spec.figure(name)
            figures[name] = {"value": fig.value, "unit": unit or None, "source": fig.source, "note": fig.note}
            if fig.source and fig.source not in urls:
                urls.append(fig.source)
        d = derive(spec, params, precision)
        derived: dict[str, Any] = {"ridge_flop_per_byte": d.ridge}
        if params is not None:
            derived.update(
                {
                    "weights_gb": d.weights_gb,
                    "gpus_to_hold_weights": d.gpus_to_hold,
                    "decode_tokens_per_s_bound_one_gpu": d.decode_bound_one_gpu,
                    "decode_tokens_per_s_bound_across_gpus": d.decode_bound_across,
                }
            )
        gpus.append(
            {
                "id": spec.id,
                "name": spec.name,
                "vendor": spec.vendor,
                "architecture": spec.architecture,
                "compute_unit_name": spec.compute_unit_name,
                "figures": figures,
                "derived": derived,
                "notes": spec.notes,
            }
        )
    return {"params": params, "precision": precision, "gpus": gpus, "assumptions": ASSUMPTIONS, "sources": urls}


def render_text(specs: list[GpuSheet], params: float | None, precision: str, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, width=None if out.isatty() else max(100, 26 + 24 * len(specs)), highlight=False, markup=False)
    wrap = max(60, console.width - 2)
    src = Sources()
    table = Table(title="GPU comparison (published figures with sources; derived bounds below the line)", title_justify="left")
    table.add_column("figure", style="bold", no_wrap=True)
    for spec in specs:
        table.add_column(f"{spec.name}\n{spec.architecture}", justify="right")

    for name, label, unit in FIGURE_ROWS:
        cells = []
        for spec in specs:
            fig = spec.figure(name)
            n = src.ref(fig.source)
            mark = f" [{n}]" if n else ""
            if fig.note:
                src.notes.append((spec.name, label, fig.note))
                mark += " *"
            text = _fmt(fig.value) if fig.value is not None else "n/a"
            if name == "compute_units" and fig.value is not None:
                text += f" {spec.compute_unit_name}"
            cells.append(text + mark)
        table.add_row(f"{label}" + (f" ({unit})" if unit else ""), *cells, end_section=name == FIGURE_ROWS[-1][0])

    derived = [derive(s, params, precision) for s in specs]
    for p in PRECISIONS:
        table.add_row(f"ridge point {p.upper()} (FLOP/byte)", *[_fmt(d.ridge[p]) for d in derived])
    if params is not None:
        wgb = derived[0].weights_gb
        table.add_row(f"weights at {precision.upper()} (GB)", *[_fmt(wgb)] * len(specs))
        table.add_row("GPUs to hold the weights", *[_fmt(d.gpus_to_hold) for d in derived])
        table.add_row(
            "decode bound, 1 GPU (tokens/s)",
            *[_fmt(d.decode_bound_one_gpu) + ("" if d.fits_on_one else " (weights do not fit)") for d in derived],
        )
        table.add_row("decode bound across those GPUs (tokens/s)", *[_fmt(d.decode_bound_across) for d in derived])
    console.print(table)

    if params is not None:
        size = PRECISIONS[precision][1]
        console.print(f"Model: {params / 1e9:,.4g}B parameters at {precision.upper()} ({size:g} byte{'s' if size != 1 else ''} each).")
    console.print("\nHow to read the derived rows:")
    for line in ASSUMPTIONS:
        console.print(_bullet(line, wrap), soft_wrap=True)
    console.print("\nSources:")
    for i, url in enumerate(src.urls, 1):
        console.print(f"  [{i}] {url}", soft_wrap=True)
    if src.notes:
        console.print("\nNotes (* in the table):")
        for gpu, label, note in src.notes:
            console.print(_bullet(f"{gpu}, {label}: {note}", wrap), soft_wrap=True)
    if any(spec.notes for spec in specs):
        console.print("\nAbout each part:")
        for spec in specs:
            if spec.notes:
                console.print(_bullet(f"{spec.name}: {spec.notes}", wrap), soft_wrap=True)


def run(
    names: list[str],
    params: str | None = None,
    precision: str = "bf16",
    fmt: str = "text",
    root: Path | None = None,
    out: TextIO | None = None,
) -> int:
    """Entry point for the CLI: returns the exit code, prints errors as one line without tracebacks.

    A spec sheet that does not load refuses the whole comparison (exit 2), like every command that
    reads the glossary: an answer that silently leaves a part out would look complete.
    """
    from xlate.errors import report
    from xlate.kb import require_glossary

    out = out or sys.stdout
    try:
        if fmt not in ("text", "json"):
            raise CompareError(f"unknown format {fmt!r}; choose text or json")
        precision = precision.lower()
        if precision not in PRECISIONS:
            raise CompareError(f"unknown precision {precision!r}; choose {', '.join(PRECISIONS)}")
        if not names:
            raise CompareError("name at least one GPU, e.g. `xlate compare mi300x h100`")
        count = parse_params(params) if params is not None else None
        folder = require_glossary(root)
        if not load_gpus(folder):
            raise GlossaryError(f"no GPU spec sheets in {kb.display_path(folder / 'gpus', folder)}", hint=None)
        chosen = resolve(names, folder)
    except XlateError as exc:
        return report(exc)
    if fmt == "json":
        json.dump(to_json(chosen, count, precision), out, indent=2)
        out.write("\n")
    else:
        render_text(chosen, count, precision, out)
    return EXIT_OK
