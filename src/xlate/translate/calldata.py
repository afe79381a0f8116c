"""glossary/translate/calls.yaml: how a call's arguments change when its row's HIP name is written.

Four parts, each keyed by the CUDA spelling: `append` (arguments a HIP builtin needs beyond the
CUDA call's), `pointee` (pointee types of the first argument for which the CUDA name stays or
neither spelling compiles), `erase` (macros with no HIP spelling that expand to nothing where HIP
runs) and `function_address` (the kernel argument HIP takes as `const void*`). The names written still come from the rows; this file never names a HIP function to call.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

_PARTS = {"append": {"hip": str, "arity": int, "arguments": list, "source": str},
          "pointee": {"keep": list, "row_types": list, "source": str},
          "erase": {"source": str},
          "function_address": {"index": int, "source": str}}
_NAME = re.compile(r"[A-Za-z_]\w*")
_TYPE = re.compile(r"[A-Za-z_]\w*(?: [A-Za-z_]\w*)*")


def data_path() -> Path:
    from xlate.paths import glossary_root

    return glossary_root() / "translate" / "calls.yaml"


@lru_cache(maxsize=1)
def _data() -> dict[str, dict[str, dict[str, Any]]]:
    """The file, checked: a malformed entry is a GlossaryError naming it (one line, no traceback)."""
    import yaml

    from xlate.errors import GlossaryError

    path = data_path()
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise GlossaryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise GlossaryError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or set(data) != set(_PARTS):
        raise GlossaryError(f"{path}: expected the mappings {', '.join(_PARTS)}")
    for part, keys in _PARTS.items():
        entries = data[part]
        if not isinstance(entries, dict):
            raise GlossaryError(f"{path}: `{part}` must map CUDA names to entries")
        for name, entry in entries.items():
            if not isinstance(entry, dict) or set(entry) != set(keys) or not all(isinstance(entry[k], t) for k, t in keys.items()):
                raise GlossaryError(f"{path}: {part}.{name}: expected exactly {', '.join(keys)}")
            if not _NAME.fullmatch(str(name)):
                raise GlossaryError(f"{path}: {part}.{name}: the key must be a C identifier")
            names = [entry["hip"], *entry["arguments"]] if part == "append" else []
            types = [*entry["keep"], *entry["row_types"]] if part == "pointee" else []
            if not all(isinstance(n, str) and _NAME.fullmatch(n) for n in names) or \
                    not all(isinstance(t, str) and _TYPE.fullmatch(t) for t in types):
                raise GlossaryError(f"{path}: {part}.{name}: names and types must be C spellings")
            if (part == "append" and entry["arity"] < 0) or (part == "function_address" and entry["index"] < 0):
                raise GlossaryError(f"{path}: {part}.{name}: arity and index must be 0 or more")
    return data


def append() -> dict[str, dict[str, Any]]:
    """CUDA name -> {hip, arity, arguments, source}."""
    return _data()["append"]


def pointee() -> dict[str, dict[str, Any]]:
    """CUDA name -> {keep, row_types, source}."""
    return _data()["pointee"]


def erase() -> dict[str, dict[str, Any]]:
    """CUDA macro -> {source}."""
    return _data()["erase"]


def function_address() -> dict[str, dict[str, Any]]:
    """CUDA call -> {index, source}: the argument that names a kernel."""
    return _data()["function_address"]
