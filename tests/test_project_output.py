"""explain's default text output says what differs: at most a third of the lines of the full view
(`--all`, the output as it was) on a 500-line kernel file, with every hazard kept."""

from __future__ import annotations

import io
import re
from pathlib import Path

from xlate import explain

SCAN = Path(__file__).resolve().parent.parent / "kernels" / "examples" / "scan" / "scan.cu"
HAZARD_LINE = re.compile(r"^(\S+):(\d+):(\d+): (XL\d+) ([a-z0-9-]+) ", re.MULTILINE)


def _text(paths: list[str], show_all: bool) -> str:
    out = io.StringIO()
    explain.run(paths, fmt="text", out=out, jobs=1, show_all=show_all)
    return out.getvalue()


def test_default_output_is_a_third_of_the_full_view_with_every_hazard_kept() -> None:
    assert SCAN.read_text().count("\n") >= 500
    full = _text([str(SCAN)], show_all=True)
    short = _text([str(SCAN)], show_all=False)
    assert len(short.splitlines()) * 3 <= len(full.splitlines()), (len(short.splitlines()), len(full.splitlines()))
    hazards = set(HAZARD_LINE.findall(full))
    assert hazards and set(HAZARD_LINE.findall(short)) == hazards
    assert "same name on HIP" in short and "threadIdx" in short


def test_hazards_come_first_grouped_by_rule() -> None:
    lines = _text([str(SCAN)], show_all=False).splitlines()
    codes = [m.group(4) for line in lines if (m := HAZARD_LINE.match(line + " "))]
    # each rule's findings are together: a code never comes back after another one started
    seen: list[str] = []
    for c in codes:
        if not seen or seen[-1] != c:
            assert c not in seen, f"{c} split into several groups"
            seen.append(c)
    assert lines.index("differs:") > max(i for i, line in enumerate(lines) if HAZARD_LINE.match(line + " "))
