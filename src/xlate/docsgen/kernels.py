"""The kernel gallery pages (filled from kernels/examples/*/example.yaml and kernels/evidence/)."""

from __future__ import annotations

from pathlib import Path

from xlate.glossary import Glossary


def section(g: Glossary, root: Path) -> dict[str, str]:
    return {}
