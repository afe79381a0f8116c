#!/usr/bin/env python3
"""Which device-side names the ROCm headers actually declare, against what the rows say.

HIPIFY's tables (ROCm 6.3 sync) call many device functions "no HIP equivalent" that newer headers
declare under the CUDA name, and list as "same" names that a given ROCm's headers do not declare
(or declare only behind HIP_ENABLE_WARP_SYNC_BUILTINS). This compiles one probe unit with clang-19
against the ROCm headers (src/xlate/hip_headers.py finds them; scripts/install-test-deps.sh unpacks
them), once plain and once with HIP_ENABLE_WARP_SYNC_BUILTINS, and prints three lists:

  declared-but-none   the row says no HIP equivalent, the headers declare the CUDA name: an override
                      (relation same, the header and line as source) belongs in overrides.yaml
  kept-but-undeclared the row keeps the CUDA name (relation same, or no HIP side at all), the headers
                      do not declare it, and no `rocm` fact for this version says so yet: one with a
                      note belongs on the row (macros and qualifiers show here too: their rows are
                      handled by the macro rewrites, the probe cannot tell them apart)
  behind-warp-sync    declared only when HIP_ENABLE_WARP_SYNC_BUILTINS is defined

Only names written the same on both sides are probed (device functions and types of the CUDA
device API, and curated device rows): a renamed library call is checked by `translate --verify`.

    PYTHONPATH=src python3 scripts/probe_hip_declared.py [--json] [--where]

`--where` adds the header and line that declares each declared-but-none name (for `source`).
Exit status: 0 when it ran, 2 when clang or the headers are missing (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

from xlate import kb
from xlate.errors import XlateError
from xlate.translate import verify as vf

_IDENT = re.compile(r"[A-Za-z_]\w*")
WARP_SYNC = "HIP_ENABLE_WARP_SYNC_BUILTINS"


def candidates(smap: object, rocm: str) -> dict[str, str]:
    """CUDA device names whose HIP spelling would be the same name -> what the row says (none, same,
    unknown); names whose row already has a fact for this ROCm version are settled and left out."""
    out: dict[str, str] = {}
    for name in smap.names():  # type: ignore[attr-defined]
        if not _IDENT.fullmatch(name) or not name.startswith("__") and not name.startswith(("make_", "atomic")):
            continue
        entry = smap.get(name)  # type: ignore[attr-defined]
        if entry is None or entry.kind == "header":
            continue
        if entry.family not in (None, "cuda-device"):
            continue
        side = entry.side("hip")
        if side is not None and side.rocm_fact(rocm) is not None:
            continue
        relation = entry.hip_relation or "unknown"
        if relation == "none" or (relation == "same" and entry.hip == name) or relation == "unknown":
            out[name] = relation
    return out


def where(tc: vf.Toolchain, names: list[str]) -> dict[str, str]:
    """name -> 'header:line' of a declaration, from clang's own resolution (an -ast-dump filter)."""
    found: dict[str, str] = {}
    root = str(tc.include) + "/"
    for name in names:
        cmd = [tc.clang, "-x", "hip", f"--offload-arch={tc.arch}", "-nogpulib", "-std=c++17", "-w", "-fsyntax-only",
               "-I", str(tc.include), "-Xclang", "-ast-dump", "-Xclang", f"-ast-dump-filter={name}", "-"]
        src = "".join(f"#include <{h}>\n" for h in vf.HEADERS_FOR_DEVICE)
        proc = subprocess.run(cmd, input=src, capture_output=True, text=True, errors="replace", env=vf._env(), check=False, timeout=300)
        m = re.search(r"<(" + re.escape(root) + r"[^:>]+):(\d+)", proc.stdout)
        if m:
            found[name] = f"{m.group(1)[len(root):]}:{m.group(2)}"
    return found


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print the lists as JSON")
    p.add_argument("--where", action="store_true", help="find the header and line of each declared-but-none name")
    p.add_argument("--arch", default=vf.DEFAULT_ARCH)
    args = p.parse_args(argv)
    try:
        tc = vf.find_toolchain(args.arch, None)
    except XlateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    smap = kb.load_symbols()
    said = candidates(smap, tc.rocm)
    plain = vf.declared(tc, said)
    warp = vf.declared(tc, said, defines=[WARP_SYNC])
    report = {
        "rocm": tc.rocm,
        "declared-but-none": sorted(n for n, r in said.items() if r == "none" and plain[n]),
        "kept-but-undeclared": sorted(n for n, r in said.items() if r != "none" and not plain[n] and not warp[n]),
        "behind-warp-sync": sorted(n for n in said if not plain[n] and warp[n]),
        "probed": len(said),
    }
    if args.where:
        report["where"] = where(tc, report["declared-but-none"])
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"ROCm {tc.rocm} headers at {tc.include}: {len(said)} names probed")
        for key in ("declared-but-none", "kept-but-undeclared", "behind-warp-sync"):
            print(f"{key} ({len(report[key])}):")
            for n in report[key]:
                extra = f"  {report['where'][n]}" if args.where and n in report.get("where", {}) else ""
                print(f"  {n}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
