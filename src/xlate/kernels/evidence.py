"""Evidence files: what a run on a real device showed, tied to the exact source it ran.

Each file records the sha256 of every source file the run depended on, so a stale file (the
kernel changed after the run) is detected by comparing hashes, never by dates.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlate.kernels.examples import kernels_root


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def evidence_dir(root: Path | None = None) -> Path:
    return (root or kernels_root()) / "evidence"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "device"


def path_for(example: str, backend: str, device: str, root: Path | None = None) -> Path:
    return evidence_dir(root) / f"{example}--{backend}--{slug(device)}.json"


def write(record: dict[str, Any], root: Path | None = None) -> Path:
    path = path_for(record["example"], record["backend"], record["device"]["name"], root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def hashes(files: list[Path], root: Path) -> dict[str, str]:
    """sha256 of each file, keyed by its path relative to the repository root."""
    return {str(f.resolve().relative_to(root.resolve())): sha256(f) for f in files}


@dataclass
class Stale:
    path: Path
    reason: str


def load_all(root: Path | None = None) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted(evidence_dir(root).glob("*.json")):
        out.append((path, json.loads(path.read_text(encoding="utf-8"))))
    return out


def staleness(path: Path, record: dict[str, Any], repo: Path) -> str | None:
    """Why an evidence file no longer describes its sources, or None when it still does."""
    sources = record.get("sources")
    if not isinstance(sources, dict) or not sources:
        return "records no source hashes"
    for rel, digest in sources.items():
        src = repo / rel
        if not src.is_file():
            return f"source {rel} no longer exists"
        if sha256(src) != digest:
            return f"source {rel} changed since the run (sha256 differs)"
    return None


def stale(root: Path | None = None) -> list[Stale]:
    root = root or kernels_root()
    repo = root.parent
    out = []
    for path, record in load_all(root):
        why = staleness(path, record, repo)
        if why:
            out.append(Stale(path, why))
    return out
