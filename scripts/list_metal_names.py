"""The Objective-C classes of Apple's Metal Performance Shaders frameworks, read from a translation of the
SDK headers, for the name list glossary/vocabulary/names-mps.yaml.

madsmtm/objc2-generated holds objc2's header-translator output for each framework of an Xcode SDK, one
Rust file per header, in folders that mirror the frameworks: MetalPerformanceShaders/<sub-framework>/
<header>.rs for the umbrella framework's sub-frameworks (MPSCore, MPSImage, MPSMatrix, MPSNDArray,
MPSNeuralNetwork, MPSRayIntersector) and MetalPerformanceShadersGraph/<header>.rs. Each class a header
declares with @interface is one `extern_class!` block naming the class in its `pub struct`. The script
reads the files straight from the git object store (`git show`), so it needs no checkout and no network:

    python3 scripts/list_metal_names.py GIT_DIR COMMIT [--repo OWNER/NAME] [--sdk "Xcode 26.5"]

prints one line per class, `FRAMEWORK<TAB>HEADER<TAB>CLASS` (FRAMEWORK: the sub-framework, or
MetalPerformanceShadersGraph; HEADER: the header's name, .h), in the order of the files' paths and,
within a file, of the declarations; with --repo the first lines are comments naming the repository, the
commit, the SDK and the count, as tests/data/names-mps.txt keeps them.
"""

from __future__ import annotations

import argparse
import re
import subprocess

ROOTS = ("MetalPerformanceShaders/", "MetalPerformanceShadersGraph/")
CLASS = re.compile(r"extern_class!\(.*?pub struct (\w+)\s*;", re.S)


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True, encoding="utf-8"
    ).stdout


def where(path: str) -> tuple[str, str] | None:
    """The framework part and header a generated file stands for; None for a module file."""
    parts = path.removesuffix(".rs").split("/")
    if parts[-1] == "mod" or not path.endswith(".rs"):
        return None
    if parts[0] == "MetalPerformanceShadersGraph" and len(parts) == 2:
        return parts[0], parts[1] + ".h"
    if parts[0] == "MetalPerformanceShaders" and len(parts) == 3:
        return parts[1], parts[2] + ".h"
    return None


def classes(source: str) -> list[str]:
    """The classes one generated file declares, in order."""
    return CLASS.findall(source)


def listing(git_dir: str, commit: str) -> list[tuple[str, str, str]]:
    paths = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *ROOTS).split()
    out = []
    for path in sorted(paths):
        place = where(path)
        if place:
            out += [(*place, name) for name in classes(git(git_dir, "show", f"{commit}:{path}"))]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir")
    parser.add_argument("commit")
    parser.add_argument("--repo")
    parser.add_argument("--sdk", default="")
    args = parser.parse_args()
    rows = listing(args.git_dir, args.commit)
    if args.repo:
        commit = git(args.git_dir, "rev-parse", args.commit).strip()
        print(
            f"# {args.repo} {commit}: {len(rows)} Objective-C classes of MetalPerformanceShaders and"
            f" MetalPerformanceShadersGraph, translated from the {args.sdk} SDK headers"
        )
        print("# framework part<TAB>header<TAB>class, from the extern_class! blocks of the generated files")
    for row in rows:
        print("\t".join(row))


if __name__ == "__main__":
    main()
