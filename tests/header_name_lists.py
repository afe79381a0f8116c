"""Checks every name list extracted from a library's headers shares (names-cutlass.yaml,
names-composable-kernel.yaml): the extract is a tab-separated file in tests/data (FOLDER, HEADER, KIND, NAME
after a `#` line naming the repository and commit), each group's section starts with the folder its names
come from, and the list's own test gives the topic rule (`card_of`) and the reasons a name is left out
(`left_out`). Each listed name is extracted in its group's folder, on the card the rule gives, and not left
out; no listed name is spelled by a card, a row or another list; and every extracted name is listed,
answered already with its card, or left out."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from conftest import glossary_without_rows
from xlate import kb

CardRule = Callable[[str, str, str], str]
LeftOutRule = Callable[[str, str, str], "str | None"]


@cache
def _index() -> kb.Index:
    return kb.load_index()


@cache
def _labels() -> frozenset[str]:
    return frozenset(label.casefold() for label, _, _, _ in _index()["labels"])


def loose(name: str) -> str:
    """A name as lookup compares spellings: its last dotted part, case and separators aside
    (ttng.cluster_barrier and ClusterBarrier alike)."""
    return re.sub(r"[^a-z0-9]", "", name.rsplit(".", 1)[-1].casefold())


@dataclass(frozen=True)
class HeaderNameList:
    names_of: str
    extract: Path
    card_of: CardRule
    left_out: LeftOutRule
    _cache: dict[str, object] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def rows(self) -> list[tuple[str, str, str, str]]:
        """The extract's (folder, header, kind, name) lines."""
        if "rows" not in self._cache:
            lines = self.extract.read_text(encoding="utf-8").splitlines()
            self._cache["rows"] = [tuple(line.split("\t")) for line in lines if not line.startswith("#")]
        return self._cache["rows"]  # type: ignore[return-value]

    def listed(self) -> dict[str, tuple[str, str | None]]:
        """Each listed name -> (its group's folder, its card)."""
        names = {n.names_of: n for n in glossary_without_rows().name_lists}[self.names_of]
        return {n: (g.section.split(":", 1)[0], g.card) for g in names.groups for n in g.names}

    def _other_lists(self) -> frozenset[str]:
        if "other" not in self._cache:
            self._cache["other"] = frozenset(
                loose(n) for names in glossary_without_rows().name_lists if names.names_of != self.names_of
                for g in names.groups for n in g.names)
        return self._cache["other"]  # type: ignore[return-value]

    def spelled_elsewhere(self, name: str) -> bool:
        """A card or row spells the name, or another name list holds it (case and separators aside):
        lookup answers it from there."""
        return name.casefold() in _labels() or loose(name) in self._other_lists() or bool(kb.find_rows(_index(), name, None))

    def misplaced(self) -> dict[str, object]:
        """Listed names not extracted in their group's folder, on another card than the rule's, or left out."""
        where = {(f, n): h for f, h, _, n in self.rows()}
        wrong: dict[str, object] = {}
        for name, (folder, card) in self.listed().items():
            if (folder, name) not in where:
                wrong[name] = (folder, "not extracted there")
                continue
            header = where[folder, name]
            if card != self.card_of(folder, header, name):
                wrong[name] = (card, self.card_of(folder, header, name))
            elif self.left_out(folder, header, name):
                wrong[name] = self.left_out(folder, header, name)
        return wrong

    def spelled_twice(self) -> list[str]:
        return [name for name in self.listed() if self.spelled_elsewhere(name)]

    def unanswered(self) -> dict[str, tuple[str, str | None]]:
        """Extracted names neither listed, left out nor spelled elsewhere whose first answer is not the
        rule's card: (the rule's card, lookup's first card)."""
        listed = self.listed()
        first: dict[str, tuple[str, str]] = {}
        for folder, header, _, name in self.rows():
            first.setdefault(name, (folder, header))
        out = {}
        for name, (folder, header) in first.items():
            if name in listed or self.left_out(folder, header, name) or self.spelled_elsewhere(name):
                continue
            top = kb.search(_index(), name, limit=1)
            if not top or top[0].concept != self.card_of(folder, header, name):
                out[name] = (self.card_of(folder, header, name), top[0].concept if top else None)
        return out
