"""Safe YAML loading that remembers where every value came from (file and line)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from xlate.errors import GlossaryError

__all__ = ["LoadedYaml", "Location", "Problem", "YamlError", "load_yaml", "validation_problems"]

try:  # the C loader is several times faster; fall back where libyaml is missing
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

Location = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """One finding in a data file, printed compiler-style as `path:line: message`."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class LoadedYaml:
    path: Path
    data: Any
    lines: dict[Location, int] = field(default_factory=dict)

    def line_of(self, loc: Location) -> int:
        """The line of the deepest known prefix of `loc` (1-based)."""
        for cut in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:cut]))
            if line is not None:
                return line
        return 1


class YamlError(GlossaryError):
    """A data file that is not readable, well-formed YAML; `problem` says where."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem), hint=None)
        self.problem = problem


def validation_problems(errors: Iterable[Mapping[str, Any]], loaded: LoadedYaml, display: str) -> list[Problem]:
    """A pydantic ValidationError's `errors()` as problems at the line of each failing value."""
    problems = []
    for err in errors:
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in loc) or "(top level)"
        problems.append(Problem(display, loaded.line_of(loc), f"{where}: {str(err['msg']).removeprefix('Value error, ')}"))
    return problems


def validate(model: Any, loaded: LoadedYaml, display: str) -> tuple[Any, list[Problem]]:
    """`model.model_validate` on a loaded file: (the object, []) or (None, problems at their lines)."""
    from pydantic import ValidationError

    if not isinstance(loaded.data, dict):
        return None, [Problem(display, 1, "expected a mapping at the top level")]
    try:
        return model.model_validate(loaded.data), []
    except ValidationError as exc:
        return None, validation_problems(exc.errors(), loaded, display)


def _record_lines(node: yaml.Node, loc: Location, lines: dict[Location, int]) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            lines[loc + (key,)] = key_node.start_mark.line + 1
            _record_lines(value_node, loc + (key,), lines)
            lines[loc + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _record_lines(item, loc + (i,), lines)


def _duplicate_keys(node: yaml.Node, path: str) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise YamlError(Problem(path, line, f"duplicate key {key!r} (first on line {seen[key]})"))
            seen[key] = line
            _duplicate_keys(value_node, path)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _duplicate_keys(item, path)


def load_yaml(path: Path, display: str | None = None) -> LoadedYaml:
    """Parse one YAML document safely; raise YamlError with file:line on any defect."""
    shown = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise YamlError(Problem(shown, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")) from None
    except OSError as exc:
        raise YamlError(Problem(shown, 1, f"cannot read: {exc.strerror or exc}")) from None
    loader = _Loader(text)
    try:  # one parse: the node tree gives the lines and duplicate keys, and the data is built from it
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise YamlError(Problem(shown, line, f"malformed YAML: {exc.problem or exc.context}")) from None
    except yaml.YAMLError as exc:
        raise YamlError(Problem(shown, 1, f"malformed YAML: {exc}")) from None
    finally:
        loader.dispose()
    if node is None:
        raise YamlError(Problem(shown, 1, "empty file"))
    _duplicate_keys(node, shown)
    lines: dict[Location, int] = {}
    _record_lines(node, (), lines)
    return LoadedYaml(path=path, data=data, lines=lines)


def load_validated(model: Any, path: Path, display: str, problems: list[Problem]) -> tuple[Any, LoadedYaml | None]:
    """Read one file and validate it with `model`: (the object, the loaded file), or None for the
    object when it is not valid. Every defect found is appended to `problems` at its file:line."""
    try:
        loaded = load_yaml(path, display)
    except YamlError as exc:
        problems.append(exc.problem)
        return None, None
    item, found = validate(model, loaded, display)
    problems.extend(found)
    return item, loaded
