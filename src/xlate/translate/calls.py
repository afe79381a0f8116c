"""Rewrites that need a call's arguments, not only its name.

- `cudaMallocHost(p, size)`: HIP's C function hipHostMalloc takes the flags too; the flags row of
  cudaHostAllocDefault gives the default to pass.
- `cudaEventCreate(&e, flags)`: the C++ overload with flags is hipEventCreateWithFlags in HIP (the
  row of cudaEventCreateWithFlags gives the name).
- cudaMemcpyToSymbol and the other symbol calls take the symbol itself in CUDA and its address in
  HIP: the symbol argument is wrapped in HIP_SYMBOL(), HIP's macro for that.
- FP8 types: the row's FNUZ type is written as its OCP sibling (the type NVIDIA's __nv_fp8_* are),
  when the glossary lists that OCP spelling for the same concept.
- A CUDA call whose row names a HIP builtin that takes more arguments: `__ldcg(p)` becomes
  `__hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)`, `atomicAdd_block(p, v)`
  `__hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)`
  (glossary/translate/calls.yaml, `append`).
- Calls whose HIP spelling compiles for some pointee types only (`typed`: the cache-hinted loads,
  the block-scoped atomics): the row's spelling is written only for a pointee type the file
  declares and the data lists as proven (or, for a function whose proven types cover every type
  CUDA declares it for, at any site). HIP declares __ldcg/__ldca/__ldcs for __half and __half2, so
  there the CUDA name stays. Anywhere else (a type the syntax does not show, or one no spelling is
  proven for) the call keeps its CUDA name and gets a `// xlate:` note: unknown beats wrong.
- A kernel passed to a cudaFunc* call or cudaLaunchKernel: CUDA's template overload takes the kernel
  itself, HIP's function a `const void*` (`function_address`).
- `cudaGraphInstantiate(&e, g[, flags])`, CUDA 12's form, is hipGraphInstantiateWithFlags (the row
  of cudaGraphInstantiateWithFlags names it); HIP's hipGraphInstantiate is CUDA 11's five-argument form.
- CUDA 13's `cudaMemPrefetchAsync(p, n, loc, flags, s)` and `cudaMemAdvise(p, n, advice, loc)` take
  a cudaMemLocation; ROCm 6.4's functions take a device number (hipCpuDeviceId for the host).
- CUDART_CB, a calling convention HIP does not have, is removed (`erase`).
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from xlate.translate import calldata
from xlate.translate.edits import Edits, blanks_at, offset_of
from xlate.translate.names import call_of, hip_name, writable_name
from xlate.translate.notes import Notes
from xlate.translate.pointee import Pointees
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
VOID_OUT = {"cudaHostAlloc": 0, "cudaHostGetDevicePointer": 0, "cudaMallocPitch": 0, "cudaMallocAsync": 0,
            "cudaMallocFromPoolAsync": 0}


def arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def closing_paren(call: Node) -> Node | None:
    """The `)` that ends the call's argument list, where arguments are appended; None if the parse has none."""
    args = call.child_by_field_name("arguments")
    close = args.children[-1] if args is not None and args.children else None
    return close if close is not None and close.type == ")" else None


def rewrite(found: list[tuple[Any, Any]], source: bytes, starts: list[int], smap: Any, edits: Edits,
            report: Report, options: Options, claimed: set[int], notes: Notes | None = None) -> None:
    append, typed, erase, fnaddr = calldata.append(), calldata.typed(), calldata.erase(), calldata.function_address()
    narrowed = calldata.argument_types()
    notes = notes if notes is not None else Notes()
    types: Pointees | None = None
    for o, entry in found:
        written = o[2]
        node = o[6]
        if node is None:
            continue
        if written.startswith("__nv_fp8"):
            _fp8(o, entry, source, starts, edits, report, options, claimed)
            continue
        if node.type != "identifier" or node.start_byte in claimed:
            continue  # (claimed: a compat helper replaced the call, or kept it with a note)
        if written == "cudaMallocHost":
            _malloc_host(node, smap, edits, report, options, claimed)
        elif written == "cudaEventCreate":
            _event_create(node, smap, edits, report, options, claimed)
        elif written == "cudaGraphInstantiate":
            _graph_instantiate(node, smap, edits, report, options, claimed)
        elif written in ("cudaMemPrefetchAsync", "cudaMemAdvise"):
            types = types or Pointees()
            _memory_location(node, written, types, smap, edits, report, options)
        elif written in SYMBOL_ARGUMENT:
            _symbol_call(node, written, source, edits, report)
        if written in VOID_OUT:
            _void_out(node, VOID_OUT[written], source, edits, report)
        if written in fnaddr:
            _function_address(node, fnaddr[written]["index"], source, edits, report)
        if written in erase:
            continue  # erase_macros() below finds them, inside parse-error regions too
        if written in narrowed:
            types = types or Pointees()
            if _argument_rejected(node, narrowed[written], types):
                claimed.add(node.start_byte)
                notes.add_at(starts, node, f"kept {written}: HIP's form takes, as argument {narrowed[written]['index'] + 1}, "
                             f"{' '.join(narrowed[written]['expects'].split())}", report, "argument type HIP does not take")
                continue
        if written in typed:
            types = types or Pointees()
            if _by_pointee(node, written, typed[written], entry, types, report, claimed, notes, starts, options, smap):
                continue  # the CUDA name stays: no arguments to add
        if written in append:
            _extra_arguments(node, append[written], entry, edits, report, options, smap)


def _argument_rejected(name: Node, entry: dict[str, Any], types: Pointees) -> bool:
    """Whether the syntax shows the call's argument at entry["index"] to be of a type HIP's spelling does
    not take: an enumerator with a rejected prefix, or a name the file declares with a rejected type."""
    call = call_of(name)
    args = arguments(call) if call is not None else []
    if entry["index"] >= len(args):
        return False
    arg = args[entry["index"]]
    while arg.type == "parenthesized_expression" and arg.named_child_count == 1:
        arg = arg.named_children[0]
    if arg.type != "identifier":
        return False
    text = (arg.text or b"").decode("utf-8", "replace")
    if text.startswith(tuple(entry["rejects_prefix"])):
        return True
    return types.of_argument_plain(arg) in entry["rejects"]


def _malloc_host(node: Node, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> None:
    call = call_of(node)
    if call is None or len(arguments(call)) != 2:
        return
    flags = writable_name(smap, "cudaHostAllocDefault", options)
    if flags is None:
        return
    close = closing_paren(call)
    if close is not None and edits.add(close.start_byte, close.start_byte, b", " + flags.encode()):
        report.rewritten["cudaMallocHost-flags"] += 1


def _event_create(node: Node, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> None:
    call = call_of(node)
    if call is None or len(arguments(call)) != 2:
        return
    target = writable_name(smap, "cudaEventCreateWithFlags", options)
    if target is None:
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


def _extra_arguments(node: Node, spec: dict[str, Any], entry: Any, edits: Edits, report: Report, options: Options,
                     smap: Any) -> None:
    call = call_of(node)
    target = spec["hip"]
    if call is None or len(arguments(call)) != spec["arity"] or hip_name(entry, options, smap)[0] != target:
        return  # only the form the entry describes, and only where the row's name is the one it names
    close = closing_paren(call)
    extra = "".join(", " + a for a in spec["arguments"]).encode()
    if spec["arity"] == 0:
        extra = extra[2:]
    if close is not None and edits.add(close.start_byte, close.start_byte, extra):
        report.rewritten[f"{target}-arguments"] += 1


def _by_pointee(node: Node, written: str, spec: dict[str, Any], entry: Any, types: Pointees, report: Report,
                claimed: set[int], notes: Notes, starts: list[int], options: Options, smap: Any) -> bool:
    """True when the call keeps its CUDA name: HIP declares it for the argument's declared pointee
    type, or the row's spelling is not proven for the type at this site (then a note says so)."""
    target = hip_name(entry, options, smap)[0]
    if target is None or target == written:
        return False  # the row writes nothing here (or the same name): nothing to prove
    call = call_of(node)
    args = arguments(call) if call is not None else []
    pointed = types.of_argument(args[0]) if args else None
    if pointed is not None and pointed in spec["keep"]:
        claimed.add(node.start_byte)
        report.rewritten[f"{written}-kept-for-{pointed}"] += 1
        return True
    if pointed is not None and pointed in spec["accepts"]:
        return False  # proven for this type: the row's spelling (and its arguments) are written
    if pointed is None and call is not None and spec["any_cuda_type"]:
        return False  # proven for every type CUDA declares it for: whatever the type, it compiles
    claimed.add(node.start_byte)
    if pointed is not None:
        report.unknown[f"{written} on {pointed}"] += 1
        why = f"{target} is not proven to compile for a pointer to {pointed}"
    elif call is None:
        why = f"{target} takes other arguments and the name is not called here"
    else:
        why = f"{target} compiles only for some pointee types and the type here is not declared in this file"
    notes.add(starts, node.start_byte, f"kept {written}: {why}; port it by hand for the type used", report,
              "call not proven for its types")
    return True


def _graph_instantiate(node: Node, smap: Any, edits: Edits, report: Report, options: Options, claimed: set[int]) -> None:
    """CUDA 12's cudaGraphInstantiate(&e, g[, flags]) is HIP's hipGraphInstantiateWithFlags; HIP's
    hipGraphInstantiate is CUDA 11's five-argument form (error node, log buffer, its size)."""
    call = call_of(node)
    if call is None:
        return
    n = len(arguments(call))
    if n not in (2, 3):
        return
    target = writable_name(smap, "cudaGraphInstantiateWithFlags", options)
    if target is None:
        return
    close = closing_paren(call)
    if close is None:
        return
    if edits.add(node.start_byte, node.end_byte, target.encode()):
        claimed.add(node.start_byte)
        if n == 2:
            edits.add(close.start_byte, close.start_byte, b", 0")  # CUDA's default flags
        report.rewritten["cudaGraphInstantiate-with-flags"] += 1


# CUDA 13 call -> (index of the cudaMemLocation argument, index of a flags argument CUDA requires
# to be 0 and HIP does not take, or None, number of arguments of that form).
_LOCATION = {"cudaMemPrefetchAsync": (2, 3, 5), "cudaMemAdvise": (3, None, 4)}


def _memory_location(node: Node, written: str, types: Pointees, smap: Any, edits: Edits, report: Report,
                     options: Options) -> None:
    """CUDA 13 passes a cudaMemLocation where ROCm 6.4 takes a device number. The location, a
    variable the file declares as cudaMemLocation (so the call is surely the CUDA 13 form), becomes
    `(loc.type == hipMemLocationTypeDevice ? loc.id : hipCpuDeviceId)`: its device, or the host for
    every host location type (HIP's prefetch takes no NUMA node). CUDA 13 requires the prefetch's
    flags to be 0 (cuda_runtime_api.h: "flags for future use, must be zero now"); they are dropped
    only when written as 0."""
    call = call_of(node)
    args = arguments(call) if call is not None else []
    at, flags, count = _LOCATION[written]
    if len(args) != count:
        return
    loc = args[at]
    if loc.type != "identifier" or types.of_argument_plain(loc) != "cudaMemLocation":
        return
    if flags is not None and (args[flags].type != "number_literal" or args[flags].text not in (b"0", b"0u", b"0U")):
        return
    names = []
    for cuda in ("cudaMemLocationTypeDevice", "cudaCpuDeviceId"):
        target = writable_name(smap, cuda, options)
        if target is None:
            return
        names.append(target)
    if loc.text is None:  # never for a tree parsed from bytes; nothing to write without it
        return
    var = loc.text.decode()
    device = f"({var}.type == {names[0]} ? {var}.id : {names[1]})".encode()
    end = args[flags + 1].start_byte if flags is not None else loc.end_byte  # the flags and their comma go
    tail = b", " if flags is not None else b""
    if edits.add(loc.start_byte, end, device + tail):
        report.rewritten["cudaMemLocation-to-device"] += 1


def _argument_at(node: Node, index: int) -> Node | None:
    """Argument `index` of the call that `node` names, or None where there is no such argument."""
    call = call_of(node)
    args = arguments(call) if call is not None else []
    return args[index] if len(args) > index else None


def _function_address(node: Node, index: int, source: bytes, edits: Edits, report: Report) -> None:
    arg = _argument_at(node, index)
    if arg is None:
        return
    text = source[arg.start_byte:arg.end_byte].replace(b" ", b"")
    if arg.type == "cast_expression" or text.startswith((b"reinterpret_cast<", b"static_cast<", b"(constvoid*)", b"(void*)")):
        return  # already converted by hand
    if edits.add(arg.start_byte, arg.start_byte, b"reinterpret_cast<const void*>(") and edits.add(arg.end_byte, arg.end_byte, b")"):
        report.rewritten["kernel-as-const-void*"] += 1


def erase_macros(tree: Any, source: bytes, smap: Any, edits: Edits, report: Report, options: Options,
                 claimed: set[int]) -> None:
    """Remove each `erase` macro whose row says HIP has none (it expands to nothing where HIP runs),
    with the blanks after it. Found by its bytes and checked to be an identifier token, so comments
    and strings are never touched; the grammar reads `void CUDART_CB f(...)` as an error region,
    where the occurrence finder looks at nothing."""
    root = tree.root_node
    for name in calldata.erase():
        word = name.encode()
        pos = source.find(word)
        if pos == -1:
            continue
        row = smap.get(name)
        if row is None or hip_name(row, options, smap)[1] != "none":
            continue
        while pos != -1:
            node = root.descendant_for_byte_range(pos, pos + len(word))
            if node is not None and node.type == "identifier" and node.start_byte == pos and node.end_byte == pos + len(word):
                end = node.end_byte + len(blanks_at(source, node.end_byte))
                if edits.add(pos, end, b""):
                    claimed.add(pos)
                    report.rewritten[f"{name}-removed"] += 1
            pos = source.find(word, pos + len(word))


def _void_out(node: Node, index: int, source: bytes, edits: Edits, report: Report) -> None:
    arg = _argument_at(node, index)
    if arg is None:
        return
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
            from xlate import kb

            terms = kb.load_index()["concepts"][concept]["terms"]
            _FP8_OCP[key] = name in ((terms.get("hip") or {}).get("symbols") or [])
        except Exception:  # no index (a glossary with defects): no OCP rewrite, the row's name stays
            _FP8_OCP[key] = False
    return _FP8_OCP[key]
