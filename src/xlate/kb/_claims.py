"""`xlate glossary claims`: the non-trivial claims in the glossary's prose, and which carry evidence.

A claim is one sentence of a concept's summary or a term's caveat, names or `since`, or of a GPU sheet's
notes, that states something checkable: a number, a version, a default, a "does not exist" or an
"only". It is backed when an `evidence:` entry of the same item names its field and quotes a fragment of
it (the models reject quotes that are no longer in the text). The listing is what an audit samples from
(`scripts/audit_sample.py`) and what a reviewer works down; it is a report, not a check that fails.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from xlate.kb import _glossary as gl
from xlate.kb._model import Concept, Evidence, GpuSpec

# What makes a sentence checkable rather than descriptive. Kept broad on purpose: a claim listed by
# mistake costs a reviewer a second; a claim missed is never checked.
_CHECKABLE = re.compile(
    r"\d"  # numbers, versions, sm_90a, gfx942, MSL 3.2
    r"|\b(?:no|not|none|never|only|cannot|can't|without|lacks?|nothing|neither|nor)\b"
    r"|\b(?:default|defaults|deprecated|removed|since|requires?|must|always)\b"
    r"|n't\b",
    re.IGNORECASE,
)
# A sentence ends at . ! ? followed by a space and a capital, a backtick or a digit; "e.g. the" stays whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\d(])")
TERM_FIELDS = ("caveat", "since")


@dataclass(frozen=True)
class Claim:
    item: str  # concept or GPU sheet id
    file: str
    line: int
    field: str  # summary, notes, hip.caveat, cuda.since, l2_cache_mb.note
    text: str
    evidence: list[dict[str, Any]] = dc_field(default_factory=list)
    # Where the claim can be checked: the evidence's URL, header or command first, then the source the
    # field itself carries (a term's docs, a figure's source, a symbol side's source).
    sources: list[str] = dc_field(default_factory=list)

    @property
    def key(self) -> str:
        """Stable identity for sampling: the item, the field and the sentence's text."""
        return f"{self.item}|{self.field}|{self.text}"


def sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s for s in _SENTENCE_END.split(flat) if s]


def is_checkable(sentence: str) -> bool:
    return bool(_CHECKABLE.search(sentence))


def _norm(text: str) -> str:
    return " ".join(text.split())


def _backing(sentence: str, fld: str, evidence: list[Evidence]) -> list[dict[str, Any]]:
    out = []
    for ev in evidence:
        if ev.field != fld:
            continue
        quote = _norm(ev.quote)
        if quote in sentence or sentence in quote:
            out.append({k: v for k, v in ev.model_dump().items() if v is not None and k not in ("field", "quote")})
    return out


def _fields(item: Concept | GpuSpec) -> list[tuple[str, tuple[str, ...], str, list[str]]]:
    """(field name, YAML path, text, the field's own sources) of every prose field that can hold claims."""
    out: list[tuple[str, tuple[str, ...], str, list[str]]] = []
    if isinstance(item, Concept):
        out.append(("summary", ("summary",), item.summary, []))
        for backend, term in item.terms.items():
            for name in TERM_FIELDS:
                value = getattr(term, name)
                if value:
                    out.append((f"{backend.value}.{name}", ("terms", backend.value, name), value, list(term.docs)))
    else:
        for name in type(item).model_fields:
            value = getattr(item, name)
            note = getattr(value, "note", None)
            if isinstance(note, str):
                src = getattr(value, "source", None)
                out.append((f"{name}.note", (name, "note"), note, [src] if src else []))
        if item.notes:
            out.append(("notes", ("notes",), item.notes, []))
    return out


# Words by which a summary or notes sentence says whose fact it states; the sentence can then be
# checked in that backend's documentation, which the concept's term for it lists.
_VENDOR_WORDS = {
    "cuda": re.compile(r"\b(?:NVIDIA|CUDA|PTX|SASS|sm_\d+a?|Volta|Turing|Ampere|Hopper|Blackwell|Ada|H100|H200|B200|A100|nvcc|cu[A-Z]\w+|Nsight)\b"),
    "hip": re.compile(r"\b(?:AMD|HIP|ROCm|CDNA\d?|RDNA\d?|gfx\d+\w*|MI\d+\w*|hipcc|rocprof\w*|LDS|wavefronts?|MFMA)\b"),
    "metal": re.compile(r"\b(?:Apple|Metal|MSL|M[1-5](?: (?:Pro|Max|Ultra))?|SIMD-groups?|threadgroups?)\b"),
    "triton": re.compile(r"\b(?:Triton|tl\.\w+)\b"),
    "mlx": re.compile(r"\b(?:MLX|mx\.\w+)\b"),
}


def _summary_sources(sentence: str, item: Concept) -> list[str]:
    """The docs of each backend a summary sentence names (by vendor, product or API words)."""
    out: list[str] = []
    for backend, term in item.terms.items():
        words = _VENDOR_WORDS.get(backend.value)
        if words is not None and words.search(sentence):
            out += [d for d in term.docs if d not in out]
    return out


def _where(ev: dict[str, Any]) -> list[str]:
    return [str(ev[k]) for k in ("url", "header", "command") if ev.get(k)]


def collect(g: gl.Glossary) -> list[Claim]:
    """Every checkable sentence of the glossary, in file order."""
    claims: list[Claim] = []
    items: list[Concept | GpuSpec] = [*g.concepts.values(), *g.gpus.values()]
    for item in items:
        loaded = g.sources.get(item.id)
        display = g.where(item.id)[0] if loaded is not None else item.id
        for fld, loc, text, own in _fields(item):
            line = loaded.line_of(loc) if loaded is not None else 1
            # `since` is one claim by definition: it is a version.
            parts = [_norm(text)] if fld.endswith(".since") else sentences(text)
            for sentence in parts:
                if fld.endswith(".since") or is_checkable(sentence):
                    backing = _backing(sentence, fld, item.evidence)
                    where = [w for ev in backing for w in _where(ev)] + own
                    if fld == "summary" and isinstance(item, Concept):
                        where += _summary_sources(sentence, item)
                    claims.append(Claim(item.id, display, line, fld, sentence, backing, where))
    return claims


def collect_rows(g: gl.Glossary) -> list[Claim]:
    """The checkable sentences of hand-written symbol-row sides (caveat and since), each with the side's
    source. HIPIFY's imported sides are AMD's own tables and hold no prose of the glossary's."""
    claims: list[Claim] = []
    for cuda, row in g.rows.items():
        for backend, side in row["sides"].items():
            if side.get("origin") == "hipify":
                continue
            where = side.get("where")
            display, line = (where[0], where[1]) if where else (f"glossary/api/{row.get('family') or ''}", 1)
            # The side's source, then the sources of its per-ROCm-version facts (a probe, a header line).
            own = ([side["source"]] if side.get("source") else []) + [f["source"] for f in side.get("rocm") or [] if f.get("source")]
            for name in ("caveat", "since"):
                text = side.get(name)
                if not text:
                    continue
                parts = [_norm(text)] if name == "since" else sentences(text)
                for sentence in parts:
                    if name == "since" or is_checkable(sentence):
                        claims.append(Claim(cuda, display, line, f"{backend}.{name}", sentence, [], own))
    return claims


@dataclass(frozen=True)
class Share:
    group: str
    claims: int
    with_source: int
    with_evidence: int  # a quote-anchored evidence entry (concepts and sheets only)

    @property
    def percent(self) -> float:
        return 100.0 * self.with_source / self.claims if self.claims else 100.0


def shares(g: gl.Glossary) -> list[Share]:
    """Per group (concepts, GPU spec sheets, symbol rows): how many claims name where they can be checked."""
    items = collect(g)
    groups = {"concepts": [c for c in items if c.item in g.concepts],
              "spec sheets": [c for c in items if c.item in g.gpus],
              "symbol rows": collect_rows(g)}
    return [Share(name, len(cs), sum(1 for c in cs if c.sources), sum(1 for c in cs if c.evidence)) for name, cs in groups.items()]


def run(root: Path, show: str = "missing", fmt: str = "text", max_missing: int | None = None) -> int:
    """Print the claims (`missing`: those without evidence; `all`; `backed`) and a count."""
    g = gl.load(root)
    if g.problems:
        from xlate.errors import GlossaryError

        raise GlossaryError(f"the glossary has {len(g.problems)} problem(s), the first {g.problems[0]}")
    claims = collect(g)
    missing = [c for c in claims if not c.evidence]
    chosen = {"missing": missing, "all": claims, "backed": [c for c in claims if c.evidence]}[show]
    if fmt == "json":
        payload = {"claims": len(claims), "with_evidence": len(claims) - len(missing), "without_evidence": len(missing),
                   "shares": [{**asdict(sh), "percent": round(sh.percent, 1)} for sh in shares(g)],
                   "listed": [asdict(c) for c in chosen]}
        print(json.dumps(payload, indent=1))
    else:
        for c in chosen:
            mark = "" if c.evidence else "no evidence: "
            print(f"{c.file}:{c.line}: {c.field}: {mark}{c.text}")
        print(f"{len(claims)} claims, {len(claims) - len(missing)} with evidence, {len(missing)} without", file=sys.stderr)
        for sh in shares(g):
            print(f"{sh.group}: {sh.with_source} of {sh.claims} claims name a source ({sh.percent:.1f}%), "
                  f"{sh.with_evidence} with quote-anchored evidence", file=sys.stderr)
    if max_missing is not None and len(missing) > max_missing:
        print(f"error: {len(missing)} claims without evidence, more than the allowed {max_missing}", file=sys.stderr)
        return 1
    return 0
