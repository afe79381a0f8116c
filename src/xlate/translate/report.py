"""What a translation did, by rule: rewritten, fixed hazards, flagged hazards, names left as they were."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Report:
    rewritten: Counter[str] = field(default_factory=Counter)  # rewrite rule -> count
    fixed: Counter[str] = field(default_factory=Counter)  # "XL011 warp-sync-mask" -> mechanical fixes applied
    flagged: Counter[str] = field(default_factory=Counter)  # "XL010 lane-mask-width" -> comments written or kept
    unknown: Counter[str] = field(default_factory=Counter)  # CUDA name with no row that gives a HIP spelling
    no_equivalent: Counter[str] = field(default_factory=Counter)  # rows that say HIP has none
    notes: list[str] = field(default_factory=list)

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
