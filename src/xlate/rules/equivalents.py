"""Rules fed by the symbol map: CUDA symbols that have no equivalent on a backend."""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from xlate.cuda.source import Occurrence, SourceView
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register, silenced_symbols
from xlate.rules.syntax import guarded_by_hip

HIPIFY_TABLES = "https://github.com/ROCm/HIPIFY"
# A relation that says an equivalent exists, or that nobody has decided yet: not a finding.
NOT_MISSING = frozenset({"same", "renamed", "approximate", "unknown"})
# Syntax nodes of an #include's header name (the occurrence of a header symbol).
INCLUDE_NODES = frozenset({"system_lib_string", "string_content", "string_literal"})
_CODES = {"hip": "XL090", "metal": "XL091"}


def is_include(occ: Occurrence) -> bool:
    """Whether an occurrence is the header named by an #include line (not a use of an API)."""
    return occ.node is not None and occ.node.type in INCLUDE_NODES


def _missing(src: SourceView, backend: str, includes: bool = True) -> Iterable[Occurrence]:
    """Occurrences without an equivalent on `backend` (one per line and symbol); `includes=False`
    leaves out headers named by #include lines. For HIP, uses inside a preprocessor branch that
    tests a HIP macro are left out: that code is already split by platform."""
    covered = silenced_symbols(_CODES[backend])
    seen: set[tuple[int, str]] = set()
    equivalent, relation = attrgetter(backend), attrgetter(f"{backend}_relation")
    for occ in src.occurrences:
        if equivalent(occ) is not None:
            continue
        if relation(occ) in NOT_MISSING:
            continue
        if not includes and is_include(occ):
            continue
        if backend == "metal" and occ.kind == "qualifier":
            continue  # e.g. __device__: a Metal port drops the word (its annotation says so); nothing to restructure
        if occ.symbol in covered or occ.symbol.rsplit("::", 1)[-1] in covered:
            continue
        key = (occ.line, occ.symbol)
        if key in seen:
            continue
        if backend == "hip" and occ.node is not None and guarded_by_hip(src, occ.node):
            continue
        seen.add(key)
        yield occ


def _about(occ: Occurrence) -> str:
    return f" ({occ.concept})" if occ.concept else ""


@register
class NoHipEquivalent(Rule):
    code = "XL090"
    references = (HIPIFY_TABLES,)
    summary = "A CUDA symbol that the glossary's symbol map marks as having no HIP equivalent."
    why = (
        "HIP mirrors most of the CUDA runtime, driver and device APIs under `hip` names, but not all of "
        "it: some APIs are NVIDIA-specific (hardware features, driver internals, libraries without a ROCm "
        "counterpart), and HIPIFY's tables list them without a HIP name. A mechanical rename leaves these "
        "calls unresolved at compile or link time. Symbols that a dedicated rule covers (clusters, "
        "textures, asynchronous copies, ...) are reported by that rule instead."
    )
    example = "cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,\n"  \
              "                                   cudaFlushGPUDirectRDMAWritesToOwner);\n"
    fix = (
        "Look the symbol up (`xlate lookup SYMBOL`) for the closest concept on AMD, remove the call if it "
        "is only a performance hint, or keep it in an NVIDIA-only branch."
    )
    fixed_example = (
        "#if !defined(__HIP_PLATFORM_AMD__)  // NVIDIA only\n"
        "cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,\n"
        "                                   cudaFlushGPUDirectRDMAWritesToOwner);\n"
        "#endif\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for occ in _missing(src, "hip"):
            yield Hazard(
                occ.line, occ.column, self.code, self.name, self.severity, self.backends,
                f"{occ.symbol}{_about(occ)} has no HIP equivalent: find the AMD counterpart with "
                f"`xlate lookup {occ.symbol}` or keep it in an NVIDIA-only branch",
            )


@register
class NoMetalEquivalent(Rule):
    code = "XL091"
    summary = "A CUDA symbol that the glossary's symbol map marks as having no Metal or MLX equivalent."
    why = (
        "Metal is a different API, not a renamed CUDA: many device functions map to MSL built-ins and "
        "many host calls to Metal or MLX objects, but some CUDA facilities (stream capture into graphs, "
        "device-side launches, some library routines) have nothing comparable on Apple GPUs. Symbols "
        "that a dedicated rule covers are reported by that rule instead. Only symbols the map marks "
        "as having no counterpart are reported: one whose Metal spelling is not recorded yet is not, "
        "and neither is a header named on an `#include` line (it is annotated; the calls into it are "
        "what a port has to replace), nor a qualifier such as `__device__` that a Metal port simply "
        "drops (its annotation says so)."
    )
    example = "cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);\n"
    fix = (
        "Restructure the code around what Metal offers (command buffers encoded once and reused, "
        "separate dispatches, threadgroup memory, MLX operations); `xlate lookup SYMBOL` shows the "
        "concept and the closest Apple construct if any."
    )
    fixed_example = "// encode the dispatches into one command buffer and commit it each iteration\n"

    def check(self, src: SourceView) -> Iterable[Hazard]:
        # Including a CUDA header uses nothing yet: a Metal port drops the include along with the
        # code, and the code that calls into the header is what gets reported.
        for occ in _missing(src, "metal", includes=False):
            yield Hazard(
                occ.line, occ.column, self.code, self.name, self.severity, self.backends,
                f"{occ.symbol}{_about(occ)} has no Metal/MLX equivalent: restructure for Metal "
                f"(`xlate lookup {occ.symbol}` shows the closest concept)",
            )
