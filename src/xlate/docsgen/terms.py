"""Links from a definition's words to the other concepts they name (titles, aliases, abbreviations, symbols)."""

from __future__ import annotations

import re
from collections.abc import Callable

from xlate.docsgen.text import escape
from xlate.kb import Glossary
from xlate.kb import Concept

MIN_LENGTH = 3  # shorter words ("SM" aside, see below) are too ambiguous to link
MAX_LINKS = 14
_WORD = re.compile(r"\w[\w-]*\w|\w")


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())  # per definition: a definition, not a link farm


class Linker:
    """One regular expression over every concept's words; built once per site, asked once per definition."""

    def __init__(self, g: Glossary, href: Callable[[Concept, Concept], str]) -> None:
        self.g, self.href = g, href
        words: dict[str, str] = {}  # casefolded word -> concept id (first claim wins; titles claim first)
        exact: dict[str, str] = {}  # abbreviations, matched case-sensitively
        self.symbols: dict[str, str] = {}
        for c in sorted(g.concepts.values(), key=lambda c: c.id):
            for w in [c.title, *c.aliases]:
                if len(w) >= MIN_LENGTH:
                    words.setdefault(w.casefold(), c.id)
            for a in c.abbreviations:
                if len(a) >= 2 and a.isupper():
                    exact.setdefault(a, c.id)
            for backend in ("cuda", "hip", "metal", "triton", "mlx"):
                term = getattr(c.terms, backend)
                if term is None or term.relation.value == "none":
                    continue
                for s in term.symbols:
                    self.symbols.setdefault(s, c.id)
        self.words, self.exact = {_norm(w): cid for w, cid in words.items()}, exact
        # The most words of a phrase that starts with a given word: most words start none, so most
        # positions of a definition try one word, not as many as the longest phrase has.
        self.span: dict[str, int] = {}
        for w in self.words:
            first, n = w.split(" ", 1)[0], w.count(" ") + 1
            if n > 1:
                self.span[first] = max(self.span.get(first, 1), n)

    def _matches(self, fragment: str) -> list[tuple[int, int, str]]:
        """(start, end, concept id) of the longest glossary word or phrase at each position, left to right."""
        tokens = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(fragment)]
        out: list[tuple[int, int, str]] = []
        i = 0
        while i < len(tokens):
            hit = None
            # A phrase of several words matches only where its first word does (plurals change the last).
            most = self.span.get(tokens[i][2].casefold(), 1)
            for n in range(min(most, len(tokens) - i), 0, -1):
                words = [t[2] for t in tokens[i : i + n]]
                if n == 1 and words[0] in self.exact:
                    hit = (n, self.exact[words[0]])
                    break
                phrase = _norm(" ".join(words))
                cid = self.words.get(phrase)
                if cid is None and len(phrase) > 4:
                    for suffix in ("es", "s"):  # plurals: "warps", "caches"
                        if phrase.endswith(suffix) and (cid := self.words.get(phrase[: -len(suffix)])):
                            break
                if cid is not None:
                    hit = (n, cid)
                    break
            if hit is None:
                i += 1
                continue
            n, cid = hit
            out.append((tokens[i][0], tokens[i + n - 1][1], cid))
            i += n
        return out

    def for_concept(self, c: Concept) -> Callable[[str, bool], str | None]:
        seen: set[str] = {c.id}
        budget = [MAX_LINKS]

        def target(cid: str | None) -> Concept | None:
            if cid is None or cid in seen or budget[0] <= 0:
                return None
            seen.add(cid)
            budget[0] -= 1
            return self.g.concepts.get(cid)

        def link(fragment: str, is_code: bool) -> str | None:
            if is_code:
                t = target(self.symbols.get(fragment))
                return self.href(c, t) if t else None
            spans: list[tuple[int, int, str]] = []
            for a, b, cid in self._matches(fragment):
                t = target(cid)
                if t is not None:
                    spans.append((a, b, self.href(c, t)))
            if not spans:
                return None
            out, last = [], 0
            for a, b, href in sorted(spans):
                out.append(escape(fragment[last:a]))
                out.append(f"[{escape(fragment[a:b])}]({href})")
                last = b
            out.append(escape(fragment[last:]))
            return "".join(out)

        return link
