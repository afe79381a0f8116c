"""Where translations go: stdout, a file, a mirrored tree, or the source itself (with a backup).

Every file is written to a temporary file in its destination folder and renamed over the target,
so a reader never sees half a file and a failed run leaves the old file as it was.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import NamedTuple

from xlate.cuda.files import BUILD_DIRS, CUDA_SUFFIXES, CXX_SUFFIXES, describe_os_error

SOURCE_SUFFIXES = CUDA_SUFFIXES | CXX_SUFFIXES | {".inc"}
BACKUP_SUFFIX = ".prehip"


class Job(NamedTuple):
    shown: str  # the input as the user will see it
    source: Path
    target: Path | None  # None: stdout


class PlanError(NamedTuple):
    shown: str
    message: str


# The files of the current run that are written under another name (a .cu file as .hip): the real
# path of each source -> its output's file name, and the folders the inputs were given as. Set by
# plan(), read by renamed_include() while the files are translated (worker processes are forked
# after planning, so they see it). The resolution below is deliberately small: the include's path
# relative to the including file's folder, then relative to each input root.
_RENAMED: dict[str, str] = {}
_SOURCES: set[str] = set()  # the real path of every source of the run
_ROOTS: list[str] = []


def _candidates(including: str, written: str) -> list[str]:
    if written.startswith("/"):
        return [written]
    out = [os.path.join(os.path.dirname(os.path.abspath(including)), written)]
    return out + [os.path.join(root, written) for root in _ROOTS]


def resolve_include(including: str, written: str) -> str | None:
    """The real path of the file of this run that `#include "written"` in `including` names, or None
    (a system header, a file outside the inputs)."""
    if not _SOURCES:
        return None
    for path in _candidates(including, written):
        real = os.path.realpath(path)
        if real in _SOURCES:
            return real
    return None


def renamed_include(including: str, written: str) -> str | None:
    """The path to write in `#include "written"` of the file `including` when the included file is
    translated under another name in this run (same folders, new file name); else None."""
    real = resolve_include(including, written) if _RENAMED else None
    new = _RENAMED.get(real) if real is not None else None
    if new is None:
        return None
    head, _, _ = written.rpartition("/")
    return f"{head}/{new}" if head else new


def record_renames(jobs: list[Job], roots: list[str]) -> None:
    """Remember the sources of this run, which of them get a new file name, and the input roots."""
    _RENAMED.clear()
    _SOURCES.clear()
    _ROOTS[:] = [os.path.realpath(r) for r in roots]
    for job in jobs:
        _SOURCES.add(os.path.realpath(job.source))
        if job.target is not None and job.target.name != job.source.name:
            _RENAMED[os.path.realpath(job.source)] = job.target.name


def hip_name(name: str, keep_extension: bool) -> str:
    if not keep_extension and name.endswith(".cu"):
        return name[:-3] + ".hip"
    return name


def _skip_dir(name: str) -> bool:
    return name.startswith(".") or name in BUILD_DIRS or name.startswith("cmake-build-")


def walk_sources(top: Path, skip: Path | None, errors: list[PlanError]) -> list[Path]:
    """C, C++ and CUDA sources under `top` in a stable order (headers too, so includes resolve);
    hidden and build folders and the output folder are not entered, directory links are not followed."""
    out: list[Path] = []
    skip_real = os.path.realpath(skip) if skip is not None else None

    def onerror(exc: OSError) -> None:
        errors.append(PlanError(str(exc.filename or top), describe_os_error(exc)))

    for folder, dirs, files in os.walk(top, onerror=onerror):
        dirs[:] = sorted(d for d in dirs if not _skip_dir(d)
                         and not (skip_real and os.path.realpath(os.path.join(folder, d)) == skip_real))
        for name in sorted(files):
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in SOURCE_SUFFIXES:
                out.append(Path(folder) / name)
    return out


def plan(paths: list[str], out: str | None, in_place: bool, keep_extension: bool) -> tuple[list[Job], list[PlanError], str | None]:
    """Jobs for the command line, per-path errors, and a fatal usage error (or None)."""
    jobs: list[Job] = []
    errors: list[PlanError] = []
    if in_place and out:
        return [], [], "--in-place and -o cannot be used together"
    dirs = [p for p in paths if os.path.isdir(p)]
    if not in_place and out is None and (dirs or len(paths) > 1):
        return [], [], "a folder or several files need -o OUTDIR (or --in-place)"
    out_path = Path(out) if out else None
    several = len(paths) > 1 or bool(dirs)
    if out_path is not None and several and out_path.exists() and not out_path.is_dir():
        return [], [], f"-o {out}: not a folder (a folder or several inputs need an output folder)"
    for raw in paths:
        p = Path(raw)
        if not os.path.lexists(p):
            errors.append(PlanError(raw, "no such file or directory"))
            continue
        if p.is_dir():
            if out_path is not None and os.path.realpath(out_path) == os.path.realpath(p):
                return [], [], f"-o {out} is the input folder itself: use --in-place to translate in place"
            base = out_path if len(paths) == 1 else (out_path / p.resolve().name if out_path else None)
            for f in walk_sources(p, out_path, errors):
                rel = f.relative_to(p)
                if in_place:
                    jobs.append(Job(str(f), f, f))
                else:
                    assert base is not None
                    jobs.append(Job(str(f), f, base / rel.parent / hip_name(rel.name, keep_extension)))
            continue
        if in_place:
            jobs.append(Job(raw, p, p))
        elif out_path is None:
            jobs.append(Job(raw, p, None))
        elif several or out_path.is_dir():
            jobs.append(Job(raw, p, out_path / hip_name(p.name, keep_extension)))
        else:
            jobs.append(Job(raw, p, out_path))
    # Two inputs must not write one output (a.cu and a.hip side by side).
    seen: dict[str, str] = {}
    kept: list[Job] = []
    for job in jobs:
        key = os.path.normpath(str(job.target)) if job.target is not None else None
        if key is not None and key in seen and not in_place:
            errors.append(PlanError(job.shown, f"its output {job.target} is also the output of {seen[key]}; skipped (try --keep-extension)"))
            continue
        if key is not None:
            seen[key] = job.shown
        kept.append(job)
    record_renames(kept, [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths])
    return kept, errors, None


_MADE: set[str] = set()  # folders created in this process (a tree writes hundreds of files into a few)
_COUNTER = itertools.count()


def write_atomic(target: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write `data` to `target` through a temporary file in the same folder and a rename. The
    temporary file is created with the source's permission bits (less the umask)."""
    folder = target.parent
    key = str(folder)
    if key not in _MADE:
        folder.mkdir(parents=True, exist_ok=True)
        _MADE.add(key)
    mode = 0o666
    if mode_from is not None:
        try:
            mode = os.stat(mode_from).st_mode & 0o7777
        except OSError:
            pass
    tmp = folder / f".{target.name}.{os.getpid()}.{next(_COUNTER)}.xlate-tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileNotFoundError:  # the folder went away since it was made: make it again
        _MADE.discard(key)
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_in_place(path: Path, original: bytes, data: bytes) -> Path | None:
    """Replace the source by its translation, keeping the first original as FILE.prehip.
    Returns the backup's path (None when nothing changed)."""
    if data == original:
        return None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if not backup.exists():
        write_atomic(backup, original, mode_from=path)
    write_atomic(path, data, mode_from=path)
    return backup
