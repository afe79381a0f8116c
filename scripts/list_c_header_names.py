#!/usr/bin/env python3
"""The names one C header file declares at file level (functions, typedef'd types, enumerators, macros),
read by the same parser as scripts/list_nccl_names.py, for a header that ships outside a git repository
(a library wheel, a toolkit):

    python3 scripts/list_c_header_names.py HEADER --label "WHERE IT CAME FROM" [--skip REGEX]

prints a first line `# LABEL: N names declared in FILE`, then `KIND<TAB>NAME` per name. `--skip` leaves out
names it matches in full (versioned aliases such as __nvJitLinkCreate_13_5 that the header maps the public
names onto)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the header parser beside this script
from list_nccl_names import header_names  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("header", type=Path)
    parser.add_argument("--label", required=True, help="where the header came from (package and version)")
    parser.add_argument("--skip", default=None, help="a regex of names to leave out")
    args = parser.parse_args(argv)
    try:
        text = args.header.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"error: cannot read {args.header}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    names = [(k, n) for k, n in header_names(text) if not (args.skip and re.fullmatch(args.skip, n))]
    lines = [f"# {args.label}: {len(names)} names declared in {args.header.name}", *(f"{k}\t{n}" for k, n in names)]
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error of this script
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter's final flush goes nowhere
    return 0


if __name__ == "__main__":
    sys.exit(main())
