"""A source tree as one project: its include graph, the constants its headers give the files that
include them, the names it defines itself, and the findings that belong to the tree rather than to
one file (the warp-width decision, the users of a shared header).

Public surface: `IncludeGraph` and `IncludeEdge` (graph.py) for any command that needs to know who
includes what (`includers_of(path)` lists each `#include` that resolves to a file, with its spelling
and line); `known_constants` / `project_constants` (macros.py); `plan` / `finish` (session.py), which
`xlate explain` runs around explaining a folder or a compile_commands.json.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["CompileEntry", "IncludeEdge", "IncludeGraph", "ProjectError", "known_constants", "project_constants",
           "read_compile_commands"]

# Resolved on first use: explaining one file imports `xlate.project.context` and nothing of the graph.
_HOME = {"CompileEntry": "graph", "IncludeEdge": "graph", "IncludeGraph": "graph", "ProjectError": "graph",
         "read_compile_commands": "graph", "known_constants": "macros", "project_constants": "macros"}

if TYPE_CHECKING:
    from xlate.project.graph import (
        CompileEntry as CompileEntry,
    )
    from xlate.project.graph import (
        IncludeEdge as IncludeEdge,
    )
    from xlate.project.graph import (
        IncludeGraph as IncludeGraph,
    )
    from xlate.project.graph import (
        ProjectError as ProjectError,
    )
    from xlate.project.graph import (
        read_compile_commands as read_compile_commands,
    )
    from xlate.project.macros import known_constants as known_constants
    from xlate.project.macros import project_constants as project_constants


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'xlate.project' has no attribute {name!r}")
    value = getattr(import_module(f"xlate.project.{_HOME[name]}"), name)
    globals()[name] = value
    return value
