"""GPU spec-sheet figures for roofline fractions, through the knowledge base's one GPU name resolver.

The runner must not need pydantic: `kb.resolve_gpu` reads the compiled index with plain JSON, and on
a machine where the index cannot be built (no pydantic) the same sheets unvalidated. A missing or
null figure means "no roofline", never a failed run.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlate import kb


@dataclass(frozen=True, slots=True)
class Spec:
    id: str
    name: str
    path: str
    bandwidth_tbs: float | None
    bf16_tflops: float | None


def find(device_name: str) -> Spec | None:
    """The spec sheet for the device name the driver reports ("NVIDIA H100 80GB HBM3"), or None."""
    try:
        sheet = kb.resolve_gpu(device_name, reported=True)
    except kb.IndexBuildError:
        return None  # a glossary with defects: the run goes on without a roofline
    if sheet is None:
        return None
    return Spec(sheet.id, sheet.name, sheet.path, sheet.value("memory_bandwidth_tbs"), sheet.value("bf16_dense_tflops"))
