"""Whole-project benchmark: xlate against hipify-perl on real multi-file CUDA trees.

The projects are listed in benchmarks/corpus.yaml (name, upstream repository, pinned commit, which
translation units to check, include folders, defines). Their sources are not in this repository:
each is unpacked at the pinned commit into CORPUS/<name>, CORPUS being --corpus, else
$XLATE_CORPUS, else ~/.cache/xlate/corpus. For example:

    git clone https://github.com/OWNER/NAME ~/.cache/xlate/corpus/NAME && git -C ... checkout COMMIT

For each project, on a scratch copy of its code files (.cu .cuh .h .hpp .cpp .c .inl):

1. speed: one `xlate translate TREE --to hip -o OUT` call, and one hipify-perl call with every
   file on its command line (`-inplace`, on a fresh copy each time), alternating; medians of
   --repeat runs in wall time and in CPU time (the command and its children). The ratio is
   hipify-perl's median over xlate's, so above 1 means xlate is faster.
2. compile: every translation unit the manifest names (its .cu files; xlate's output names them
   .hip) is syntax-checked by clang-19 for gfx942 (`-x hip -fsyntax-only -nogpulib`) against the
   ROCm 6.4 headers ($XLATE_ROCM_DIR, see xlate.hip_headers), the project's include folders (in
   that tool's output tree) and benchmarks/stubs (see its README: hand-written declarations for
   hipBLASLt, RCCL, MPI, OpenMP and gflags, which are absent here, and empty stand-ins for CUDA-only
   headers neither tool rewrites, so that clang goes past the include; --no-leftover-stubs drops
   those). The ROCm libraries' own folders (include/hipblas, ...) are on the path too, as on an
   installed ROCm where users add them, since hipify-perl writes flat names (<hipblas.h>) that
   ROCm 6 only has inside those folders. "N of M" counts units with no error.
   Errors are counted per unit (a header's error counts once per unit including it) and as unique
   (file, line, message) locations.
3. attribution, by a plain heuristic: the translated file an error points to is aligned with its
   original (difflib on lines); an error is the tool's own when its line is one the tool changed
   or added, "inherited" when the line is the original text unchanged (a CUDA name the tool left,
   or code that was never valid for clang), and "outside" when it points into a ROCm, stub or
   system header. One exception: "'X' file not found" for an include that resolves in the original
   tree (a file the tool renamed, e.g. xlate's .cu -> .hip, without updating the include) is the
   tool's own even though the #include line is unchanged. The heuristic is blunt both ways: an
   error on an untouched line can be caused by a changed line elsewhere (a header mapped to one
   without the API), and a changed line can fail for a reason that is not the change (a name the
   tool left on a line where it rewrote another). It is applied to both tools alike.

    python benchmarks/bench_project.py [--corpus DIR] [--only NAME[,NAME]] [--repeat 3]
                                       [--jobs 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import fnmatch
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from bench_vs_hipify import byte_compile, env, hipify_perl, load, timed, xlate_cmd  # noqa: E402  (beside this file)

from xlate import hip_headers  # noqa: E402  (the checkout's package, put on the path above)

MANIFEST = HERE / "corpus.yaml"
STUBS = HERE / "stubs"
STUB_DIRS = ("hip", "host")
LEFTOVER_STUBS = "leftover"
# ROCm library folders that hold flat-named headers (hipblas/hipblas.h is <hipblas.h> here).
FLAT_LIBS = ("hipblas", "hipsparse", "hipfft", "hiprand", "rocrand", "hipsolver", "rocblas")
CORPUS_ENV = "XLATE_CORPUS"
CODE = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".inl")
ARCH = "gfx942"
CLANG = "clang++-19"
TOOLS = ("xlate", "hipify-perl")
_NOT_FOUND = re.compile(r"^'(?P<name>[^']+)' file not found$")
_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.MULTILINE)


def corpus_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg).expanduser()
    env_dir = os.environ.get(CORPUS_ENV)
    return Path(env_dir).expanduser() if env_dir else Path.home() / ".cache" / "xlate" / "corpus"


def load_manifest() -> list[dict]:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))["projects"]


def stage(src: Path, dest: Path) -> list[Path]:
    """Copy the project's code files into dest, keeping folders; return their relative paths."""
    files = []
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if path.is_file() and path.suffix in CODE and not any(part.startswith(".") for part in rel.parts):
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            files.append(rel)
    return files


def translation_units(project: dict, files: list[Path]) -> list[Path]:
    units = [f for f in files if any(fnmatch.fnmatch(f.as_posix(), g) for g in project["units"])]
    return [f for f in units if not any(fnmatch.fnmatch(f.as_posix(), g) for g in project.get("exclude", []))]


# The ROCm release xlate writes for: that of the headers the units are compiled against (set in main).
TARGET_ROCM: list[str] = []


def run_xlate(tree: Path, out: Path) -> tuple[float, float]:
    shutil.rmtree(out, ignore_errors=True)
    return timed([*xlate_cmd(), "translate", str(tree), "--to", "hip", "-o", str(out), "--summary", "none", *TARGET_ROCM])


def run_hipify(hp: Path, tree: Path, out: Path, files: list[Path]) -> tuple[float, float]:
    """hipify-perl -inplace over a fresh copy of tree at out, every file in one call."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(tree, out)
    took = timed(["perl", str(hp), "-inplace", "-quiet-warnings", *(str(out / f) for f in files)])
    for backup in out.rglob("*.prehip"):
        backup.unlink()
    return took


def speed(hp: Path, tree: Path, files: list[Path], scratch: Path, repeat: int) -> dict:
    runs: dict[str, list[tuple[float, float]]] = {tool: [] for tool in TOOLS}
    for _ in range(repeat):
        runs["hipify-perl"].append(run_hipify(hp, tree, scratch / "hipify-speed", files))
        runs["xlate"].append(run_xlate(tree, scratch / "xlate-speed"))
    result = {tool: {"wall_s": statistics.median(w for w, _ in t), "cpu_s": statistics.median(c for _, c in t), "runs": len(t)}
              for tool, t in runs.items()}
    result["ratio_wall"] = result["hipify-perl"]["wall_s"] / result["xlate"]["wall_s"]
    result["ratio_cpu"] = result["hipify-perl"]["cpu_s"] / result["xlate"]["cpu_s"]
    return result


def output_path(base: Path, rel: Path) -> Path | None:
    """Where a tool wrote the unit rel: its own name, or .hip for a .cu (xlate's default)."""
    for candidate in (base / rel, (base / rel).with_suffix(".hip")):
        if candidate.is_file():
            return candidate
    return None


def include_flags(include: Path, leftover: bool) -> list[str]:
    """-I flags shared by every unit: ROCm headers, their flat library folders, the stubs."""
    dirs = [include, *(include / lib for lib in FLAT_LIBS if (include / lib).is_dir())]
    dirs += [STUBS / d for d in STUB_DIRS] + ([STUBS / LEFTOVER_STUBS] if leftover else [])
    return [flag for d in dirs for flag in ("-I", str(d))]


def clang_cmd(project: dict, base: Path, path: Path, shared: list[str]) -> list[str]:
    cmd = [CLANG, "-x", "hip", f"--offload-arch={ARCH}", "-nogpulib", "-fsyntax-only", f"-std={project.get('std', 'c++17')}",
           "-w", "-ferror-limit=0", "-fno-color-diagnostics", "-fno-caret-diagnostics", "-fno-diagnostics-show-option", *shared]
    for inc in project.get("include_dirs", []):
        cmd += ["-I", str(base / inc)]
    cmd += [f"-D{d}" for d in project.get("defines", [])]
    return [*cmd, str(path)]


def compile_unit(cmd: list[str]) -> list[dict]:
    run = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env(), timeout=600)
    errors = [{"file": m["file"], "line": int(m["line"]), "msg": m["msg"]} for m in _DIAG.finditer(run.stderr)]
    if run.returncode != 0 and not errors:
        errors.append({"file": cmd[-1], "line": 0, "msg": f"clang exited {run.returncode}: {run.stderr.strip()[-300:]}"})
    return errors


class Aligner:
    """Line alignment of each translated file with its original, cached per file."""

    def __init__(self, original: Path, translated: Path, include_dirs: list[str]):
        self.original, self.translated, self.include_dirs = original, translated, include_dirs
        self._cache: dict[Path, tuple[list[str], list[str], list[tuple]] | None] = {}

    def _pair(self, path: Path):
        if path not in self._cache:
            try:
                rel = path.resolve().relative_to(self.translated.resolve())
            except ValueError:
                self._cache[path] = None
                return None
            orig = self.original / rel
            if not orig.is_file() and rel.suffix == ".hip":
                orig = orig.with_suffix(".cu")
            if not orig.is_file():
                self._cache[path] = None
                return None
            a = orig.read_text(encoding="utf-8", errors="replace").splitlines()
            b = path.read_text(encoding="utf-8", errors="replace").splitlines()
            ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
            self._cache[path] = (a, b, ops)
        return self._cache[path]

    def _broken_include(self, rel: str, msg: str) -> bool:
        """Whether a not-found include would have resolved in the original tree (relative to the
        including file or to one of the project's include folders)."""
        m = _NOT_FOUND.match(msg)
        if not m:
            return False
        bases = [(self.original / rel).parent, *(self.original / d for d in self.include_dirs)]
        return any((b / m["name"]).is_file() for b in bases)

    def classify(self, error: dict) -> dict:
        """Add kind (own / inherited / outside), the file relative to the tree, and both lines."""
        path = Path(error["file"])
        pair = self._pair(path)
        if pair is None:
            return {**error, "kind": "outside"}
        a, b, ops = pair
        rel = path.resolve().relative_to(self.translated.resolve()).as_posix()
        index = error["line"] - 1
        out = {**error, "file": rel, "kind": "inherited", "text": b[index].strip() if 0 <= index < len(b) else "", "original": None}
        for tag, i1, i2, j1, j2 in ops:
            if j1 <= index < j2:
                if tag == "equal":
                    out["original"] = a[i1 + index - j1].strip()
                    if self._broken_include(rel, error["msg"]):
                        out["kind"] = "own"
                else:
                    out["kind"] = "own"
                    mapped = i1 + index - j1
                    out["original"] = a[mapped].strip() if i1 <= mapped < i2 else None
                break
        return out


def compile_tool(project: dict, tool: str, base: Path, tree: Path, units: list[Path], shared: list[str], jobs: int) -> dict:
    aligner = Aligner(tree, base, project.get("include_dirs", []))
    jobs_in = {}
    missing = []
    for rel in units:
        path = output_path(base, rel)
        if path is None:
            missing.append(rel.as_posix())
        else:
            jobs_in[rel.as_posix()] = clang_cmd(project, base, path, shared)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(zip(jobs_in, pool.map(compile_unit, jobs_in.values())))
    per_unit = {unit: [aligner.classify(e) for e in errs] for unit, errs in results.items()}
    for unit in missing:
        per_unit[unit] = [{"file": unit, "line": 0, "msg": "no output for this unit", "kind": "own"}]
    errors = [dict(e, unit=u) for u, errs in per_unit.items() for e in errs]
    unique = {(e["file"], e["line"], e["msg"]): e for e in errors}
    kinds = {k: sum(e["kind"] == k for e in errors) for k in ("own", "inherited", "outside")}
    unique_kinds = {k: sum(e["kind"] == k for e in unique.values()) for k in ("own", "inherited", "outside")}
    return {"tool": tool, "units": len(units), "compiled": sum(not errs for errs in per_unit.values()),
            "failing": sorted(u for u, errs in per_unit.items() if errs), "errors": len(errors), "unique_errors": len(unique),
            "kinds": kinds, "unique_kinds": unique_kinds, "error_list": errors}


def bench_project(project: dict, src: Path, hp: Path, shared: list[str], repeat: int, jobs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench-{project['name']}-") as tmp:
        scratch = Path(tmp)
        tree = scratch / "original"
        files = stage(src, tree)
        units = translation_units(project, files)
        lines = sum(len((tree / f).read_text(encoding="utf-8", errors="replace").splitlines()) for f in files)
        result = {"name": project["name"], "files": len(files), "lines": lines, "units": [u.as_posix() for u in units],
                  "load_before": load()}
        result["speed"] = speed(hp, tree, files, scratch, repeat) if repeat > 0 else None
        outs = {"xlate": scratch / "xlate", "hipify-perl": scratch / "hipify"}
        run_xlate(tree, outs["xlate"])
        run_hipify(hp, tree, outs["hipify-perl"], files)
        result["compile"] = {tool: compile_tool(project, tool, outs[tool], tree, units, shared, jobs) for tool in TOOLS}
        result["load_after"] = load()
        return result


def report(results: list[dict]) -> None:
    head = f"{'project':12} {'files':>5} {'lines':>6} | {'xlate ms':>8} {'hipify ms':>9} {'ratio':>5} | {'compile xlate':>13} {'hipify':>7} | " \
           f"{'errors xlate (own/inh/out)':>28} {'hipify (own/inh/out)':>24} | {'unique x':>8} {'unique h':>8}"
    print(head)
    print("-" * len(head))
    for r in results:
        s = r["speed"]
        x, h = r["compile"]["xlate"], r["compile"]["hipify-perl"]
        sp = f"{s['xlate']['wall_s'] * 1000:8.0f} {s['hipify-perl']['wall_s'] * 1000:9.0f} {s['ratio_wall']:5.1f}" if s else f"{'-':>8} {'-':>9} {'-':>5}"

        def errs(c: dict) -> str:
            k = c["kinds"]
            return f"{c['errors']} ({k['own']}/{k['inherited']}/{k['outside']})"

        print(f"{r['name']:12} {r['files']:5} {r['lines']:6} | {sp} | {x['compiled']:>5} of {x['units']:<4} {h['compiled']:>3} of {h['units']:<3} | "
              f"{errs(x):>28} {errs(h):>24} | {x['unique_errors']:8} {h['unique_errors']:8}")
    if any(r["speed"] for r in results):
        print("speed: medians of one call over all of a project's files; ratio = hipify-perl wall / xlate wall (CPU ratios in --json)")
    print("errors: per translation unit; own = on a line the tool changed, inh = on an original line left as it was, out = in a ROCm/stub/system header")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", help=f"folder holding the unpacked projects (default ${CORPUS_ENV}, else ~/.cache/xlate/corpus)")
    p.add_argument("--only", help="comma-separated project names from corpus.yaml")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per tool (0 skips the speed part)")
    p.add_argument("--jobs", type=int, default=2, help="parallel clang processes")
    p.add_argument("--no-leftover-stubs", action="store_true", help="leave out benchmarks/stubs/leftover (empty CUDA-only headers)")
    p.add_argument("--json", type=Path, help="write the full results, error lists included, here")
    args = p.parse_args()
    hp = hipify_perl()
    if hp is None:
        print("hipify-perl not found: run scripts/install-test-deps.sh or set $HIPIFY_PERL", file=sys.stderr)
        return 2
    found = hip_headers.find_rocm_headers()
    if found is not None:
        TARGET_ROCM[:] = ["--rocm", f"{found.version[0]}.{found.version[1]}"]
    if found is None or shutil.which(CLANG) is None:
        print(hip_headers.absent_reason() if found is None else f"{CLANG} is not installed", file=sys.stderr)
        return 2
    corpus = corpus_dir(args.corpus)
    projects = load_manifest()
    byte_compile()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p["name"] for p in projects}
        if unknown:
            print(f"not in corpus.yaml: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        projects = [p for p in projects if p["name"] in wanted]
    results = []
    shared = include_flags(found.include, not args.no_leftover_stubs)
    print(f"# bench_project: xlate vs hipify-perl on {len(projects)} project(s) from {corpus}; clang-19 {ARCH}, ROCm {found.version_text} headers")
    for project in projects:
        src = corpus / project["name"]
        if not src.is_dir():
            print(f"  {project['name']}: not unpacked at {src} (clone {project['repo']} at {project['commit']})", file=sys.stderr)
            continue
        print(f"  {project['name']} ...", file=sys.stderr, flush=True)
        results.append(bench_project(project, src, hp, shared, args.repeat, args.jobs))
    report(results)
    if args.json:
        args.json.write_text(json.dumps({"arch": ARCH, "rocm": found.version_text, "leftover_stubs": not args.no_leftover_stubs,
                                         "projects": results}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
