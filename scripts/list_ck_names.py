#!/usr/bin/env python3
"""The public names of AMD's Composable Kernel (CK and CK Tile), read from one commit of the
ROCm/composable_kernel git directory, for the name list glossary/vocabulary/names-composable-kernel.yaml.

One list (tests/data/ck_names.txt), its first line naming the repository and the commit: the classes,
structs, alias templates and function templates declared at namespace scope in the headers under
include/ck_tile/ and include/ck/. One line per name and folder, `FOLDER<TAB>HEADER<TAB>KIND<TAB>NAME`
(KIND: class, alias or function), the first header of the folder that declares it, folders and headers in
path order. Left out as not public: names in a namespace whose name contains `detail`, in `impl` or an
anonymous namespace, and names starting with an underscore. Enumerations, member types and class members
are not read.

The headers are read as scripts/list_cutlass_names.py reads CUTLASS's (comments and literals removed,
the first branch of each preprocessor conditional kept, braces matched, only declarations whose every
enclosing brace is a namespace's): this script reuses its reader.

The headings of the documentation (CK's, and rocPRIM's, rocThrust's and hipCUB's for
names-rocprim-doc-sections.yaml) come from scripts/list_doc_headings.py:

    python3 scripts/list_ck_names.py GITDIR COMMIT > tests/data/ck_names.txt
    python3 scripts/list_doc_headings.py GITDIR COMMIT --repo ROCm/composable_kernel > tests/data/ck_doc_headings.txt

GITDIR is a git directory (a bare clone is enough). Only the standard library and the local git are used.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = "ROCm/composable_kernel"
ROOTS = ("include/ck", "include/ck_tile")
HEADER_SUFFIXES = (".h", ".hpp", ".inc")


def _reader():
    """scripts/list_cutlass_names.py, whose header reader this script shares."""
    name = "list_cutlass_names"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def names(gitdir: str, commit: str) -> list[str]:
    """The CUTLASS reader's lines over Composable Kernel's headers, function templates read everywhere."""
    return _reader().names(gitdir, commit, ROOTS, HEADER_SUFFIXES, functions_under=ROOTS)


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gitdir", help="a git directory of ROCm/composable_kernel (a bare clone is enough)")
    parser.add_argument("commit", help="the commit to read")
    args = parser.parse_args(argv)
    try:
        commit = _git(args.gitdir, "rev-parse", "--verify", f"{args.commit}^{{commit}}").decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"cannot read {args.commit} in {args.gitdir}: {e}", file=sys.stderr)
        return 2
    rows = names(args.gitdir, commit)
    first = f"# {REPO} {commit} {' '.join(ROOTS)}: {len(rows)} names (FOLDER, HEADER, KIND, NAME)"
    sys.stdout.write("\n".join([first, *rows]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
