#!/usr/bin/env python3
"""The public functions an LLVM bitcode math library defines (NVIDIA's libdevice, AMD's OCML), read with
llvm-nm, and the card each goes on:

    python3 scripts/list_bitcode_functions.py BITCODE --prefix __nv_ --label "WHERE IT CAME FROM" [--nm llvm-nm-19]

prints a first line `# LABEL: N functions defined in FILE`, then `CARD<TAB>NAME` per function whose name
starts with the prefix (defined text or weak symbols; private helpers such as __ocmlpriv_* do not start
with a public prefix). `card_for` gives the card by the name's shape: fast or native variants are fast-math
intrinsics, bit and integer helpers integer intrinsics, conversions and reinterpretations type conversions,
and the rest device math functions."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

_FAST = re.compile(r"^(?:__nv_fast_|__ocml_native_)")
_INTEGER = re.compile(r"^__nv_(?:(?:popc|clz|ffs|brev)(?:ll)?|u?(?:ll)?(?:mulhi|mul24|hadd|rhadd|sad|abs|max|min)|"
                      r"u?mul64hi|byte_perm|funnelshift_\w+|dp[24]a\w*)$")
_CONVERSION = re.compile(r"^(?:__nv_(?:\w+2\w+_r[nzdu]|\w+_as_\w+|float2half_rn|half2float|double2\w+|"
                         r"\w+2float\w*|\w+2double\w*|hiloint2double|float_as_u?int|u?int_as_float)|"
                         r"__ocml_cvtrt[nzpe]_\w+)$")


def card_for(name: str) -> str:
    """The card a library function goes on, by the shape of its name."""
    if _FAST.match(name):
        return "fast-math-intrinsics"
    if _INTEGER.match(name):
        return "integer-intrinsics"
    if _CONVERSION.match(name):
        return "type-conversions"
    return "device-math-functions"


def defined_functions(nm_output: str, prefix: str) -> list[str]:
    """Names llvm-nm lists as defined code (T, or W for weak definitions) that start with `prefix`."""
    out = []
    for line in nm_output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] in ("T", "W") and parts[-1].startswith(prefix):
            out.append(parts[-1])
    return sorted(dict.fromkeys(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bitcode", type=Path)
    parser.add_argument("--prefix", required=True, help="the public name prefix (__nv_, __ocml_)")
    parser.add_argument("--label", required=True, help="where the file came from (package and version)")
    parser.add_argument("--nm", default="llvm-nm-19", help="the llvm-nm to run")
    args = parser.parse_args(argv)
    nm = shutil.which(args.nm) or shutil.which("llvm-nm")
    if nm is None:
        print(f"error: {args.nm} not found; install LLVM's tools (apt install llvm-19)", file=sys.stderr)
        return 2
    if not args.bitcode.is_file():
        print(f"error: {args.bitcode}: no such file", file=sys.stderr)
        return 2
    done = subprocess.run([nm, "--defined-only", str(args.bitcode)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"error: {nm} failed on {args.bitcode}: {done.stderr.strip()}", file=sys.stderr)
        return 2
    names = defined_functions(done.stdout, args.prefix)
    print(f"# {args.label}: {len(names)} functions defined in {args.bitcode.name}")
    for name in names:
        print(f"{card_for(name)}\t{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
