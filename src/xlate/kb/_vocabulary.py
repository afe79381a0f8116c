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
from xlate.kb._yamlio import LoadedYaml, Problem, YamlError, load_yaml, validate

FOLDER = "vocabulary"
Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
# A debugger's command of several lowercase words (cuda-gdb's `info cuda warps`, ROCgdb's `info agents`):
# typed whole, so lookup matches it whole.
CommandWords = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(?: [a-z0-9_]+)+$")]
# A section heading of a vendor's API reference or guide ("Primary Context Management", "Memory/Pointer
# Ops"): several words as the page prints them; lookup matches it whole, case aside.
Heading = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9 /&+,'().:-]*[A-Za-z0-9)]$", max_length=90)]
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


# An option as a tool's help or reference spells it, leading dashes included and without its value.
Option = Annotated[str, StringConstraints(pattern=r"^--?[A-Za-z0-9][A-Za-z0-9_.+:-]*$")]
Command = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9._+-]*$")]


class OptionGroup(Strict):
    section: NonEmpty
    card: ConceptId | None  # None: an option about nothing GPU-specific (an output file, verbosity)
    options: list[Option]


class ToolOptions(Strict):
    """Every option of one command-line tool (nvcc, rocprofv3), each placed on the card its topic is."""

    tool: Command
    version: NonEmpty
    source: Url
    listed_by: NonEmpty  # how the list was read: the help output of a release, or a reference page
    groups: list[OptionGroup]


class NameGroup(Strict):
    section: NonEmpty
    card: ConceptId | None
    names: list[Identifier | Dotted | CommandWords | Heading]


class NameList(Strict):
    """Names that are neither a package's attributes nor a tool's options, each placed on a card: the
    environment variables a runtime reads (TRITON_DEBUG), the members of a struct (cudaDeviceProp's
    maxSharedMemoryPerMultiProcessor), a backend's compile options (enable_fp_fusion)."""

    names_of: NonEmpty  # what the names are, as lookup says it ("Triton environment variable")
    version: NonEmpty
    source: Url
    listed_by: NonEmpty  # how the list was read: an introspection, a header's struct, a source file
    groups: list[NameGroup]


class ErrorMessage(Strict):
    name: Identifier
    message: NonEmpty


class ErrorMessages(Strict):
    """The strings an API's error-string function returns, each with the error's name."""

    messages_of: NonEmpty
    version: NonEmpty
    source: Url
    listed_by: NonEmpty
    card: ConceptId  # the card for an error no symbol row spells
    errors: list[ErrorMessage]


@dataclass
class Vocabularies:
    packages: list[PackageVocabulary]
    families: list[NameFamily]
    tools: list[ToolOptions]
    errors: list[ErrorMessages]
    names: list[NameList]


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


def _kind(data: object) -> type[Strict]:
    """Which kind of vocabulary a file holds, from its telling key."""
    keys = data.keys() if isinstance(data, dict) else ()
    for key, model in (("families", NameFamilies), ("tool", ToolOptions), ("messages_of", ErrorMessages),
                       ("names_of", NameList)):
        if key in keys:
            return model
    return PackageVocabulary


@dataclass
class _FileChecks:
    """The checks every kind of vocabulary file shares, reporting at the line of what they find."""

    shown: str
    loaded: LoadedYaml
    cards: set[str]
    problems: list[Problem]

    def card_known(self, card: str | None, at: tuple[str | int, ...]) -> None:
        if card is not None and card not in self.cards:
            self.problems.append(Problem(self.shown, self.loaded.line_of(at), f"no concept {card!r}"))

    def listed_once(self, owner: str, field: str, groups: list[tuple[str | None, list[tuple[object, str]]]]) -> None:
        """Each group's card is a concept, and each key (a spelling, or a package's module and name) is
        listed once: the same one under two cards would make the answer depend on the order of the groups."""
        seen: set[object] = set()
        for g, (card, keyed) in enumerate(groups):
            self.card_known(card, ("groups", g, "card"))
            for key, name in keyed:
                if key in seen:
                    self.problems.append(Problem(self.shown, self.loaded.line_of(("groups", g, field)),
                                                 f"{name!r} is listed twice for {owner}"))
                seen.add(key)


def load(root: Path, cards: set[str], display: Callable[[Path], str], problems: list[Problem]) -> Vocabularies:
    """Every vocabulary file under `root`, validated: a package's names, name families (a file with a
    `families` list), a tool's options (`tool`), an API's error strings (`messages_of`) or other names
    (`names_of`: environment variables, struct members). A card no concept has, or a name listed twice in
    one module, tool or list, is a problem at its line."""
    out = Vocabularies([], [], [], [], [])
    for path in files(root):
        shown = display(path)
        try:
            loaded = load_yaml(path, shown)
        except YamlError as exc:
            problems.append(exc.problem)
            continue
        item, found = validate(_kind(loaded.data), loaded, shown)
        problems.extend(found)
        checks = _FileChecks(shown, loaded, cards, problems)
        if isinstance(item, NameFamilies):
            for f, family in enumerate(item.families):
                checks.card_known(family.card, ("families", f, "card"))
            out.families += item.families
        elif isinstance(item, ToolOptions):
            checks.listed_once(item.tool, "options", [(g.card, [(o, o) for o in g.options]) for g in item.groups])
            out.tools.append(item)
        elif isinstance(item, NameList):
            checks.listed_once(item.names_of, "names", [(g.card, [(n, n) for n in g.names]) for g in item.groups])
            out.names.append(item)
        elif isinstance(item, ErrorMessages):
            checks.card_known(item.card, ("card",))
            out.errors.append(item)
        elif isinstance(item, PackageVocabulary):
            # A name may repeat under another module or as another callable's keyword parameter.
            checks.listed_once(item.package, "names", [(g.card, [((g.parameters_of or g.module, n), n) for n in g.names])
                                                       for g in item.groups])
            out.packages.append(item)
    return out


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
