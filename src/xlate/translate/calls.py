"""Rewrites that need a call's arguments, not only its name.

- `cudaMallocHost(p, size)`: HIP's C function hipHostMalloc takes the flags too; the flags row of
  cudaHostAllocDefault gives the default to pass.
- `cudaEventCreate(&e, flags)`: the C++ overload with flags is hipEventCreateWithFlags in HIP (the
  row of cudaEventCreateWithFlags gives the name).
- cudaMemcpyToSymbol and the other symbol calls take the symbol itself in CUDA and its address in
  HIP: the symbol argument is wrapped in HIP_SYMBOL(), HIP's macro for that.
- FP8 types: the row's FNUZ type is written as its OCP sibling (the type NVIDIA's __nv_fp8_* are),
  when the glossary lists that OCP spelling for the same concept.
- A one-argument CUDA call whose row names a HIP builtin that takes more arguments: `__ldcg(p)`
  becomes `__hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)`, the agent-scope load
  the row's caveat gives (it reads around the vector L1, as __ldcg does).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from xlate.translate.edits import Edits, offset_of
from xlate.translate.names import hip_name
from xlate.translate.options import Options
from xlate.translate.report import Report

# CUDA call -> index of the argument that names a device symbol.
SYMBOL_ARGUMENT = {"cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0, "cudaMemcpyFromSymbol": 1,
                   "cudaMemcpyFromSymbolAsync": 1, "cudaGetSymbolAddress": 1, "cudaGetSymbolSize": 1}
HIP_SYMBOL = "HIP_SYMBOL"
# CUDA calls whose runtime header adds a `T**` template overload for the pointer they return, while
# the HIP function takes `void**` only (hip/hip_runtime_api.h declares templates for hipMalloc,
# hipHostMalloc and hipMallocManaged alone): an `&p` argument there is cast to (void**), which is
# what CUDA's template does itself.
# HIP spelling a row gives -> the arguments it needs after the CUDA call's single one.
EXTRA_ARGUMENTS = {"__hip_atomic_load": b", __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT"}
VOID_OUT = {"cudaHostAlloc": 0, "cudaHostGetDevicePointer": 0, "cudaMallocPitch": 0, "cudaMallocAsync": 0,
            "cudaMallocFromPoolAsync": 0}


def arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def call_of(name_node: Node | None) -> Node | None:
    """The call expression whose callee is exactly this name token."""
    if name_node is None:
        return None
    parent = name_node.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == name_node:
        return parent
    return None


def rewrite(found: list[tuple[Any, Any]], source: bytes, starts: list[int], smap: Any, edits: Edits,
            report: Report, options: Options, claimed: set[int]) -> None:
    for o, entry in found:
        written = o[2]
        node = o[6]
        if node is None:
            continue
        if written.startswith("__nv_fp8"):
            _fp8(o, entry, source, starts, edits, report, options, claimed)
            continue
        if node.type != "identifier":
            continue
        if written == "cudaMallocHost":
            _malloc_host(node, smap, edits, report, options, claimed)
        elif written == "cudaEventCreate":
            _event_create(node, smap, edits, report, options, claimed)
        elif written in SYMBOL_ARGUMENT:
            _symbol_call(node, written, source, edits, report)
        if written in VOID_OUT:
            _void_out(node, VOID_OUT[written], source, edits, report)
        target = entry.hip if entry is not None else None
        if target in EXTRA_ARGUMENTS:
            _extra_arguments(node, target, entry, edits, report, options, smap)


def _malloc_host(node: Node, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> None:
    call = call_of(node)
    if call is None or len(arguments(call)) != 2:
        return
    flags_row = smap.get("cudaHostAllocDefault")
    flags, why = hip_name(flags_row, options, smap) if flags_row is not None else (None, "unknown")
    if flags is None or why not in ("ok", "same"):
        return
    args = call.child_by_field_name("arguments")
    close = args.children[-1] if args is not None and args.children else None
    if close is not None and close.type == ")" and edits.add(close.start_byte, close.start_byte, b", " + flags.encode()):
        report.rewritten["cudaMallocHost-flags"] += 1


def _event_create(node: Node, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> None:
    call = call_of(node)
    if call is None or len(arguments(call)) != 2:
        return
    row = smap.get("cudaEventCreateWithFlags")
    target, why = hip_name(row, options, smap) if row is not None else (None, "unknown")
    if target is None or why not in ("ok", "same"):
        return
    if edits.add(node.start_byte, node.end_byte, target.encode()):
        claimed.add(node.start_byte)
        report.rewritten["cudaEventCreate-with-flags"] += 1


def _symbol_call(node: Node, written: str, source: bytes, edits: Edits, report: Report) -> None:
    call = call_of(node)
    if call is None:
        return
    args = arguments(call)
    index = SYMBOL_ARGUMENT[written]
    if len(args) <= index:
        return
    arg = args[index]
    text = source[arg.start_byte:arg.end_byte]
    if text.startswith(HIP_SYMBOL.encode()) or text.startswith(b"(void*)") or text.startswith(b"(const void*)"):
        return  # already an address
    if edits.add(arg.start_byte, arg.start_byte, HIP_SYMBOL.encode() + b"(") and edits.add(arg.end_byte, arg.end_byte, b")"):
        report.rewritten["HIP_SYMBOL"] += 1


def _extra_arguments(node: Node, target: str, entry: Any, edits: Edits, report: Report, options: Options,
                     smap: Any) -> None:
    call = call_of(node)
    if call is None or len(arguments(call)) != 1 or hip_name(entry, options, smap)[0] != target:
        return  # only the one-argument form, and only where the name itself is rewritten
    args = call.child_by_field_name("arguments")
    close = args.children[-1] if args is not None and args.children else None
    if close is not None and close.type == ")" and edits.add(close.start_byte, close.start_byte, EXTRA_ARGUMENTS[target]):
        report.rewritten[f"{target}-arguments"] += 1


def _void_out(node: Node, index: int, source: bytes, edits: Edits, report: Report) -> None:
    call = call_of(node)
    args = arguments(call) if call is not None else []
    if len(args) <= index:
        return
    arg = args[index]
    op = arg.child(0) if arg.type == "pointer_expression" else None
    if op is None or op.type != "&":
        return  # only a plain `&p`: anything else may already be a void** (or something else entirely)
    if edits.add(arg.start_byte, arg.start_byte, b"(void**)"):
        report.rewritten["void**-out-argument"] += 1


_FP8_OCP: dict[str, bool] = {}


def _fp8(o: Any, entry: Any, source: bytes, starts: list[int], edits: Edits, report: Report, options: Options,
         claimed: set[int]) -> None:
    target, why = hip_name(entry, options)
    if target is None or not target.endswith("_fnuz"):
        return
    ocp = target[: -len("_fnuz")]
    if not _listed_for_concept(ocp, entry.concept):
        return
    start = offset_of(starts, source, o[0], o[1])
    end = start + len(o[2].encode())
    if source[start:end] == o[2].encode() and edits.add(start, end, ocp.encode()):
        claimed.add(start)
        report.rewritten["fp8-ocp"] += 1


def _listed_for_concept(name: str, concept: str | None) -> bool:
    """Whether the glossary lists `name` among the concept's HIP symbols (read once per name)."""
    if concept is None:
        return False
    key = f"{concept}\0{name}"
    if key not in _FP8_OCP:
        try:
            from xlate import index as ix

            terms = ix.load_index()["concepts"][concept]["terms"]
            _FP8_OCP[key] = name in ((terms.get("hip") or {}).get("symbols") or [])
        except Exception:  # no index (a glossary with defects): no OCP rewrite, the row's name stays
            _FP8_OCP[key] = False
    return _FP8_OCP[key]
