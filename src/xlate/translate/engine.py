"""One file: parse once, plan every rewrite on the original bytes, apply them once.

Order matters only where two rewrites want the same bytes: preprocessor conditions and
argument-aware rewrites claim their tokens first, the symbol rows rename what is left, includes
follow, launches (which enclose other rewrites) come last, then the hazard comments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlate.translate import calls, hazards, headers, launch, macros, masks, names, optin, vectors, widen
from xlate.translate.edits import Edits, line_starts
from xlate.translate.options import Options
from xlate.translate.report import Report

CUDA_SUFFIXES = (".cu",)


@dataclass
class FileResult:
    shown: str
    text: bytes | None = None  # None when the file could not be translated
    changed: bool = False
    report: Report = field(default_factory=Report)
    errors: list[dict[str, Any]] = field(default_factory=list)
    lines: int = 0


def _error(kind: str, message: str, line: int | None = None) -> dict[str, Any]:
    err: dict[str, Any] = {"kind": kind, "message": message}
    if line is not None:
        err["line"] = line
    return err


def translate_source(shown: str, source: bytes, smap: Any, options: Options, rules: list[Any] | None = None) -> FileResult:
    from xlate import explain
    from xlate.cuda import occurrences as oc
    from xlate.cuda import prepare
    from xlate.cuda.parser import parse
    from xlate.cuda.source import SourceView
    from xlate.cuda.tree import Locator

    result = FileResult(shown)
    result.lines = source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.errors.append(_error("encoding", f"not UTF-8 text ({exc.reason} at byte {exc.start}); translated as bytes"))
    tree = parse(prepare.for_parsing(source))
    lines = oc.LineIndex(source)
    for region in oc.error_regions(tree, lines):
        what = f"missing {region.missing!r}" if region.missing else "syntax the parser could not read"
        result.errors.append(_error("syntax", f"{what}; left unchanged in this region", region.line))
    locator = Locator(tree)
    from xlate.project.names import filter_found  # a name the user defines (`cudnn_handle`) is no API use

    found = filter_found(oc.find_entries(tree, source, smap, lines, locator), source, smap, locator)
    starts = line_starts(source)
    edits = Edits(source)
    report = result.report
    claimed: set[int] = set()

    settled = macros.rewrite(tree, source, edits, report, claimed)
    calls.rewrite(found, source, starts, smap, edits, report, options, claimed)
    calls.erase_macros(tree, source, smap, edits, report, options, claimed)
    view = SourceView(shown, source, tree, [o for o, _ in found], locator)
    before_masks = set(claimed)
    settled |= masks.rewrite(view, smap, edits, report, options, claimed)
    settled |= widen.rewrite(view, smap, edits, report, options, claimed)
    names.rewrite(found, source, starts, edits, report, options, claimed, smap)
    optin.rewrite(tree, found, source, starts, smap, edits, report, options, claimed - before_masks)
    now = headers.rewrite(found, source, edits, report, options)
    vectors.rewrite(tree, source, edits, report)
    if options.launch_syntax == "ggl":
        launch.rewrite(tree, source, edits, report)
    if options.runtime_include and _is_cuda(shown, source, found):
        headers.add_runtime(tree, source, edits, report, now)

    scratch: dict[str, Any] = {"errors": []}
    rules = rules if rules is not None else hip_rules(scratch)
    found_hazards = explain.run_rules(shown, source, tree, [o for o, _ in found], scratch, rules, locator)
    for err in scratch["errors"]:
        result.errors.append(_error(err["kind"], err["message"]))
    hazards.annotate(hazards.hip_hazards(found_hazards), source, starts, edits, report, settled, options.annotate)

    text = edits.apply()
    if text and not text.endswith(b"\n") and source.endswith(b"\n"):
        text += b"\n"
    result.text = text
    result.changed = text != source
    return result


_HIP_RULES: list[Any] | None = None


def hip_rules(result: dict[str, Any]) -> list[Any]:
    """Explain's rules that concern HIP (the Metal-only ones cannot add a comment to a HIP port)."""
    global _HIP_RULES
    if _HIP_RULES is None:
        from xlate import explain

        _HIP_RULES = [r for r in explain.load_rules(result) if "hip" in r.backends or not r.backends]
    return _HIP_RULES


def _is_cuda(shown: str, source: bytes, found: list[Any]) -> bool:
    """A file that nvcc gives the runtime header implicitly: every .cu file, whether or not it
    names CUDA itself (its local headers may), as HIPIFY does; headers and C++ files get it from
    their includes, as they did under nvcc."""
    return shown.endswith(CUDA_SUFFIXES)
