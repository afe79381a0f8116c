"""Package vocabularies: the public names of a Python GPU package (triton.language, mlx.core) that no
card or symbol row spells, each with the section of the package's reference it belongs to and the card
that covers its topic, if any (glossary/vocabulary/*.yaml).

Lookup answers an exact spelling from here after every card and row spelling, so `tl.sort` reaches the
sorting card and `mx.reshape` is named for what it is instead of falling through to a fuzzy guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import StringConstraints, field_validator

from xlate.kb._model import ConceptId, NonEmpty, Strict, Url
from xlate.kb._yamlio import Problem, YamlError, load_yaml, validate

FOLDER = "vocabulary"
Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Dotted = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]


class VocabularyGroup(Strict):
    section: NonEmpty
    module: Dotted | None = None  # a submodule under the package (`random` for mx.random.X)
    # Keyword parameters of this callable (`autotune` for triton.autotune's reset_to_zero): code spells
    # them bare, so only distinctive ones belong here.
    parameters_of: Dotted | None = None
    header: NonEmpty | None = None  # where a non-Python API declares the names (a framework header and its release)
    card: ConceptId | None
    names: list[Identifier]

    @field_validator("names")
    @classmethod
    def _no_repeats(cls, names: list[str]) -> list[str]:
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"names listed twice: {', '.join(repeated)}")
        return names


class PackageVocabulary(Strict):
    package: Dotted
    version: NonEmpty
    # How code spells the package's names: `tl` and `triton.language`; none for an API whose names are
    # global (Metal's MTLHeap).
    namespaces: list[Dotted]
    source: Url
    groups: list[VocabularyGroup]


class NameFamily(Strict):
    """Names a tool builds from a fixed prefix: Nsight Compute's metrics (smsp__warps_launched.sum) or
    a ROCm hardware block's counters (SQ_WAVES)."""

    prefix: Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9]*_{1,2}$")]
    tool: NonEmpty
    unit: NonEmpty  # what the prefix names: the hardware unit the counter belongs to
    card: ConceptId
    source: Url


class NameFamilies(Strict):
    families: list[NameFamily]


@dataclass(frozen=True)
class VocabularyEntry:
    """One public name: its module path (mlx.core.random), bare name, section and card (None: no card);
    for a keyword parameter, the callable it belongs to (triton.autotune)."""

    module: str
    name: str
    section: str
    card: str | None
    parameter_of: str | None = None

    @property
    def qualified(self) -> str:
        if self.parameter_of:
            return f"{self.parameter_of}({self.name}=...)"
        return f"{self.module}.{self.name}"


def files(root: Path) -> list[Path]:
    folder = root / FOLDER
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load(root: Path, cards: set[str], display: Callable[[Path], str],
         problems: list[Problem]) -> tuple[list[PackageVocabulary], list[NameFamily]]:
    """Every vocabulary file under `root`, validated: a package's names, or name families (a file with
    a `families` list). A card no concept has, or a name listed twice in one module, is a problem at its
    line."""
    packages: list[PackageVocabulary] = []
    families: list[NameFamily] = []
    for path in files(root):
        shown = display(path)
        try:
            loaded = load_yaml(path, shown)
        except YamlError as exc:
            problems.append(exc.problem)
            continue
        is_families = isinstance(loaded.data, dict) and "families" in loaded.data
        item, found = validate(NameFamilies if is_families else PackageVocabulary, loaded, shown)
        problems.extend(found)
        if item is None:
            continue
        if isinstance(item, NameFamilies):
            for f, family in enumerate(item.families):
                if family.card not in cards:
                    problems.append(Problem(shown, loaded.line_of(("families", f, "card")), f"no concept {family.card!r}"))
            families += item.families
            continue
        seen: set[tuple[str | None, str]] = set()
        for g, group in enumerate(item.groups):
            where = group.parameters_of or group.module
            if group.card is not None and group.card not in cards:
                problems.append(Problem(shown, loaded.line_of(("groups", g, "card")), f"no concept {group.card!r}"))
            for name in group.names:
                if (where, name) in seen:
                    problems.append(Problem(shown, loaded.line_of(("groups", g, "names")),
                                            f"{name!r} is listed twice for {item.package}"))
                seen.add((where, name))
        packages.append(item)
    return packages, families


def entries(vocab: PackageVocabulary) -> list[VocabularyEntry]:
    out = []
    for g in vocab.groups:
        module = f"{vocab.package}.{g.module}" if g.module else vocab.package
        owner = f"{module}.{g.parameters_of}" if g.parameters_of else None
        out += [VocabularyEntry(module, name, g.section, g.card, owner) for name in g.names]
    return out


def spelling(vocab: PackageVocabulary, entry: VocabularyEntry, namespace: str | None = None) -> str:
    """How code writes a listed name: bare for a keyword parameter or a global API's name (Metal's),
    else under `namespace` (by default the package's first: tl.sort, mx.random.gumbel)."""
    if entry.parameter_of or not vocab.namespaces:
        return entry.name
    inner = entry.module[len(vocab.package):]  # ".random" or ""
    return f"{namespace or vocab.namespaces[0]}{inner}.{entry.name}"


def spellings(vocab: PackageVocabulary) -> dict[str, VocabularyEntry]:
    """Each way code spells a listed name (tl.sort, triton.language.sort) -> its entry."""
    namespaces: list[str | None] = list(vocab.namespaces) or [None]
    return {spelling(vocab, entry, ns): entry for entry in entries(vocab) for ns in namespaces}
