"""GPU spec sheets as the store hands them out, and the name table every resolver reads.

Every surface that names a GPU (lookup, `compare`, the kernel runner's roofline, the rules' limits)
resolves it here, so a spelling that works in one works in all. The sheets come from the compiled
index; where the index cannot be built because the validation stack is not installed (the machine
that runs kernels has no pydantic), the sheets are read from their YAML unvalidated, into the same
objects, and resolved by the same table.

Standard library only at import: the runner and a cold explain import this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = ["GPU_FIGURES", "GpuFigure", "GpuSheet", "decode", "gpu_key", "name_table", "sheet_card"]

# The published figures of a sheet, in display order: field -> (label, unit). The one list of them:
# the index, `compare`, lookup's GPU card and the rules read it.
GPU_FIGURES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "compute_units": ("compute units", ""),
    "wave_size": ("wave / warp size", "lanes"),
    "memory_gb": ("memory", "GB"),
    "memory_bandwidth_tbs": ("memory bandwidth", "TB/s"),
    "bf16_dense_tflops": ("BF16 dense", "TFLOP/s"),
    "fp16_dense_tflops": ("FP16 dense", "TFLOP/s"),
    "fp8_dense_tflops": ("FP8 dense", "TFLOP/s"),
    "shared_memory_per_cu_kb": ("shared memory / LDS per SM/CU", "KiB"),
    "l2_cache_mb": ("L2 cache", "MB"),
    "last_level_cache_mb": ("last-level cache (Infinity Cache / SLC)", "MB"),
    "power_w": ("power", "W"),
})

# Vendor brands a person often leaves out ("MI300X" for "AMD Instinct MI300X").
_BRANDS = ("NVIDIA ", "AMD Instinct ", "AMD Radeon ", "AMD ", "Apple ", "Instinct ", "Radeon ")


class GpuFigure(NamedTuple):
    value: float | None
    source: str | None = None
    note: str | None = None


class GpuSheet(NamedTuple):
    """One spec sheet (`glossary/gpus/<id>.yaml`) as published figures with their sources (frozen:
    a NamedTuple, like every object the store hands out; see kb._types)."""

    id: str
    name: str
    vendor: str
    architecture: str
    compute_unit_name: str
    aliases: tuple[str, ...]
    figures: Mapping[str, GpuFigure]
    notes: str | None
    path: str  # as messages name it: glossary/gpus/<id>.yaml

    def figure(self, field: str) -> GpuFigure:
        return self.figures.get(field) or GpuFigure(None)

    def value(self, field: str) -> float | None:
        """A figure's value, None where the vendor publishes none."""
        return self.figure(field).value

    @property
    def short_name(self) -> str:
        """The name without brand or qualifier, as prose names the part ("MI300X", "B200", "M3 Ultra")."""
        bare = re.sub(r"\s*\([^)]*\)\s*$", "", self.name)
        for brand in _BRANDS:
            if bare.startswith(brand):
                return bare[len(brand):]
        return bare

    def spellings(self) -> tuple[str, ...]:
        """Every way the sheet is named: id, name, aliases, and the name without its brand or its
        parenthesised qualifier ("NVIDIA B200 (HGX)" is also "B200 (HGX)", "NVIDIA B200" and "B200")."""
        out = [self.id, self.name, *self.aliases]
        bare = re.sub(r"\s*\([^)]*\)\s*$", "", self.name)
        for name in dict.fromkeys((self.name, bare)):
            out.append(name)
            for brand in _BRANDS:
                if name.startswith(brand):
                    out.append(name[len(brand):])
        return tuple(dict.fromkeys(out))

    def card(self) -> dict[str, Any]:
        """The sheet as JSON (lookup's `gpu`, the index's card)."""
        return sheet_card(self)


def sheet_card(sheet: GpuSheet) -> dict[str, Any]:
    card: dict[str, Any] = {"name": sheet.name, "vendor": sheet.vendor, "aliases": list(sheet.aliases),
                            "architecture": sheet.architecture, "compute_unit_name": sheet.compute_unit_name,
                            "figures": {f: {"value": v.value, "source": v.source, "note": v.note}
                                        for f, v in sheet.figures.items()}}
    if sheet.notes:
        card["notes"] = sheet.notes
    card["path"] = sheet.path
    return card


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def decode(gid: str, card: Mapping[str, Any]) -> GpuSheet:
    """A sheet from its card in the index, or from a sheet's raw YAML (same keys)."""
    raw_figures = card.get("figures")
    figures: dict[str, GpuFigure] = {}
    for field in GPU_FIGURES:
        fig = (raw_figures or card).get(field)
        if isinstance(fig, Mapping):
            figures[field] = GpuFigure(_number(fig.get("value")), _text(fig.get("source")), _text(fig.get("note")))
    notes = _text(card.get("notes"))
    return GpuSheet(
        id=gid, name=str(card.get("name") or gid), vendor=str(card.get("vendor") or ""),
        architecture=str(card.get("architecture") or ""), compute_unit_name=str(card.get("compute_unit_name") or ""),
        aliases=tuple(str(a) for a in card.get("aliases") or ()), figures=MappingProxyType(figures),
        notes=" ".join(notes.split()) if notes else None, path=str(card.get("path") or f"glossary/gpus/{gid}.yaml"),
    )


def gpu_key(text: str) -> str:
    """The spelling-insensitive key of a GPU name: case, spaces, punctuation and parentheses ignored."""
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def name_table(sheets: Iterable[GpuSheet]) -> dict[str, str]:
    """Every spelling's key -> sheet id; the first sheet to claim a key keeps it."""
    table: dict[str, str] = {}
    for sheet in sheets:
        for spelling in sheet.spellings():
            key = gpu_key(spelling)
            if key:
                table.setdefault(key, sheet.id)
    return table
