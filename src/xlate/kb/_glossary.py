"""Load and validate the glossary (concepts and GPU spec sheets) and build its graph.

Every defect is reported as a `Problem` naming the file and line; nothing here raises on bad data.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pydantic import BaseModel

from xlate.kb import _vocabulary as vocabulary
from xlate.kb._model import (
    REVERSE_LABEL,
    SYMMETRIC_EDGES,
    Backend,
    Category,
    Concept,
    EdgeType,
    GpuSpec,
)
from xlate.kb._paths import display_path
from xlate.kb._types import Edge
from xlate.kb._yamlio import LoadedYaml, Location, Problem, YamlError, load_validated, load_yaml

if TYPE_CHECKING:
    import networkx as nx

    from xlate.kb._sheets import GpuSheet

# Folders under glossary/ that hold something other than concepts.
NON_CONCEPT_DIRS = {"gpus", "api", "symbols", "fixtures", "translate", "vocabulary"}
SOURCES_FILE = "sources.yaml"


def default_root() -> Path:
    """The glossary folder (the one resolver lives in `_paths`)."""
    from xlate.kb._paths import glossary_root

    return glossary_root()


def concept_files(root: Path) -> list[Path]:
    files = []
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        if sub.name in NON_CONCEPT_DIRS or sub.name.startswith("."):
            continue
        files.extend(sorted(sub.glob("*.yaml")))
    return files


def gpu_files(root: Path) -> list[Path]:
    gpus = root / "gpus"
    return sorted(gpus.glob("*.yaml")) if gpus.is_dir() else []


@dataclass
class Glossary:
    root: Path
    concepts: dict[str, Concept] = field(default_factory=dict)
    gpus: dict[str, GpuSpec] = field(default_factory=dict)
    sources: dict[str, LoadedYaml] = field(default_factory=dict)  # id -> where it was read
    problems: list[Problem] = field(default_factory=list)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # CUDA spelling -> compiled symbol row
    row_families: list[dict[str, Any]] = field(default_factory=list)  # naming rules for names in no row
    vocabularies: list[vocabulary.PackageVocabulary] = field(default_factory=list)  # package names no card spells
    name_families: list[vocabulary.NameFamily] = field(default_factory=list)  # prefixes of profiler counter names
    tool_options: list[vocabulary.ToolOptions] = field(default_factory=list)  # every option of a command-line tool
    error_messages: list[vocabulary.ErrorMessages] = field(default_factory=list)  # an API's error strings
    name_lists: list[vocabulary.NameList] = field(default_factory=list)  # environment variables, struct members
    _incoming: dict[str, list[Edge]] | None = field(default=None, repr=False)

    def incoming(self) -> dict[str, list[Edge]]:
        """For each concept, the one-way edges other concepts declare towards it, read from its end
        ("has part", "used by"), in glossary order. Computed once: the index, the docs and `path` use it."""
        if self._incoming is None:
            self._incoming = incoming_edges(self.concepts)
        return self._incoming

    def gpu_sheets(self) -> dict[str, GpuSheet]:
        """The validated spec sheets as the store hands them out (kb.GpuSheet), in file order."""
        from xlate.kb._sheets import GPU_FIGURES, decode

        fields = {"name", "vendor", "aliases", "architecture", "compute_unit_name", "notes", *GPU_FIGURES}
        return {gid: decode(gid, {**spec.model_dump(mode="json", include=fields), "path": self.where(gid)[0]})
                for gid, spec in self.gpus.items()}

    def edges(self, cid: str) -> list[Edge]:
        """A concept's relations as a reader meets them: its own declared edges, then the incoming ones."""
        concept = self.concepts[cid]
        own = [Edge(e.type.value, e.target) for e in concept.relations if e.target in self.concepts]
        return own + self.incoming().get(cid, [])

    def where(self, item_id: str, *loc: str | int) -> tuple[str, int]:
        loaded = self.sources.get(item_id)
        if loaded is None:
            return (str(self.root), 1)
        return (self._display(loaded.path), loaded.line_of(tuple(loc)))

    def _display(self, path: Path) -> str:
        return display_path(path, self.root)

    def problem(self, item_id: str, loc: tuple[str | int, ...], message: str) -> None:
        path, line = self.where(item_id, *loc)
        self.problems.append(Problem(path, line, message))

    # --- graph -------------------------------------------------------------------------------

    def graph(self) -> nx.MultiDiGraph:
        """Concepts as nodes, declared relations as typed edges (symmetric ones both ways)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for cid, concept in self.concepts.items():
            g.add_node(cid, title=concept.title, category=concept.category.value)
        for cid, concept in self.concepts.items():
            for edge in concept.relations:
                if edge.target in self.concepts:
                    g.add_edge(cid, edge.target, key=edge.type.value, type=edge.type.value)
        return g


def incoming_edges(concepts: dict[str, Concept]) -> dict[str, list[Edge]]:
    """The reverse of every one-way edge, keyed by its target. Symmetric edges (see-also,
    contrasts-with) are not reversed: each end declares its own (`xlate glossary fix-edges`)."""
    out: dict[str, list[Edge]] = {}
    for other in concepts.values():
        for e in other.relations:
            if e.type not in SYMMETRIC_EDGES and e.target in concepts:
                out.setdefault(e.target, []).append(Edge(REVERSE_LABEL[e.type], other.id, incoming=True))
    return out


def _official_hosts(root: Path, glossary: Glossary) -> set[str] | None:
    path = root / SOURCES_FILE
    if not path.exists():
        return None
    try:
        loaded = load_yaml(path, glossary._display(path))
    except YamlError as exc:
        glossary.problems.append(exc.problem)
        return None
    hosts = loaded.data.get("official_hosts") if isinstance(loaded.data, dict) else None
    if not isinstance(hosts, list):
        glossary.problems.append(Problem(glossary._display(path), 1, "expected a list 'official_hosts'"))
        return None
    return {str(h).lower() for h in hosts}


def _host_allowed(url: str, hosts: set[str]) -> bool:
    parsed = urlparse(url)
    host = parsed.netloc.lower()
    # Entries may name a host ("docs.nvidia.com") or a host with a path prefix ("github.com/ROCm").
    for entry in hosts:
        if "/" in entry:
            entry_host, _, prefix = entry.partition("/")
            if host == entry_host and parsed.path.lower().startswith("/" + prefix.lower()):
                return True
        elif host == entry or host.endswith("." + entry):
            return True
    return False


def load(root: Path | None = None, with_rows: bool = True) -> Glossary:
    """Read, validate and cross-check everything under `root` (symbol rows too, unless `with_rows` is off)."""
    root = root or default_root()
    glossary = Glossary(root=root)
    if not root.is_dir():
        glossary.problems.append(Problem(str(root), 1, "glossary folder not found"))
        return glossary

    for path in concept_files(root):
        _load_one(glossary, path, Concept, glossary.concepts, folder_is_category=True)
    for path in gpu_files(root):
        _load_one(glossary, path, GpuSpec, glossary.gpus, folder_is_category=False)

    _check_unique_names(glossary)
    _check_symbols(glossary)
    vocabularies = vocabulary.load(root, set(glossary.concepts), glossary._display, glossary.problems)
    glossary.vocabularies, glossary.name_families = vocabularies.packages, vocabularies.families
    glossary.tool_options, glossary.error_messages = vocabularies.tools, vocabularies.errors
    glossary.name_lists = vocabularies.names
    _check_edges(glossary)
    if with_rows:
        from xlate.kb import _rows as rows

        compiled = rows.compile_rows(root, set(glossary.concepts))
        glossary.rows, glossary.row_families = compiled.rows, compiled.families
        glossary.problems.extend(compiled.problems)
        _check_row_concepts(glossary)
    hosts = _official_hosts(root, glossary)
    if hosts is not None:
        _check_hosts(glossary, hosts)
    return glossary


def _load_one(glossary: Glossary, path: Path, model: type[BaseModel], into: dict[str, Concept] | dict[str, GpuSpec],
              folder_is_category: bool) -> None:
    display = glossary._display(path)
    item, loaded = load_validated(model, path, display, glossary.problems)
    if item is None or loaded is None:
        return
    if item.id != path.stem:
        glossary.problems.append(Problem(display, loaded.line_of(("id",)), f"id {item.id!r} must match the file name {path.stem!r}"))
    if folder_is_category and item.category.value != path.parent.name:
        glossary.problems.append(
            Problem(display, loaded.line_of(("category",)), f"category {item.category.value!r} but the file is in {path.parent.name}/")
        )
    if item.id in into:
        first = glossary.where(item.id)
        glossary.problems.append(Problem(display, loaded.line_of(("id",)), f"duplicate id {item.id!r} (first in {first[0]}:{first[1]})"))
        return
    into[item.id] = item
    glossary.sources[item.id] = loaded


def _check_unique_names(glossary: Glossary) -> None:
    """Ids, titles and aliases must each lead to one concept, or lookups become ambiguous."""
    owner: dict[str, str] = {}
    for cid, concept in glossary.concepts.items():
        labels: list[tuple[str, Location]] = [(cid, ("id",)), (concept.title, ("title",))]
        labels += [(a, ("aliases", i)) for i, a in enumerate(concept.aliases)]
        labels += [(a, ("abbreviations", i)) for i, a in enumerate(concept.abbreviations)]
        mine: set[str] = set()
        for label, loc in labels:
            key = label.casefold()
            if key in mine:
                continue
            mine.add(key)
            if key in owner and owner[key] != cid:
                glossary.problem(cid, loc, f"{label!r} already names concept {owner[key]!r}")
            owner.setdefault(key, cid)


def _check_symbols(glossary: Glossary) -> None:
    """A code spelling must map to one concept per backend."""
    seen: dict[tuple[Backend, str], str] = {}
    for cid, concept in glossary.concepts.items():
        for backend, term in concept.terms.items():
            for i, symbol in enumerate(term.symbols):
                key = (backend, symbol)
                if key in seen and seen[key] != cid:
                    glossary.problem(
                        cid, ("terms", backend.value, "symbols", i),
                        f"{backend.value} symbol {symbol!r} already belongs to concept {seen[key]!r}",
                    )
                seen.setdefault(key, cid)


def _check_row_concepts(glossary: Glossary) -> None:
    """A concept that lists a CUDA spelling and a row that names another concept for it disagree."""
    for cid, concept in glossary.concepts.items():
        for i, name in enumerate(concept.terms.cuda.symbols):
            row = glossary.rows.get(name)
            if row and row.get("concept") in glossary.concepts and row["concept"] != cid and not row.get("concept_by_prefix"):
                glossary.problem(cid, ("terms", "cuda", "symbols", i),
                                 f"{name!r} is listed here but its symbol row names concept {row['concept']!r}")


def _check_edges(glossary: Glossary) -> None:
    declared: dict[tuple[str, str], set[EdgeType]] = defaultdict(set)
    for cid, concept in glossary.concepts.items():
        for edge in concept.relations:
            declared[(cid, edge.target)].add(edge.type)
    for cid, concept in glossary.concepts.items():
        for i, edge in enumerate(concept.relations):
            loc = ("relations", i, "target")
            if edge.target == cid:
                glossary.problem(cid, loc, f"{edge.type.value} edge points at the concept itself")
            elif edge.target not in glossary.concepts:
                glossary.problem(cid, loc, f"{edge.type.value} edge to unknown concept {edge.target!r}")
            elif edge.type in SYMMETRIC_EDGES and edge.type not in declared[(edge.target, cid)]:
                glossary.problem(
                    cid, loc,
                    f"one-sided {edge.type.value} edge: {edge.target!r} does not list {cid!r} back "
                    f"(run `xlate glossary fix-edges`)",
                )
            elif edge.type not in SYMMETRIC_EDGES and edge.type in declared[(edge.target, cid)]:
                glossary.problem(
                    cid, loc,
                    f"{edge.type.value} edge declared both ways with {edge.target!r}; write it once "
                    f"(the reverse reads '{REVERSE_LABEL[edge.type]}')",
                )


def _check_hosts(glossary: Glossary, hosts: set[str]) -> None:
    for cid, concept in glossary.concepts.items():
        for backend, term in concept.terms.items():
            for i, url in enumerate(term.docs):
                if not _host_allowed(url, hosts):
                    glossary.problem(
                        cid, ("terms", backend.value, "docs", i),
                        f"{url} is not on an official documentation host (glossary/{SOURCES_FILE})",
                    )
    for cuda, row in glossary.rows.items():
        for side_name, side in row["sides"].items():
            url = (side.get("source") or "").split(" ", 1)[0]
            if url.startswith("https://") and "." in url[8:] and side.get("origin") in ("curated", "override") and not _host_allowed(url, hosts):
                path, line = side.get("where") or ("glossary/symbols", 1)
                glossary.problems.append(Problem(path, line, f"{cuda}: {side_name} source {url} is not on an official documentation host (glossary/{SOURCES_FILE})"))
    for gid, gpu in glossary.gpus.items():
        for name, value in gpu:
            source = getattr(value, "source", None)
            if source and not _host_allowed(source, hosts):
                glossary.problem(gid, (name, "source"), f"{source} is not on an official host (glossary/{SOURCES_FILE})")


def categories_in_use(glossary: Glossary) -> dict[Category, int]:
    counts: dict[Category, int] = {c: 0 for c in Category}
    for concept in glossary.concepts.values():
        counts[concept.category] += 1
    return counts

