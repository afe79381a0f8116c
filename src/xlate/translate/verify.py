"""`xlate translate --verify`: compile each translated translation unit with clang for one AMD GPU
against the ROCm headers, and say which errors come from the translator's own rewrites.

Attribution. An error counts as the translator's when (1) the line clang points at (or, for an error
inside a header outside the tree, the first line of the tree that the diagnostic's notes point at)
lies in a block of lines that the translation changed, and (2) the same error does not occur in a
*baseline* compile in which every such block of the failing files is put back to its original CUDA
spelling: no error with the same message inside that block's original lines. Messages are compared
without clang's "did you mean" guess; "file not found" for two different headers is the same error,
and so is "undeclared" (or "unknown type name", "no type named", "no member named") for two different
names: a header or name renamed into a library whose headers are absent here fails as the CUDA one
does, and the rename neither made nor mended that error. So a rename to a HIP name that the target
headers declare with another signature is the translator's error even though the CUDA name is
undeclared on HIP too; an error on a line the translation left as it was is the original code's. The one exception is an `#include` of
a file the translation renamed (`other.cu` became `other.hip`): clang's "file not found" for a file
that exists in the input tree is the translator's. Blocks are found by a line diff of the original
and the translated file. An error clang reports after guessing a correction for an undeclared name
earlier on its line ("did you mean 'Y'?") shares that name's attribution: it is about the guess.

Everything runs in a scratch copy of the translated tree, so the files written by `translate` are
never touched; the baseline gets its own copy.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlate.errors import XlateError

CLANG_NAMES = ("clang++-19", "clang++")
DEFAULT_ARCH = "gfx942"
# Translation units: CUDA sources, and C++ sources the translation changed (a .cpp that includes a
# CUDA header compiles as HIP after the port). Headers are compiled through the units that include them.
CUDA_UNITS = frozenset({".cu", ".hip"})
CXX_UNITS = frozenset({".cpp", ".cc", ".cxx", ".c++"})
_ARCH = re.compile(r"gfx[0-9a-f]{3,5}")
_DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>error|fatal error|note|warning): (?P<msg>.*)$")
_NOT_FOUND = re.compile(r"'([^']+)' file not found")
COMPILE_TIMEOUT = 300


class VerifyError(XlateError):
    """Verification cannot run: no clang, no ROCm headers, a bad --arch or compile_commands.json."""


@dataclass(frozen=True)
class Toolchain:
    clang: str
    include: Path  # the ROCm headers' folder, passed as -I
    version: tuple[int, int, int]
    arch: str

    @property
    def rocm(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"


@dataclass
class Diagnostic:
    file: str  # as clang printed it
    line: int
    col: int
    message: str
    where: tuple[str, int] | None = None  # (tree file, line) the error is charged to, when in the tree
    ours: bool = False
    notes: list[tuple[str, int]] = field(default_factory=list)  # (file, line) of the notes that follow it
    display: str | None = None  # the file as the user knows it (relative to the translated tree)

    def key(self) -> tuple[str, int, int, str]:
        return (os.path.normpath(self.file), self.line, self.col, self.message)

    def shown(self) -> str:
        return f"{self.display or self.file}:{self.line}:{self.col}: {self.message}"


@dataclass
class UnitResult:
    path: str  # the unit as the user sees it (its translated path)
    errors: list[Diagnostic] = field(default_factory=list)

    @property
    def compiles(self) -> bool:
        return not self.errors

    @property
    def ours(self) -> int:
        return sum(1 for e in self.errors if e.ours)


@dataclass
class TreeResult:
    toolchain: Toolchain
    units: list[UnitResult] = field(default_factory=list)

    @property
    def compiling(self) -> int:
        return sum(1 for u in self.units if u.compiles)

    def unique_errors(self) -> dict[tuple[str, int, int, str], Diagnostic]:
        """Every distinct error once (a shared header's error counts once, not once per unit)."""
        out: dict[tuple[str, int, int, str], Diagnostic] = {}
        for u in self.units:
            for e in u.errors:
                out.setdefault(e.key(), e)
        return out

    def as_json(self) -> dict[str, Any]:
        errors = self.unique_errors().values()
        return {"rocm": ".".join(map(str, self.toolchain.version)),
                "arch": self.toolchain.arch, "units": len(self.units), "compile": self.compiling,
                "errors": len(errors), "errors_from_rewrites": sum(1 for e in errors if e.ours),
                "files": [{"path": u.path, "compiles": u.compiles, "errors": len(u.errors), "from_rewrites": u.ours,
                           "first_errors": [("[rewrite] " if e.ours else "") + e.shown() for e in u.errors[:5]]}
                          for u in self.units]}


# --- the toolchain --------------------------------------------------------------------------------------

def find_toolchain(arch: str, rocm: str | None) -> Toolchain:
    """clang and the ROCm headers for `arch`; a VerifyError (one line) says what is missing. `rocm`
    (major.minor), when given, must be the version of the headers found."""
    from xlate import hip_headers

    if not _ARCH.fullmatch(arch):
        raise VerifyError(f"--arch {arch!r}: not an AMD GPU architecture name", "for example gfx942 or gfx90a")
    clang = next((c for c in (shutil.which(n) for n in CLANG_NAMES) if c), None)
    if clang is None:
        raise VerifyError("--verify needs clang (clang++-19 or clang++ on PATH) to compile HIP",
                          "install clang-19, or translate without --verify")
    found = hip_headers.find_rocm_headers()
    if found is None:
        raise VerifyError(f"--verify needs the ROCm headers: {hip_headers.absent_reason()}")
    have = f"{found.version[0]}.{found.version[1]}"
    if rocm is not None and rocm != have:
        raise VerifyError(f"--verify --rocm {rocm}: the ROCm headers found are {have} ({found.include})",
                          f"pass --rocm {have}, or point ${hip_headers.ENV} at ROCm {rocm}'s include folder")
    return Toolchain(clang, found.include, found.version, arch)


def base_command(tc: Toolchain) -> list[str]:
    return [tc.clang, "-x", "hip", f"--offload-arch={tc.arch}", "-nogpulib", "-std=c++17", "-w", "-fsyntax-only",
            "-ferror-limit=0", "-fno-color-diagnostics", "-fno-caret-diagnostics", "-fno-diagnostics-show-option"]


def _env() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd", "LC_ALL": "C"}


def run_clang(tc: Toolchain, unit: Path, includes: list[Path], extra: list[str] | None = None,
              cwd: Path | None = None) -> tuple[list[Diagnostic], list[tuple[str, int]]]:
    """Compile one unit; its errors, each with the (file, line) pairs of the notes that follow it."""
    cmd = base_command(tc) + list(extra or [])
    for inc in [*includes, tc.include]:
        cmd += ["-I", str(inc)]
    cmd.append(str(unit))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=_env(), check=False, timeout=COMPILE_TIMEOUT,
                              cwd=str(cwd) if cwd else None)
    except subprocess.TimeoutExpired:
        return [Diagnostic(str(unit), 1, 1, f"clang ran over {COMPILE_TIMEOUT} s")], []
    return parse_diagnostics(proc.stderr, proc.returncode, unit)


def parse_diagnostics(text: str, returncode: int, unit: Path) -> tuple[list[Diagnostic], list[tuple[str, int]]]:
    errors: list[Diagnostic] = []
    notes: list[tuple[str, int]] = []
    seen: set[tuple[str, int, int, str]] = set()
    current: Diagnostic | None = None
    chains: dict[int, list[tuple[str, int]]] = {}
    for line in text.splitlines():
        m = _DIAG.match(line)
        if m is None:
            continue
        level = m.group("level")
        if level in ("error", "fatal error"):
            d = Diagnostic(m.group("file"), int(m.group("line")), int(m.group("col")), m.group("msg").strip())
            if d.key() in seen:  # the host and the device pass report most errors twice
                current = None
                continue
            seen.add(d.key())
            errors.append(d)
            current = d
            chains[id(d)] = []
        elif level == "note" and current is not None:
            chains[id(current)].append((m.group("file"), int(m.group("line"))))
    if returncode != 0 and not errors:
        errors.append(Diagnostic(str(unit), 1, 1, "clang failed without an error line: " + " ".join(text.split())[:200]))
    for d in errors:
        d.notes = chains.get(id(d), [])
        notes.extend(d.notes)
    return errors, notes


# --- which names a set of headers declares --------------------------------------------------------------

HEADERS_FOR_DEVICE = ("hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h", "hip/hip_fp8.h",
                      "hip/hip_cooperative_groups.h")


def declared(tc: Toolchain, names: Iterable[str], headers: Iterable[str] = HEADERS_FOR_DEVICE,
             defines: Iterable[str] = ()) -> dict[str, bool]:
    """Whether the headers declare each name for device code, by one compile: each name is used in a
    __device__ function of its own line, and is undeclared when clang says "use of undeclared
    identifier" or "unknown type name" for it, or that it is a host function. Any other error (an
    overload set whose address is ambiguous, a type used as a value) means it is declared."""
    names = sorted(set(names))
    body = [f"#include <{h}>" for h in headers]
    body.append("namespace xlate_probe {")
    for i, n in enumerate(names):
        body.append(f"__device__ void p{i}() {{ (void)&{n}; }}")
    body.append("}")
    undeclared: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="xlate-probe-") as tmp:
        unit = Path(tmp) / "probe.hip"
        unit.write_text("\n".join(body) + "\n", encoding="utf-8")
        first = len(body) - len(names) - 1  # 1-based line of the first name is first + 1
        errors, _ = run_clang(tc, unit, [], [f"-D{d}" for d in defines])
        for e in errors:
            if os.path.basename(e.file) != "probe.hip":
                continue
            if any(w in e.message for w in ("undeclared identifier", "unknown type name", "__host__ function")):
                i = e.line - first - 1
                if 0 <= i < len(names):
                    undeclared.add(names[i])
    return {n: n not in undeclared for n in names}


# --- the translated tree ------------------------------------------------------------------------------

@dataclass
class Translated:
    """One translated file: where it was read, where it went (relative to the output root), both texts."""

    source: Path
    rel: str  # path of the translation relative to the output root
    original: bytes
    text: bytes


def _blocks(original: bytes, text: bytes) -> list[tuple[int, int, int, int]]:
    """Changed blocks as (i1, i2, j1, j2): original lines [i1, i2) became translated lines [j1, j2) (0-based)."""
    a = original.decode("utf-8", "replace").splitlines()
    b = text.decode("utf-8", "replace").splitlines()
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def _block_of(blocks: list[tuple[int, int, int, int]], line: int) -> int | None:
    """The changed block holding translated line `line` (1-based); an insertion also owns nothing else."""
    for k, (_i1, _i2, j1, j2) in enumerate(blocks):
        if j1 < line <= j2:
            return k
    return None


def _revert(original: bytes, text: bytes, blocks: list[tuple[int, int, int, int]], chosen: set[int]) -> tuple[bytes, dict[int, tuple[int, int]]]:
    """`text` with the chosen blocks put back to the original lines, and for each chosen block the
    1-based line span [first, last] its original lines take in the result."""
    a = original.decode("utf-8", "replace").splitlines(keepends=True)
    b = text.decode("utf-8", "replace").splitlines(keepends=True)
    out: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    j = 0
    for k, (i1, i2, j1, j2) in enumerate(blocks):
        out.extend(b[j:j1])
        if k in chosen:
            spans[k] = (len(out) + 1, len(out) + max(i2 - i1, 1))
            out.extend(a[i1:i2])
        else:
            out.extend(b[j1:j2])
        j = j2
    out.extend(b[j:])
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return "".join(out).encode("utf-8"), spans


@dataclass
class CompileCommands:
    """Flags per source from a compile_commands.json: -I, -D, -U, -include and -std, nothing that
    names an NVIDIA target."""

    by_file: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> CompileCommands:
        import json

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise VerifyError(f"--compile-commands {path}: cannot read it ({type(exc).__name__}: {exc})") from None
        if not isinstance(data, list):
            raise VerifyError(f"--compile-commands {path}: not a list of compile commands")
        out = cls()
        for entry in data:
            if not isinstance(entry, dict) or "file" not in entry:
                continue
            directory = Path(str(entry.get("directory") or path.parent))
            args = entry.get("arguments")
            if not isinstance(args, list):
                try:
                    args = shlex.split(str(entry.get("command") or ""))
                except ValueError:
                    continue
            file = Path(str(entry["file"]))
            file = file if file.is_absolute() else directory / file
            out.by_file[os.path.realpath(file)] = _keep_flags([str(a) for a in args], directory)
        return out

    def flags(self, source: Path) -> list[tuple[str, str | None]]:
        return self.by_file.get(os.path.realpath(source), [])


def _keep_flags(args: list[str], directory: Path) -> list[tuple[str, str | None]]:
    """(flag, value) pairs worth keeping for a HIP compile; value None for a flag that has none."""
    kept: list[tuple[str, str | None]] = []
    it = iter(args[1:])
    for a in it:
        if a in ("-I", "-isystem", "-iquote", "-D", "-U", "-include"):
            value = next(it, None)
            if value is None:
                break
        elif a.startswith(("-I", "-D", "-U")) and len(a) > 2:
            a, value = a[:2], a[2:]
        elif a.startswith("-isystem") and len(a) > 8:
            a, value = "-isystem", a[8:]
        elif a.startswith("-std=") and "c++" in a:
            kept.append((a, None))
            continue
        else:
            continue
        if a in ("-I", "-isystem", "-iquote", "-include") and not os.path.isabs(value):
            value = str(directory / value)
        kept.append((a, value))
    return kept


class TreeVerifier:
    """Compiles the translated units of one run in a scratch copy of the translated tree."""

    def __init__(self, tc: Toolchain, files: list[Translated], user_includes: list[Path],
                 commands: CompileCommands | None = None) -> None:
        self.tc = tc
        self.files = files
        self.user_includes = [Path(os.path.abspath(p)) for p in user_includes]  # clang runs in the scratch tree
        self.commands = commands or CompileCommands()
        self.by_rel = {f.rel: f for f in files}
        self.source_names = {os.path.realpath(f.source) for f in files}

    def units(self) -> list[Translated]:
        out = []
        for f in self.files:
            suffix = Path(f.rel).suffix.lower()
            if suffix in CUDA_UNITS or (suffix in CXX_UNITS and f.text != f.original):
                out.append(f)
        return out

    def _write_tree(self, root: Path, replaced: dict[str, bytes] | None = None) -> None:
        for f in self.files:
            target = root / f.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((replaced or {}).get(f.rel, f.text))

    def _includes(self, root: Path, source: Path) -> tuple[list[Path], list[str]]:
        """-I folders (the user's) and other flags: the tree's own folders (translated) and the flags
        of the source's compile command with folders inside an input tree mapped to their translated
        copy. The tree's folders are searched for quoted includes and after the system's folders for
        angle-bracket ones (`-iquote`, `-idirafter`): a project header that shares a system header's
        name (a Windows shim `unistd.h`) does not hide the system header from every other file."""
        folders = sorted({(root / f.rel).parent for f in self.files})
        extra: list[str] = [flag for d in folders for flag in ("-iquote", str(d), "-idirafter", str(d))]
        for a, value in self.commands.flags(source):
            if value is None:
                extra.append(a)
                continue
            if a in ("-I", "-isystem", "-iquote", "-include"):
                value = str(self._mapped(root, Path(value)))
            extra += [a, value]
        # A user's -I inside the input tree (its own include folder, as its build passes it) is read
        # from the translated copy first; the folder itself follows, for what the run did not translate.
        includes: list[Path] = []
        for p in self.user_includes:
            mapped = self._mapped(root, p)
            includes += [mapped, p] if mapped != p else [p]
        # clang drops a -I folder that is also a system folder (-idirafter), which would move the
        # translated copy behind the original: such a folder is searched through -I alone.
        named = {str(p) for p in includes}
        extra = [x for i, x in enumerate(extra) if not (x in named and i and extra[i - 1] == "-idirafter")
                 and not (x == "-idirafter" and i + 1 < len(extra) and extra[i + 1] in named)]
        return includes, extra

    def _mapped(self, root: Path, path: Path) -> Path:
        """A folder or file of the input tree -> its translated copy under `root` (others stay)."""
        real = os.path.realpath(path)
        best: tuple[str, str] | None = None
        for f in self.files:
            src_dir = os.path.realpath(f.source.parent)
            out_dir = str(Path(f.rel).parent)
            if (real == src_dir or real.startswith(src_dir + os.sep)) and (best is None or len(src_dir) > len(best[0])):
                best = (src_dir, out_dir)
        if best is None:
            return path
        rest = os.path.relpath(real, best[0])
        return root / best[1] / rest if rest != "." else root / best[1]

    def _charge(self, root: Path, d: Diagnostic) -> None:
        """The tree file and line an error belongs to: its own place, else the first note in the tree."""
        try:
            d.display = str(Path(os.path.realpath(d.file)).relative_to(os.path.realpath(root)))
        except ValueError:
            pass
        for file, line in [(d.file, d.line), *d.notes]:
            real = os.path.realpath(file)
            try:
                rel = Path(real).relative_to(os.path.realpath(root))
            except ValueError:
                continue
            if str(rel) in self.by_rel:
                d.where = (str(rel), line)
                return

    def run(self, jobs: int = 1) -> TreeResult:
        """Compile every unit (`jobs` clang processes at a time), in the order of the files."""
        from concurrent.futures import ThreadPoolExecutor

        result = TreeResult(self.tc)
        units = self.units()
        with tempfile.TemporaryDirectory(prefix="xlate-verify-") as tmp:
            root = Path(tmp) / "tree"
            self._write_tree(root)

            def one(item: tuple[int, Translated]) -> UnitResult:
                i, f = item
                includes, extra = self._includes(root, f.source)
                errors, _ = run_clang(self.tc, root / f.rel, includes, extra, cwd=root)
                for d in errors:
                    self._charge(root, d)
                self._attribute(Path(tmp), Path(tmp) / f"baseline-{i}", f, errors, includes, extra)
                return UnitResult(f.rel, errors)

            if jobs > 1 and len(units) > 1:
                with ThreadPoolExecutor(max_workers=jobs) as pool:  # clang does the work; threads only wait
                    result.units = list(pool.map(one, enumerate(units)))
            else:
                result.units = [one(item) for item in enumerate(units)]
        return result

    def _attribute(self, tmp: Path, base: Path, unit: Translated, errors: list[Diagnostic], includes: list[Path],
                   extra: list[str]) -> None:
        """Mark the errors that the translator's rewrites brought (see the module's docstring)."""
        blocks: dict[str, list[tuple[int, int, int, int]]] = {}
        chosen: dict[str, set[int]] = {}
        suspects: list[tuple[Diagnostic, str, int]] = []
        for d in errors:
            m = _NOT_FOUND.search(d.message)
            if m and d.where and self._renamed_include(d.where[0], m.group(1)):
                d.ours = True
                continue
            if d.where is None:
                continue
            rel, line = d.where
            f = self.by_rel[rel]
            if rel not in blocks:
                blocks[rel] = _blocks(f.original, f.text)
            k = _block_of(blocks[rel], line)
            if k is None:
                continue
            chosen.setdefault(rel, set()).add(k)
            suspects.append((d, rel, k))
        if not suspects:
            return
        replaced: dict[str, bytes] = {}
        spans: dict[str, dict[int, tuple[int, int]]] = {}
        for rel, ks in chosen.items():
            f = self.by_rel[rel]
            replaced[rel], spans[rel] = _revert(f.original, f.text, blocks[rel], ks)
        self._write_tree(base, replaced)
        root = tmp / "tree"
        mapped = [base / p.relative_to(root) if _under(p, root) else p for p in includes]
        extra = [str(base / Path(x).relative_to(root)) if _under(Path(x), root) else x for x in extra]
        base_errors, _ = run_clang(self.tc, base / unit.rel, mapped, extra, cwd=base)
        failing: dict[str, list[tuple[int, str]]] = {}
        for e in base_errors:
            for file, line in [(e.file, e.line), *e.notes]:
                try:
                    rel = str(Path(os.path.realpath(file)).relative_to(os.path.realpath(base)))
                except ValueError:
                    continue
                failing.setdefault(rel, []).append((line, _same_kind(e.message)))
                break
        for d, rel, k in suspects:
            first, last = spans[rel][k]
            same = _same_kind(d.message)
            if not any(first <= line <= last and kind == same for line, kind in failing.get(rel, ())):
                d.ours = True
        _forgive_typo_followers(errors)

    def _renamed_include(self, rel: str, name: str) -> bool:
        """Whether `name`, included from translated file `rel`, exists beside the file's source in the
        input tree (the translation renamed it, or did not write it)."""
        f = self.by_rel[rel]
        here = f.source.parent / name
        return here.exists() and os.path.realpath(here) in self.source_names


def _forgive_typo_followers(errors: list[Diagnostic]) -> None:
    """An error clang reports after it guessed a correction for an undeclared name earlier on the same
    line ("use of undeclared identifier 'X'; did you mean 'Y'?") is about its guess, not the code: it
    shares that name's attribution (a kept CUDA call whose arguments clang then checks against the HIP
    function it guessed is the original code's error, not the rewrite's)."""
    guessed = [e for e in errors if _UNDECLARED.match(e.message) and "; did you mean" in e.message]
    for d in errors:
        if d.ours and any(g is not d and not g.ours and g.file == d.file and g.line == d.line and g.col < d.col
                          for g in guessed):
            d.ours = False


_UNDECLARED = re.compile(r"^(use of undeclared identifier|unknown type name|no type named|no member named|"
                         r"no template named|use of undeclared label) '[^']*'")
_SUGGESTION = re.compile(r"; did you mean .*$")


def _same_kind(message: str) -> str:
    """What makes two errors "the same": the message without clang's "did you mean" guess, except
    that every missing header is one kind and every undeclared name is one kind of its message (a
    header or a name renamed into a library whose headers are absent here fails as the CUDA one
    does: the rename neither made nor mended that error)."""
    if _NOT_FOUND.search(message):
        return "file not found"
    message = _SUGGESTION.sub("", message)
    m = _UNDECLARED.match(message)
    if m:
        return m.group(1) + " " + _QUOTED.sub("'X'", message[m.end():])
    return message


_QUOTED = re.compile(r"'[^']*'")


def _under(p: Path, root: Path) -> bool:
    try:
        p.relative_to(root)
        return True
    except ValueError:
        return False


def render_text(result: TreeResult, limit: int = 3) -> str:
    """Per unit: compiles, or N errors (K from rewrites) with the first few; then the tree's line."""
    version = ".".join(map(str, result.toolchain.version))
    lines = [f"verify: clang for {result.toolchain.arch} against the ROCm {version} headers"]
    for u in result.units:
        if u.compiles:
            lines.append(f"  {u.path}: compiles")
            continue
        lines.append(f"  {u.path}: {len(u.errors)} error(s), {u.ours} from xlate's rewrites")
        for e in u.errors[:limit]:
            lines.append(f"    {'[rewrite] ' if e.ours else ''}{e.shown()}")
        if len(u.errors) > limit:
            lines.append(f"    ... ({len(u.errors) - limit} more)")
    errors = result.unique_errors().values()
    ours = sum(1 for e in errors if e.ours)
    lines.append(f"verify: {result.compiling} of {len(result.units)} files compile; {len(errors)} distinct error(s), "
                 f"{ours} from xlate's rewrites")
    return "\n".join(lines)
