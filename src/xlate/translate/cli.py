"""`xlate translate PATH... --to hip`: the command-line front end (argparse, no CLI framework, so a
one-file call starts fast). Per-file problems are reported one line each and the run goes on."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

from xlate import processes
from xlate.errors import EXIT_ERROR, EXIT_OK
from xlate.translate.options import Options
from xlate.translate.report import Report, render_text

# Unless --jobs says otherwise, below this much source worker processes cost more than they save: forking,
# sending the results back and reaping take about as long as translating ~300 KB in one process
# (benchmarks/bench_translate.py).
POOL_MIN_BYTES = 256 * 1024
_FATAL_KINDS = frozenset({"read", "too-large", "binary", "missing", "internal", "write"})


def translate_job(job: Any, smap: Any, options: Options, keep_text: bool = False) -> dict[str, Any]:
    """Read, translate and write one file; a plain dict comes back (it may cross a process boundary)."""
    from xlate import source_files
    from xlate.translate import output, versions
    from xlate.translate.engine import translate_source

    smap = versions.for_target(smap, options.rocm)  # the rows as the target ROCm version's headers have them
    res: dict[str, Any] = {"path": job.shown, "target": str(job.target) if job.target else None, "changed": False,
                           "errors": [], "report": Report(), "lines": 0, "text": None}
    scratch = source_files.empty_result(job.shown)
    source = source_files.read_source(job.source, scratch)
    if source is None:
        if scratch["errors"] and scratch["errors"][0]["kind"] == "empty":
            source = _read_plain(job.source)  # an empty or blank file translates to itself
        if source is None:
            res["errors"] = scratch["errors"]
            return res
    try:
        if source.strip():
            result = translate_source(job.shown, source, smap, options)
            text, res["report"], res["lines"] = result.text, result.report, result.lines
            res["errors"].extend(result.errors)
        else:
            text = source
    except RecursionError:
        res["errors"].append({"kind": "internal", "message": "code nested too deeply to translate"})
        return res
    except Exception as exc:  # last line of defence: a per-file error, never a traceback
        res["errors"].append({"kind": "internal", "message": f"could not translate this file: {type(exc).__name__}: {exc}"})
        return res
    assert text is not None
    res["changed"] = text != source
    try:
        if job.target is None:
            res["text"] = text
        elif os.path.normpath(str(job.target)) == os.path.normpath(str(job.source)):
            backup = output.write_in_place(job.source, source, text)
            res["backup"] = str(backup) if backup else None
        else:
            output.write_atomic(job.target, text, mode_from=job.source)
    except OSError as exc:
        from xlate.cuda.files import describe_os_error

        res["errors"].append({"kind": "write", "message": f"cannot write {job.target}: {describe_os_error(exc)}"})
    if keep_text:
        res["text"] = text
    return res


def _read_plain(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


# --- many files, in processes ---------------------------------------------------------------------

def _work(job: Any, smap: Any, options: Options) -> dict[str, Any]:
    """One file in a worker: its result as plain data (a Report of Counters packs larger and slower)."""
    res = translate_job(job, smap, options)
    res["report"] = res["report"].as_json()
    return res


def run_jobs(jobs: list[Any], smap: Any, options: Options, workers: int, root: Path | None) -> list[dict[str, Any]]:
    """Every job's result, in order: in `workers` forked processes (each with a share of the files by
    size; this one waits) when there are at least two files a worker, else here."""
    from xlate import explain

    explain.load_rules()  # imported once here: forked workers inherit the modules
    if workers > 1 and len(jobs) >= 2 * workers and processes.can_fork():
        sizes = []
        for job in jobs:
            try:
                sizes.append(os.stat(job.source).st_size)
            except (OSError, ValueError, TypeError):
                sizes.append(0)
        shares = processes.shares(sizes, workers)  # every share to a worker (here=False): none starts behind
        results = processes.split(jobs, shares, lambda job: _work(job, smap, options), here=False)
        for r in results:
            r["report"] = _report_from_json(r["report"])
        return results
    return [translate_job(job, smap, options) for job in jobs]


def _report_from_json(data: dict[str, Any]) -> Report:
    from collections import Counter

    return Report(Counter(data["rewritten"]), Counter(data["fixed"]), Counter(data["flagged"]),
                  Counter(data["unknown"]), Counter(data["no_hip_equivalent"]))


def run(paths: list[str], to: str = "hip", out: str | None = None, in_place: bool = False, keep_extension: bool = False,
        options: Options | None = None, summary: str = "text", jobs: int | None = None, glossary: Path | None = None,
        stdout: Any = None, stderr: Any = None, verify: VerifySettings | None = None) -> int:
    from xlate import kb
    from xlate.translate import output

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    options = options or Options()
    if to != "hip":
        print(f"error: --to {to!r}: only hip is supported", file=stderr)
        return EXIT_ERROR
    planned, plan_errors, fatal = output.plan(paths, out, in_place, keep_extension)
    if fatal:
        print(f"error: {fatal}", file=stderr)
        return EXIT_ERROR
    try:
        smap = kb.load_symbols(glossary)
    except Exception as exc:
        from xlate import kb

        if not isinstance(exc, (kb.IndexBuildError, OSError)):
            raise
        from xlate.errors import report

        return report(exc, stderr)
    # The target ROCm version and, with --verify, the compiler: settled before any file is written.
    from xlate.errors import XlateError
    from xlate.errors import report as report_error
    from xlate.translate import versions

    toolchain = commands = None
    try:
        if verify is not None:
            from xlate.translate.verify import CompileCommands, find_toolchain

            toolchain = find_toolchain(verify.arch, options.rocm)
            commands = CompileCommands.load(verify.compile_commands) if verify.compile_commands else None
            if options.rocm is None:
                options = options._replace(rocm=toolchain.rocm)
        options = options._replace(rocm=versions.target(smap, options.rocm))
    except XlateError as exc:
        return report_error(exc, stderr)
    if jobs and jobs > 0:
        workers = jobs
    else:  # workers only pay for themselves on enough source
        big = processes.source_bytes((j.source for j in planned), POOL_MIN_BYTES) >= POOL_MIN_BYTES
        workers = min(os.cpu_count() or 1, 4) if big else 1
    results = run_jobs(planned, smap, options, workers, glossary)
    total = Report()
    failed = 0
    for e in plan_errors:
        print(f"{e.shown}: error: {e.message}", file=stderr)
        failed += 1
    for r in results:
        if r["text"] is not None and r["target"] is None:
            try:
                stdout.buffer.write(r["text"]) if hasattr(stdout, "buffer") else stdout.write(r["text"].decode("utf-8", "replace"))
            except BrokenPipeError:
                raise
        for err in r["errors"]:
            where = f":{err['line']}" if "line" in err else ""
            level = "error" if err["kind"] in _FATAL_KINDS else "warning"
            print(f"{r['path']}{where}: {level}: {err['message']}", file=stderr)
        if any(err["kind"] in _FATAL_KINDS for err in r["errors"]):
            failed += 1
        total.merge(r["report"])
    changed = sum(1 for r in results if r["changed"])
    if summary == "text":
        print(render_text(total, len(results) + len(plan_errors), changed, failed, options.rocm), file=stderr)
    summary_json = {"files": len(results) + len(plan_errors), "changed": changed, "errors": failed,
                    "rocm": options.rocm, **total.as_json()}
    verifying = verify is not None and toolchain is not None and not failed
    if summary == "json" and not verifying:
        print(json.dumps(summary_json, indent=1), file=stderr)
    if failed:
        return EXIT_ERROR
    if verifying:  # one JSON object: the translation's summary with "verify" added
        assert verify is not None
        return _verify(verify, toolchain, commands, planned, results, summary, stderr, summary_json)
    return EXIT_OK


class VerifySettings(NamedTuple):
    """--verify's choices: the GPU, the user's include folders and compile_commands.json."""

    arch: str = "gfx942"
    includes: tuple[Path, ...] = ()
    compile_commands: Path | None = None
    jobs: int | None = None  # clang processes at a time (default: up to 4); --jobs sets it as for translating


def _verify(settings: VerifySettings, toolchain: Any, commands: Any, planned: list[Any],
            results: list[dict[str, Any]], summary: str, stderr: Any, summary_json: dict[str, Any]) -> int:
    """Compile the translated units; exit 1 when one does not compile (the answer is "no")."""
    from xlate.errors import EXIT_FINDINGS
    from xlate.translate import output
    from xlate.translate import verify as vf

    by_path = {r["path"]: r for r in results}
    targets = [j.target for j in planned if j.target is not None]
    root = Path(os.path.commonpath([str(Path(t).parent) for t in targets])) if targets else None
    files: list[Any] = []
    for job in planned:
        r = by_path.get(job.shown)
        if r is None:
            continue
        try:
            if job.target is None:
                original = job.source.read_bytes()
                text = r["text"] if r["text"] is not None else original
                rel = output.hip_name(job.source.name, False)
            else:
                backup = r.get("backup")
                original = Path(backup).read_bytes() if backup else job.source.read_bytes()
                text = Path(job.target).read_bytes()
                rel = str(Path(job.target).relative_to(root)) if root else Path(job.target).name
        except OSError as exc:
            print(f"{job.shown}: warning: --verify cannot read it back: {exc.strerror or exc}", file=stderr)
            continue
        files.append(vf.Translated(job.source, rel, original, text))
    includes = list(settings.includes)
    # A file printed to stdout has no translated tree around it: its own folder (the CUDA headers
    # beside it, untranslated) is searched after the user's folders.
    includes += sorted({j.source.parent for j in planned if j.target is None})
    verifier = vf.TreeVerifier(toolchain, files, includes, commands)
    try:
        result = verifier.run(jobs=max(1, min(os.cpu_count() or 1, 4)) if not settings.jobs else settings.jobs)
    except OSError as exc:
        print(f"error: --verify: {exc}", file=stderr)
        return EXIT_ERROR
    if summary == "json":
        print(json.dumps({**summary_json, "verify": result.as_json()}, indent=1), file=stderr)
    elif summary == "text":
        print(vf.render_text(result), file=stderr)
    return EXIT_OK if result.compiling == len(result.units) else EXIT_FINDINGS


def main(argv: list[str]) -> int:
    from xlate.errors import argument_parser

    p = argument_parser("xlate translate", (
        "Translate CUDA source to HIP by the symbol rows: names, headers, CUDA macro tests, launches; "
        "hazards that need a human become `// xlate:` comments. Prints HIP on stdout for one file."))
    p.add_argument("paths", nargs="+", metavar="PATH", help="CUDA files or folders (folders are mirrored: sources and headers)")
    p.add_argument("--to", default=None, required=True, metavar="BACKEND", help="target: hip")
    p.add_argument("-o", "--output", default=None, metavar="OUT", help="output file, or folder for a folder or several inputs")
    p.add_argument("--in-place", action="store_true", help="rewrite the sources (atomically; the original is kept as FILE.prehip)")
    p.add_argument("--keep-extension", action="store_true", help="keep .cu names in the output (default: .cu becomes .hip)")
    p.add_argument("--roc", action="store_true", help="prefer rocBLAS/rocSPARSE/rocSOLVER/rocRAND names where the rows have them")
    p.add_argument("--launch-syntax", choices=["chevron", "ggl"], default="chevron",
                   help="ggl writes hipLaunchKernelGGL(...); chevron (default) keeps <<<>>>")
    p.add_argument("--warp-sync", choices=["legacy", "mask64", "keep"], default="legacy",
                   help="full 32-bit masks of *_sync warp calls: legacy drops the mask (__shfl_down, any ROCm), "
                        "mask64 passes a 64-bit all-lanes mask (ROCm 6.2+; ROCm 6.4 traps, without NDEBUG, when the wavefront "
                        "is not full), keep only flags them")
    p.add_argument("--no-annotate", action="store_true", help="do not write `// xlate:` hazard comments (the summary still counts them)")
    p.add_argument("--no-runtime-include", action="store_true", help="do not add #include <hip/hip_runtime.h> to CUDA sources that lack it")
    p.add_argument("--summary", choices=["text", "json", "none"], default="text", help="summary by rule on stderr")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="processes to spread files over (default: up to 4 when there is at least 256 KB of source, else 1)")
    p.add_argument("--glossary", type=Path, default=None, help="glossary folder (default: the project's glossary/)")
    p.add_argument("--rocm", default=None, metavar="VERSION",
                   help="the ROCm version to write for (major.minor, e.g. 6.4 or 7.0): version-specific spellings come from "
                        "the rows' version facts (default: the newest the rows know; with --verify, the version of the headers)")
    p.add_argument("--verify", action="store_true",
                   help="compile each translated unit with clang against the ROCm headers and report, per file, the errors "
                        "and which of them xlate's rewrites brought (exit 1 when a file does not compile)")
    p.add_argument("--arch", default="gfx942", metavar="GFX", help="--verify's --offload-arch (default: gfx942)")
    p.add_argument("-I", dest="includes", action="append", type=Path, default=[], metavar="DIR",
                   help="--verify: another include folder (repeatable); the tree's own folders are always searched")
    p.add_argument("--compile-commands", type=Path, default=None, metavar="FILE",
                   help="--verify: take -I, -D and -std of each source from this compile_commands.json")
    args = p.parse_args(argv)
    options = Options(roc=args.roc, launch_syntax=args.launch_syntax, warp_sync=args.warp_sync,
                      annotate=not args.no_annotate, runtime_include=not args.no_runtime_include, rocm=args.rocm)
    verify = VerifySettings(args.arch, tuple(args.includes), args.compile_commands, args.jobs) if args.verify else None
    if not args.verify and (args.includes or args.compile_commands):
        print("error: xlate translate: -I and --compile-commands need --verify (see `xlate translate --help`)", file=sys.stderr)
        return EXIT_ERROR
    processes.quiet_gc()
    return processes.interruptible(
        "xlate translate", "each file already written is complete (written atomically), the rest were not",
        lambda: run(args.paths, args.to, args.output, args.in_place, args.keep_extension, options, args.summary,
                    args.jobs, args.glossary, verify=verify))
