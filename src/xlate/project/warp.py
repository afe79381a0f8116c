"""One warp-width decision per project.

A CUDA project that writes 32 for the warp width in its warp code (lane and warp indices, shuffle
offsets, per-warp arrays, launch shapes) can be ported to 64-lane wavefronts two ways: keep a
logical 32-lane warp everywhere (each wavefront then holds two logical warps, which is correct as
long as every such place agrees), or move every place to `warpSize` in one change. A mix of the two
is what breaks: a reduction whose lane index reads warpSize while its shuffle loop still reduces 32
lanes drops half the sums, and the reverse counts half of them twice. The places are spread over
headers and the files that include them, so the decision is the project's, not a line's.

`warp_functions_of_project` finds the project's warp code before its files are explained (so a file
that calls a header's warp reduction knows its caller is warp code too); `decide` reads the
findings afterwards and writes the decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlate.cuda.source import FileContext

__all__ = ["decide", "warp_functions_of_project"]

_WIDTH_RULE = "XL001"


def warp_functions_of_project(files: list[Path], macros: dict[Path, dict[str, int]]) -> frozenset[str]:
    """Names of the functions, anywhere in the project, that are warp code: they use a warp
    primitive or warpSize, or call such a function (in any file), to a fixed point over the files.

    Only files that spell a warp primitive, warpSize or an already-known warp function are parsed."""
    from xlate.cuda import prepare
    from xlate.cuda.names import identifiers
    from xlate.cuda.parser import parse
    from xlate.cuda.source import SourceView
    from xlate.project import context
    from xlate.rules.warp import WARP_PRIMITIVES, warp_functions

    sources: dict[Path, bytes] = {}
    for f in files:
        try:
            sources[f] = f.read_bytes()
        except OSError:
            continue
    words = {f: identifiers(data) for f, data in sources.items()}
    trees: dict[Path, Any] = {}
    views: dict[Path, Any] = {}
    found: frozenset[str] = frozenset()
    seeds = frozenset(w.encode() for w in (*WARP_PRIMITIVES, "warpSize"))
    for _ in range(len(sources) + 1):  # each round adds names or stops; bounded by the file count
        wanted = seeds | {n.encode() for n in found}
        grown: set[str] = set(found)
        for f, data in sources.items():
            if wanted.isdisjoint(words[f]):
                continue
            if f not in trees:
                try:
                    prepared = prepare.for_parsing(data)
                    trees[f] = parse(prepared)
                    context.keep_tree(prepared, trees[f])
                except Exception:  # a file the parser cannot read adds nothing here; explain reports it
                    trees[f] = None
            if trees[f] is None:
                continue
            view = views.get(f)
            if view is None:
                view = views[f] = SourceView(str(f), data, trees[f], context=FileContext(macros.get(f, {}), found))
            else:  # the same view, its node tables kept; only the answer depends on what is known
                view.context = FileContext(macros.get(f, {}), found)
                view.scratch("warp-functions").clear()
            grown |= warp_functions(view)
        if grown == set(found):
            break
        found = frozenset(grown)
    return found


def decide(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The project's warp-width decision from its files' findings, or None when no warp code
    assumes a width. Each place is listed once (a header's findings are reported once, however
    many files include it)."""
    sites = [(r["path"], h) for r in results for h in r.get("hazards", []) if h.get("rule") == _WIDTH_RULE]
    if not sites:
        return None
    runtime = [(r["path"], a["line"]) for r in results for a in r.get("annotations", []) if a.get("symbol") == "warpSize"]
    files = sorted({p for p, _ in sites})
    where = [f"{p}:{h['line']}" for p, h in sites]
    n, m = len(sites), len(files)
    if runtime:
        rt_files = sorted({p for p, _ in runtime})
        decision = "mixed"
        message = (
            f"This project mixes warp widths: {n} place(s) in {m} file(s) assume a 32-lane warp, while "
            f"{len(runtime)} place(s) in {len(rt_files)} file(s) read warpSize (64 on CDNA). On 64-lane wavefronts "
            "the two disagree: a reduction whose lane index reads warpSize while its shuffle loop still starts at 16 "
            "drops the sums of lanes 32-63, and one whose loop starts at warpSize / 2 while its lane index stays % 32 "
            "adds them twice. Decide one width for the whole project: move every listed place to warpSize in one "
            "change, or make the warpSize reads a logical 32 as well."
        )
    else:
        rt_files = []
        decision = "logical-32"
        message = (
            f"This project assumes a 32-lane warp at {n} place(s) in {m} file(s) and never reads warpSize. Kept "
            "consistently, a logical 32-lane warp is correct on 64-lane wavefronts (each holds two logical warps), "
            "provided lane masks are 64-bit (XL010) and shuffles that read a fixed lane pass width 32. Either keep "
            "every listed place at 32, or move all of them to warpSize in one change; moving some of them only "
            "breaks the code between them (lost or double-counted partial sums, per-warp arrays indexed past their end)."
        )
    return {"warp": {"decision": decision, "message": message, "sites": where, "files": files,
                     "warpsize_files": rt_files, "warpsize_sites": [f"{p}:{line}" for p, line in runtime]}}
