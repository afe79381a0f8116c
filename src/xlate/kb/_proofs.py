"""Machine proofs of symbol rows: each non-HIPIFY HIP side is compiled against real ROCm headers, each
Metal side is looked up in the Metal Shading Language tables kept as data, and each MLX and Triton side
is looked up in the installed package.

HIPIFY's own rows are AMD's tables, imported unchanged; every other HIP side was written by hand, so
it is the one that needs a compiler's word. A probe is one short declaration test per spelling
(`using ::name;`, `#ifdef`, `__has_include`, a launch for the launch syntax), all of them in one source file per macro set, compiled
with `-fsyntax-only -ferror-limit=0`: each error's line number says which probe failed. Two runs
settle the macro condition a row states: without any macro (a row that names none must compile here)
and with every macro rows name (a row that names one must compile only here). A side of a library
whose headers come from another release than ROCm 6.4 (hipBLASLt, RCCL, AMD SMI) is proven against
that release, and the proof says which. A side of a library those headers lack (rocWMMA, hipTensor,
hipFile, ROCprofiler-SDK's ROCTx), or whose row names a release newer than them (HIP 7.1, hipBLAS 3.0), is settled from the
declared-names table (`symbols/specs/declared-outside-rocm64.yaml`, read from pinned release tags): the
release of the version the row states must declare it, under exactly the macros the row names. A side
no probe or table reaches is listed with its reason.

Type layouts: for every type row, `sizeof` and `alignof` on the HIP side are read from the compiler
(a template that is declared and never defined makes clang print both numbers) and compared with the
CUDA values the glossary keeps in `symbols/specs/cuda-layouts.yaml`, copied from NVIDIA's tables. A
difference passes only where the row says `approximate` and its caveat names the difference.

Nothing here runs when the index is built; the tests and `xlate glossary check` call it.
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["HipSide", "HipProof", "Layout", "MslEntry", "attested_problems", "cuda_layouts", "declared_outside_path",
           "declared_names", "declared_outside_problems", "hip_sides", "load_declared_outside", "load_msl", "load_msl_attested", "outside_library", "metal_problems", "metal_side_names", "msl_attested_path", "package_problems",
           "probe_hip", "SPECS_DIR", "table_spellings", "version_facts"]

SPECS_DIR = Path("symbols") / "specs"
LAYOUTS_FILE = "cuda-layouts.yaml"
MSL_FILE = "msl.yaml"
METAL_API_FILE = "metal-api.yaml"
ATTESTED_FILE = "msl-attested.yaml"
DECLARED_FILE = "declared-outside-rocm64.yaml"
PROBE_ARCH = "gfx942"
# Headers every probe file includes: the runtime, its optional parts and the libraries the rows name.
# A header absent from the unpacked set is left out and its rows reported as unproven.
PROBE_HEADERS = (
    "hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h", "hip/hip_fp8.h", "hip/hip_cooperative_groups.h",
    "hip/hip_complex.h", "hip/hip_math_constants.h", "hip/hiprtc.h", "hip/hip_texture_types.h",
    "hipcub/hipcub.hpp", "hipblas/hipblas.h", "hipfft/hipfftXt.h", "hiprand/hiprand_kernel.h",
    "hipsolver/hipsolver.h", "hipsparse/hipsparse.h", "hipblaslt/hipblaslt.h", "rccl/rccl.h", "amd_smi/amdsmi.h",
    "roctracer/roctx.h",
)
# Spellings that are syntax rather than a declared name, each with the lines that use it: they compile
# only where the compiler accepts the syntax.
SYNTAX = {"<<<>>>": ("__global__ void xlate_kernel() {}",
                     "void xlate_launch() { xlate_kernel<<<dim3(1), dim3(1), 0, 0>>>(); }")}
# Libraries that rows name beside the ROCm 6.4 set: spelling prefix or header folder -> (library,
# why its rows stay unproven when its headers are absent). scripts/install-test-deps.sh unpacks the
# ones Debian packages; its comments say which are not.
NOT_PACKAGED = {
    "rocwmma": ("rocWMMA", "Debian's only rocWMMA package (experimental) lacks the internal/ headers rocwmma.hpp includes"),
    "hipFile": ("hipFile", "Debian packages no hipFile"),
    "hipfile": ("hipFile", "Debian packages no hipFile"),
    "hiptensor": ("hipTensor", "Debian packages no hipTensor"),
    # ROCprofiler-SDK's ROCTx header, and the calls it adds to roctracer's ROCTx (naming HIP streams and devices)
    "rocprofiler-sdk-roctx": ("ROCprofiler-SDK", "Debian packages no ROCprofiler-SDK"),
    "roctxNameHip": ("ROCprofiler-SDK", "Debian packages no ROCprofiler-SDK"),
    "amd_smi": ("AMD SMI", "its headers are not unpacked"),
    "amdsmi_": ("AMD SMI", "its headers are not unpacked"),
    "rccl": ("RCCL", "its headers are not unpacked"),
    "hipblaslt": ("hipBLASLt", "its headers are not unpacked"),
}
# Libraries whose unpacked headers come from a release other than ROCm 6.4 (Debian has no 6.4 build):
# library -> (header, version macros). A side proven against them records that release.
OTHER_RELEASES = {
    "hipBLASLt": ("hipblaslt/hipblaslt-version.h", ("HIPBLASLT_VERSION_MAJOR", "HIPBLASLT_VERSION_MINOR", "HIPBLASLT_VERSION_PATCH")),
    "RCCL": ("rccl/rccl.h", ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")),
    "AMD SMI": ("amd_smi/amdsmi.h", ("AMDSMI_LIB_VERSION_MAJOR", "AMDSMI_LIB_VERSION_MINOR", "AMDSMI_LIB_VERSION_RELEASE")),
}
_ERROR = re.compile(r"^[^:\n]*probe\.hip:(\d+):\d+: error: (.*)$", re.M)
_LAYOUT = re.compile(r"'xlate_layout<(\d+), (\d+), (\d+)>'")
_IDENT = re.compile(r"^[A-Za-z_]\w*(::[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class HipSide:
    cuda: str
    symbol: str
    kind: str | None
    relation: str
    macros: tuple[str, ...]
    caveat: str
    since: str
    where: tuple[str, int] | None


@dataclass
class HipProof:
    """What the probes showed; every list holds one-line findings, `unproven` says why a side was not probed."""

    declared: dict[str, dict[str, bool]] = field(default_factory=dict)  # config -> symbol -> declared
    layouts: dict[str, tuple[int, int]] = field(default_factory=dict)  # HIP type -> (sizeof, alignof)
    problems: list[str] = field(default_factory=list)
    unproven: dict[str, str] = field(default_factory=dict)  # "cuda -> symbol" -> reason
    proven: int = 0
    # "cuda -> symbol" -> the library release it was proven against, where that is not ROCm 6.4
    other_release: dict[str, str] = field(default_factory=dict)


def hip_sides(rows: dict[str, dict[str, Any]]) -> list[HipSide]:
    """Every HIP side with a spelling that HIPIFY's tables did not give."""
    out = []
    for cuda, row in rows.items():
        side = row["sides"].get("hip")
        if not side or not side.get("symbol") or side.get("origin") == "hipify":
            continue
        out.append(HipSide(cuda, side["symbol"], row.get("kind"), side["relation"], tuple(side.get("macros") or ()),
                           side.get("caveat", ""), side.get("since", ""), side.get("where")))
    return out


def _newer_than(since: str, version: tuple[int, int, int]) -> bool:
    """Whether a side's `since` names a ROCm or hipBLAS release after the headers at hand (then a probe
    against them proves nothing)."""
    m = re.search(r"\bROCm (\d+)\.(\d+)", since)
    if m and not since.startswith(("ROCm 6.", "ROCm 5.")):
        return (int(m.group(1)), int(m.group(2))) > version[:2]
    return bool(re.search(r"hipBLAS 3", since)) and version[:2] < (7, 0)


def _probe_lines(symbol: str, kind: str | None, classes: frozenset[str] = frozenset()) -> list[str] | None:
    """The lines that fail to compile exactly when `symbol` is not declared (or, for syntax, not
    accepted); None for what no probe reaches. `classes`: the HIP types the rows name, whose members a
    using-declaration reaches only from inside a derived class (hipcub::DeviceReduce::Sum)."""
    owner_class, _, member = symbol.rpartition("::")
    if kind == "function" and owner_class in classes and _IDENT.match(symbol):
        return [f"struct xlate_member : {owner_class} {{ using {owner_class}::{member}; }};"]
    if symbol in SYNTAX:
        return list(SYNTAX[symbol])
    if kind == "header" or symbol.endswith((".h", ".hpp", ".cuh")):
        return [f"#if !__has_include(<{symbol}>)", "#error header not found", "#endif"]
    if not _IDENT.match(symbol):
        return None
    if "::" not in symbol:
        # A macro, a keyword (double, __noinline__), a clang builtin or a declared name: each counts.
        return [f"#if !defined({symbol}) && __is_identifier({symbol}) && !__has_builtin({symbol})", f"using ::{symbol};", "#endif"]
    return [f"using {symbol};"]


def _library(symbol: str) -> tuple[str, str] | None:
    """(library, why it may be absent) for a spelling of one of the NOT_PACKAGED libraries."""
    return next((lib for prefix, lib in NOT_PACKAGED.items() if symbol.startswith(prefix)), None)


def _release(library: str, include: Path) -> str | None:
    """'hipBLASLt 1.1.0' when `library` is one whose headers come from another release than ROCm 6.4,
    read from the version macros of its headers; None for the others."""
    if library not in OTHER_RELEASES:
        return None
    header, names = OTHER_RELEASES[library]
    try:
        text = (include / header).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = [re.search(rf"^\s*#\s*define\s+{name}\s+(\d+)\s*$", text, re.M) for name in names]
    version = ".".join(m.group(1) for m in parts if m)
    api = " (NCCL API)" if library == "RCCL" else ""
    return f"{library}{api} {version}" if all(parts) else f"{library} (version macros not found in {header})"


def outside_library(symbol: str) -> str | None:
    """The library beside the ROCm 6.4 set a HIP spelling belongs to (rocWMMA, hipTensor, hipFile, ...), or None."""
    lib = _library(symbol)
    return lib[0] if lib else None


def _folder(symbol: str) -> str:
    """The header folder (or header name) of a NOT_PACKAGED library spelling: its prefix, less a trailing '_'."""
    prefix = next(p for p in NOT_PACKAGED if symbol.startswith(p))
    return {"amdsmi_": "amd_smi", "roctxNameHip": "rocprofiler-sdk-roctx"}.get(prefix, prefix.rstrip("_"))


def _source(include: Path, sides: list[HipSide]) -> tuple[str, dict[int, str], dict[str, str]]:
    """(probe source, line -> symbol, symbol -> why not probed)."""
    lines = [f"#include <{h}>" for h in PROBE_HEADERS if (include / h).is_file()]
    lines.append("namespace cg = cooperative_groups;")
    owner: dict[int, str] = {}
    skipped: dict[str, str] = {}
    seen: set[str] = set()
    classes = frozenset(s.symbol for s in sides if s.kind == "type")
    for n, side in enumerate(sides):
        if side.symbol in seen:
            continue
        seen.add(side.symbol)
        body = _probe_lines(side.symbol, side.kind, classes)
        if body is None:
            skipped[side.symbol] = "neither a declared name, a header nor known syntax: no probe form"
            continue
        lines.append(f"namespace xlate_probe_{n} {{")
        for text in body:
            lines.append(text)
            owner[len(lines)] = side.symbol
        lines.append("}")
    return "\n".join(lines) + "\n", owner, skipped


def _compile(clang: str, include: Path, source: str, defines: tuple[str, ...]) -> tuple[str, bool]:
    """(the compiler's diagnostics, whether it ran: False where it failed without one diagnostic)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.hip"
        path.write_text(source, encoding="utf-8")
        cmd = [clang, "-x", "hip", f"--offload-arch={PROBE_ARCH}", "--cuda-device-only", "-nogpulib", "-std=c++17",
               "-fsyntax-only", "-ferror-limit=0", "-Wno-everything", "-I", str(include),
               *(f"-D{d}" for d in defines), str(path)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return run.stderr, not run.returncode or "error:" in run.stderr


def _declared(clang: str, include: Path, source: str, owner: dict[int, str],
              defines: tuple[str, ...]) -> tuple[dict[str, bool], list[str]]:
    """(symbol -> whether the probe source's lines for it compiled, the errors on no probe's line)."""
    err, ran = _compile(clang, include, source, defines)
    errors = [(int(m.group(1)), m.group(0)) for m in _ERROR.finditer(err)]
    failed = {owner[line] for line, _ in errors if line in owner}
    if not ran:  # a compiler that did not run proves nothing declared
        failed = set(owner.values())
    return {sym: sym not in failed for sym in set(owner.values())}, [text for line, text in errors if line not in owner]


def declared_names(names: list[str], include: Path, clang: str,
                   defines: tuple[str, ...] = ()) -> tuple[set[str], list[str]]:
    """(the names among `names` that the headers in `include` declare, the probe's errors on lines of
    its own): the probes the rows' HIP sides get, for names no row spells (the prefix twins of CUDA
    names, say). A name no probe form reaches counts as not declared."""
    sides = [HipSide(n, n, None, "", (), "", "", None) for n in names]
    source, owner, _ = _source(include, sides)
    found, stray = _declared(clang, include, source, owner, defines)
    return {n for n, ok in found.items() if ok}, stray


def _read_spec(path: Path) -> dict[str, Any] | None:
    """A specs file as a mapping (an empty one where the file holds none); None where it is absent."""
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return data if isinstance(data, dict) else {}


def cuda_layouts(root: Path) -> dict[str, dict[str, Any]]:
    """CUDA's published sizeof/alignof per type name, from symbols/specs/cuda-layouts.yaml."""
    data = _read_spec(root / SPECS_DIR / LAYOUTS_FILE) or {}
    return {str(k): v for k, v in (data.get("types") or {}).items()}


@dataclass(frozen=True)
class Layout:
    size: int
    align: int


def _layout_source(include: Path, types: list[str]) -> str:
    lines = [f"#include <{h}>" for h in PROBE_HEADERS if (include / h).is_file() and h.startswith("hip/")]
    lines.append("template <int I, int S, int A> struct xlate_layout;")
    for i, t in enumerate(types):
        lines.append(f"xlate_layout<{i}, sizeof({t}), alignof({t})> xlate_layout_{i};")
    return "\n".join(lines) + "\n"


def _runtime_release(since: str) -> tuple[int, int] | None:
    """The ROCm or HIP release a side's `since` names for the HIP runtime itself ("ROCm 7.1"), or None
    (a library's release such as "hipBLAS 3.0", or no release)."""
    m = re.match(r"\s*(?:ROCm|HIP) (\d+)\.(\d+)", since)
    return (int(m.group(1)), int(m.group(2))) if m else None


def probe_hip(rows: dict[str, dict[str, Any]], root: Path, include: Path, version: tuple[int, int, int],
              clang: str, newer: tuple[Path, tuple[int, int, int], str] | None = None) -> HipProof:
    """Compile every non-HIPIFY HIP side against the headers in `include` and compare with what its row
    says. A side whose row names a later HIP runtime release (`since: ROCm 7.1`) is compiled against
    `newer` (include folder, HIP version, what the headers are) where that holds the release it names;
    sides neither reaches go to the declared-names table."""
    proof = HipProof()
    sides = hip_sides(rows)
    current = [s for s in sides if not _newer_than(s.since, version)]
    later: list[HipSide] = []
    if newer is not None:
        later = [s for s in sides if s not in current and (r := _runtime_release(s.since)) is not None
                 and r <= newer[1][:2]]
    table = _declared_table(root)
    for s in sides:
        if s not in current and s not in later:
            _from_table(proof, s, table,
                        f"the row's fact is newer than HIP {'.'.join(map(str, version))} ({s.since})")
    _probe_sides(proof, current, include, version, clang, None, table)
    if newer is not None and later:
        _probe_sides(proof, later, newer[0], newer[1], clang, newer[2], table)
    _check_layouts(proof, current, root, include, clang)
    return proof


def _probe_sides(proof: HipProof, sides: list[HipSide], include: Path, version: tuple[int, int, int], clang: str,
                 release: str | None, table: _Table) -> None:
    """Compile the probes of `sides` against `include`, without and with every macro a row names, and
    judge each side; `release` (what the headers are) is recorded for each side they prove, where they
    are not the ROCm 6.4 set."""
    macros = tuple(sorted({m for s in sides for m in s.macros}))
    source, owner, skipped = _source(include, sides)
    declared: dict[str, dict[str, bool]] = {}
    for name, defines in {"none": (), "all": macros}.items():
        if not owner or max(owner) == 0:
            continue
        declared[name] = _declared(clang, include, source, owner, defines)[0]
    for name, found in declared.items():
        proof.declared.setdefault(name, {}).update(found)
    shown = "HIP " + ".".join(map(str, version)) if release is None else release
    for s in sides:
        label = f"{s.cuda} -> {s.symbol}"
        where = f"{s.where[0]}:{s.where[1]}: " if s.where else ""
        if s.symbol in skipped:
            proof.unproven[label] = skipped[s.symbol]
            continue
        library = _library(s.symbol) if release is None else None
        if library and not declared["all"][s.symbol] and not any(include.glob(f"{_folder(s.symbol)}*")):
            _from_table(proof, s, table,
                        f"{library[0]} headers are not among the packaged ROCm headers: {library[1]}")
            continue
        other = release if release is not None else (_release(library[0], include) if library else None)
        bare = declared["none"][s.symbol]
        full = declared["all"][s.symbol]
        if other and full:
            proof.other_release[label] = other
        if s.macros:
            if not full:
                proof.problems.append(f"{where}{label}: not declared in the {shown} headers even with {', '.join(s.macros)}")
            elif bare:
                proof.problems.append(f"{where}{label}: declared without {', '.join(s.macros)}; the row's macro condition is wrong")
            else:
                proof.proven += 1
        elif bare:
            proof.proven += 1
        elif full:
            proof.problems.append(f"{where}{label}: declared only with {', '.join(macros)}; the row must say so (`macros:`)")
        else:
            proof.problems.append(f"{where}{label}: not declared in the {shown} headers")


def declared_outside_path(root: Path) -> Path:
    """Where the names declared by libraries outside the ROCm 6.4 headers are kept (scripts/extract_declared.py
    writes it)."""
    return root / SPECS_DIR / DECLARED_FILE


def load_declared_outside(root: Path) -> dict[str, Any]:
    """That file as data: `releases`, `declared` and `not_declared` lists ({} if absent)."""
    return _read_spec(declared_outside_path(root)) or {}


# Names a version fact may give: `since: "ROCm 7.1"`, `since: "hipBLAS 3.0 (ROCm 7.0); ..."`, a caveat that
# opens with "hipTensor 2.x, ...". HIP's version is ROCm's.
_RELEASE_NAMES = ("ROCm", "HIP", "hipBLASLt", "hipBLAS", "hipTensor", "rocWMMA", "hipFile", "RCCL", "AMD SMI")
_VERSION = r"(\d+(?:\.(?:\d+|x))*)"
_FACT = re.compile(rf"\b({'|'.join(_RELEASE_NAMES)}) {_VERSION}\b")
_CAVEAT_FACT = re.compile(rf"^({'|'.join(n for n in _RELEASE_NAMES if n not in ('ROCm', 'HIP'))}) {_VERSION}\b")
ROCM_BASE = (6, 4, 0)  # the release of the header set the probes compile against
# A release's version given as a series, where no version file was readable at the header's commit.
_SERIES = r"\d+(\.\d+)*\.x"
# Where a declaration is: path:line, or path@chars START-END (a character range of the stored file).
_AT = r".+:\d+|.+@chars \d+-\d+"


def version_facts(since: str, caveat: str = "") -> tuple[tuple[str, str], ...]:
    """The releases a side says it belongs to: each (name, version) in `since` before its first ';'
    (what follows is advice for other releases), else the library and version a caveat opens with."""
    facts = tuple(m.groups() for m in _FACT.finditer(since.split(";")[0]))
    if not facts:
        m = _CAVEAT_FACT.match(caveat)
        facts = (m.groups(),) if m else ()
    return tuple((str(n), str(v)) for n, v in facts)


def _numbers(version: str) -> tuple[int, ...]:
    """'7.1.0' -> (7, 1, 0); '2.x' -> (2,): the numbers before the first wildcard."""
    out = []
    for part in version.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def _table_library(s: HipSide) -> str:
    """The library whose release in the declared-names table settles a side: the library beside ROCm its
    spelling belongs to, else the library its version fact names, else HIP."""
    named = [n for n, _ in version_facts(s.since, s.caveat) if n not in ("ROCm", "HIP")]
    return outside_library(s.symbol) or (named[0] if named else "HIP")


def table_spellings(rows: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Spelling -> library, for every HIP side the declared-names table is to settle: spellings of
    libraries beside the ROCm 6.4 headers, and sides whose version fact is newer than ROCm 6.4."""
    out = {}
    for s in hip_sides(rows):
        if outside_library(s.symbol) or _newer_than(s.since, ROCM_BASE):
            out[s.symbol] = _table_library(s)
    return out


@dataclass(frozen=True)
class _Release:
    library: str
    version: str  # the library's own version, read from the release (or a series such as "3.x": see _SERIES)
    tag: str  # "" where the commit was read without a release tag
    repo: str
    commit: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.library, self.version)

    @property
    def label(self) -> str:
        return f"{self.library} {self.version} ({' '.join(p for p in (self.repo, self.tag, self.commit[:12]) if p)})"

    def _numbers_for(self, name: str) -> tuple[int, ...] | None:
        """The release's version that a fact about `name` is compared with; None where they do not compare."""
        if name == self.library:
            return _numbers(self.version)
        if name in ("ROCm", "HIP"):
            m = re.fullmatch(r"rocm-(\d+(?:\.\d+)*)", self.tag)
            return _numbers(m.group(1)) if m else None
        return None

    def _compare(self, facts: tuple[tuple[str, str], ...]) -> list[int]:
        """For each fact the release compares with: -1 older than it, 0 the release it names, 1 newer.
        hipTensor 2.2.0 is the release "hipTensor 2.x" names; a release given as a series ("3.x") is compared
        on the numbers it gives, so it is the one "hipBLAS 3.0" names."""
        out = []
        for name, version in facts:
            have, want = self._numbers_for(name), _numbers(version)
            if have and want:
                if name == self.library and self.version.endswith(".x"):
                    want = want[:len(have)]
                got = have[:len(want)]
                out.append((got > want) - (got < want))
        return out

    def matches(self, facts: tuple[tuple[str, str], ...]) -> bool:
        found = self._compare(facts)
        return bool(found) and all(c == 0 for c in found)

    def older_than(self, facts: tuple[tuple[str, str], ...]) -> bool:
        return any(c < 0 for c in self._compare(facts))


@dataclass(frozen=True)
class _Table:
    """The declared-names file, indexed: its releases; (name, release key) -> entry; (name, release key) -> reason."""

    releases: list[_Release]
    declared: dict[tuple[str, tuple[str, str]], dict[str, Any]]
    not_declared: dict[tuple[str, tuple[str, str]], str]


def _declared_table(root: Path) -> _Table:
    data = load_declared_outside(root)
    releases = [_Release(str(r.get("library")), str(r.get("version", "")), str(r.get("tag") or ""), str(r.get("repo")),
                         str(r.get("commit", ""))) for r in data.get("releases") or []]
    def key(e: dict[str, Any]) -> tuple[str, tuple[str, str]]:
        return (str(e["name"]), (str(e.get("library")), str(e.get("version", ""))))
    declared = {key(e): e for e in data.get("declared") or []}
    not_declared = {key(e): str(e.get("reason") or "") for e in data.get("not_declared") or []}
    return _Table(releases, declared, not_declared)


# Macros every HIP compile for AMD GPUs defines by itself: a declaration guarded by one of them needs
# nothing from the user. Any other macro a declaration requires is a condition its row must name.
_ALWAYS_DEFINED = frozenset({"__cplusplus", "__clang__", "__HIP__", "__HIPCC__", "__HIP_PLATFORM_AMD__",
                             "__HIP_PLATFORM_HCC__", "__HIP_DEVICE_COMPILE__", "__AMDGCN__"})


def _guard_problem(s: HipSide, entry: dict[str, Any], release: _Release) -> str | None:
    """What a declaration's enclosing macro conditions say against the macros a row names, or None."""
    guards = set(entry.get("macros") or ())
    said = set(s.macros)
    at = f"{release.label}, {entry.get('at')}"
    if said - guards:
        return f"declared without {', '.join(sorted(said - guards))} in {at}; the row's macro condition is wrong"
    if guards - _ALWAYS_DEFINED - said:
        return f"declared only under {', '.join(sorted(guards - _ALWAYS_DEFINED - said))} in {at}; the row must say so (`macros:`)"
    return None


def _from_table(proof: HipProof, s: HipSide, table: _Table, otherwise: str) -> None:
    """Settle a side no probe reaches from the declared-names table: proven (the release recorded in
    `other_release`), a problem, or unproven with the reason why (where the table holds no release of its
    library, `otherwise`).

    A side that states a version fact (`since: ROCm 7.1`, a caveat opening "hipTensor 2.x") is proven
    only by a release of that version; a release of that version that lacks the name, or an older
    release that already declares it, is a problem. A side without one is proven by any release of its
    library, or left unproven where each release lacks it for a reason the file gives."""
    label = f"{s.cuda} -> {s.symbol}"
    where = f"{s.where[0]}:{s.where[1]}: " if s.where else ""
    library = _table_library(s)
    releases = [r for r in table.releases if r.library == library]
    facts = version_facts(s.since, s.caveat)
    stated = ", ".join(f"{n} {v}" for n, v in facts)
    if not releases:
        proof.unproven[label] = (f"no release of {stated} in {SPECS_DIR / DECLARED_FILE} (it holds no {library} release)"
                                 if facts else otherwise)
        return
    declared = [(r, table.declared[(s.symbol, r.key)]) for r in releases if (s.symbol, r.key) in table.declared]
    if facts:
        older = [(r, e) for r, e in declared if r.older_than(facts)]
        if older:
            r, e = older[0]
            proof.problems.append(f"{where}{label}: the row says {stated}, but the older {r.label} already declares it "
                                  f"({e.get('at')}): the row's version fact is wrong")
            return
        matching = [r for r in releases if r.matches(facts)]
        if not matching:
            held = "; ".join(r.label for r in releases)
            proof.unproven[label] = f"no release of {stated} in {SPECS_DIR / DECLARED_FILE} (it holds {held})"
            return
        declared = [(r, e) for r, e in declared if r in matching]
        if not declared:
            proof.problems.append(f"{where}{label}: not declared in {matching[0].label}, the release the row names ({stated})")
            return
    elif not declared:
        reasons = [table.not_declared.get((s.symbol, r.key), "") for r in releases]
        if all(_written(t) for t in reasons):
            proof.unproven[label] = f"not declared at {'; '.join(r.label for r in releases)}: {reasons[0]}"
        else:
            proof.problems.append(f"{where}{label}: not declared in {'; '.join(r.label for r in releases)}")
        return
    problems = [_guard_problem(s, e, r) for r, e in declared]
    if None in problems:
        proof.proven += 1
        proof.other_release[label] = declared[problems.index(None)][0].label
    else:
        proof.problems.append(f"{where}{label}: {problems[0]}")


def declared_outside_problems(rows: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """The declared-names file's own consistency: each release pinned (40-hex commit) with the version
    read from it (a series such as "3.x" only with `version_from` saying how it was established), once
    per library and version; every entry naming one of those releases and a `path:line` (or
    `path@chars START-END`, a character range of the file at the release's commit); a written reason for
    every name a row spells that a release lacks."""
    data = load_declared_outside(root)
    where = str(SPECS_DIR / DECLARED_FILE)
    if not data:
        return [f"{where}: the names declared outside the ROCm 6.4 headers are missing (scripts/extract_declared.py writes it)"]
    out = []
    releases: set[tuple[str, str]] = set()
    for r in data.get("releases") or []:
        key = (str(r.get("library")), str(r.get("version", "")))
        if not re.fullmatch(r"[0-9a-f]{40}", str(r.get("commit", ""))):
            out.append(f"{where}: {r.get('repo')}: the commit must be pinned (40 hex digits)")
        if re.fullmatch(_SERIES, key[1]):
            if not _written(str(r.get("version_from") or "")):
                out.append(f"{where}: {r.get('repo')} {key[1]}: a version series needs `version_from` saying how it was established")
        elif not re.fullmatch(r"\d+(\.\d+)+", key[1]):
            out.append(f"{where}: {r.get('repo')} {r.get('tag')}: `version` must be the library's version read from the release")
        if key in releases:
            out.append(f"{where}: {key[0]} {key[1]} is listed twice in `releases`")
        releases.add(key)
    spelled = {s.symbol for s in hip_sides(rows)}
    for e in data.get("declared") or []:
        if (str(e.get("library")), str(e.get("version", ""))) not in releases:
            out.append(f"{where}: {e.get('name')}: {e.get('library')} {e.get('version')} is not among `releases`")
        if not re.fullmatch(_AT, str(e.get("at", ""))):
            out.append(f"{where}: {e.get('name')}: `at` must be path:line or path@chars START-END")
    for e in data.get("not_declared") or []:
        if (str(e.get("library")), str(e.get("version", ""))) not in releases:
            out.append(f"{where}: {e.get('name')}: {e.get('library')} {e.get('version')} is not among `releases`")
        if not _written(str(e.get("reason") or "")):
            out.append(f"{where}: {e.get('name')}: not declared at the pinned release and no reason is given")
        if str(e.get("name")) not in spelled:
            out.append(f"{where}: {e.get('name')}: no row spells it any more (rerun scripts/extract_declared.py)")
    return out


def _check_layouts(proof: HipProof, sides: list[HipSide], root: Path, include: Path, clang: str) -> None:
    published = cuda_layouts(root)
    typed = [s for s in sides if s.kind == "type" and s.cuda in published and proof.declared["none"].get(s.symbol)]
    names = sorted({s.symbol for s in typed})
    if not names:
        return
    err, _ = _compile(clang, include, _layout_source(include, names), ())
    for m in _LAYOUT.finditer(err):
        proof.layouts[names[int(m.group(1))]] = (int(m.group(2)), int(m.group(3)))
    for s in typed:
        label = f"{s.cuda} -> {s.symbol}"
        where = f"{s.where[0]}:{s.where[1]}: " if s.where else ""
        cuda = published[s.cuda]
        got = proof.layouts.get(s.symbol)
        if got is None:
            proof.problems.append(f"{where}{label}: the compiler gave no sizeof/alignof")
            continue
        if got == (cuda["size"], cuda["align"]):
            continue
        said = s.relation == "approximate" and str(got[1]) in s.caveat and "align" in s.caveat.casefold()
        if got[0] != cuda["size"]:
            said = said and str(got[0]) in s.caveat
        if not said:
            proof.problems.append(f"{where}{label}: HIP sizeof/alignof {got[0]}/{got[1]}, CUDA {cuda['size']}/{cuda['align']}: "
                                  "the row must be `approximate` with a caveat naming the difference")


# --- Metal ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MslEntry:
    name: str
    section: str
    msl: str  # the first MSL version that has it
    kind: str
    args: str | None = None  # integer, floating, no-64-bit ... : what the argument types may be


def load_msl(root: Path) -> tuple[dict[str, MslEntry], dict[str, Any]]:
    """The Metal tables: MSL names by spelling (with the Metal API's host names), and the files' heads."""
    out: dict[str, MslEntry] = {}
    heads: dict[str, Any] = {}
    for fname in (MSL_FILE, METAL_API_FILE):
        data = _read_spec(root / SPECS_DIR / fname)
        if data is None:
            continue
        heads[fname] = {k: v for k, v in data.items() if k != "entries"}
        for e in data.get("entries") or []:
            entry = MslEntry(str(e["name"]), str(e["section"]), str(e.get("msl", "")), str(e.get("kind", "")), e.get("args"))
            out[entry.name] = entry
            if e.get("swift"):  # the Swift spelling of an Objective-C selector names the same method
                out[str(e["swift"])] = entry
    return out, heads


def metal_key(symbol: str) -> str:
    """The table's name for a row's Metal spelling: `texture2d::read` stays; `as_type<half>` -> as_type;
    `metal::fast::sin` -> fast::sin (the fast:: and precise:: variants are their own entries);
    `[[kernel]]` -> kernel (an attribute's spelling)."""
    name = re.sub(r"<.*>$", "", symbol.strip())
    if name.startswith("[[") and name.endswith("]]"):
        name = re.sub(r"\(\d+\)$", "(n)", name[2:-2].strip())  # [[threadgroup(0)]] -> threadgroup(n)
    return name.removeprefix("metal::")


# A concept term's Metal symbol is checked against the MSL table when it is shaped like an MSL name:
# SIMD-group and quad-group functions and types, attributes, mem_flags, metal:: names. Host API names,
# tools and compiler flags in concept terms are prose-level and left to the rows.
_MSL_SHAPED = re.compile(r"^(?:simd_|simdgroup_|quad_|\[\[|mem_flags::|metal::|packed_|texture\d|sampler$|function_constant$|__METAL)")


def concept_metal_problems(concepts: dict[str, Any], root: Path) -> tuple[int, list[str]]:
    """(symbols checked, problems): every MSL-shaped Metal symbol of a concept term is in the MSL table."""
    table, _ = load_msl(root)
    checked, out = 0, []
    for cid, concept in concepts.items():
        term = concept.terms.metal
        for sym in (term.symbols if term is not None else []):
            if not _MSL_SHAPED.match(sym):
                continue
            checked += 1
            if metal_key(sym) not in table:
                out.append(f"{cid}: metal {sym}: not in the Metal Shading Language table")
    return checked, out


def metal_problems(rows: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """Every Metal side's spelling must be an entry of the MSL (or Metal API) table."""
    table, _ = load_msl(root)
    if not table:
        return [f"{SPECS_DIR / MSL_FILE}: the MSL table is missing"]
    out = []
    for cuda, row in rows.items():
        side = row["sides"].get("metal")
        if not side or not side.get("symbol"):
            continue
        where = side.get("where")
        at = f"{where[0]}:{where[1]}: " if where else ""
        for sym in [side["symbol"], *(side.get("also") or [])]:
            if metal_key(sym) not in table:
                out.append(f"{at}{cuda} -> metal {sym}: not in the Metal Shading Language or Metal API table")
        entry = table.get(metal_key(side["symbol"]))
        if entry is None:
            continue
        out += [f"{at}{cuda} -> metal {side['symbol']}: {p}" for p in _entry_problems(entry, side)]
    return out


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def _entry_problems(entry: MslEntry, side: dict[str, Any]) -> list[str]:
    """What a Metal side says against its table entry: the section it cites, the MSL version it
    states, and the argument types its caveat offers."""
    out = []
    cited = re.findall(r"§(\d+(?:\.\d+)*)", side.get("source", ""))
    listed = re.findall(r"(?:^|; )(\d+(?:\.\d+)*)", entry.section)
    if cited and listed and not any(c == t or c.startswith(t + ".") or t.startswith(c + ".") for c in cited for t in listed):
        out.append(f"cites §{', §'.join(cited)}, the specification defines it in §{entry.section}")
    if entry.msl and _version(entry.msl) > (2, 0):
        stated = re.search(r"MSL (\d+\.\d+)", side.get("since", ""))
        if stated is None:
            out.append(f"needs MSL {entry.msl}: the side must say so in `since`")
        elif _version(stated.group(1)) < _version(entry.msl):
            out.append(f"`since` says MSL {stated.group(1)}, the specification MSL {entry.msl}")
    caveat = side.get("caveat", "")
    if entry.args and "integer" in entry.args:
        for sentence in re.split(r"(?<=[.;])\s+", caveat):
            if _FLOAT.search(sentence) and not _NEGATION.search(sentence):
                out.append(f"integer-only in the specification, but the caveat offers floating point: {sentence!r}")
    if entry.args and "no-64-bit" in entry.args:
        for sentence in re.split(r"(?<=[.;])\s+", caveat):
            if _WIDE.search(sentence) and not _NEGATION.search(sentence):
                out.append(f"takes no 64-bit types in the specification, but the caveat offers them: {sentence!r}")
    return out


def metal_side_names(rows: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Table name -> the Metal spellings of symbol rows that name it (`[[kernel]]` and `kernel` both
    name `kernel`)."""
    out: dict[str, list[str]] = {}
    for row in rows.values():
        side = row["sides"].get("metal")
        if not side or not side.get("symbol"):
            continue
        for sym in [side["symbol"], *(side.get("also") or [])]:
            spellings = out.setdefault(metal_key(sym), [])
            if sym not in spellings:
                spellings.append(sym)
    return out


def msl_attested_path(root: Path) -> Path:
    """Where the attestation of Metal names in compiled code is kept (scripts/attest_metal.py writes it)."""
    return root / SPECS_DIR / ATTESTED_FILE


def load_msl_attested(root: Path) -> dict[str, Any]:
    """The attestation file as data: `repositories`, `attested` and `not_attested` lists ({} if absent)."""
    return _read_spec(msl_attested_path(root)) or {}


def _written(text: str) -> bool:
    """Whether a hand-written reason is there (the script leaves `TODO` for one to write)."""
    return bool(text.strip()) and not text.startswith("TODO")


# Which argument types a table's restriction excludes, as the attestation file names them.
_EXCLUDES = {"integer": "floating", "floating": "integer", "no-64-bit": "64-bit"}


def attested_problems(rows: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """Every Metal name the rows use is attested in compiled code (msl-attested.yaml) or listed there as
    not attested with a reason; an attested call that passes an argument type the table excludes
    contradicts the table."""
    data = load_msl_attested(root)
    where = str(SPECS_DIR / ATTESTED_FILE)
    if not data:
        return [f"{where}: the attestation of Metal names is missing (scripts/attest_metal.py writes it)"]
    table, _ = load_msl(root)
    repos = {str(r.get("repo")): r for r in data.get("repositories") or []}
    attested = {str(e["name"]): e for e in data.get("attested") or []}
    unattested = {str(e["name"]): str(e.get("reason") or "") for e in data.get("not_attested") or []}
    notes = {str(e["name"]): str(e.get("note") or "") for e in data.get("version_notes") or []}
    out = []
    for r, info in repos.items():
        if not re.fullmatch(r"[0-9a-f]{40}", str(info.get("commit", ""))):
            out.append(f"{where}: {r}: the commit must be pinned (40 hex digits)")
    for name in sorted(set(attested) & set(unattested)):
        out.append(f"{where}: {name} is both attested and not attested")
    for name, e in sorted(attested.items()):
        if e.get("repo") not in repos:
            out.append(f"{where}: {name}: attested in {e.get('repo')}, which `repositories` does not list")
        if not re.fullmatch(r".+:\d+", str(e.get("at", ""))):
            out.append(f"{where}: {name}: `at` must be path:line")
        entry = table.get(name)
        if entry is None:
            out.append(f"{where}: {name}: attested, but no entry of the MSL or Metal API table")
        elif e.get("compiled_as") and entry.msl and _version(str(e["compiled_as"])) < _version(entry.msl) \
                and not _written(notes.get(name, "")):
            out.append(f"{where}: {name}: compiled code uses it at MSL {e['compiled_as']}, below the table's {entry.msl}, "
                       "and `version_notes` does not say why")
        if entry is not None and e.get("excluded"):
            out.append(f"{where}: {name}: the table restricts it to {entry.args} arguments, but compiled code passes "
                       f"{_EXCLUDES.get(entry.args or '', 'other')} ones: {', '.join(map(str, e['excluded'][:3]))}")
    for name, spellings in sorted(metal_side_names(rows).items()):
        if name in attested:
            continue
        if name not in unattested:
            out.append(f"{where}: metal {', '.join(spellings)}: neither attested in compiled code nor listed as not "
                       "attested (run scripts/attest_metal.py)")
        elif not _written(unattested[name]):
            out.append(f"{where}: metal {name}: not attested in compiled code and no reason is given")
    return out


_FLOAT = re.compile(r"floating[- ]point|\bfloat\b|\bhalf\b", re.I)
_WIDE = re.compile(r"64-bit|\blong\b|\bulong\b", re.I)
_NEGATION = re.compile(r"\b(?:no|not|none|never|nor|cannot|without|except|excluding)\b|n't\b", re.I)


# --- MLX and Triton ------------------------------------------------------------------------------

PACKAGES = {"mlx": ("mx.", "mlx.core"), "triton": ("tl.", "triton.language")}


def _resolve(module: Any, dotted: str) -> bool:
    obj = module
    for part in dotted.split("."):
        try:
            inspect.getattr_static(obj, part)
        except AttributeError:
            try:  # a submodule not imported by its parent (mx.fast, mx.metal)
                obj = importlib.import_module(f"{obj.__name__}.{part}")
                continue
            except (ImportError, AttributeError, TypeError):
                return False
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a declared property that needs a GPU driver to evaluate
            return True  # declared; what lies behind it cannot be reached on this machine
    return True


def package_problems(rows: dict[str, dict[str, Any]], backend: str) -> tuple[int, list[str]]:
    """(sides checked, problems): each `mx.`/`tl.` spelling must resolve in the installed package."""
    prefix, module_name = PACKAGES[backend]
    module = importlib.import_module(module_name)
    checked, out = 0, []
    for cuda, row in rows.items():
        side = row["sides"].get(backend)
        if not side or not side.get("symbol"):
            continue
        for sym in [side["symbol"], *(side.get("also") or [])]:
            checked += 1
            if not sym.startswith(prefix):
                out.append(f"{cuda} -> {backend} {sym}: not spelled {prefix}<name>")
            elif not _resolve(module, sym[len(prefix):]):
                out.append(f"{cuda} -> {backend} {sym}: {module_name} has no {sym[len(prefix):]}")
    return checked, out


# --- Lints over the data --------------------------------------------------------------------------

_SAME_NAME = re.compile(r"\b(?:of the same name|same-named|the same name)\b", re.I)
# Words by which a caveat says the counterpart behaves or is declared differently.
_DIFFERENCE = re.compile(r"\b(?:differs?|different(?:ly)?|unlike|does not compile|doesn't compile|not declared|"
                         r"only when|only if|rejects?|traps?)\b", re.I)
ALIASES = (("cg::", "cooperative_groups::"), ("wmma::", "nvcuda::wmma::"))
HALF_FILE = "device-half.yaml"
_CLASSIFIES = re.compile(r"^__hisnan2?$|^__hisinf$")  # NaN and INF tests read no subnormal


def _at(side: dict[str, Any]) -> tuple[str, int]:
    where = side.get("where")
    return (where[0], where[1]) if where else ("glossary/symbols", 1)


def _bare(symbol: str) -> str:
    return re.sub(r"<.*>$", "", symbol).split("::")[-1]


def row_lints(rows: dict[str, dict[str, Any]]) -> list[tuple[str, int, str]]:
    """(file, line, message) for the template and sibling slips the audits found in symbol rows."""
    out: list[tuple[str, int, str]] = []
    macros_used = {m for row in rows.values() for side in row["sides"].values() for m in side.get("macros") or ()}
    for cuda, row in rows.items():
        for backend, side in row["sides"].items():
            if side.get("origin") == "hipify":
                continue
            caveat = side.get("caveat", "")
            symbol = side.get("symbol")
            file, line = _at(side)
            if symbol and _SAME_NAME.search(caveat) and _bare(symbol) != _bare(cuda):
                out.append((file, line, f"{cuda}: the {backend} caveat says 'same name' but the spelling is {symbol}"))
            if side.get("relation") in ("same", "renamed"):
                # A sentence about the macro condition is what `macros` states; any other difference
                # makes the pair approximate.
                for sentence in re.split(r"(?<=[.;])\s+", caveat):
                    found = _DIFFERENCE.search(sentence)
                    if found and not any(m in sentence for m in side.get("macros") or ()):
                        out.append((file, line, f"{cuda}: {backend} is '{side['relation']}' but its caveat describes a "
                                                f"difference ('{found.group(0)}'): make it 'approximate' or reword"))
                        break
            # A condition the row states in words (its `since`, or a caveat sentence naming its own
            # spelling and a macro) is a condition `macros` must list, so the probes check it.
            said = [side.get("since", "")] + [s for s in re.split(r"(?<=[.;])\s+", caveat) if symbol and _bare(symbol) in s]
            for macro in sorted(macros_used):
                if any(macro in text for text in said) and macro not in (side.get("macros") or ()):
                    out.append((file, line, f"{cuda}: the {backend} side says it needs {macro}; list it in `macros`"))
    # MSL may flush half subnormals in every math mode (§8.1, §8.5) where CUDA keeps them: a condition
    # every half operation's Metal side states, not only the siblings an audit happened to read.
    for cuda, row in rows.items():
        side = row["sides"].get("metal")
        if not side or side.get("relation") == "none" or side.get("origin") == "hipify" or _CLASSIFIES.search(cuda):
            continue
        file, line = _at(side)
        if file.endswith(HALF_FILE) and "flush" not in side.get("caveat", "").lower():
            out.append((file, line, f"{cuda}: the metal side of a half operation does not say that a subnormal may "
                                    "be flushed to zero (MSL §8.1, §8.5), as its siblings do"))
    # A spelling and its alias (cg:: and cooperative_groups::) are one entity: the same answer.
    for short, long in ALIASES:
        for cuda, row in rows.items():
            if not cuda.startswith(short) or (long + cuda[len(short):]) not in rows:
                continue
            other = rows[long + cuda[len(short):]]
            for backend, side in row["sides"].items():
                twin = other["sides"].get(backend)
                if twin is None or side.get("origin") == "hipify":
                    continue
                for key in ("relation", "macros", "caveat"):
                    if side.get(key) != twin.get(key):
                        file, line = _at(side)
                        out.append((file, line, f"{cuda}: {backend} {key} differs from its alias {long + cuda[len(short):]}"))
    # Signed and unsigned twins (long4/ulong4, longlong4/ulonglong4): a layout or condition stated on
    # one holds for the other.
    for cuda, row in rows.items():
        twin_row = rows.get("u" + cuda) if row.get("kind") == "type" else None
        if twin_row is None:
            continue
        for backend in ("hip", "metal"):
            a, b = row["sides"].get(backend), twin_row["sides"].get(backend)
            if a and b and a.get("origin") != "hipify" and (a.get("relation"), a.get("macros")) != (b.get("relation"), b.get("macros")):
                file, line = _at(a)
                out.append((file, line, f"{cuda} and u{cuda}: {backend} relations differ ({a.get('relation')} / {b.get('relation')})"))
    return out


def concept_lints(concepts: dict[str, Any], rows: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """(concept id, message) where a concept's side and the symbol rows filed under it disagree: the
    concept says a backend has nothing, while a row of the concept gives it a same or renamed spelling."""
    out = []
    by_concept: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for cuda, row in rows.items():
        if row.get("concept") and not row.get("concept_by_prefix"):
            by_concept.setdefault(row["concept"], []).append((cuda, row))
    for cid, concept in concepts.items():
        for backend, term in concept.terms.items():
            if term.relation.value != "none":
                continue
            for cuda, row in by_concept.get(cid, []):
                side = row["sides"].get(backend.value)
                if side and side.get("symbol") and side.get("relation") in ("same", "renamed"):
                    out.append((cid, f"{backend.value} is 'none' here, but the row {cuda} gives {side['symbol']} as '{side['relation']}'"))
    return out


# Module paths a concept term's symbols may start with, per backend; other symbols (keyword arguments
# such as num_warps, MSL attributes written inside an MLX kernel's source) are not package names.
CONCEPT_PREFIXES = {
    "mlx": {"mx.": "mlx.core", "mlx.core.": "mlx.core"},
    "triton": {"tl.": "triton.language", "gl.": "triton.experimental.gluon.language", "triton.": "triton"},
}


def concept_package_problems(concepts: dict[str, Any], backend: str) -> tuple[int, list[str]]:
    """(symbols checked, problems): each dotted package name a concept's term gives for `backend` must
    resolve in the installed package; `@triton.jit` is read as triton.jit."""
    prefixes = CONCEPT_PREFIXES[backend]
    checked, out = 0, []
    for cid, concept in concepts.items():
        term = getattr(concept.terms, backend, None)
        for raw in (term.symbols if term is not None else []):
            sym = raw.lstrip("@")
            prefix = next((p for p in prefixes if sym.startswith(p)), None)
            if prefix is None:
                continue
            checked += 1
            try:
                module = importlib.import_module(prefixes[prefix])
            except ImportError as exc:
                out.append(f"{cid}: {backend} {raw}: cannot import {prefixes[prefix]} ({exc})")
                continue
            if not _resolve(module, sym[len(prefix):]):
                out.append(f"{cid}: {backend} {raw}: {prefixes[prefix]} has no {sym[len(prefix):]}")
    return checked, out
