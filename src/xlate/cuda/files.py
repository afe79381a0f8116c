"""Which files to explain: explicit paths as given, directories walked for CUDA sources."""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
CXX_SUFFIXES = frozenset({".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp"})
# Folders that hold generated or third-party output rather than the project's sources.
BUILD_DIRS = frozenset({"build", "_build", "builds", "dist", "out", "node_modules", "__pycache__", "CMakeFiles",
                        "site", "venv", "target", "bazel-out", "_deps"})
SNIFF_BYTES = 65536
# A C/C++ file "uses CUDA" when its head shows a CUDA qualifier, a launch, a runtime call or a CUDA header.
_USES_CUDA_PATTERN = (
    rb"__global__|__device__|__shared__|<<<|\bcuda[A-Z]\w*\s*\(|"
    rb"#\s*include\s*[<\"](?:cuda|cub/|thrust/|cublas|curand|cufft|cusparse|cusolver|cudnn|nccl|nvrtc|cooperative_groups|mma\.h)"
)


class Target(NamedTuple):
    shown: str  # the path as the user will see it
    path: Path
    explicit: bool  # named on the command line (explained whatever its extension)


class PathError(NamedTuple):
    shown: str
    message: str


def _skip_dir(name: str) -> bool:
    return name.startswith(".") or name in BUILD_DIRS or name.startswith("cmake-build-")


def _matches(rel: str, patterns: list[str]) -> bool:
    base = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(base, p) for p in patterns)


@lru_cache(maxsize=1)
def _uses_cuda_regex() -> re.Pattern[bytes]:
    return re.compile(_USES_CUDA_PATTERN)  # compiled when a folder is walked, not for named files


def uses_cuda(path: Path) -> bool:
    if not path.is_file():
        return True  # let explain report what it is
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return True  # let explain report why it cannot be read
    return bool(_uses_cuda_regex().search(head))


def describe_os_error(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    return exc.strerror or str(exc)


def collect(paths: list[str], include: list[str] | None = None, exclude: list[str] | None = None) -> tuple[list[Target], list[PathError]]:
    """Expand the command line into files, in a stable order, with an error per unusable path."""
    include, exclude = include or [], exclude or []
    targets: list[Target] = []
    errors: list[PathError] = []
    seen: set[str] = set()

    def add(t: Target) -> None:
        key = os.path.normpath(str(t.path))
        if key not in seen:
            seen.add(key)
            targets.append(t)

    for raw in paths:
        p = Path(raw)
        try:
            st = p.stat()
        except OSError as exc:
            errors.append(PathError(raw, describe_os_error(exc)))
            continue
        if not os.path.isdir(p):
            add(Target(raw, p, True))
            continue
        del st
        for file in _walk(p, errors):
            rel = file.relative_to(p).as_posix()
            if include and not _matches(rel, include):
                continue
            if exclude and _matches(rel, exclude):
                continue
            if file.suffix.lower() in CUDA_SUFFIXES or (file.suffix.lower() in CXX_SUFFIXES and uses_cuda(file)):
                add(Target(str(file), file, False))
    return targets, errors


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _walk(top: Path, errors: list[PathError]) -> list[Path]:
    """Files under `top`, following directory links once each (a link loop is walked no further)."""
    out: list[Path] = []
    visited: set[tuple[int, int]] = set()
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
        except OSError as exc:
            errors.append(PathError(str(folder), describe_os_error(exc)))
            continue
        key = (st.st_dev, st.st_ino)
        if key in visited:
            continue  # reached again through a link: a loop or a duplicate
        visited.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            errors.append(PathError(str(folder), describe_os_error(exc)))
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # follows links; a looping link is not a directory here
            except OSError:
                is_dir = False
            if is_dir:
                if not _skip_dir(entry.name):
                    subdirs.append(Path(entry.path))
            elif entry.name.startswith("."):
                continue
            elif _is_file(entry) or entry.is_symlink():  # a dangling or looping link is reported later
                out.append(Path(entry.path))
        stack.extend(reversed(subdirs))
    return out
