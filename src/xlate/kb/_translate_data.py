"""The translator's data files, `glossary/translate/macros.yaml`, `headers.yaml`, `calls.yaml` and
`compat.yaml` (with the C++ snippets under `compat/` that it names): their models and their one reader.

A file is validated with the pydantic models below once per content: the checked data is cached as
JSON under its content hash, so a cold `translate` reads JSON and imports neither YAML nor pydantic
unless the file changed. A malformed file is one GlossaryError line naming the file and the entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlate.errors import GlossaryError

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["TRANSLATE_FILES", "load_translate_data", "translate_data", "translate_data_path", "translate_problems",
           "translate_snippet"]

TRANSLATE_DIR = "translate"
# file -> (its parts, what each part's keys are); the models are built on first need (pydantic).
TRANSLATE_FILES: dict[str, tuple[tuple[str, ...], str]] = {
    "macros.yaml": (("conditions", "opt_in"), "macro names"),
    "headers.yaml": (("apis", "declares", "host_uses"), "CUDA headers"),
    "calls.yaml": (("append", "typed", "maskless", "same_shape", "erase", "function_address", "device_construction",
                    "argument_types", "host_api_families", "caveat_notes"),
                   "CUDA names"),
    "compat.yaml": (("snippets", "helpers", "headers"), "names"),
}
COMPAT_DIR = "compat"  # compat.yaml's snippets: compat/<name>.h
CACHE_VERSION = 1

_C_NAME = r"^[A-Za-z_]\w*$"
_C_TYPE = r"^[A-Za-z_]\w*(?: [A-Za-z_]\w*)*$"
_QUALIFIED = r"^[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$"


def translate_data_path(name: str, root: Path | None = None) -> Path:
    """Where one of the translator's files lives (`name`: macros.yaml or calls.yaml)."""
    from xlate.kb._paths import glossary_root

    return (root or glossary_root()) / TRANSLATE_DIR / name


def _models() -> dict[str, type[BaseModel]]:
    """The pydantic models of each file, keyed by file name."""
    from typing import Annotated, Literal

    from pydantic import (
        BaseModel,
        ConfigDict,
        Field,
        StringConstraints,
        field_validator,
    )

    CName = Annotated[str, StringConstraints(pattern=_C_NAME)]

    class Entry(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    class Condition(Entry):
        """A CUDA macro that conditions test, and the HIP macro that answers for it."""

        hip: str
        test: Literal["truth"]
        # the compilation passes where the macro is defined: both (host and device) or the device pass only
        pass_: Literal["both", "device"] = Field(alias="pass")
        source: str

        @field_validator("hip")
        @classmethod
        def _identifier(cls, value: str) -> str:
            return _c_names([value])[0]

    class OptIn(Entry):
        """A HIP macro some ROCm releases need before they declare `declares`."""

        declares: list[str]
        note: str
        source: str

        @field_validator("declares")
        @classmethod
        def _identifiers(cls, value: list[str]) -> list[str]:
            return _c_names(value)

    class Append(Entry):
        hip: str
        arity: int = Field(ge=0)
        arguments: list[str]
        source: str

        @field_validator("hip")
        @classmethod
        def _hip(cls, value: str) -> str:
            return _c_names([value], "names and types must be C spellings")[0]

        @field_validator("arguments")
        @classmethod
        def _arguments(cls, value: list[str]) -> list[str]:
            return _c_names(value, "names and types must be C spellings")

    def _types(value: list[str]) -> list[str]:
        import re

        if not all(re.fullmatch(_C_TYPE, t) for t in value):
            raise ValueError("names and types must be C spellings")
        return value

    class Typed(Entry):
        """Pointee types of the first argument: the row's spelling is proven for `accepts`; HIP
        declares the CUDA name itself for `keep`."""

        keep: list[str]
        accepts: list[str]
        any_cuda_type: bool = False
        source: str

        _check = field_validator("keep", "accepts")(classmethod(lambda cls, v: _types(v)))

    class Maskless(Entry):
        """Value types for which a shuffle's mask-less HIP form is proven."""

        accepts: list[str]
        source: str

        _check = field_validator("accepts")(classmethod(lambda cls, v: _types(v)))

    class SameShape(Entry):
        """An approximate row (or a member of an approximate class row) whose HIP function takes the
        CUDA call's arguments unchanged: at any site, or with `when: two_phase` only where the call
        shows CUB's two-phase form (temporary storage, then its byte count)."""

        when: Literal["two_phase"] | None = None
        source: str

    class Erase(Entry):
        source: str

    class FunctionAddress(Entry):
        index: int = Field(ge=0)
        source: str

    class ArgumentTypes(Entry):
        """An argument whose shown type (or enumerator prefix) HIP's spelling does not take."""

        index: int = Field(ge=0)
        rejects: list[str]
        rejects_prefix: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_]\w*$")]]
        expects: str
        source: str

        _check = field_validator("rejects")(classmethod(lambda cls, v: _types(v)))

    class MacrosFile(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        conditions: dict[CName, Condition]
        opt_in: dict[CName, OptIn]

    class CallsFile(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        append: dict[CName, Append]
        typed: dict[CName, Typed]
        maskless: dict[CName, Maskless]
        same_shape: dict[str, SameShape]  # qualified names too (nvcuda::wmma::fill_fragment)
        erase: dict[CName, Erase]
        function_address: dict[CName, FunctionAddress]
        device_construction: dict[CName, Erase]  # only a source, like erase
        argument_types: dict[CName, ArgumentTypes]
        host_api_families: dict[Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]*$")], Erase]
        caveat_notes: dict[Annotated[str, StringConstraints(pattern=_QUALIFIED)], Erase]  # only a source

    class Api(Entry):
        """The names of the API a CUDA header declares, as a regex over whole spellings."""

        match: str
        source: str

    class HostUse(Api):
        """A C header CUDA's runtime header brings along: the names that need it, and the headers that
        provide it as well (<cfloat> for <float.h>; not <cmath> for <math.h>, which moves the C names
        into std)."""

        provided_by: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][\w./]*$")]] = Field(default_factory=list)

    class Snippet(Entry):
        """A piece of C++ under compat/<name>.h, written after the snippets it `needs`."""

        needs: list[CName]
        source: str

    class Helper(Entry):
        """The compat helper that replaces a CUDA name's calls, and what a call is checked for first."""

        spelling: Annotated[str, StringConstraints(pattern=r"^xlate_compat::[A-Za-z_]\w*$")]
        snippet: CName
        argument: Literal["pointer", "tile", "name", "function"]
        cuda_types: list[str]
        proven: list[str]
        returns: str | None = None  # `function` helpers: the CUDA function's return type
        runs_on: Literal["host", "device"] | None = None  # `function` helpers: where the test calls it
        note: str
        source: str

        _check = field_validator("cuda_types")(classmethod(lambda cls, v: _types(v)))

        @field_validator("proven")
        @classmethod
        def _proven(cls, value: list[str]) -> list[str]:
            # a `function` helper's proven argument lists: "()" or "(type, type)"
            types = [t.strip() for v in value for t in (v[1:-1].split(",") if v.startswith("(") and v.endswith(")")
                                                          else [v]) if t.strip()]
            _types([t.removesuffix("*").rstrip() for t in types])
            return value

        @field_validator("note")
        @classmethod
        def _note(cls, value: str) -> str:
            if "{written}" not in value:
                raise ValueError("the note must name the call it replaces as {written}")
            return value

    class CompatHeader(Entry):
        """A CUDA header HIP has none of, whose API the helpers in `provides` stand in for."""

        provides: list[Annotated[str, StringConstraints(pattern=_QUALIFIED)]]
        source: str

    class CompatFile(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        snippets: dict[CName, Snippet]
        helpers: dict[Annotated[str, StringConstraints(pattern=_QUALIFIED)], Helper]
        headers: dict[Annotated[str, StringConstraints(pattern=r"^[\w./+-]+$")], CompatHeader]

    class HeadersFile(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        apis: dict[str, Api]
        declares: dict[str, Api]  # HIP header -> the names only it declares (hip_runtime.h does not)
        host_uses: dict[str, HostUse]  # C header -> the names a file uses that CUDA's runtime header brings

    return {"macros.yaml": MacrosFile, "calls.yaml": CallsFile, "headers.yaml": HeadersFile, "compat.yaml": CompatFile}


def _c_names(values: list[str], message: str = "names must be C identifiers") -> list[str]:
    import re

    if not all(re.fullmatch(_C_NAME, v) for v in values):
        raise ValueError(message)
    return values


def _message(error: Mapping[str, Any], model: type[BaseModel], what: str) -> str:
    """One pydantic error as the file's reader says it: `part.entry: what is wrong`."""
    loc = [str(x) for x in error.get("loc", ())]
    part = loc[0] if loc else ""
    if len(loc) >= 2 and error.get("type") in ("missing", "extra_forbidden") and len(loc) <= 3:
        fields = model.model_fields[part].annotation.__args__[1].model_fields  # type: ignore[union-attr]
        return f"{part}.{loc[1]}: expected exactly {', '.join(f.alias or n for n, f in fields.items())}"
    if len(loc) == 3 and loc[2] == "[key]":
        return f"{part}.{loc[1]}: the key must be a C identifier"
    text = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    if len(loc) == 1:
        return f"`{part}` must map {what} to entries"
    return f"{'.'.join(loc[:2])}: {text}" + (f" ({'.'.join(loc[2:])})" if len(loc) > 2 and "must be" not in text else "")


def _validate(name: str, path: Path, shown: str) -> dict[str, Any]:
    """The file read with YAML and checked with its model; GlossaryError (one line) when it is not right."""
    import yaml
    from pydantic import ValidationError

    parts, what = TRANSLATE_FILES[name]
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise GlossaryError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise GlossaryError(f"{shown}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or set(data) != set(parts):
        raise GlossaryError(f"{shown}: expected the mappings {', '.join(parts)}")
    model = _models()[name]
    try:
        checked = model.model_validate(data)
    except ValidationError as exc:
        raise GlossaryError(f"{shown}: {_message(exc.errors()[0], model, what)}") from None
    out = checked.model_dump(mode="json", by_alias=True)
    if name == "compat.yaml":
        _check_compat(out, path.parent / COMPAT_DIR, shown)
    return out


def _check_compat(data: dict[str, Any], folder: Path, shown: str) -> None:
    """compat.yaml's names agree: each snippet has its file and known `needs` (no cycle), each helper
    a known snippet."""
    snippets = data["snippets"]
    for name, entry in snippets.items():
        if not (folder / f"{name}.h").is_file():
            raise GlossaryError(f"{shown}: snippets.{name}: no file {COMPAT_DIR}/{name}.h")
        unknown = [n for n in entry["needs"] if n not in snippets]
        if unknown:
            raise GlossaryError(f"{shown}: snippets.{name}: needs an unknown snippet {unknown[0]}")
    for name in snippets:
        seen: set[str] = set()
        stack = list(snippets[name]["needs"])
        while stack:
            n = stack.pop()
            if n == name:
                raise GlossaryError(f"{shown}: snippets.{name}: needs itself (through {', '.join(sorted(seen))})")
            if n not in seen:
                seen.add(n)
                stack.extend(snippets[n]["needs"])
    for name, entry in data["helpers"].items():
        if entry["snippet"] not in snippets:
            raise GlossaryError(f"{shown}: helpers.{name}: unknown snippet {entry['snippet']}")
    for name, entry in data["headers"].items():
        unknown = [h for h in entry["provides"] if h not in data["helpers"]]
        if unknown:
            raise GlossaryError(f"{shown}: headers.{name}: provides an unknown helper {unknown[0]}")


def load_translate_data(path: Path) -> dict[str, Any]:
    """One of the translator's files (known by its name), checked, from the cache when its content
    was checked before."""
    import hashlib

    from xlate.kb._paths import cache_dir, display_path, glossary_root, write_cache

    name = path.name
    if name not in TRANSLATE_FILES:
        raise GlossaryError(f"{path}: not one of the translator's files ({', '.join(TRANSLATE_FILES)})")
    shown = display_path(path, glossary_root())
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise GlossaryError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    digest = hashlib.blake2b(raw, digest_size=16)
    digest.update(Path(__file__).read_bytes())  # the models are part of what the cached data says
    if name == "compat.yaml":  # its check reads which snippet files exist
        folder = path.parent / COMPAT_DIR
        digest.update(" ".join(sorted(p.name for p in folder.glob("*.h")) if folder.is_dir() else []).encode())
    cached = cache_dir() / f"translate-{CACHE_VERSION}-{path.stem}-{digest.hexdigest()}.json"
    try:
        data = json.loads(cached.read_bytes())
        if isinstance(data, dict):
            return data
    except (OSError, ValueError):
        pass
    data = _validate(name, path, shown)
    write_cache(cached, json.dumps(data), replaces=f"translate-*-{path.stem}-*.json")
    return data


def translate_data(name: str, root: Path | None = None) -> dict[str, Any]:
    """glossary/translate/<name>, checked: {part: {key: entry}}."""
    return load_translate_data(translate_data_path(name, root))


def translate_snippet(name: str, root: Path | None = None) -> str:
    """The C++ of one of compat.yaml's snippets (glossary/translate/compat/<name>.h)."""
    import re

    if not re.fullmatch(_C_NAME, name):
        raise GlossaryError(f"not a snippet name: {name!r}")
    path = translate_data_path(COMPAT_DIR, root) / f"{name}.h"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GlossaryError(f"{path}: cannot read: {exc.strerror or exc}") from None


def translate_problems(root: Path) -> list[Any]:
    """The translator's files as `glossary check` reports them: one Problem per malformed file."""
    from xlate.kb._paths import display_path
    from xlate.kb._yamlio import Problem

    out = []
    for name in TRANSLATE_FILES:
        path = translate_data_path(name, root)
        if not path.exists():
            continue
        try:
            _validate(name, path, display_path(path, root))
        except GlossaryError as exc:
            shown, _, message = str(exc).partition(": ")
            out.append(Problem(shown, 1, message))
    return out
