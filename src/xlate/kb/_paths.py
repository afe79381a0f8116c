"""Where the glossary and the on-disk caches live (no heavy imports: every command's start-up reads these)."""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["cache_dir", "content_key", "display_path", "glossary_root", "repo_root", "require_glossary", "write_cache"]


def repo_root() -> Path:
    """The checkout this package runs from (the glossary, kernels/ and the docs site live beside src/)."""
    return Path(__file__).resolve().parents[3]


def glossary_root() -> Path:
    """The glossary folder: $XLATE_GLOSSARY, else the one beside the source tree."""
    env = os.environ.get("XLATE_GLOSSARY")
    if env:
        return Path(env)
    return repo_root() / "glossary"


def require_glossary(path: Path | None = None) -> Path:
    """`path` (else the default glossary folder), refused with a GlossaryError when it is not a folder."""
    from xlate.errors import GlossaryError

    root = path or glossary_root()
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "not found"
        raise GlossaryError(f"glossary folder {what}: {root}", hint="pass --glossary DIR or set XLATE_GLOSSARY")
    return root


def display_path(path: Path, root: Path) -> str:
    """How a data file is named in messages: relative to the folder above the glossary (`glossary/gpus/h100.yaml`)."""
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xlate"


def write_cache(path: Path, text: str | bytes, replaces: str | None = None) -> None:
    """Write a cache file atomically (readers never see half a file); a read-only cache only costs speed.

    `replaces` is a glob of older versions of the same cache (other content hashes): they are removed,
    so the cache folder does not grow with every edit of the glossary.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        os.replace(tmp, path)
        for old in path.parent.glob(replaces) if replaces else ():
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass


STAMP_FILE = "content-stamps.json"
# The modules that build the index: their code is part of what the index says, so they join its key.
BUILDER_MODULES = ("_index.py", "_rows.py", "_api.py", "_model.py", "_glossary.py", "_gpus.py")


def _yaml_stamps(folder: str, out: list[str]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir():
                _yaml_stamps(entry.path, out)
            elif entry.name.endswith(".yaml"):
                st = entry.stat()
                out.append(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}")
        except OSError:
            continue


def _stat_signature(root: Path) -> str:
    """Names, sizes and modification times of every file the content hash reads (a superset of them).

    Compared as text, not hashed: a cold start then needs neither hashlib nor a digest.
    """
    stamps: list[str] = []
    _yaml_stamps(str(root), stamps)
    here = os.path.dirname(os.path.abspath(__file__))
    for module in BUILDER_MODULES:
        try:
            st = os.stat(os.path.join(here, module))
            stamps.append(f"{module}\0{st.st_size}\0{st.st_mtime_ns}")
        except OSError:
            continue
    kernels = root.parent / "kernels" / "examples"
    if kernels.is_dir():
        for name in sorted(os.listdir(kernels)):
            path = kernels / name / "example.yaml"
            try:
                st = os.stat(path)
            except OSError:
                continue
            stamps.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(stamps)


def content_key(root: Path) -> str:
    """The glossary's content hash, found without reading every file when nothing changed since last time."""
    stamps_path = cache_dir() / STAMP_FILE
    sig = _stat_signature(root)
    try:
        stamps = json.loads(stamps_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stamps = {}
    key = stamps.get(sig) if isinstance(stamps, dict) else None
    if isinstance(key, str):
        return key
    from xlate.kb._index import content_hash  # hashes every glossary file: only when something changed

    key = content_hash(root)
    stamps = {sig: key}  # one entry: the current state of this glossary
    write_cache(stamps_path, json.dumps(stamps))
    return key



