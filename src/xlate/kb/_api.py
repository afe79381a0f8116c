"""API family files (glossary/api/*.yaml): what holds for a whole CUDA library.

Each file describes one family (the runtime API, device functions, a library): its headers and their
HIP headers, concepts by name prefix, per-name caveats, what holds for every counterpart on one side,
the HIP spellings of names HIPIFY's tables do not list, and a naming rule (`match` + `rename`) that
is used only for names found in no row, and whose answers always say `derived`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from xlate.kb._model import ID_PATTERN, MappingRelation, check_url
from xlate.kb._paths import display_path as _display
from xlate.kb._yamlio import LoadedYaml, Problem, load_validated

API_DIR = "api"
Symbol = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_:]*$|^<<<>>>$", max_length=120)]
ConceptRef = Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=80)]


class SideDefault(BaseModel):
    """What holds for every counterpart a family gives on one side (e.g. MIOpen's calls take other arguments)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    relation: MappingRelation | None = None
    caveat: str | None = None


def _compiles(pattern: str) -> str:
    """The pattern, once `re` compiles it; a validation error saying why otherwise."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return pattern


class VersionSpelling(BaseModel):
    """How one ROCm release's headers spell the family's HIP names where they differ from the spelling
    the rows give: the part `pattern` matches is replaced by `replace` (hipBLAS 3.0 dropped the _v2 of
    hipblasZsymm_v2 and hipblasZsymm_v2_64). A row's own fact for that release wins."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+$")] = Field(description="ROCm major.minor")
    pattern: str = Field(min_length=1, description="regex over the HIP spelling")
    replace: str = ""
    source: str = Field(description="where that release's spelling is stated")

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str) -> str:
        return _compiles(value)

    @field_validator("source")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_url(value)

    def spelling(self, hip: str) -> str | None:
        """That release's spelling of `hip`, or None where the pattern does not apply."""
        changed = re.sub(self.pattern, self.replace, hip)
        return changed if changed != hip else None


class ApiFamily(BaseModel):
    """One API family. Names appear in exactly one of `same`, `renamed`, `mapped` or `unsupported`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: ConceptRef
    title: str = Field(min_length=1)
    library: dict[str, str] = Field(default_factory=dict, description="what each vendor calls the library")
    source: str = Field(description="official table the facts were taken from")
    device: bool = Field(default=False, description="names usable in device code (Metal equivalents apply)")
    relation: MappingRelation = Field(default=MappingRelation.renamed, description="how the HIP side relates")
    caveat: str | None = None
    match: str | None = Field(default=None, description="regex of family names not listed one by one")
    headers: dict[str, str | None] = Field(default_factory=dict)
    concepts: dict[str, ConceptRef | None] = Field(default_factory=dict, description="name prefix -> concept id, or null for a prefix that belongs to no concept (it shadows a shorter prefix)")
    rename: list[tuple[str, str]] = Field(default_factory=list, description="[CUDA prefix, HIP prefix], first match wins")
    same: list[Symbol] = Field(default_factory=list)
    renamed: list[Symbol] = Field(default_factory=list)
    mapped: dict[Symbol, str] = Field(default_factory=dict)
    unsupported: list[Symbol] = Field(default_factory=list)
    notes: dict[Symbol, str] = Field(default_factory=dict, description="per-name caveat")
    side_defaults: dict[str, SideDefault] = Field(default_factory=dict, description="hip/roc/miopen -> what holds for every counterpart on that side")
    rocm_spellings: list[VersionSpelling] = Field(default_factory=list, description="how a ROCm release spells the family's HIP names")

    @field_validator("source")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_url(value)

    @field_validator("match")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return None if value is None else _compiles(value)

    @model_validator(mode="after")
    def _consistent(self) -> ApiFamily:
        if self.relation in (MappingRelation.approximate, MappingRelation.none) and not self.caveat:
            raise ValueError(f"relation {self.relation.value!r} needs a caveat saying how the HIP side differs")
        return self

    def rule_name(self, name: str) -> str | None:
        """The HIP spelling the family's renaming rules give, or None when no rule applies."""
        for old, new in self.rename:
            if name.startswith(old):
                return new + name[len(old):]
        return None

    def entries(self) -> list[tuple[str, str | None]]:
        """Every listed CUDA name with its HIP equivalent (None: no equivalent)."""
        out: list[tuple[str, str | None]] = [(n, n) for n in self.same]
        out += [(n, self.rule_name(n)) for n in self.renamed]
        out += list(self.mapped.items())
        out += [(n, None) for n in self.unsupported]
        return out


@dataclass
class ApiTables:
    families: list[ApiFamily]
    sources: dict[str, LoadedYaml]
    problems: list[Problem]


def api_files(glossary_root: Path) -> list[Path]:
    folder = glossary_root / API_DIR
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load(glossary_root: Path, known_concepts: set[str] | None = None) -> ApiTables:
    """Read and validate every API table; problems carry file:line. Nothing here raises on bad data."""
    tables = ApiTables([], {}, [])
    seen: dict[str, tuple[str, int]] = {}
    for path in api_files(glossary_root):
        shown = _display(path, glossary_root)
        fam, loaded = load_validated(ApiFamily, path, shown, tables.problems)
        if fam is None or loaded is None:
            continue
        if fam.family != path.stem:
            tables.problems.append(Problem(shown, loaded.line_of(("family",)), f"family {fam.family!r} must match the file name {path.stem!r}"))
        for i, name in enumerate(fam.renamed):
            if fam.rule_name(name) is None:
                line = loaded.line_of(("renamed", i))
                tables.problems.append(Problem(shown, line, f"{name!r} is listed under 'renamed' but no rename rule matches it"))
        for section in ("same", "renamed", "unsupported", "mapped"):
            names = getattr(fam, section)
            for i, name in enumerate(names):
                line = loaded.line_of((section, name) if section == "mapped" else (section, i))
                if name in seen:
                    first = seen[name]
                    tables.problems.append(Problem(shown, line, f"{name!r} is listed twice (first in {first[0]}:{first[1]})"))
                else:
                    seen[name] = (shown, line)
        if known_concepts is not None:
            for prefix, cid in fam.concepts.items():
                if cid is not None and cid not in known_concepts:
                    tables.problems.append(Problem(shown, loaded.line_of(("concepts", prefix)), f"concepts.{prefix}: unknown concept {cid!r}"))
        tables.families.append(fam)
        tables.sources[fam.family] = loaded
    return tables
