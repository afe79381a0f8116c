"""Typed models of the glossary data: concepts, backend terms, relations and GPU spec sheets.

These models are the schema. `glossary/schema.json` is exported from them (`xlate glossary schema`)
so that editors validate the YAML while people type.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated
from urllib.parse import urlparse

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
ConceptId = Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=80)]
NonEmpty = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


def check_url(url: str) -> str:
    """Accept only absolute https URLs with a host; documentation links must be real addresses."""
    parsed = urlparse(url)
    if parsed.scheme != "https" or not parsed.netloc or any(ch in url for ch in ' <>"\'`\\{}|^'):
        raise ValueError(f"not a well-formed https URL: {url!r}")
    return url


Url = Annotated[str, StringConstraints(pattern=r"^https://[^\s<>\"'`\\{}|^]+$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Backend(str, Enum):
    cuda = "cuda"
    hip = "hip"
    metal = "metal"
    triton = "triton"
    mlx = "mlx"


REQUIRED_BACKENDS = (Backend.cuda, Backend.hip, Backend.metal)


class Category(str, Enum):
    hardware = "hardware"
    execution_model = "execution-model"
    memory = "memory"
    synchronization = "synchronization"
    warp_ops = "warp-ops"
    matrix = "matrix"
    host_api = "host-api"
    toolchain = "toolchain"
    libraries = "libraries"
    profiling = "profiling"
    interconnect = "interconnect"


class MappingRelation(str, Enum):
    """How faithfully a backend's term renders the concept (for most concepts: the CUDA term)."""

    same = "same"  # same name and same behaviour
    renamed = "renamed"  # another spelling, same behaviour
    approximate = "approximate"  # closest equivalent; behaviour differs (the caveat says how)
    none = "none"  # no equivalent (the caveat says why and what to do instead)


class Evidence(Strict):
    """Where one non-trivial claim (a number, a version, a default, a "does not exist") is shown.

    `quote` is a verbatim fragment of the sentence it backs, inside `field` of the same concept
    (`summary`, `hip.caveat`, `cuda.since`, `notes` ...), so evidence goes stale loudly when the
    prose changes. At least one of `url`, `header`, `command` says where the claim is shown.
    """

    field: NonEmpty = Field(description="Where the claim is: summary, notes, or <backend>.caveat / .since / .names")
    quote: NonEmpty = Field(description="Verbatim fragment of the claim's sentence in that field")
    url: Url | None = Field(default=None, description="A page that states the claim")
    header: NonEmpty | None = Field(default=None, description="Header file and line, with its version: 'hip/amd_detail/x.h:24 (HIP 7.1)'")
    command: NonEmpty | None = Field(default=None, description="A command that showed it, and what it showed")
    test: NonEmpty | None = Field(default=None, description="The test that reruns the command, tests/<file>::<name>")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value)

    @model_validator(mode="after")
    def _shown(self) -> Evidence:
        if not (self.url or self.header or self.command):
            raise ValueError("evidence needs a url, a header or a command")
        return self


def evidence_field_text(item: BaseModel, field: str) -> str | None:
    """The text of `field` ('summary', 'notes', 'hip.caveat', 'cuda.names') on a concept or sheet."""
    obj: object = item
    for part in field.split("."):
        if isinstance(obj, BaseModel) and part in type(obj).model_fields:
            obj = getattr(obj, part)
        elif isinstance(obj, BaseModel) and hasattr(obj, "terms") and part in Terms.model_fields:
            obj = getattr(obj.terms, part)  # `hip.caveat` is short for `terms.hip.caveat`
        else:
            return None
        if obj is None:
            return None
    if isinstance(obj, list):
        return " ".join(str(x) for x in obj)
    return obj if isinstance(obj, str) else None


def _check_quotes(item: BaseModel, evidence: list[Evidence]) -> None:
    for ev in evidence:
        text = evidence_field_text(item, ev.field)
        if text is None:
            raise ValueError(f"evidence field {ev.field!r} is not a text field of this item")
        if " ".join(ev.quote.split()) not in " ".join(text.split()):
            raise ValueError(f"evidence quote {ev.quote!r} is not in {ev.field} (stale evidence?)")


class Term(Strict):
    """What one backend calls a concept, and how faithful that mapping is."""

    names: list[NonEmpty] = Field(default_factory=list, description="What people say and write in prose")
    symbols: list[NonEmpty] = Field(default_factory=list, description="Exact code spellings")
    relation: MappingRelation = Field(description="Relation of this term to the concept as the CUDA term defines it")
    caveat: str | None = Field(default=None, description="Where the mapping is not one-to-one; for `none`, why")
    since: str | None = Field(default=None, description="Version that introduced or changed it, e.g. 'ROCm 6.2'")
    docs: list[Url] = Field(default_factory=list, description="Official documentation URLs")

    @field_validator("docs")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        return [check_url(u) for u in value]

    @model_validator(mode="after")
    def _complete(self) -> Term:
        if self.relation is MappingRelation.none:
            if not self.caveat:
                raise ValueError("relation 'none' needs a caveat saying why there is no equivalent")
            return self
        if not (self.names or self.symbols):
            raise ValueError(f"relation '{self.relation.value}' needs at least one name or symbol")
        if not self.docs:
            raise ValueError("a term with an equivalent needs at least one official documentation URL")
        if self.relation is MappingRelation.approximate and not self.caveat:
            raise ValueError("relation 'approximate' needs a caveat saying how behaviour differs")
        return self


class Terms(Strict):
    cuda: Term
    hip: Term
    metal: Term
    triton: Term | None = None
    mlx: Term | None = None

    def items(self) -> list[tuple[Backend, Term]]:
        out = []
        for backend in Backend:
            term = getattr(self, backend.value)
            if term is not None:
                out.append((backend, term))
        return out


class EdgeType(str, Enum):
    part_of = "part-of"
    uses = "uses"
    contrasts_with = "contrasts-with"
    implemented_by = "implemented-by"
    see_also = "see-also"


# Symmetric edges must be written on both concepts; directed edges are written once and the
# graph derives the reverse reading ("has part", "used by", "implements").
SYMMETRIC_EDGES = frozenset({EdgeType.contrasts_with, EdgeType.see_also})
REVERSE_LABEL = {
    EdgeType.part_of: "has part",
    EdgeType.uses: "used by",
    EdgeType.implemented_by: "implements",
    EdgeType.contrasts_with: "contrasts with",
    EdgeType.see_also: "see also",
}


class Edge(Strict):
    type: EdgeType
    target: ConceptId
    note: str | None = None


class Concept(Strict):
    id: ConceptId
    title: NonEmpty
    category: Category
    aliases: list[NonEmpty] = Field(default_factory=list)
    abbreviations: list[NonEmpty] = Field(default_factory=list)
    summary: Annotated[str, StringConstraints(min_length=60, max_length=1400)]
    terms: Terms
    relations: list[Edge] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="Sources of the non-trivial claims in the prose")

    @model_validator(mode="after")
    def _quotes(self) -> Concept:
        _check_quotes(self, self.evidence)
        return self

    @field_validator("summary")
    @classmethod
    def _sentences(cls, value: str) -> str:
        # Rough count: sentence ends followed by a space or the end. Abbreviations like "e.g."
        # are rare in summaries; 2 to 6 sentences keeps a card short and dense.
        count = len(re.findall(r"[.!?](?:\s|$)", value.strip()))
        if not 2 <= count <= 7:
            raise ValueError(f"summary should be 2 to 6 sentences, found about {count}")
        return value


# --- GPU spec sheets ---------------------------------------------------------------------------


class Vendor(str, Enum):
    nvidia = "nvidia"
    amd = "amd"
    apple = "apple"


class Figure(Strict):
    """One published figure with where it comes from. `value: null` needs a note saying why."""

    value: float | None
    source: Url | None = None
    note: str | None = None

    @field_validator("source")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value)

    @model_validator(mode="after")
    def _sourced(self) -> Figure:
        if self.value is None and not self.note:
            raise ValueError("a figure without a value needs a note saying why")
        if self.value is not None and not self.source:
            raise ValueError("a figure needs a source URL")
        return self


class GpuSpec(Strict):
    id: ConceptId
    name: NonEmpty
    vendor: Vendor
    architecture: NonEmpty
    aliases: list[NonEmpty] = Field(default_factory=list)
    compute_unit_name: NonEmpty = Field(description="SM, CU or GPU core")
    compute_units: Figure
    wave_size: Figure
    memory_gb: Figure
    memory_bandwidth_tbs: Figure = Field(description="TB/s")
    bf16_dense_tflops: Figure
    fp16_dense_tflops: Figure
    fp8_dense_tflops: Figure
    shared_memory_per_cu_kb: Figure = Field(description="shared memory / LDS / threadgroup memory per SM/CU, KiB")
    l2_cache_mb: Figure
    last_level_cache_mb: Figure = Field(description="Infinity Cache / system level cache; null where none")
    power_w: Figure
    notes: str | None = None
    evidence: list[Evidence] = Field(default_factory=list, description="Sources of the non-trivial claims in the notes")

    @model_validator(mode="after")
    def _quotes(self) -> GpuSpec:
        _check_quotes(self, self.evidence)
        return self
