"""Where the glossary and the on-disk caches live (no heavy imports: every command's start-up reads these)."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

__all__ = ["cache_dir", "content_key", "display_path", "glossary_root", "repo_root", "require_glossary", "write_cache"]


@lru_cache(maxsize=1)
def repo_root() -> Path:
    """The checkout this package runs from (the glossary, kernels/ and the docs site live beside src/);
    resolved once per process, as the package does not move while it runs."""
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
# The compiled index's format: part of its cache file name and of the content hash.
INDEX_VERSION = 14
BUILDER_MODULES = ("_index.py", "_rows.py", "_api.py", "_model.py", "_glossary.py", "_sheets.py", "_types.py", "_vocabulary.py")
# A file changed this close to when its content was last hashed may change again without its stamp
# changing (a same-size write within one timestamp tick; FAT's tick is 2 s): it is hashed again.
RACY_NS = 3_000_000_000


def _yaml_stamps(folder: str, out: list[str], newest: list[int]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir():
                _yaml_stamps(entry.path, out, newest)
            elif entry.name.endswith(".yaml"):
                _stamp(entry.path, entry.stat(), out, newest)
        except OSError:
            continue


def _stamp(path: str, st: os.stat_result, out: list[str], newest: list[int]) -> None:
    # ctime too: every write (and a file replaced by a rename) moves it, even where a tool puts the old
    # modification time back; no call can set it.
    out.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}")
    newest[0] = max(newest[0], st.st_mtime_ns, st.st_ctime_ns)


def _stat_signature(root: Path) -> tuple[str, int]:
    """Names, sizes and times of every file the content hash reads (a superset of them), and
    the newest time among them. Compared as text, not hashed: a cold start needs no digest."""
    stamps: list[str] = []
    newest = [0]
    _yaml_stamps(str(root), stamps, newest)
    here = os.path.dirname(os.path.abspath(__file__))
    for module in BUILDER_MODULES:
        path = os.path.join(here, module)
        try:
            _stamp(path, os.stat(path), stamps, newest)
        except OSError:
            continue
    kernels = root.parent / "kernels" / "examples"
    if kernels.is_dir():
        for name in sorted(os.listdir(kernels)):
            path = str(kernels / name / "example.yaml")
            try:
                _stamp(path, os.stat(path), stamps, newest)
            except OSError:
                continue
    return "\n".join(stamps), newest[0]


def content_key(root: Path) -> str:
    """The glossary's content hash (every input file's bytes and the index builder's code).

    Hashing 2.5 MB on every start would cost a cold lookup several milliseconds, so the hash of the
    last content is kept with the stamps it was taken under and reused while they are unchanged. A
    stamp cannot see an edit made within the timestamp tick of the hashing: while any file is that
    young (RACY_NS), the content is hashed again, as git does with racily clean files.
    """
    import time

    stamps_path = cache_dir() / STAMP_FILE
    sig, newest = _stat_signature(root)
    try:
        stored = json.loads(stamps_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = {}
    if not isinstance(stored, dict):
        stored = {}
    key = stored.get("key")
    taken = stored.get("taken")
    if stored.get("sig") == sig and isinstance(key, str) and isinstance(taken, int) and newest < taken - RACY_NS:
        return key
    taken = time.time_ns()  # before reading: an edit during the hashing is younger than this
    key = content_hash(root)
    write_cache(stamps_path, json.dumps({"sig": sig, "key": key, "taken": taken}))
    return key


def kernels_root(root: Path) -> Path:
    return root.parent / "kernels" / "examples"


def _input_files(root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*.yaml") if "fixtures" not in p.parts)
    kernels = kernels_root(root)
    if kernels.is_dir():
        files += sorted(kernels.glob("*/example.yaml"))
    return files




def content_hash(root: Path) -> str:
    import hashlib  # only when the content changed: a cold lookup normally needs no digest

    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(INDEX_VERSION).encode())
    for module in BUILDER_MODULES:  # the code that builds the index is part of what it says
        digest.update((Path(__file__).parent / module).read_bytes())
    for path in _input_files(root):
        digest.update(str(path.relative_to(root.parent)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
