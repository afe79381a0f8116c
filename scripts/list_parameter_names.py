#!/usr/bin/env python3
"""Keyword parameters of the public functions of triton.language and MLX (mlx.core, its fast, random,
linalg and distributed modules, mlx.nn), read by introspection, with the card lookup gives each function:

    python3 scripts/list_parameter_names.py

prints `# triton X, mlx Y: N parameters` and then `CARD<TAB>PARAMETER<TAB>FUNCTIONS` for each parameter
name that says something on its own: it has an underscore (lhs_scale, communication_stream), no card or
row label spells it and lookup answers it with nothing yet, and every listed function that takes it lands
on the same card. Parameters of
functions lookup places on no card are left out. Run it with glossary/vocabulary/names-parameters.yaml
moved aside: lookup answers the names that file lists, so they would be left out as answered."""

from __future__ import annotations

import functools
import inspect
import io
import re
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

_SKIP = {"self", "cls", "_semantic", "_builder", "_generator", "kwargs", "args"}


def _functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    import mlx.core as mx
    import mlx.nn as nn
    import triton.language as tl

    spaces: list[tuple[str, Any]] = [("tl", tl), ("mx", mx), ("mx.fast", mx.fast), ("mx.random", mx.random),
                                     ("mx.linalg", mx.linalg), ("mx.distributed", mx.distributed), ("nn", nn)]
    for prefix, module in spaces:
        for name in sorted(dir(module)):
            obj = getattr(module, name, None)
            if name.startswith("_") or not callable(obj) or inspect.isclass(obj):
                continue
            yield f"{prefix}.{name}", obj


# A nanobind function (mlx.core) states its signature as its docstring's first line: add(a, b, /, *, stream=None).
_DOC_SIGNATURE = re.compile(r"^\w+\((.*)\)")
_DOC_PARAMETER = re.compile(r"(?:^|,)\s*\**([A-Za-z_]\w*)\s*(?=[:=,]|$)")


def _loose(name: str) -> str:
    """A name with case and separators aside, as the name lists are compared."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def parameters(fn: Callable[..., Any]) -> list[str]:
    """The named parameters of a callable, from its signature or, for a nanobind function, from the
    signature line its docstring opens with (none where neither can be read)."""
    try:
        sig = inspect.signature(fn)
        names = [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        doc = _DOC_SIGNATURE.match((getattr(fn, "__doc__", None) or "").strip())
        if doc is None:
            return []
        names = [m.group(1) for m in _DOC_PARAMETER.finditer(re.sub(r"\[[^\]]*\]", "", doc.group(1)))]
    return [n for n in names if n not in _SKIP]


def main() -> int:
    import mlx.core as mx
    import triton

    from xlate import kb, lookup

    index = kb.load_index()
    labels = {label.casefold() for label, _, _, _ in index["labels"]}
    # Names another list holds already, written otherwise (a_max is Composable Kernel's AMax).
    listed = {_loose(name) for name in index.get("vocabulary") or {}}

    @functools.cache  # a function is asked once, not once per parameter it takes
    def card(query: str) -> str | None:
        out = io.StringIO()
        if lookup.run(query, fmt="json", out=out) != 0:
            return None
        return (json.loads(out.getvalue())["matches"] or [{}])[0].get("concept")

    taken: dict[str, list[str]] = {}  # parameter -> the functions that take it
    for qualified, fn in _functions():
        for name in parameters(fn):
            if "_" in name.strip("_") and name.casefold() not in labels and _loose(name) not in listed \
                    and not kb.find_rows(index, name, None) \
                    and card(name) is None:  # a name lookup answers already (fast_math) keeps its answer
                taken.setdefault(name, []).append(qualified)
    rows = []
    for name, uses in sorted(taken.items()):
        cards = {card(qualified) for qualified in uses}
        if len(cards) == 1 and None not in cards:
            rows.append(f"{cards.pop()}\t{name}\t{','.join(uses)}")
    print(f"# triton {triton.__version__}, mlx {mx.__version__}: {len(rows)} parameters")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
