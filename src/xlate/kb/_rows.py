"""Symbol rows: each exact CUDA spelling paired with its spelling on every other backend.

A row has one side per backend (`hip`, `roc`, `miopen`, `metal`, `mlx`, `triton`); each side has
its own relation, caveat, version facts and source. Rows come from four places, merged per CUDA
spelling in this order (a later layer replaces the sides it gives):

1. `glossary/symbols/hipify/*.yaml`: AMD's HIPIFY tables, imported unchanged (`hipify_import.py`);
2. the API family files `glossary/api/*.yaml`: HIP sides for names HIPIFY does not list, the
   headers of each library, concepts by name prefix, per-name caveats;
3. `glossary/symbols/overrides.yaml`: HIP facts newer than the imported tables, each cited;
4. the curated files `glossary/symbols/*.yaml`: Metal, MLX and Triton sides (and HIP sides for
   names no table knows), each checked against the vendor's specification and cited.

A side nobody gives is unknown. Nothing here derives a spelling: naming rules apply only to names
that are in no row, at lookup time, and say so (`derived`).

This module runs when the index is rebuilt, never on the hot path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from xlate.kb._model import ID_PATTERN, MappingRelation
from xlate.kb._paths import display_path as _display
from xlate.kb._types import ROW_SIDES, SIDE_BACKEND
from xlate.kb._yamlio import Problem, load_validated

__all__ = ["SIDES", "CompiledRows", "Kind", "RocmFact", "Row", "RowFile", "Side", "compile_rows", "symbol_files"]

SYMBOLS_DIR = "symbols"
HIPIFY_DIR = "hipify"
OVERRIDES = "overrides.yaml"
SIDES = ROW_SIDES  # one list of the sides (kb._types); the models below name each as a field
HIPIFY_TARGETS = {"hip": "HIP", "roc": "ROC", "miopen": "MIOPEN"}

Spelling = Annotated[str, StringConstraints(min_length=1, max_length=160, pattern=r"^[^\s].*[^\s]$|^[^\s]$")]
ConceptRef = Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=80)]


class Kind(str, Enum):
    function = "function"
    type = "type"
    enumerator = "enumerator"
    macro = "macro"
    variable = "variable"
    attribute = "attribute"
    qualifier = "qualifier"
    namespace = "namespace"
    header = "header"
    operator = "operator"


class RocmFact(BaseModel):
    """What one ROCm version's headers say about a HIP side: the spelling to write there, or, with no
    symbol, that they declare none (the note says what a human does instead). Checked by compiling
    against that version's headers; the source cites them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+$")] = Field(description="ROCm major.minor")
    symbol: Spelling | None = Field(default=None, description="the spelling that version declares; none: it declares no counterpart")
    note: str | None = Field(default=None, description="what a port for that version must do; required without a symbol")
    source: str = Field(min_length=1, description="the header and line, or an https URL, that shows it")

    @model_validator(mode="after")
    def _complete(self) -> RocmFact:
        if self.symbol is None and not self.note:
            raise ValueError("a ROCm fact without a symbol needs a note saying what to write instead")
        return self


class Side(BaseModel):
    """One backend's counterpart of a CUDA spelling."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    symbol: Spelling | None = Field(default=None, description="the exact code spelling; never prose")
    also: list[Spelling] = Field(default_factory=list, description="other spellings of the very same thing")
    relation: MappingRelation
    caveat: str | None = None
    since: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    source: str | None = Field(default=None, description="an https URL, or a key of the file's `sources` and a section")
    shared: bool = Field(default=False, description="the counterpart spelling answers several CUDA spellings on purpose")
    macros: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_]\w*$")]] = Field(
        default_factory=list, description="preprocessor macros that must be defined before the headers for the spelling "
                                          "to be declared (HIP_ENABLE_WARP_SYNC_BUILTINS); proven by a compile probe")
    rocm: list[RocmFact] = Field(default_factory=list, description="per ROCm version: the spelling its headers declare (HIP sides)")

    @model_validator(mode="after")
    def _complete(self) -> Side:
        if self.relation is MappingRelation.none:
            if self.symbol is not None:
                raise ValueError("relation 'none' cannot have a symbol (use 'approximate' for a near counterpart)")
            if not self.caveat:
                raise ValueError("relation 'none' needs a caveat saying why, and what to do instead")
            return self
        if self.symbol is None:
            raise ValueError(f"relation '{self.relation.value}' needs the counterpart's symbol")
        if self.relation is MappingRelation.approximate and not self.caveat:
            raise ValueError("relation 'approximate' needs a caveat saying how behaviour differs")
        if not self.source:
            raise ValueError("a side with a symbol needs a source (URL or specification section)")
        if any(ch in self.symbol for ch in "\n\t"):
            raise ValueError("a symbol is one code spelling, not prose")
        return self


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cuda: Spelling
    concept: ConceptRef | None = None
    kind: Kind | None = None
    hip: Side | None = None
    roc: Side | None = None
    miopen: Side | None = None
    metal: Side | None = None
    mlx: Side | None = None
    triton: Side | None = None


class RowFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1)
    concept: ConceptRef | None = None
    kind: Kind | None = None
    sources: dict[str, str] = Field(default_factory=dict)
    rows: list[Row]

    @field_validator("sources")
    @classmethod
    def _urls(cls, value: dict[str, str]) -> dict[str, str]:
        for key, url in value.items():
            if not re.fullmatch(r"https://[^\s<>\"'`\\{}|^]+", url):
                raise ValueError(f"sources.{key}: not a well-formed https URL: {url!r}")
        return value


@dataclass
class CompiledRows:
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # cuda spelling -> compiled row
    families: list[dict[str, Any]] = field(default_factory=list)  # naming rules for unlisted names
    problems: list[Problem] = field(default_factory=list)


def symbol_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(HIPIFY imports, curated files) under glossary/symbols/; overrides.yaml counts as curated."""
    folder = root / SYMBOLS_DIR
    if not folder.is_dir():
        return [], []
    hipify = sorted((folder / HIPIFY_DIR).glob("*.yaml")) if (folder / HIPIFY_DIR).is_dir() else []
    curated = sorted(p for p in folder.glob("*.yaml"))
    return hipify, curated


def _resolve_source(source: str | None, sources: dict[str, str]) -> str | None:
    """`key §section` -> 'URL §section'; a plain URL stays as it is."""
    if source is None:
        return None
    key, _, rest = source.partition(" ")
    if key in sources:
        return (sources[key] + (" " + rest if rest else "")).strip()
    return source


def _side_dict(side: Side, sources: dict[str, str], origin: str) -> dict[str, Any]:
    out: dict[str, Any] = {"symbol": side.symbol, "relation": side.relation.value, "origin": origin}
    for key in ("caveat", "since", "deprecated", "removed"):
        value = getattr(side, key)
        if value:
            out[key] = " ".join(str(value).split())
    if side.also:
        out["also"] = list(side.also)
    if side.shared:
        out["shared"] = True
    if side.macros:
        out["macros"] = list(side.macros)
    if side.rocm:
        out["rocm"] = [{**f.model_dump(exclude_none=True), "source": _resolve_source(f.source, sources)} for f in side.rocm]
    src = _resolve_source(side.source, sources)
    if src:
        out["source"] = src
    return out


_CAPS = re.compile(r"^[A-Z0-9_]+$")
_URL = re.compile(r"https://[^\s<>\"'`\\{}|^]+\.[^\s<>\"'`\\{}|^]*")


def _kind_from_section(section: str, name: str) -> str | None:
    """What HIPIFY's section and the spelling say about a name's kind; None where they do not say.

    Data-type sections mix types, enumerations and enumerators: a name is called a type or an
    enumerator only where its spelling settles it (`cudaStream_t`, `CUdevice`, `CUBLAS_OP_N`).
    """
    s = section.casefold()
    if "type" in s or "enum" in s or "struct" in s:
        if _CAPS.match(name) and "_" in name:
            return "enumerator"
        if name.endswith(("_t", "_st")) or re.match(r"^CU[a-z]", name):
            return "type"
        return None
    if "macro" in s or "define" in s:
        return "macro"
    return "function"


def _hipify_side(row: dict[str, Any], target: str, table: str | None, cuda: str) -> dict[str, Any] | None:
    if target not in row:
        return None
    name = row.get(target)
    label = HIPIFY_TARGETS[target]
    side: dict[str, Any] = {"origin": "hipify", "source": table} if table else {"origin": "hipify"}
    if name is None:
        side.update(symbol=None, relation="none",
                    caveat=f"HIPIFY's tables (ROCm 6.3 sync) list no {label} equivalent for {cuda}.")
        return side
    side.update(symbol=str(name), relation="same" if name == cuda else "renamed")
    lib = {"hip": "HIP", "roc": "ROC library", "miopen": "MIOpen"}[target]
    for key, word in (("added", "since"), ("deprecated", "deprecated"), ("removed", "removed"), ("changed", "changed"),
                      ("experimental", "experimental")):
        value = row.get(f"{target}_{key}")
        if value:
            side[word] = f"{lib} {value}"
    return side


def _table_for(tables: list[str], target: str) -> str | None:
    """The table that is the source of one target column: *_by_HIP for hip, *_by_ROC for roc ..."""
    label = HIPIFY_TARGETS[target]
    for url in tables:
        if url.endswith(f"_supported_by_{label}.md"):
            return url
    for url in tables:
        if label in url.rsplit("/", 1)[-1]:
            return url
    return tables[0] if tables else None


def _concept_for(name: str, prefixes: dict[str, str | None], default: str | None) -> str | None:
    best: tuple[str, str | None] | None = None
    for prefix, cid in prefixes.items():
        if prefix != "*" and name.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, cid)
    return best[1] if best else default


def _family_relation(relation: str, cuda: str, hip: str) -> str:
    """A family's relation for one listed name: a `renamed` family's name that HIP spells alike is `same`,
    and a `same` family's name HIP spells otherwise (RCCL's ncclAllToAll for ncclAlltoAll) is `renamed`."""
    if relation == "renamed" and hip == cuda:
        return "same"
    if relation == "same" and hip != cuda:
        return "renamed"
    return relation


def compile_rows(root: Path, concept_ids: set[str] | None = None) -> CompiledRows:
    """Every row of the glossary, merged per CUDA spelling; defects are reported, never raised."""
    from xlate.kb import _api as api

    out = CompiledRows()
    rows = out.rows
    hipify_files, curated_files = symbol_files(root)
    tables = api.load(root, concept_ids)
    out.problems.extend(tables.problems)
    families = {f.family: f for f in tables.families}

    # 1. HIPIFY imports.
    hipify_names: set[str] = set()
    for path in hipify_files:
        shown = _display(path, root)
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            out.problems.append(Problem(shown, 1, f"cannot read this generated table ({type(exc).__name__}); rerun `xlate glossary import-hipify`"))
            continue
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list) or not isinstance(data.get("family"), str):
            out.problems.append(Problem(shown, 1, "not an imported HIPIFY table (family, tables, sections, rows)"))
            continue
        family_id = data["family"]
        fam = families.get(family_id)
        sections = data.get("sections") or []
        urls = [str(u) for u in data.get("tables") or []]
        default_concept = fam.concepts.get("*") if fam else None
        for i, raw in enumerate(data["rows"]):
            if not isinstance(raw, dict) or not isinstance(raw.get("cuda"), str):
                out.problems.append(Problem(shown, 1, f"rows[{i}]: a row needs a `cuda` name"))
                continue
            cuda = raw["cuda"]
            section = sections[raw["section"]] if isinstance(raw.get("section"), int) and raw["section"] < len(sections) else ""
            sides: dict[str, Any] = {}
            for target in HIPIFY_TARGETS:
                side = _hipify_side(raw, target, _table_for(urls, target), cuda)
                if side is not None:
                    sides[target] = side
            cuda_v = {k[5:]: str(v) for k, v in raw.items() if k.startswith("cuda_") and v}
            row = {"cuda": cuda, "concept": _concept_for(cuda, fam.concepts, default_concept) if fam else None,
                   "kind": _kind_from_section(section, cuda), "family": family_id, "section": section,
                   "sides": sides, "concept_by_prefix": True}
            if cuda_v:
                row["cuda_versions"] = cuda_v
            if cuda in rows:  # a few names sit in two families' tables: the first keeps the row
                continue
            rows[cuda] = row
            hipify_names.add(cuda)

    # 2. API family files: per-name caveats, library-wide side defaults, names HIPIFY lacks, headers.
    for fam in tables.families:
        default_concept = fam.concepts.get("*")
        loaded = tables.sources[fam.family]
        shown = _display(loaded.path, root)
        for name, hip in fam.entries():
            if name in hipify_names:
                out.problems.append(Problem(shown, loaded.line_of(("same",)),
                                            f"{name!r} is in HIPIFY's tables: remove it here (newer facts go in symbols/{OVERRIDES})"))
                continue
            side = ({"symbol": None, "relation": "none", "caveat": fam.notes.get(name) or f"no HIP equivalent ({fam.title})"}
                    if hip is None else {"symbol": hip, "relation": _family_relation(fam.relation.value, name, hip)})
            side.update(origin="family", source=fam.source)
            rows.setdefault(name, {"cuda": name, "concept": _concept_for(name, fam.concepts, default_concept),
                                   "kind": None, "family": fam.family, "sides": {},
                                   "concept_by_prefix": True})["sides"]["hip"] = side
        for name, note in fam.notes.items():
            if name in rows and "hip" in rows[name]["sides"] and rows[name]["sides"]["hip"].get("symbol"):
                side = rows[name]["sides"]["hip"]
                side["caveat"] = " ".join(filter(None, [side.get("caveat"), " ".join(note.split())]))
        for target, extra in fam.side_defaults.items():
            for row in rows.values():
                if row.get("family") == fam.family and target in row["sides"] and row["sides"][target].get("symbol"):
                    side = row["sides"][target]
                    if extra.relation is not None:
                        side["relation"] = extra.relation.value
                    if extra.caveat:
                        side["caveat"] = " ".join(filter(None, [" ".join(extra.caveat.split()), side.get("caveat")]))
        coverage = _hip_coverage(rows, fam.family)
        for header, hip_header in fam.headers.items():
            side = ({"symbol": hip_header, "relation": "renamed", "origin": "family", "source": fam.source} if hip_header
                    else {"symbol": None, "relation": "none", "caveat": f"no HIP header ({fam.title})", "origin": "family", "source": fam.source})
            if hip_header and coverage and coverage[0] < coverage[1]:
                # The header is the library's door: where HIPIFY maps only part of the library, swapping
                # the include is not the whole port.
                named, listed = coverage
                side.update(relation="approximate", caveat=(
                    f"HIP covers {fam.title} only in part: HIPIFY's tables give a HIP name for {named} of the "
                    f"{listed} names still in CUDA, and each name's row says whether HIP has it (some rows add a "
                    f"HIP call the tables lack); a call with no HIP counterpart keeps a CUDA-only path or is "
                    f"rewritten by hand."))
            row = rows.setdefault(header, {"cuda": header, "concept": default_concept, "kind": "header", "family": fam.family,
                                           "sides": {}, "concept_by_prefix": True})
            row["sides"].setdefault("hip", side)
        if fam.match:
            out.families.append({"family": fam.family, "match": fam.match, "rename": [list(r) for r in fam.rename],
                                 "relation": fam.relation.value, "caveat": fam.caveat, "concept": default_concept,
                                 "source": fam.source})

    # 3 and 4. Overrides, then curated files: one row per CUDA spelling across them.
    seen: dict[str, tuple[str, int]] = {}
    sides_seen: dict[tuple[str, str], tuple[str, int]] = {}
    concepts_seen: dict[str, tuple[str, str, int]] = {}
    ordered = sorted(curated_files, key=lambda p: (p.name != OVERRIDES, p.name))
    for path in ordered:
        shown = _display(path, root)
        rf, row_file = load_validated(RowFile, path, shown, out.problems)
        if rf is None or row_file is None:
            continue
        is_override = path.name == OVERRIDES
        for i, row in enumerate(rf.rows):
            line = row_file.line_of(("rows", i))
            given = {s: getattr(row, s) for s in SIDES if getattr(row, s) is not None}
            # One answer per CUDA spelling and side: two files may give different sides of one
            # spelling (HIP in one, Metal in another), never the same side twice.
            clash = [s for s in given if (("override " if is_override else "") + row.cuda, s) in sides_seen]
            if clash or (not given and row.cuda in seen):
                first = sides_seen[(("override " if is_override else "") + row.cuda, clash[0])] if clash else seen[row.cuda]
                out.problems.append(Problem(shown, line, f"{row.cuda!r}: {'/'.join(clash) or 'row'} given already "
                                            f"({first[0]}:{first[1]}): one answer per CUDA spelling and side"))
                continue
            for s in given:
                sides_seen[(("override " if is_override else "") + row.cuda, s)] = (shown, line)
            seen.setdefault(row.cuda, (shown, line))
            concept = row.concept or rf.concept
            if concept and concepts_seen.setdefault(row.cuda, (concept, shown, line))[0] != concept:
                other = concepts_seen[row.cuda]
                out.problems.append(Problem(shown, line, f"{row.cuda!r}: concept {concept!r} here, {other[0]!r} in {other[1]}:{other[2]}"))
            if concept_ids is not None and concept is not None and concept not in concept_ids:
                out.problems.append(Problem(shown, line, f"rows[{i}].concept: unknown concept {concept!r}"))
            if is_override and any(SIDE_BACKEND[s] != "hip" for s in given):
                out.problems.append(Problem(shown, line, f"{row.cuda!r}: overrides give HIP-side facts only"))
            if not is_override and "hip" in given and row.cuda in hipify_names:
                out.problems.append(Problem(shown, line, f"{row.cuda!r}: HIPIFY's tables give its HIP side; a newer fact goes in symbols/{OVERRIDES}"))
            for s, side in given.items():
                if side.source and not side.source.startswith("https://") and side.source.partition(" ")[0] not in rf.sources:
                    out.problems.append(Problem(shown, line, f"rows[{i}].{s}.source: {side.source!r} is neither an https URL nor a key of `sources`"))
                elif side.source and side.source.startswith("https://") and not _URL.fullmatch(side.source.split()[0]):
                    out.problems.append(Problem(shown, line, f"rows[{i}].{s}.source: not a well-formed https URL: {side.source.split()[0]!r}"))
            entry = rows.setdefault(row.cuda, {"cuda": row.cuda, "concept": None, "kind": None, "family": None, "sides": {}})
            if concept:
                entry["concept"] = concept
                entry.pop("concept_by_prefix", None)
            row_kind = row.kind or rf.kind
            if row_kind is not None and (row.kind or not entry.get("kind")):
                entry["kind"] = row_kind.value
            for s, side in given.items():
                entry["sides"][s] = _side_dict(side, rf.sources, "override" if is_override else "curated")
                entry["sides"][s]["where"] = (shown, line)  # for checks; the index does not keep it
    # A curated row without a concept belongs to the family whose pattern its spelling matches.
    patterns = [(re.compile(f.match), f) for f in tables.families if f.match]
    for row in rows.values():
        if row.get("concept") is None:
            for pattern, fam in patterns:
                if pattern.fullmatch(row["cuda"]):
                    row["concept"] = fam.concepts.get("*")
                    row["family"] = row.get("family") or fam.family
                    row["concept_by_prefix"] = True
                    break
    _version_spellings(rows, tables.families)
    _check_shared(out, seen)
    return out


def _version_spellings(rows: dict[str, dict[str, Any]], families: list[Any]) -> None:
    """A family's ROCm-release spelling rule (glossary/api/*.yaml `rocm_spellings`) gives each of its
    rows' HIP sides that release's spelling as a version fact, unless the row states one itself."""
    for fam in families:
        for rule in fam.rocm_spellings:
            for row in rows.values():
                side = row["sides"].get("hip")
                if row.get("family") != fam.family or not side or not side.get("symbol"):
                    continue
                spelled = rule.spelling(side["symbol"])
                if spelled is not None and not any(f.get("version") == rule.version for f in side.get("rocm") or ()):
                    side.setdefault("rocm", []).append({"version": rule.version, "symbol": spelled, "source": rule.source})


def _check_shared(out: CompiledRows, where: dict[str, tuple[str, int]]) -> None:
    """A counterpart spelling that answers several CUDA spellings must say it does so on purpose."""
    users: dict[tuple[str, str], list[str]] = {}
    for cuda, row in out.rows.items():
        for s in ("metal", "mlx", "triton"):
            side = row["sides"].get(s)
            if side and side.get("symbol") and side.get("origin") == "curated":
                users.setdefault((s, side["symbol"]), []).append(cuda)
    for (s, symbol), names in sorted(users.items()):
        if len(names) > 1:
            unmarked = [n for n in names if not out.rows[n]["sides"][s].get("shared")]
            if unmarked:
                path, line = where.get(unmarked[0], (f"glossary/{SYMBOLS_DIR}", 1))
                out.problems.append(Problem(path, line,
                                            f"{s} {symbol!r} answers {', '.join(names)}: mark the side `shared: true` where that is on purpose"))


def _hip_coverage(rows: dict[str, dict[str, Any]], family: str) -> tuple[int, int] | None:
    """(names with a HIP name, names) among the HIPIFY rows of one API family that CUDA has not removed;
    None when the family has no such rows."""
    listed = named = 0
    for row in rows.values():
        side = row["sides"].get("hip")
        if row.get("family") != family or side is None or side.get("origin") != "hipify":
            continue
        if "removed" in (row.get("cuda_versions") or {}):
            continue
        listed += 1
        named += bool(side.get("symbol"))
    return (named, listed) if listed else None
