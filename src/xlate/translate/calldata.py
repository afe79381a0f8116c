"""glossary/translate/calls.yaml: how a call's arguments change when its row's HIP name is written.

Ten parts, each keyed by the CUDA spelling: `append` (arguments a HIP builtin needs beyond the
CUDA call's), `typed` (the pointee types of the first argument for which the row's spelling is
proven to compile, and those for which HIP declares the CUDA name itself), `maskless` (value types
for which a shuffle's mask-less HIP form is proven), `same_shape` (approximate
rows whose HIP function takes the CUDA call's arguments unchanged), `erase` (macros with no HIP
spelling that expand to nothing where HIP runs), `function_address` (the kernel argument HIP
takes as `const void*`) and `device_construction` (approximate types whose `T(...)` keeps its CUDA
spelling in device code), `argument_types` (an argument whose shown type HIP's spelling does not
take) `host_api_families` (families whose HIP functions run on the host only; keyed by family id) and
`caveat_notes` (proven renames, and calls HIP spells the same, that change what the program does, whose
row's caveat is written as a note). The names written still come from the rows; this file never names a
HIP function to call.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from xlate.translate import datafile

_PARTS: dict[str, dict[str, type]] = {"append": {"hip": str, "arity": int, "arguments": list, "source": str},
          "typed": {"keep": list, "accepts": list, "any_cuda_type": bool, "source": str},
          "maskless": {"accepts": list, "source": str},
          "same_shape": {"when": str, "source": str},
          "erase": {"source": str},
          "function_address": {"index": int, "source": str},
          "device_construction": {"source": str},
          "argument_types": {"index": int, "rejects": list, "rejects_prefix": list, "expects": str, "source": str},
          "host_api_families": {"source": str},
          "caveat_notes": {"source": str}}
_NAME = re.compile(r"[A-Za-z_]\w*")
_FAMILY = re.compile(r"[a-z][a-z0-9-]*")
_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+")
_TYPE = re.compile(r"[A-Za-z_]\w*(?: [A-Za-z_]\w*)*")


def data_path() -> Path:
    return datafile.data_path("calls.yaml")


@lru_cache(maxsize=1)
def _data() -> dict[str, dict[str, dict[str, Any]]]:
    """The file, checked: a malformed entry is a GlossaryError naming it (one line, no traceback)."""
    from xlate.errors import GlossaryError

    path = data_path()
    data = datafile.load_parts(path, _PARTS, "CUDA names")
    for part in _PARTS:
        for name, entry in data[part].items():
            if not _NAME.fullmatch(str(name)) and not (part in ("same_shape", "caveat_notes") and _QUALIFIED.fullmatch(str(name))) \
                    and not (part == "host_api_families" and _FAMILY.fullmatch(str(name))):
                raise GlossaryError(f"{path}: {part}.{name}: the key must be a C identifier")
            names = [entry["hip"], *entry["arguments"]] if part == "append" else []
            types = [*entry["keep"], *entry["accepts"]] if part == "typed" else \
                list(entry["accepts"]) if part == "maskless" else []
            if not all(isinstance(n, str) and _NAME.fullmatch(n) for n in names) or \
                    not all(isinstance(t, str) and _TYPE.fullmatch(t) for t in types):
                raise GlossaryError(f"{path}: {part}.{name}: names and types must be C spellings")
            if (part == "append" and entry["arity"] < 0) or (part == "function_address" and entry["index"] < 0):
                raise GlossaryError(f"{path}: {part}.{name}: arity and index must be 0 or more")
    return data


def append() -> dict[str, dict[str, Any]]:
    """CUDA name -> {hip, arity, arguments, source}."""
    return _data()["append"]


def typed() -> dict[str, dict[str, Any]]:
    """CUDA name -> {keep, accepts, any_cuda_type, source}."""
    return _data()["typed"]


def maskless() -> dict[str, dict[str, Any]]:
    """*_sync shuffle -> {accepts, source}: value types its mask-less HIP form is proven for."""
    return _data()["maskless"]


def same_shape() -> dict[str, dict[str, Any]]:
    """CUDA name -> {when, source}: approximate rows (and members of approximate class rows) whose HIP
    call takes the CUDA arguments unchanged; `when` None: at any site, "two_phase": only at a site
    that shows CUB's two-phase form (translate/names.py, two_phase_site)."""
    return _data()["same_shape"]


def two_phase(name: str) -> bool:
    """Whether `name` (a row's CUDA name, or a member of a class row) is written only at a call that
    shows CUB's two-phase form: other forms of it (CUB's single-call overloads that take an execution
    environment) have no HIP overload."""
    entry = _data()["same_shape"].get(name)
    return entry is not None and entry.get("when") == "two_phase"


def proven_call(name: str) -> bool:
    """Whether an approximate function row may be written at any call: its call's shape and types are
    handled by one of the parts above (a `two_phase` entry is proven only at some calls)."""
    data = _data()
    return name in data["typed"] or name in data["append"] or (name in data["same_shape"] and not two_phase(name))


def erase() -> dict[str, dict[str, Any]]:
    """CUDA macro -> {source}."""
    return _data()["erase"]


def function_address() -> dict[str, dict[str, Any]]:
    """CUDA call -> {index, source}: the argument that names a kernel."""
    return _data()["function_address"]


def device_construction() -> dict[str, dict[str, Any]]:
    """CUDA type -> {source}: types whose construction in device code keeps the CUDA spelling."""
    return _data()["device_construction"]


def argument_types() -> dict[str, dict[str, Any]]:
    """CUDA call -> {index, rejects, rejects_prefix, expects, source}."""
    return _data()["argument_types"]


def host_api_families() -> dict[str, dict[str, Any]]:
    """API family id -> {source}: families whose HIP counterparts are host functions only."""
    return _data()["host_api_families"]


def caveat_notes() -> dict[str, dict[str, Any]]:
    """CUDA name -> {source}: proven renames whose row's caveat is written as a note at the first
    renamed call of a file, since the rename changes what the program does on HIP."""
    return _data()["caveat_notes"]
