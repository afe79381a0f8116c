"""Turning glossary text into safe Markdown: HTML is escaped, code spans are kept as code."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_MD_SPECIAL = re.compile(r"([\\*_\[\]#|{}!])")


# Code names written in prose without backticks: spelled as code wherever they appear. Each pattern is a
# shape prose words do not have: an underscore inside a word (`num_warps`, `__syncthreads`, `sm_90a`), a
# lowercase word with a capital inside (`warpSize`, `hipMalloc`, `threadExecutionWidth`), a C++ attribute
# (`[[threads_per_simdgroup]]`), a call (`f()`), a scoped or dotted name (`mx.eval`, `threadIdx.x`,
# `cuda::pipeline`) and a compiler flag after a space (`-mwavefrontsize64`).
_IDENT = re.compile(
    r"\[\[\s*\w+(?:\([^()\]]*\))?\s*\]\]"
    # a code-like name called with arguments written without spaces: threadgroup_barrier(mem_flags::mem_threadgroup)
    r"|(?<![\w.`/#@-])(?:\w*_\w*|\w+(?:::\w+)+|[a-z]+[A-Z]\w*|[a-z]\w*(?:\.\w+)+)\([\w.:,&*<>]+\)"
    r"|(?<![\w.`/#-])-{1,2}[a-z][a-z0-9]*(?:[-=][a-z0-9_]+)*\d[a-z0-9]*(?![\w-])"
    r"|(?<![\w.`/#@-])(?:[A-Za-z_]\w*::)+\w+(?:\(\))?"
    r"|(?<![\w.`/#@-])(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*\(\)"
    r"|(?<![\w.`/#@-])(?:[a-z][a-z0-9]{0,7}|[a-z]+[A-Z]\w*)\.(?:[a-z_]\w*\.)*[a-z_]\w*(?![\w.]*\w/)(?=[^\w.]|\.(?!\w)|$)"
    r"|(?<![\w.`/#@-])\w*_\w*[A-Za-z0-9]\w*(?:\(\)|=[\w.]+)?"
    r"|(?<![\w.`/#@-])[a-z]+[A-Z][A-Za-z0-9]*(?:\(\))?"
    r"|(?<![\w.`/#@-])[A-Za-z]\w*\(\)"
)
# Words of that shape that are names, not code (brand spellings with an inner capital).
_NOT_CODE = frozenset({"macOS", "iOS", "iPadOS", "iPhone", "iPad", "visionOS", "tvOS", "watchOS", "eGPU", "e.g.", "i.e.",
                       "vs.", "etc.", "gfx", "mW", "kB", "kHz", "mV", "nJ", "pJ"})
# Dotted words that are prose, not a module path: abbreviations and file names are kept as text.
_DOTTED_PROSE = re.compile(r"^(?:e\.g|i\.e|cf|vs|etc|al|approx|resp|incl)\b|\.(?:h|hpp|cu|cuh|py|metal|mm|yaml|json|md|html|txt|so|dll|com|org|io|net|cpp|ko)$"
                          # product names with a lowercase prefix (cuBLAS, rocFFT, hipBLASLt, vLLM, xGMI)
                          r"|^[a-z]{1,4}[A-Z]{2,}[A-Za-z0-9]{0,6}$")


@functools.lru_cache(maxsize=65536)  # the same names recur on every table and page that lists them
def codify(text: str) -> str:
    """Wrap code names found in prose (outside existing code spans) in backticks, so they render as code."""
    if not text or not _IDENT.search(text):
        return text
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_codify_plain(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_codify_plain(text[last:]))
    return "".join(out)


def _codify_plain(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        word = m.group(0)
        if word in _NOT_CODE or _DOTTED_PROSE.search(word) or word.strip("_").isdigit() or word.startswith("_") and len(word) < 3:
            return word
        return f"`{word}`"

    return _IDENT.sub(sub, text)


@functools.lru_cache(maxsize=65536)
def prose(text: str | None) -> str:
    """Escape free text for Markdown: no raw HTML gets through, Markdown punctuation stays literal.

    Backtick code spans written in the glossary stay code spans (Markdown escapes their content), and
    code names written without backticks become code spans (codify).
    """
    if not text:
        return ""
    text = codify(text)
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
    text = codify(text)
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


# Words of rule names spelled as their owners spell them (the rest read as plain English).
_WORDS = {"ptx": "PTX", "fp64": "FP64", "l2": "L2", "64bit": "64-bit", "warpsize": "warpSize", "constexpr": "constexpr",
          "hip": "HIP", "cuda": "CUDA", "metal": "Metal", "arch": "arch"}


def rule_title(name: str) -> str:
    """'hardcoded-warp-size' -> 'Hardcoded warp size', 'inline-ptx' -> 'Inline PTX': a rule's name as a title."""
    words = [_WORDS.get(w, w) for w in name.split("-")]
    first = words[0]
    words[0] = first[:1].upper() + first[1:] if first == first.lower() else first
    return " ".join(words)
