"""Which names found by a library's naming rule are really that library's API.

The symbol map resolves a name it has no row for through a family's prefix (`cudnn`, `CUDNN_`,
`cublas`, ...): `cudnnFrobnicate` is taken as a cuDNN function that HIP lacks. A prefix alone says
too little: `CUDNN_ATT_H` is a user's include guard and `cudnn_handle` a user's variable. Such a
derived name counts only when it has the shape of the library's names and the project does not
define it itself. Names the tables list are never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["api_shaped", "defined_names", "is_definition", "keep_entry", "user_defined"]

# Node types in which a name is being declared or defined rather than used.
_DEFINING_PARENTS = frozenset({
    "init_declarator", "pointer_declarator", "array_declarator", "function_declarator", "reference_declarator",
    "parameter_declaration", "optional_parameter_declaration", "field_declaration", "preproc_def",
    "preproc_function_def", "preproc_ifdef", "enumerator", "struct_specifier", "class_specifier",
    "type_definition", "alias_declaration", "namespace_definition",
})
_GUARD_SUFFIX = re.compile(r"_(H|HH|HPP|HXX|CUH|INL|INCLUDED|H_INCLUDED|HPP_INCLUDED)_*$")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*(?:define|ifndef|ifdef|undef)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


def _prefix_of(name: str, prefixes: Iterable[bytes]) -> str:
    """The longest family prefix the name starts with ("" when none)."""
    raw = name.encode("ascii", errors="replace")
    best = b""
    for p in prefixes:
        if raw.startswith(p) and len(p) > len(best):
            best = p
    return best.decode("ascii", errors="replace")


def api_shaped(name: str, prefixes: Iterable[bytes]) -> bool:
    """Whether a name derived from a family prefix looks like that family's own names:
    `cudnnConvolutionForward` (lower-case prefix, then an upper-case letter or digit),
    `CUDNN_STATUS_SUCCESS` (upper-case prefix, upper-case rest, not an include guard), or a name
    inside the family's namespace (`thrust::device_vector`)."""
    if "::" in name:
        return True
    prefix = _prefix_of(name, prefixes)
    rest = name[len(prefix):]
    if not prefix or not rest:
        return bool(prefix)
    if prefix[-1].islower():
        return rest[0].isupper() or rest[0].isdigit()
    return name.upper() == name and not _GUARD_SUFFIX.search(name)


def is_definition(node: Any, parent_of: Any) -> bool:
    """Whether a name node is the name being declared or defined (a variable, a macro, a guard)."""
    parent = parent_of(node) if node is not None else None
    return parent is not None and parent.type in _DEFINING_PARENTS


def defined_names(source: bytes) -> set[str]:
    """Macro names a file defines or tests with #ifndef/#ifdef (include guards included)."""
    return {m.group(1).decode("ascii") for m in _DEFINE.finditer(source)} if b"#" in source else set()


def user_defined(found: list[tuple[Any, Any]], source: bytes, parent_of: Any) -> set[str]:
    """Derived names that this file itself defines: as a macro or guard, or by declaring them."""
    derived = {o[2] for o, e in found if getattr(e, "derived", False)}
    if not derived:
        return set()
    out = derived & defined_names(source)
    for o, _entry in found:
        if o[2] in derived and o[2] not in out and is_definition(o[6], parent_of):
            out.add(o[2])
    return out


def keep_entry(symbol: str, entry: Any, prefixes: Iterable[bytes], user_names: set[str] | frozenset[str]) -> bool:
    """Whether an occurrence resolved to `entry` is a use of the library's API."""
    if not getattr(entry, "derived", False):
        return True
    return symbol not in user_names and api_shaped(symbol, prefixes)


def filter_found(found: list[tuple[Any, Any]], source: bytes, smap: Any, locator: Any,
                 project_names: frozenset[str] = frozenset()) -> list[tuple[Any, Any]]:
    """The (occurrence, entry) pairs of a file without the derived names that are not API uses
    (see keep_entry); the file's own definitions and the project's (`project_names`) count."""
    if not any(getattr(e, "derived", False) for _, e in found):
        return found
    names = user_defined(found, source, locator.parent) | project_names
    prefixes = smap.prefix_bytes
    return [(o, e) for o, e in found if keep_entry(o[2], e, prefixes, names)]
