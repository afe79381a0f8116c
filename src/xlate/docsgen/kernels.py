"""The kernel gallery: one page per example with a tab per backend, its glossary links and its evidence."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from xlate.docsgen.text import code, prose, table_cell
from xlate.kb import Glossary

BACKEND_TITLE = {"cuda": "CUDA", "hip": "HIP", "triton": "Triton", "metal": "Metal", "mlx": "MLX"}
LANG = {"cuda": "cuda", "hip": "cpp", "triton": "python", "metal": "cpp", "mlx": "python"}
# What each backend's file is checked with where no GPU of that vendor is at hand. The test suite
# runs these checks (tests/test_kernels*.py); GPU runs are recorded in kernels/evidence/.
CPU_CHECK = {
    "cuda": "compiled with nvcc for sm_90a; SASS read with cuobjdump",
    "hip": "compiled with clang for gfx942 and gfx90a; AMDGCN assembly read",
    "triton": "run by Triton's interpreter on the CPU, checked against NumPy",
    "metal": "not run here: needs Apple silicon (the tests skip it elsewhere)",
    "mlx": "run on the CPU build of MLX, checked against NumPy",
}
EXPECT_KEY = {"cuda": ["sass"], "hip": ["amdgcn", "amdgcn_gfx942", "amdgcn_gfx1100"]}


def _line_of(path: Path, symbol: str) -> int | None:
    """The first line of `path` whose code contains `symbol`, or None where the symbol spans lines or
    sits only in prose (comments, docstrings): the reader is pointed at a line that uses it."""
    from xlate.examples_check import occurs

    # occurs() matches the symbol's first token literally: a line without it cannot match.
    first = (re.findall(r"\w+|\S", symbol) or [""])[0]
    for number, code_part in _code_lines(path):
        if first in code_part and occurs(symbol, code_part):
            return number
    return None


@functools.lru_cache(maxsize=128)
def _code_lines(path: Path) -> tuple[tuple[int, str], ...]:
    """(line number, the line's code) for each line holding code: comments and Python docstrings
    (strings that stand alone as statements) blanked, as `xlate glossary check` reads the files."""
    from xlate.examples_check import code_lines

    if not path.is_file():
        return ()
    return tuple((number, line) for number, line in enumerate(code_lines(path), 1) if line.strip())


HOST_TAB = "metal-host"  # the tab of a native Metal host program (NAME_host.mm), where there is one


def _tab_path(ex: Any, owner: str) -> Path:
    path: Path = ex.native_host if owner == HOST_TAB else ex.source(owner)
    return path


def _symbol_cell(ex: Any, backend: str, symbol: str, present: list[str]) -> str:
    """The symbol as code, linked to the numbered line of the tab that shows it (Metal symbols may sit
    in the MLX host file or the native host and MLX ones in the Metal body, which are tabs of their own)."""
    from xlate.examples_check import EXTRA_FILES

    owners = (backend,) + EXTRA_FILES.get(backend, ()) + ((HOST_TAB,) if backend == "metal" else ())
    for owner in owners:
        if owner not in present:
            continue
        line = _line_of(_tab_path(ex, owner), symbol)
        if line is not None:
            where = "" if owner == backend else f" in {BACKEND_TITLE.get(owner, 'the Metal host')}"
            # Written as HTML, not a Markdown link: mkdocs checks Markdown links against the anchors it
            # collects, and the code blocks' line anchors are added by the highlighter after it looked.
            return f'{code(symbol)} <a href="#__codelineno-{present.index(owner)}-{line}">line {line}{where}</a>'

    return code(symbol)


def _records(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every evidence file, read once: (file name, record). A file that does not parse is skipped here;
    the evidence tests report it."""
    folder = root.parent / "kernels" / "evidence"
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict):
            out.append((path.name, record))
    return out


def _evidence(records: list[tuple[str, dict[str, Any]]]) -> dict[tuple[str, str], dict[str, Any]]:
    """One run of one example on one backend, keyed by (example, backend)."""
    return {(r["example"], r["backend"]): r for _, r in records
            if "example" in r and "backend" in r and "throughput" in r}


def _bench(records: list[tuple[str, dict[str, Any]]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Same-run comparisons against a reference (copy bandwidth, torch, cuBLAS) from the benchmark records."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for name, record in records:
        if not name.startswith("bench--"):
            continue
        for run in record.get("runs", []):
            if isinstance(run, dict) and run.get("reference") and run.get("ratio") is not None:
                example, backend = run.get("example"), run.get("backend")
                if isinstance(example, str) and isinstance(backend, str):
                    out[(example, backend)] = run
    return out


def _bench_cell(run: dict[str, Any] | None) -> str:
    if not run:
        return ""
    text = f"; {run['ratio']:.2f}x {prose(run['reference'])} measured in the same run"
    if run.get("floor") is not None:
        text += f" (floor {run['floor']:.2f}: {'met' if run.get('meets_floor') else 'not met'})"
    if run.get("goal") is not None:
        text += f" (goal {run['goal']:.2f}: {'met' if run.get('meets_goal') else 'not met'})"
    return text


def _evidence_cell(record: dict[str, Any] | None) -> str:
    if not record:
        return "—"
    device = record.get("device", {}).get("name", "GPU")
    tp = record.get("throughput", {})
    roof = record.get("roofline", {}) or {}
    parts = [f"ran on {prose(device)}: {tp.get('value', 0):,.0f} {prose(tp.get('unit', ''))}"]
    if roof.get("fraction") is not None:
        parts.append(f"{100 * roof['fraction']:.0f}% of the roofline")
    if record.get("time_ms_median") is not None:
        parts.append(f"{record['time_ms_median']:.3f} ms")
    extras = record.get("extras") or {}
    if extras.get("graph_speedup"):
        parts.append(f"graph replay {float(extras['graph_speedup']):.2f}x faster than launch by launch")
    if extras.get("tile_shape"):
        parts.append(f"tile shape {prose(str(extras['tile_shape']))} chosen on the input")
    return ", ".join(parts)


def _page(ex: Any, evidence: dict[tuple[str, str], dict[str, Any]], bench: dict[tuple[str, str], dict[str, Any]],
          g: Glossary) -> str:
    from xlate.kernels.examples import BACKENDS

    lines = [f"# {prose(ex.title)}", "", prose(ex.teaches), ""]
    present = [b for b in BACKENDS if ex.has(b)]
    lines += ["## The code", ""]
    if ex.native_host is not None:
        present.append(HOST_TAB)  # a tab of its own, after the backends' files
    for backend in present:
        path = _tab_path(ex, backend)
        text = path.read_text(encoding="utf-8", errors="replace").rstrip("\n")
        fence = "````" if "```" in text else "```"
        title = BACKEND_TITLE.get(backend, "Metal host")
        lines += [f'=== "{title}"', "",
                  f'    {fence} {LANG.get(backend, "objective-c++")} title="{path.name}" linenums="1"']
        lines += [("    " + ln) if ln else "" for ln in text.splitlines()]
        lines += [f"    {fence}", ""]
    for backend, why in ex.absent.items():
        lines += [f"*No {BACKEND_TITLE.get(backend, backend)} version:* {prose(why)}", ""]

    if ex.concepts:
        lines += ["## Glossary concepts shown", "",
                  "Each cell is the code that shows the concept on that backend, linked to its line in the tabs above.", "",
                  "| concept | " + " | ".join(BACKEND_TITLE[b] for b in BACKENDS) + " |",
                  "|---|" + "---|" * len(BACKENDS)]
        for link in ex.concepts:
            cid = link.get("concept")
            concept = g.concepts.get(cid)
            if concept is None:
                continue
            symbols = link.get("symbols") or {}
            cells = [_symbol_cell(ex, b, symbols[b], present) if isinstance(symbols.get(b), str) else ""
                     for b in BACKENDS]
            lines.append(f"| [{prose(concept.title)}](../glossary/{concept.category.value}/{cid}.md) | " + " | ".join(cells) + " |")
        lines.append("")

    lines += ["## Where it was shown", "",
              "| backend | on a CPU machine (the test suite) | on a GPU (kernels/evidence) |", "|---|---|---|"]
    for backend in BACKENDS:
        if not ex.has(backend):
            continue
        cpu = CPU_CHECK[backend]
        if backend == "metal" and ex.native_host is not None:
            from xlate.kernels.examples import NATIVE_HOST_UNVERIFIED

            cpu = f"not run here; {ex.native_host.name} and {ex.source('metal').name} are {NATIVE_HOST_UNVERIFIED}"
        wanted = [i for key in EXPECT_KEY.get(backend, []) for i in ex.expect.get(key, [])]
        aot = ex.raw.get("triton_aot") or {}
        if backend == "triton" and aot:
            cpu += "; compiled ahead of time for sm_90 and gfx942"
            wanted += [str(i) for key in ("ptx", "amdgcn") for i in aot.get(key) or []]
        if wanted:
            cpu += "; instructions required: " + ", ".join(code(i) for i in dict.fromkeys(wanted))
        gpu = _evidence_cell(evidence.get((ex.name, backend))) + _bench_cell(bench.get((ex.name, backend)))
        lines.append(f"| {BACKEND_TITLE[backend]} | {table_cell(cpu) if not wanted else cpu} | {gpu} |")
    lines += ["", "Nothing in this gallery was run on an AMD GPU or on Apple silicon: HIP kernels are compiled and their "
              "assembly inspected, Metal kernels are not run where this site was built.", ""]
    return "\n".join(lines)


def section(g: Glossary, root: Path) -> dict[str, str]:
    from xlate.kernels.examples import BACKENDS, ExampleError, load, names

    kernels_root = root.parent / "kernels"
    _code_lines.cache_clear()  # read the sources afresh on every build (`mkdocs serve` rebuilds in one process)
    found = names(kernels_root)
    if not found:
        return {}
    records = _records(root)
    evidence = _evidence(records)
    bench = _bench(records)
    out: dict[str, str] = {}
    # One row per example: what it teaches, then how far each backend's file was taken (run on a GPU,
    # compiled and its assembly read, interpreted on the CPU, or only written), strongest first.
    rows = ['<div class="xl-long xl-gallery" markdown="1">', "",
            "| example | what it shows | how far each backend's file was taken |", "|---|---|---|"]
    labels = {"gpu": "run on a GPU", "asm": "compiled, assembly read", "cpu": "run on the CPU", "none": "written, not run here"}
    for name in found:
        try:
            ex = load(name, kernels_root)
        except ExampleError:
            continue  # `xlate glossary check` reports broken examples
        out[f"kernels/{name}.md"] = _page(ex, evidence, bench, g)
        levels: dict[str, list[str]] = {"gpu": [], "asm": [], "cpu": [], "none": []}
        for b in BACKENDS:
            if not ex.has(b):
                continue
            record = evidence.get((name, b))
            if record:
                device = (record.get("device") or {}).get("name", "a GPU")
                levels["gpu"].append(f"{BACKEND_TITLE[b]} ({prose(_short_device(device))})")
            elif b in ("cuda", "hip"):
                levels["asm"].append(BACKEND_TITLE[b])
            elif b in ("triton", "mlx"):
                levels["cpu"].append(BACKEND_TITLE[b])
            else:
                levels["none"].append(BACKEND_TITLE[b])
        shown = "<br>".join(f"**{labels[k]}**: {', '.join(v)}" for k, v in levels.items() if v) or "—"
        rows.append(f"| [{prose(ex.title)}]({name}.md) | {table_cell(_first_sentence(ex.teaches))} | {shown} |")
    rows += ["", "</div>", ""]
    # No table of contents column (one section): its width goes to the table.
    intro = ["---", "hide: [toc]", "---", "", "# Kernel gallery", "",
             "The same kernels written for every backend, each linked to the glossary concepts it demonstrates. "
             "Every page says where its code was shown to work: compiled and inspected, interpreted on the CPU, "
             "or run and timed on an NVIDIA H200.", ""]
    out["kernels/index.md"] = "\n".join(intro + rows + _not_shown(g, root)) + "\n"
    return out


def _short_device(name: str) -> str:
    """'NVIDIA H200 SXM 141GB' -> 'H200': the GPU's model, enough for a table cell."""
    m = re.search(r"\b([A-Z]{1,3}\d{2,4}[A-Z]?)\b", name)
    return m.group(1) if m else name


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    m = re.search(r"(?<=[a-z0-9)`])\.(?:\s|$)", text)
    return text[: m.start() + 1] if m else text


def _not_shown(g: Glossary, root: Path) -> list[str]:
    """The code-level concepts some backend of the gallery does not demonstrate, each with its reason
    (kernels/not-shown.yaml), the same rows `xlate glossary coverage` prints."""
    from xlate.examples_check import coverage

    rows = coverage(root, g)
    complete = sum(1 for r in rows if not r.missing)
    lines = ["", "## What the gallery does not show, and why", "",
             f"{complete} of {len(rows)} code-level concepts are demonstrated on every backend that has an equivalent. "
             "The rest, per backend:", "", "| concept | backend | why not |", "|---|---|---|"]
    for r in rows:
        concept = g.concepts[r.concept]
        for b in r.missing:
            why = r.reasons.get(b, "no reason recorded")
            lines.append(f"| [{prose(concept.title)}](../glossary/{concept.category.value}/{r.concept}.md) | "
                         f"{BACKEND_TITLE[b]} | {table_cell(why)} |")
    return lines + ["", "</div>"]
