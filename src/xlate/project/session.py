"""Explain a tree as one project: which files, what each knows from the others, and the project's
own findings once its files are explained.

`plan` turns the command line into files to explain. A folder, or a `compile_commands.json`, makes
the input a project: its include graph is built, each file is given the constants of the headers it
includes and the project's warp functions (see xlate.project.context), and `finish` then adds to
each shared header the files that use it and returns the project's summary (its warp-width
decision). Files named alone are explained alone, as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlate.project.graph import IncludeGraph, ProjectError, _norm

__all__ = ["Project", "finish", "plan"]


@dataclass
class Project:
    graph: IncludeGraph
    shown: dict[Path, str] = field(default_factory=dict)  # absolute path -> the path as output shows it


def _shown_for(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)
    return str(path) if rel.startswith("..") else rel


def plan(paths: list[str], include: list[str] | None, exclude: list[str] | None) -> tuple[list[Any], list[Any], Project | None]:
    """(targets, path errors, project or None) for explain's command line."""
    from xlate.cuda.files import PathError, Target, collect

    databases = [p for p in paths if os.path.basename(p) == "compile_commands.json" and os.path.isfile(p)]
    others = [p for p in paths if p not in databases]
    targets, errors = collect(others, include, exclude) if others else ([], [])
    if not databases and not any(os.path.isdir(p) for p in others):
        return targets, errors, None
    try:
        if databases:
            graph = IncludeGraph.from_compile_commands(databases[0])
            for extra in databases[1:]:
                errors.append(PathError(extra, "one compilation database at a time; this one was not read"))
        else:
            graph = IncludeGraph.from_paths(others, files=[t.path for t in targets])
    except ProjectError as exc:
        errors.append(PathError(databases[0] if databases else others[0], str(exc)))
        return targets, errors, None
    project = Project(graph)
    seen = set()
    for t in targets:
        key = _norm(t.path)
        seen.add(key)
        project.shown[key] = t.shown
    if databases:
        from xlate.cuda.files import _matches

        for f in graph.files():
            if f in seen:
                continue
            shown = _shown_for(f)
            if (include and not _matches(shown, include)) or (exclude and _matches(shown, exclude)):
                continue
            if not f.exists():
                errors.append(PathError(shown, "no such file or directory (named by the compilation database)"))
                continue
            targets.append(Target(shown, f, True))
            project.shown[f] = shown
            seen.add(f)
    _activate(project)
    return targets, errors, project


def _activate(project: Project) -> None:
    from xlate.cuda.source import FileContext
    from xlate.project import context
    from xlate.project.macros import project_constants
    from xlate.project.names import defined_names
    from xlate.project.warp import warp_functions_of_project

    graph = project.graph
    macros = project_constants(graph)
    files = graph.files()
    warp = warp_functions_of_project(files, macros)
    user: set[str] = set()
    for f in files:
        try:
            user |= defined_names(f.read_bytes())
        except OSError:
            continue
    names = frozenset(user)
    context.activate({shown: FileContext(macros.get(path, {}), warp, names) for path, shown in project.shown.items()})


def finish(project: Project | None, results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Add `users` to each shared header's result and return the project's summary (or None)."""
    from xlate.project import context
    from xlate.project.warp import decide

    context.clear()
    if project is None:
        return None
    graph = project.graph
    by_shown = {shown: path for path, shown in project.shown.items()}
    unit_names = {u: project.shown.get(u, _shown_for(u)) for u in graph.units}
    for r in results:
        path = by_shown.get(r.get("path", ""))
        if path is None or path in graph.units:
            continue
        users = [unit_names[u] for u in graph.users_of(path)]
        if users:
            r["users"] = users
    summary: dict[str, Any] = {"units": len(graph.units), "files": len(results)}
    warp = decide(results)
    if warp:
        summary.update(warp)
    return summary
