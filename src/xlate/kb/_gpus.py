"""GPU spec sheets as the store hands them out, and the one resolver of a GPU's name.

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
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from xlate.kb._index import Index

__all__ = ["GPU_FIGURES", "GpuFigure", "GpuSheet", "gpu_key", "gpu_sheets", "gpu_suggestions", "name_table",
           "resolve_gpu", "sheet_card"]

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


_MEMO: dict[tuple[str, str], tuple[dict[str, GpuSheet], dict[str, str]]] = {}


def _raw_sheets(root: Path) -> dict[str, GpuSheet]:
    """The sheets read from YAML without validation: only where the index cannot be built."""
    import yaml

    from xlate.kb._paths import display_path

    out: dict[str, GpuSheet] = {}
    folder = root / "gpus"
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue
        if isinstance(data, dict):
            gid = str(data.get("id") or path.stem)
            out.setdefault(gid, decode(gid, {**data, "path": display_path(path, root)}))
    return out


def _loaded(root: Path | None, given: Index | None = None) -> tuple[dict[str, GpuSheet], dict[str, str]]:
    from xlate.kb._index import load_index
    from xlate.kb._paths import glossary_root

    root = root or glossary_root()
    try:
        index = given if given is not None else load_index(root)
    except ImportError:
        # No pydantic here (the kernel machine): the same sheets, read unvalidated.
        key = ("raw", str(root))
        if key not in _MEMO:
            sheets = _raw_sheets(root)
            _MEMO[key] = (sheets, name_table(sheets.values()))
        return _MEMO[key]
    key = ("index", index["hash"])
    if key not in _MEMO:
        _MEMO.clear()
        sheets = {gid: decode(gid, card) for gid, card in index["gpus"].items()}
        _MEMO[key] = (sheets, index.get("gpu_names") or name_table(sheets.values()))
    return _MEMO[key]


def gpu_sheets(root: Path | None = None, *, index: Index | None = None) -> dict[str, GpuSheet]:
    """Every spec sheet by id, in file order. Raises kb.IndexBuildError when the glossary has defects.

    `index`: an index the caller already holds (saves finding the current one again)."""
    return dict(_loaded(root, index)[0])


def resolve_gpu(name: str, root: Path | None = None, *, reported: bool = False,
                index: Index | None = None) -> GpuSheet | None:
    """The sheet a GPU name lands on, or None.

    Any spelling of a sheet (id, name, alias; case, spaces, dashes and parentheses ignored) resolves
    to it. With `reported`, the name is what a driver reports for the device ("NVIDIA H100 80GB
    HBM3"): failing an exact spelling, the sheet with the longest spelling inside it answers.
    """
    key = gpu_key(name)
    if not key:
        return None
    sheets, table = _loaded(root, index)
    gid = table.get(key)
    if gid is None and reported:
        inside = [(len(k), g) for k, g in table.items() if k in key]
        gid = max(inside)[1] if inside else None
    return sheets.get(gid) if gid else None


def gpu_suggestions(name: str, root: Path | None = None, limit: int = 4) -> list[str]:
    """Sheet ids nearest to a name that resolved to none."""
    from rapidfuzz import fuzz, process

    sheets = _loaded(root)[0]
    choices = {gid: " ".join(s.spellings()) for gid, s in sheets.items()}
    found = process.extract(name, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=40)
    return [gid for _, _, gid in found]
