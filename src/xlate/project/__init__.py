"""A source tree as one project: its include graph, the constants its headers give the files that
include them, the names it defines itself, and the findings that belong to the tree rather than to
one file (the warp-width decision, the users of a shared header).

Public surface: `IncludeGraph` and `IncludeEdge` (graph.py) for any command that needs to know who
includes what (`includers_of(path)` lists each `#include` that resolves to a file, with its spelling
and line); `known_constants` / `project_constants` (macros.py); `plan` / `finish` (session.py), which
`xlate explain` runs around explaining a folder or a compile_commands.json.
"""

from __future__ import annotations

from xlate.project.graph import CompileEntry, IncludeEdge, IncludeGraph, ProjectError, read_compile_commands
from xlate.project.macros import known_constants, project_constants

__all__ = ["CompileEntry", "IncludeEdge", "IncludeGraph", "ProjectError", "known_constants", "project_constants",
           "read_compile_commands"]
