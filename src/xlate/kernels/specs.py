"""GPU spec-sheet figures for roofline fractions, read from glossary/gpus/*.yaml with plain YAML.

The runner must not need pydantic, so it reads only the few figures it uses and treats a missing
or null figure as "no roofline" rather than failing the run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Spec:
    id: str
    name: str
    path: str
    bandwidth_tbs: float | None
    bf16_tflops: float | None


def gpus_dir() -> Path:
    env = os.environ.get("XLATE_GLOSSARY")
    base = Path(env) if env else Path(__file__).resolve().parents[3] / "glossary"
    return base / "gpus"


def _figure(data: dict, key: str) -> float | None:
    value = data.get(key)
    if isinstance(value, dict) and isinstance(value.get("value"), (int, float)):
        return float(value["value"])
    return None


def _norm(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def find(device_name: str, folder: Path | None = None) -> Spec | None:
    """The spec sheet whose name or alias matches the device name the driver reports."""
    folder = folder or gpus_dir()
    want = _norm(device_name)
    if not folder.is_dir() or not want:
        return None
    candidates = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        labels = [str(data.get("name", "")), str(data.get("id", ""))] + [str(a) for a in data.get("aliases") or []]
        for label in labels:
            norm = _norm(label)
            if not norm:
                continue
            # exact match first; otherwise the longest spec label contained in the device name
            score = 1000 if norm == want else (len(norm) if norm in want else 0)
            if score:
                candidates.append((score, path, data))
    if not candidates:
        return None
    _, path, data = max(candidates, key=lambda c: c[0])
    rel = path.relative_to(folder.parent.parent) if path.is_relative_to(folder.parent.parent) else path
    return Spec(str(data.get("id", path.stem)), str(data.get("name", path.stem)), str(rel),
                _figure(data, "memory_bandwidth_tbs"), _figure(data, "bf16_dense_tflops"))
