"""Cross-checks between the kernel examples and the glossary, and the coverage report.

An example.yaml links glossary concepts to the exact code that demonstrates them:

    concepts:
      - concept: warp-shuffle-down
        symbols: {cuda: __shfl_down_sync, hip: __shfl_down, metal: simd_shuffle_down}

`problems` reports (file:line) every link to an unknown concept, an unknown backend, a backend
file that does not exist, or a symbol that does not occur in the code of the linked file
(comments and docstrings do not count). `coverage` lists, for every code-level concept, the
backends that have an equivalent but no example demonstrating it.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from xlate import kb
from xlate.kb import Glossary
from xlate.kernels.examples import BACKENDS, host_source_name, source_name
from xlate.kb import Category, Concept, MappingRelation
from xlate.kb import LoadedYaml, Problem, YamlError, load_yaml

# Metal bodies run through mx.fast.metal_kernel; the host side that launches them is the MLX file.
# MLX's kernel-level terms (threadgroup_position_in_grid, threads_per_simdgroup ...) are names used
# inside mx.fast.metal_kernel source, which for every example is the Metal body the MLX file loads.
EXTRA_FILES = {"metal": ("mlx",), "mlx": ("metal",)}
# Concepts about code people write (as opposed to hardware, tools, libraries or interconnects).
CODE_CATEGORIES = {Category.execution_model, Category.memory, Category.synchronization, Category.warp_ops,
                   Category.matrix, Category.host_api}


def examples_dir(root: Path) -> Path:
    return root.parent / "kernels" / "examples"


def reasons_file(root: Path) -> Path:
    return root.parent / "kernels" / "not-shown.yaml"


def not_shown(root: Path) -> dict[str, dict[str, str]]:
    """concept -> backend -> why the gallery cannot demonstrate it (kernels/not-shown.yaml).

    A malformed file is an error for `xlate glossary check` (see `problems`); here it reads as empty."""
    path = reasons_file(root)
    if not path.is_file():
        return {}
    try:
        data = load_yaml(path, kb.display_path(path, root)).data
    except YamlError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for cid, per in (data or {}).items() if isinstance(data, dict) else []:
        if isinstance(per, dict):
            out[str(cid)] = {str(b): " ".join(str(why).split()) for b, why in per.items() if isinstance(why, str)}
    return out


def backend_files(folder: Path, backend: str) -> list[Path]:
    """The files whose code counts for a backend: its own file, the files of EXTRA_FILES, and for
    Metal a native host program (NAME_host.mm) where the example has one."""
    backends = (backend,) + EXTRA_FILES.get(backend, ())
    files = [folder / source_name(folder.name, b) for b in backends]
    if backend == "metal":
        files.append(folder / host_source_name(folder.name))
    return files


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _c_code(text: str) -> list[str]:
    text = re.sub(r"/\*.*?\*/", lambda m: _blank(m.group(0)), text, flags=re.S)
    return [line.split("//", 1)[0] for line in text.split("\n")]


def _python_code(text: str) -> list[str]:
    lines = text.split("\n")  # numbered as tokenize numbers them (and as the pages number lines)
    previous = tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            standalone = tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT,
                                                                     tokenize.DEDENT, tokenize.NL)
            if tok.type == tokenize.COMMENT or standalone:
                (row, col), (end_row, end_col) = tok.start, tok.end
                for r in range(row, end_row + 1):
                    line = lines[r - 1]
                    lo = col if r == row else 0
                    hi = end_col if r == end_row else len(line)
                    lines[r - 1] = line[:lo] + " " * (hi - lo) + line[hi:]
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                previous = tok.type
    except (tokenize.TokenError, SyntaxError, IndexError):
        return [line.split("#", 1)[0] for line in text.split("\n")]
    return lines


def blank_prose(text: str, python: bool) -> list[str]:
    """The lines of source text (split at newlines) with comments and, for Python, docstrings
    (strings that stand alone as statements) blanked: a symbol mentioned only in prose is not found."""
    return _python_code(text) if python else _c_code(text)


def code_lines(path: Path) -> list[str]:
    """blank_prose of a source file, line numbers kept."""
    return blank_prose(path.read_text(encoding="utf-8", errors="replace"), path.suffix == ".py")


def code_text(path: Path) -> str:
    """The code of a source file, comments removed, so that a symbol mentioned only in prose fails."""
    return "\n".join(code_lines(path))


def occurs(symbol: str, code: str) -> bool:
    """Whether `symbol` occurs in `code` as a whole token sequence; spacing between tokens is free."""
    tokens = re.findall(r"\w+|\S", symbol)
    if not tokens:
        return False
    pattern = r"\s*".join(re.escape(t) for t in tokens)
    if re.match(r"\w", tokens[0]):
        pattern = r"(?<![\w])" + pattern
    if re.match(r"\w", tokens[-1][-1]):
        pattern += r"(?![\w])"
    return re.search(pattern, code) is not None


@dataclass(frozen=True)
class Link:
    example: str
    concept: str
    backend: str
    symbol: str


def _check_example(path: Path, root: Path, glossary: Glossary, links: list[Link]) -> list[Problem]:
    shown = kb.display_path(path, root)
    try:
        loaded: LoadedYaml = load_yaml(path, shown)
    except YamlError as exc:
        return [exc.problem]
    data = loaded.data
    if not isinstance(data, dict):
        return [Problem(shown, 1, "expected a mapping at the top level")]
    out: list[Problem] = []
    for key in ("title", "teaches"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            out.append(Problem(shown, loaded.line_of((key,)), f"`{key}` must be a non-empty string"))
    concepts = data.get("concepts")
    if not isinstance(concepts, list) or not concepts:
        out.append(Problem(shown, loaded.line_of(("concepts",)), "`concepts` must list the concepts this example demonstrates"))
        return out
    folder = path.parent
    code_cache: dict[str, str] = {}
    seen: dict[str, int] = {}
    for i, link in enumerate(concepts):
        where = loaded.line_of(("concepts", i))
        if not isinstance(link, dict) or not isinstance(link.get("concept"), str):
            out.append(Problem(shown, where, "each entry needs `concept: <glossary id>` and `symbols: {backend: symbol}`"))
            continue
        cid = link["concept"]
        if cid not in glossary.concepts:
            out.append(Problem(shown, loaded.line_of(("concepts", i, "concept")), f"unknown concept {cid!r}"))
        if cid in seen:
            out.append(Problem(shown, loaded.line_of(("concepts", i, "concept")),
                               f"{cid} is listed twice (first on line {seen[cid]}); give it one entry with every backend's symbol"))
        seen.setdefault(cid, loaded.line_of(("concepts", i, "concept")))
        symbols = link.get("symbols")
        if not isinstance(symbols, dict) or not symbols:
            out.append(Problem(shown, where, f"{cid}: `symbols` must map backends to the code that shows the concept"))
            continue
        for backend, symbol in symbols.items():
            line = loaded.line_of(("concepts", i, "symbols", backend))
            if backend not in BACKENDS:
                out.append(Problem(shown, line, f"{cid}: unknown backend {backend!r} (one of {', '.join(BACKENDS)})"))
                continue
            if not isinstance(symbol, str) or not symbol.strip():
                out.append(Problem(shown, line, f"{cid}: the {backend} symbol must be a non-empty string"))
                continue
            files = backend_files(folder, backend)
            if not files[0].is_file():
                out.append(Problem(shown, line, f"{cid}: links {backend} but {files[0].name} does not exist"))
                continue
            if backend not in code_cache:
                code_cache[backend] = "\n".join(code_text(f) for f in files if f.is_file())
            if not occurs(symbol, code_cache[backend]):
                names = " or ".join(f.name for f in files if f.is_file())
                out.append(Problem(shown, line, f"{cid}: {backend} symbol {symbol!r} does not occur in the code of {names}"))
                continue
            links.append(Link(folder.name, cid, backend, symbol))
    return out


def collect(root: Path, glossary: Glossary) -> tuple[list[Problem], list[Link]]:
    links: list[Link] = []
    out: list[Problem] = []
    folder = examples_dir(root)
    if not folder.is_dir():
        return out, links
    for path in sorted(folder.glob("*/example.yaml")):
        out += _check_example(path, root, glossary, links)
    return out, links


def _check_reasons(root: Path, glossary: Glossary, links: list[Link]) -> list[Problem]:
    """kernels/not-shown.yaml may only name known concepts and backends, give a real reason, and never
    excuse a backend that an example does demonstrate (a stale excuse hides nothing but misleads)."""
    path = reasons_file(root)
    if not path.is_file():
        return []
    shown = kb.display_path(path, root)
    try:
        loaded = load_yaml(path, shown)
    except YamlError as exc:
        return [exc.problem]
    data = loaded.data
    if not isinstance(data, dict):
        return [Problem(shown, 1, "expected a mapping: concept -> {backend: reason}")]
    demonstrated = {(link.concept, link.backend) for link in links}
    out: list[Problem] = []
    for cid, per in data.items():
        line = loaded.line_of((cid,))
        if cid not in glossary.concepts:
            out.append(Problem(shown, line, f"unknown concept {cid!r}"))
            continue
        if not isinstance(per, dict) or not per:
            out.append(Problem(shown, line, f"{cid}: expected {{backend: reason}}"))
            continue
        for backend, why in per.items():
            bline = loaded.line_of((cid, backend))
            if backend not in BACKENDS:
                out.append(Problem(shown, bline, f"{cid}: unknown backend {backend!r}"))
            elif not isinstance(why, str) or len(why.split()) < 5:
                out.append(Problem(shown, bline, f"{cid}: the {backend} reason must say why, in a sentence"))
            elif (cid, backend) in demonstrated:
                out.append(Problem(shown, bline, f"{cid}: {backend} is demonstrated by an example; drop the reason"))
    return out


def problems(root: Path, glossary: Glossary) -> list[Problem]:
    """Every broken link between an example and the glossary, as file:line problems."""
    out, links = collect(root, glossary)
    return out + _check_reasons(root, glossary, links)


@dataclass(frozen=True)
class CoverageRow:
    concept: str
    category: str
    covered: dict[str, list[str]]  # backend -> examples demonstrating it
    missing: list[str]  # backends with an equivalent but no demonstrating example
    not_applicable: list[str]  # backends whose term is relation 'none' or absent
    reasons: dict[str, str] = field(default_factory=dict)  # missing backend -> why it cannot be shown


def is_code_level(concept: Concept) -> bool:
    return concept.category in CODE_CATEGORIES


def coverage(root: Path, glossary: Glossary) -> list[CoverageRow]:
    _, links = collect(root, glossary)
    excuses = not_shown(root)
    by_concept: dict[str, dict[str, list[str]]] = {}
    for link in links:
        by_concept.setdefault(link.concept, {}).setdefault(link.backend, [])
        if link.example not in by_concept[link.concept][link.backend]:
            by_concept[link.concept][link.backend].append(link.example)
    rows = []
    for cid in sorted(glossary.concepts):
        concept = glossary.concepts[cid]
        if not is_code_level(concept):
            continue
        covered = by_concept.get(cid, {})
        missing, na = [], []
        for backend in BACKENDS:
            term = getattr(concept.terms, backend)
            if term is None or term.relation is MappingRelation.none:
                if backend not in covered:
                    na.append(backend)
                continue
            if backend not in covered:
                missing.append(backend)
        why = {b: excuses[cid][b] for b in missing if b in excuses.get(cid, {})}
        rows.append(CoverageRow(cid, concept.category.value, covered, missing, na, why))
    return rows


def render_coverage(rows: list[CoverageRow], missing_only: bool = False) -> str:
    """One line per concept; each backend still lacking is followed by the reason it cannot be shown
    (from kernels/not-shown.yaml) or, where none is recorded, by NO REASON."""
    lines = []
    width = max((len(r.concept) for r in rows), default=10)
    for r in rows:
        if missing_only and not r.missing:
            continue
        shown = ", ".join(f"{b} ({', '.join(ex)})" for b, ex in r.covered.items())
        lack = ", ".join(r.missing) if r.missing else "none"
        lines.append(f"{r.concept:<{width}}  lacking: {lack:<30}  shown: {shown or '-'}")
        for b in r.missing:
            lines.append(f"{'':<{width}}    {b}: {r.reasons.get(b, 'NO REASON recorded in kernels/not-shown.yaml')}")
    complete = sum(1 for r in rows if not r.missing)
    touched = sum(1 for r in rows if r.covered)
    unexplained = sum(1 for r in rows if any(b not in r.reasons for b in r.missing))
    lines.append(f"{len(rows)} code-level concepts: {touched} demonstrated by at least one example, "
                 f"{complete} with every backend that has an equivalent demonstrated; "
                 f"{len(rows) - complete} remaining, {unexplained} of them without a recorded reason")
    return "\n".join(lines)
