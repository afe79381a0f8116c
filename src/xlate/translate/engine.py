"""One file: parse once, plan every rewrite on the original bytes, apply them once.

Order matters only where two rewrites want the same bytes: preprocessor conditions and
argument-aware rewrites claim their tokens first, the symbol rows rename what is left, includes
follow, launches (which enclose other rewrites) come last, then the hazard comments.
"""

from __future__ import annotations

import re
from typing import Any

from xlate.translate import calls, compat, hazards, headers, launch, macros, masks, names, optin, vectors, versions, widen
from xlate.translate.edits import Edits, line_starts
from xlate.translate.notes import Notes
from xlate.translate.pointee import Pointees
from xlate.translate.options import Options
from xlate.translate.report import Report

CUDA_SUFFIXES = (".cu",)


class FileResult:
    """One file's translation (a plain class: the translator's start-up imports no dataclasses)."""

    __slots__ = ("shown", "text", "changed", "report", "errors", "lines")

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.text: bytes | None = None  # None when the file could not be translated
        self.changed = False
        self.report = Report()
        self.errors: list[dict[str, Any]] = []
        self.lines = 0


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
    from xlate.project import context as project_context

    prepared = prepare.for_parsing(source)
    tree = project_context.parsed(prepared) or parse(prepared)  # a header another file's pass parsed already
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
    notes = Notes()

    for a, b, c, d in prepare.spaced_launches(source):
        # nvcc reads `<< <` ... `>> >`, clang does not: the same launch with its chevrons joined.
        if edits.add(a, b, b"<<<") and edits.add(c, d, b">>>"):
            report.rewritten["launch-chevrons"] += 1

    view = SourceView(shown, source, tree, [o for o, _ in found], locator)
    # Names the file defines as its own functions keep their names everywhere in it (a user's
    # `__ldcs` overload is not CUDA's), so their occurrences take part in no rewrite.
    dead = names.dead_definitions(found)
    if dead:  # a definition HIP never compiles is left as written, inside and out
        found = [(o, e) for o, e in found
                 if o[6] is None or not any(a <= o[6].start_byte < b for a, b in dead)]
        for a, _b in dead:
            notes.add(starts, a, "left as written: HIP-Clang compiles this definition in neither pass (its #if is "
                      "false under HIP), so it does not overload CUDA's function there", report, "definition compiled out")
    own = names.own_functions(found)
    for name, fn in own.items():
        notes.add_at(starts, fn.node, f"kept {name}: this file defines its own {name}; it and the calls that may "
                     "reach it keep the name", report, "user-defined function")
    inherited = {n: where for n, where in included_functions(shown, source, smap).items() if n not in own}
    for o, _ in found:
        if o[2] in inherited and o[2] not in own and o[6] is not None:
            own[o[2]] = names.OwnFunction(o[6], inherited[o[2]][1].pointees)
    if own:
        types = Pointees()
        kept = []
        for o, e in found:
            if o[2] not in own or _not_the_users(o[6], own[o[2]], e, types):
                kept.append((o, e))
            elif o[2] in inherited and o[6] is not None:  # the first call that may reach it says why
                where, _ = inherited.pop(o[2])
                notes.add_at(starts, o[6], f"kept {o[2]}: {where} defines its own {o[2]}, so the calls here that "
                             "may reach it keep the name", report, "user-defined function")
        found = kept
    settled = macros.rewrite(tree, source, edits, report, claimed, notes, starts)
    names.keep_host_calls_in_device_code(found, source, starts, view, report, claimed, notes)
    helpers = compat.rewrite(tree, found, source, starts, edits, report, options, claimed, notes)
    calls.rewrite(found, source, starts, smap, edits, report, options, claimed, notes)
    calls.erase_macros(tree, source, smap, edits, report, options, claimed)
    before_masks = set(claimed)
    settled |= masks.rewrite(view, smap, edits, report, options, claimed)
    settled |= widen.rewrite(view, smap, edits, report, options, claimed)
    names.note_approximate_constructions(found, source, starts, report, options, notes, smap, view, claimed)
    names.rewrite(found, source, starts, edits, report, options, claimed, smap, notes)
    names.note_approximate_renames(found, source, starts, edits, report, notes)
    optin.rewrite(tree, found, source, starts, smap, edits, report, options, claimed - before_masks)
    now = headers.rewrite(found, source, edits, report, options, tree, shown, notes, starts, smap)
    vectors.rewrite(tree, source, edits, report)
    if options.launch_syntax == "ggl":
        launch.rewrite(tree, source, edits, report)
    cuda_code = _is_cuda(shown, source, found)
    if options.runtime_include and cuda_code:
        headers.add_runtime(tree, source, edits, report, now)
    headers.add_declaring_headers(tree, source, edits, report, now)
    if cuda_code or headers.has_runtime(now):  # a .cu file, or a header that includes CUDA's runtime (API)
        headers.add_host_headers(tree, source, edits, report, now)
    compat.add_block(tree, source, edits, report, helpers)

    scratch: dict[str, Any] = {"errors": []}
    rules = rules if rules is not None else hip_rules(scratch)
    found_hazards = explain.run_rules(shown, source, tree, [o for o, _ in found], scratch, rules, locator)
    for err in scratch["errors"]:
        result.errors.append(_error(err["kind"], err["message"]))
    notes.write(source, starts, edits, options.annotate)  # above any hazard comment of the same line
    # --rocm: names kept as written that the target version's headers do not declare get the row's
    # note for that version, in place of the generic XL090 finding (translate/versions.py)
    noted = versions.annotate(found, source, starts, edits, report, options.rocm, options.annotate)
    if noted:
        found_hazards = [h for h in found_hazards if h["rule"] != "XL090" or (h["line"], h["column"]) not in noted]
    hazards.annotate(hazards.hip_hazards(found_hazards), source, starts, edits, report, settled, options.annotate)

    text = edits.apply()
    if text and not text.endswith(b"\n") and source.endswith(b"\n"):
        text += b"\n"
    result.text = text
    result.changed = text != source
    return result


def _not_the_users(node: Any, fn: Any, entry: Any, types: Any) -> bool:
    """Whether a call of a name the project overloads provably calls CUDA's function, not the
    project's: its first argument is a declared pointer to a type the data proves the HIP spelling
    for, or one CUDA declares the function for that a compat helper replaces (either way CUDA declares
    the function for it, so no project overload can take exactly that type under nvcc), and which
    none of the project's non-template overloads names."""
    from xlate.translate import calldata
    from xlate.translate.calls import arguments
    from xlate.translate.names import call_of

    spec = calldata.typed().get(entry.symbol)
    call = call_of(node)
    args = arguments(call) if call is not None else []
    if fn.pointees is None or not args:
        return False
    pointed = types.of_argument(args[0])
    if pointed is None or pointed in fn.pointees:
        return False
    return (spec is not None and pointed in spec["accepts"]) or compat.cuda_declared(entry.symbol, pointed)


# Per process: the real path of a file of the run -> the mapped functions it defines.
_OWN_IN_FILE: dict[str, dict[str, Any]] = {}
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)


def included_functions(shown: str, source: bytes, smap: Any) -> dict[str, tuple[str, Any]]:
    """Functions that the project's own headers included by this file (directly or through others of
    the same run) define for mapped names: name -> (the header as included, names.OwnFunction).
    Resolved through output.resolve_include, so only files of the run count; each is parsed once
    per process."""
    from xlate.translate import output

    out: dict[str, tuple[str, Any]] = {}
    seen: set[str] = set()
    stack: list[tuple[str, bytes]] = [(shown, source)]
    while stack:
        including, text = stack.pop()
        for m in _QUOTED_INCLUDE.finditer(text):
            written = m.group(1).decode("utf-8", "replace")
            path = output.resolve_include(including, written)
            if path is None or path in seen:
                continue
            seen.add(path)
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            for name, fn in _own_in_file(path, data, smap).items():
                out.setdefault(name, (written, fn))
            stack.append((path, data))
    return out


def _own_in_file(path: str, data: bytes, smap: Any) -> dict[str, Any]:
    found_here = _OWN_IN_FILE.get(path)
    if found_here is None:
        from xlate.cuda import occurrences as oc
        from xlate.cuda import prepare
        from xlate.cuda.parser import parse

        from xlate.project import context as project_context

        prepared = prepare.for_parsing(data)
        tree = project_context.parsed(prepared) or parse(prepared)
        project_context.keep_tree(prepared, tree)  # the header's own translation reuses it
        found_here = names.own_functions(oc.find_entries(tree, data, smap))
        _OWN_IN_FILE[path] = found_here
    return found_here


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
