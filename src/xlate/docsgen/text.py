"""Turning glossary text into safe Markdown: HTML is escaped, code spans are kept as code."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_MD_SPECIAL = re.compile(r"([\\*_\[\]#|{}!])")


def prose(text: str | None) -> str:
    """Escape free text for Markdown: no raw HTML gets through, Markdown punctuation stays literal.

    Backtick code spans written in the glossary stay code spans (Markdown escapes their content).
    """
    if not text:
        return ""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape(text[last : m.start()]))
        out.append(code(m.group(2)))
        last = m.end()
    out.append(_escape(text[last:]))
    return " ".join("".join(out).split())


def _escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def code(text: str) -> str:
    """An inline code span that survives backticks and table pipes inside the text."""
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def attr(text: str) -> str:
    """Escape text for an HTML attribute or element body (used in inline SVG)."""
    return html.escape(text, quote=True)


def table_cell(text: str) -> str:
    """Prose for a table cell: pipes would split the cell, newlines would end the row."""
    return prose(text).replace("|", "\\|")


def prose_linked(text: str | None, link: Callable[[str, bool], str | None]) -> str:
    """Like prose(), with glossary terms turned into links.

    `link(fragment, is_code)` is asked about every code span (is_code=True, the span's content) and about
    the plain text between them (is_code=False); for plain text it returns the text with its own links
    already written (escaped), or None to leave it to prose().
    """
    if not text:
        return ""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        plain = text[last : m.start()]
        out.append(link(plain, False) or _escape(plain))
        target = link(m.group(2), True)
        out.append(f"[{code(m.group(2))}]({target})" if target else code(m.group(2)))
        last = m.end()
    plain = text[last:]
    out.append(link(plain, False) or _escape(plain))
    return " ".join("".join(out).split())


def escape(text: str) -> str:
    """Plain text made literal for Markdown (HTML escaped, Markdown punctuation backslashed)."""
    return _escape(text)
