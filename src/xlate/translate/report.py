"""What a translation did, by rule: rewritten, fixed hazards, flagged hazards, names left as they were."""

from __future__ import annotations

from collections import Counter
from typing import Any


class Report:
    """Counts by rule (a plain class: the translator's start-up imports no dataclasses)."""

    __slots__ = ("rewritten", "fixed", "flagged", "unknown", "no_equivalent", "notes")

    def __init__(self, rewritten: Counter[str] | None = None, fixed: Counter[str] | None = None,
                 flagged: Counter[str] | None = None, unknown: Counter[str] | None = None,
                 no_equivalent: Counter[str] | None = None, notes: list[str] | None = None) -> None:
        self.rewritten: Counter[str] = Counter() if rewritten is None else rewritten  # rewrite rule -> count
        self.fixed: Counter[str] = Counter() if fixed is None else fixed  # "XL011 warp-sync-mask" -> fixes applied
        self.flagged: Counter[str] = Counter() if flagged is None else flagged  # "XL010 ..." -> comments written or kept
        self.unknown: Counter[str] = Counter() if unknown is None else unknown  # CUDA names no row gives a HIP spelling
        self.no_equivalent: Counter[str] = Counter() if no_equivalent is None else no_equivalent  # rows: HIP has none
        self.notes: list[str] = [] if notes is None else notes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Report):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "Report(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"

    def merge(self, other: Report) -> None:
        self.rewritten.update(other.rewritten)
        self.fixed.update(other.fixed)
        self.flagged.update(other.flagged)
        self.unknown.update(other.unknown)
        self.no_equivalent.update(other.no_equivalent)

    def as_json(self) -> dict[str, Any]:
        return {"rewritten": dict(sorted(self.rewritten.items())), "fixed": dict(sorted(self.fixed.items())),
                "flagged": dict(sorted(self.flagged.items())), "unknown": dict(sorted(self.unknown.items())),
                "no_hip_equivalent": dict(sorted(self.no_equivalent.items()))}


def _counts(c: Counter[str], limit: int | None = None) -> str:
    items = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = items if limit is None else items[:limit]
    text = ", ".join(f"{k} {v}" for k, v in shown)
    if limit is not None and len(items) > limit:
        text += f", ... ({len(items) - limit} more)"
    return text


def render_text(report: Report, files: int, changed: int, errors: int, rocm: str | None = None) -> str:
    target = f" for ROCm {rocm}" if rocm else ""
    lines = [f"translate{target}: {files} file(s), {changed} changed, {errors} with errors"]
    lines.append(f"  rewritten: {_counts(report.rewritten) or 'nothing'}")
    if report.fixed:
        lines.append(f"  fixed (mechanical, provably safe): {_counts(report.fixed)}")
    if report.flagged:
        lines.append(f"  flagged for a human (// xlate: comments): {_counts(report.flagged)}")
    if report.no_equivalent:
        lines.append(f"  left, HIP has no equivalent: {_counts(report.no_equivalent, 20)}")
    if report.unknown:
        lines.append(f"  left, unknown (no row gives a HIP name): {_counts(report.unknown, 20)}")
    return "\n".join(lines)
