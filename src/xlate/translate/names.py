"""Identifiers, types and enumerators renamed by the symbol rows, never by a guess.

A row's HIP spelling is used only when the row is listed (kind "symbol"): names that a family's
naming rule merely derives are reported as unknown and left as written. Two more things are never
renamed, each with a `// xlate:` note: a function row whose HIP side is only `approximate` and whose
call is not proven to keep its shape (glossary/translate/calls.yaml lists those that are; `cg::reduce`
to `hipcub::WarpReduce` would call a class template as a function; a `when: two_phase` entry there
proves only calls that show CUB's two-phase form, and so does one for a member of an approximate
class row such as `cub::DeviceRadixSort::SortKeys`), and a name the file itself
defines or declares as a function (`__device__ T __ldcs(const T* p)`): the user's function keeps its
name, and so do its calls.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from tree_sitter import Node

from xlate.kb import LAUNCH, Entry, SymbolMap
from xlate.translate import calldata, guards
from xlate.translate.edits import Edits, offset_of
from xlate.translate.notes import Notes
from xlate.translate.options import Options
from xlate.translate.report import Report

# A code spelling: a possibly qualified name, optionally a template-id whose arguments are names or
# literals (rocRAND's engines: rocrand_device::sobol32_engine<false>).
NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:<[\w:]+(?:, ?[\w:]+)*>)?")


def hip_name(entry: Entry, options: Options, smap: SymbolMap | None = None) -> tuple[str | None, str]:
    """(HIP spelling to write, why) for a row: why is "ok", "same", "derived", "none" or "unknown"."""
    if entry.kind == "derived" or getattr(entry, "derived", False):
        return None, "derived"
    if entry.family is None and entry.hip != entry.symbol and not _curated(entry) and not _rule_agrees(entry, smap):
        # A glossary concept's symbol list names the concept's primary HIP spelling for every CUDA
        # spelling of the concept (int4 -> float4): that is a concept mapping, not this name's pair.
        # Such a row is used only where an API family's renaming rule gives the very same name.
        return None, "unknown"
    target = (roc_name(entry) if options.roc else None) or entry.hip
    if target is None:
        return None, "none" if entry.hip_relation == "none" else "unknown"
    if not NAME.fullmatch(target):
        return None, "unknown"  # the row gives prose or a non-code spelling, not a name to write
    if target == entry.symbol:
        return target, "same"
    return target, "ok"


def writable_name(smap: SymbolMap, cuda: str, options: Options) -> str | None:
    """The HIP spelling the row of `cuda` gives, when it is one to write ("ok" or "same"); else None."""
    row = smap.get(cuda)
    target, why = hip_name(row, options, smap) if row is not None else (None, "unknown")
    return target if why in ("ok", "same") else None


def side(entry: Any, name: str) -> dict[str, Any]:
    """One side (hip, roc, ...) of the entry's symbol row as JSON, or {} when the row has none."""
    found = entry.side(name) if hasattr(entry, "side") else None
    return found.json() if found is not None else {}


def roc_name(entry: Entry) -> str | None:
    """The rocBLAS-style second answer of a row (rocblas_sgemm for cublasSgemm), or None."""
    return getattr(entry, "roc", None) or side(entry, "roc").get("symbol")


def _rule_agrees(entry: Entry, smap: SymbolMap | None) -> bool:
    """Whether a family's naming rule, applied to the CUDA name, gives the row's HIP name."""
    if smap is None or not entry.symbol.startswith(smap.family_prefixes):
        return False
    for fam in smap.families:
        if fam.pattern.fullmatch(entry.symbol):
            for old, new in fam.rename:
                if entry.symbol.startswith(old):
                    return new + entry.symbol[len(old):] == entry.hip
            return False
    return False


def _curated(entry: Any) -> bool:
    """A row written one to one for this spelling: its HIP side names its own source."""
    return bool(side(entry, "hip").get("source"))


def occurrence_offset(o: Any, source: bytes, starts: list[int]) -> int:
    return offset_of(starts, source, o[0], o[1])


def shape_unproven(entry: Any) -> bool:
    """A function row whose HIP side is only approximate and whose call shape no data proves."""
    row = getattr(entry, "row", None)
    kind = row.kind if row is not None else None
    return entry.hip_relation == "approximate" and kind == "function" and not calldata.proven_call(entry.symbol)


def keeps_cuda_name(entry: Any, two_phase_here: bool) -> bool:
    """Whether `rewrite` leaves a call of this row with its CUDA name for want of a proven HIP call shape:
    a two-phase member (`cub::DeviceReduce::Sum(temp, bytes, ...)`) called the two-phase way is renamed."""
    return shape_unproven(entry) and not (calldata.two_phase(entry.symbol) and two_phase_here)


_DECLARATOR_PARENTS = frozenset({"function_definition", "declaration", "field_declaration", "template_declaration"})


class OwnFunction(NamedTuple):
    node: Node  # the first declaring token
    # Pointee types of the first parameter over the file's overloads of the name (`floatX` for
    # `T f(const floatX* p)`), or None where any argument may bind one (a template, a macro, a
    # first parameter that is not a plain pointer).
    pointees: frozenset[str] | None


def own_functions(found: list[tuple[Any, Any]]) -> dict[str, OwnFunction]:
    """Names the file defines or declares as functions (or function-like macros) that some row maps.
    Only the declarator's own name counts, and a declaration only where its parameters are typed
    (`dim3 g(n)` declares a variable, not a function)."""
    own: dict[str, OwnFunction] = {}
    for o, _ in found:
        node = o[6]
        if node is None or node.type != "identifier":
            continue
        parent = node.parent
        pointee: str | None = None
        if parent is not None and parent.type == "preproc_function_def" and parent.child_by_field_name("name") == node:
            pass
        elif parent is None or parent.type != "function_declarator" or parent.child_by_field_name("declarator") != node:
            continue
        else:
            holder = parent.parent
            while holder is not None and holder.type in ("pointer_declarator", "reference_declarator"):
                holder = holder.parent
            if holder is None or holder.type not in _DECLARATOR_PARENTS:
                continue
            params = parent.child_by_field_name("parameters")
            plist = [p for p in (params.named_children if params is not None else []) if p.type != "comment"]
            typed = params is not None and all(p.type in ("parameter_declaration", "optional_parameter_declaration",
                                                          "variadic_parameter_declaration") for p in plist)
            if holder.type != "function_definition" and not typed:
                continue
            templated = holder.parent is not None and holder.parent.type == "template_declaration"
            pointee = None if templated or not plist else _pointer_parameter(plist[0])
        if guards.compiled_out(node):
            continue  # a definition HIP never compiles (an old nvcc's shim) protects no call
        seen = own.get(o[2])
        types = None if pointee is None else frozenset({pointee})
        if seen is None:
            own[o[2]] = OwnFunction(node, types)
        else:
            merged = None if seen.pointees is None or types is None else seen.pointees | types
            own[o[2]] = OwnFunction(seen.node, merged)
    return own


def call_of(name_node: Node | None) -> Node | None:
    """The call expression whose callee is exactly this name token."""
    if name_node is None:
        return None
    parent = name_node.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == name_node:
        return parent
    return None


def note_approximate_constructions(found: list[tuple[Any, Any]], source: bytes, starts: list[int], report: Report,
                                   options: Options, notes: Notes, smap: Any = None, view: Any = None,
                                   claimed: set[int] | None = None) -> None:
    """A value built as `T(x)` of a type whose HIP side is only approximate gets the row's caveat once
    per type and file: the rename compiles, but its constructors are where the types differ. Where
    calls.yaml's `device_construction` lists the type and the construction may run on the device
    (a __device__ or __global__ function, or a lambda, whose qualifiers the parse does not settle),
    the construction keeps its CUDA spelling (its offset goes into `claimed`) with a note at each
    site: HIP's constructors there do not take what CUDA's take (gfx942's OCP fp8 types have only
    host-side float constructors; e4m3 takes a float through its short one)."""
    kept_types = calldata.device_construction()
    done: set[str] = set()
    for o, entry in found:
        node, written = o[6], o[2]
        row = getattr(entry, "row", None)
        if node is None or row is None or row.kind != "type" or entry.hip_relation != "approximate":
            continue
        call = call_of(node)
        if call is None:
            continue
        target, why = hip_name(entry, options, smap)
        caveat = " ".join((entry.hip_caveat or "").split()).rstrip(".")
        if why != "ok" or target is None:
            continue
        if written in kept_types and claimed is not None and _may_run_on_device(call, view):
            claimed.add(occurrence_offset(o, source, starts))
            said = f" ({caveat})" if caveat and written not in done else ""
            done.add(written)
            notes.add(starts, node.start_byte, f"kept {written}(...): in device code {target}'s constructors do not "
                      f"take what {written}'s take{said}; convert explicitly for the target", report,
                      "approximate type constructed")
            continue
        if written in done or not caveat:
            continue
        done.add(written)
        notes.add(starts, node.start_byte, f"{written}(...) -> {target}(...), which is not the same type: {caveat}; check "
                  "what this construction gives on the target", report, "approximate type constructed")


def note_approximate_renames(found: list[tuple[Any, Any]], source: bytes, starts: list[int], edits: Edits,
                             report: Report, notes: Notes) -> None:
    """A proven rename that changes what the program does (calls.yaml `caveat_notes`: `__trap` to
    `__builtin_trap` ends the process on HIP) gets the row's caveat as a note, once per caveat and file,
    above the first call renamed; so does a listed call HIP spells the same but runs differently
    (__half2int_rn truncates in ROCm 6.4), which is not rewritten at all. Run after every rewrite has
    been planned: only a site whose name an edit actually changed, or whose HIP spelling is its own,
    gets the note (a call kept as written for an unproven shape has its own)."""
    listed = calldata.caveat_notes()
    said: set[str] = set()
    for o, entry in found:
        node, written = o[6], o[2]
        if node is None or entry.hip_relation != "approximate" or (written not in listed and entry.symbol not in listed):
            continue
        caveat = " ".join((entry.hip_caveat or "").split()).rstrip(".")
        if not caveat or caveat in said:
            continue
        start = occurrence_offset(o, source, starts)
        end = start + len(written.encode())
        if source[start:end] != written.encode():
            continue
        shown = edits.render(start, end)
        if shown == source[start:end]:
            if entry.hip != entry.symbol:
                continue  # kept as written for another reason, which its own note gives
            # A same-named HIP function that does something else (__half2int_rn truncates in ROCm 6.4):
            # nothing is rewritten, so only this note says so.
            said.add(caveat)
            notes.add(starts, start, f"{written} keeps its name on HIP, but what differs there: {caveat}", report,
                      "approximate, same name", counted_as="kept, with the row's caveat")
            continue
        said.add(caveat)
        target = shown.decode("utf-8", "replace")
        notes.add(starts, start, f"renamed {written} to {target}; what differs on HIP: {caveat}", report,
                  "approximate rename", counted_as="renamed, with the row's caveat")


def _may_run_on_device(node: Node, view: Any) -> bool:
    """Whether code at `node` may be compiled for the device: inside a __device__/__global__
    function, inside a lambda (its qualifiers are not read here), or with no view to ask."""
    if view is None or view.in_device_code(node):
        return True
    up = node.parent
    while up is not None and up.type != "function_definition":
        if up.type == "lambda_expression":
            return True
        up = up.parent
    return False


def class_prefix(written: str, smap: Any, options: Options) -> tuple[str, str] | None:
    """(prefix, its HIP spelling) for a qualified name in no row whose longest qualifying prefix is a
    class or namespace-scope type a row renames (`cub::DeviceRadixSort` of
    `cub::DeviceRadixSort::SortPairs`): the member is written as it is, after the class's HIP name.
    None where no such row exists or its answer is not a plain rename."""
    parts = written.split("::")
    for k in range(len(parts) - 1, 0, -1):
        prefix = "::".join(parts[:k])
        entry = smap.get(prefix)
        row = getattr(entry, "row", None)
        if entry is None or row is None or row.kind != "type" or entry.hip_relation not in ("renamed", "same"):
            continue
        target, why = hip_name(entry, options, smap)
        return (prefix, target) if why == "ok" and target else None
    return None


def approximate_member(written: str, smap: Any, options: Options) -> tuple[str, str, Any, str] | None:
    """(prefix, its HIP spelling, the prefix's entry, the member's full CUDA name) for a qualified name
    in no row whose longest qualifying prefix with a row is a type whose HIP side is only approximate,
    where calls.yaml's `same_shape` lists the member with `when: two_phase` (`cub::DeviceRadixSort::SortKeys`):
    the member follows the class's rename at a call that shows CUB's two-phase form. None otherwise."""
    parts = written.split("::")
    for k in range(len(parts) - 1, 0, -1):
        prefix = "::".join(parts[:k])
        entry = smap.get(prefix)
        row = getattr(entry, "row", None)
        if entry is None or row is None:
            continue
        if row.kind != "type" or entry.hip_relation != "approximate":
            return None
        member = "::".join([entry.symbol, *parts[k:]])
        target, why = hip_name(entry, options, smap)
        return (prefix, target, entry, member) if why == "ok" and target and calldata.two_phase(member) else None
    return None


_TEMP_BYTES_TYPES = frozenset({"size_t", "std::size_t"})


def two_phase_site(name_node: Node | None, types: Any) -> bool:
    """Whether the call whose callee starts at `name_node` (`cub` of `cub::DeviceReduce::Sum(...)`)
    shows CUB's two-phase form: its first argument is the temporary storage (nullptr, NULL, or a
    name or cast the file shows to be a `void*`) and its second the byte count (a name the file
    declares as a size_t or a size_t&). CUB's single-call overloads, which take an execution
    environment, begin with the input instead (an iterator, never a `void*`), so no such call
    passes; anything the syntax does not show is not taken for two-phase."""
    node = name_node
    while node is not None and node.parent is not None and node.parent.type == "qualified_identifier":
        node = node.parent
    call = node.parent if node is not None else None
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != node:
        return False
    listed = call.child_by_field_name("arguments")
    args = [c for c in listed.named_children if c.type != "comment"] if listed is not None else []
    if len(args) < 3:
        return False
    first, second = args[0], args[1]
    while first.type == "parenthesized_expression" and first.named_child_count == 1:
        first = first.named_children[0]
    while second.type == "parenthesized_expression" and second.named_child_count == 1:
        second = second.named_children[0]
    storage = first.type == "null" or (first.type == "identifier" and first.text == b"NULL") or \
        types.of_argument(first) == "void"
    return storage and second.type == "identifier" and types.declared_as(second, ("", "&")) in _TEMP_BYTES_TYPES


def keep_host_calls_in_device_code(found: list[tuple[Any, Any]], source: bytes, starts: list[int], view: Any,
                                   report: Report, claimed: set[int], notes: Notes) -> None:
    """A call of a host-only API family's name (calls.yaml `host_api_families`: CUDA's runtime and driver
    APIs) inside a __global__ or __device__ function is CUDA's device runtime (dynamic parallelism): HIP
    has none, and its host functions do not compile there. The call keeps its CUDA name (its offset goes
    into `claimed`) with a note, once per function and name. A __host__ __device__ function is left to
    the row: its host pass may be the one that calls it."""
    from xlate.cuda.tree import function_qualifiers

    families = calldata.host_api_families()
    said: set[tuple[int, str]] = set()
    for o, entry in found:
        node, written = o[6], o[2]
        if node is None or entry.family not in families or node.type != "identifier" or call_of(node) is None:
            continue
        fn = view.function_of(node)
        if fn is None or not view.in_device_code(node) or "__host__" in function_qualifiers(fn):
            continue
        claimed.add(occurrence_offset(o, source, starts))
        if (fn.start_byte, written) in said:
            continue
        said.add((fn.start_byte, written))
        notes.add_at(starts, node, f"kept {written}: called in device code (CUDA's device runtime); HIP's runtime "
                     "functions run on the host only, so no HIP spelling compiles here", report, "host API in device code")


def _keep_unproven_shape(written: str, target: str, entry: Any, starts: list[int], start: int, report: Report,
                         notes: Notes) -> None:
    """The call keeps its CUDA name, with a note giving the HIP name and the row's caveat."""
    caveat = " ".join((entry.hip_caveat or "").split()).rstrip(".")
    notes.add(starts, start, f"kept {written}: HIP's nearest is {target}, not proven to take this call's arguments as they are"
              + (f" ({caveat})" if caveat else "") + "; port this call by hand", report, "call shape differs")


def dead_definitions(found: list[tuple[Any, Any]]) -> list[tuple[int, int]]:
    """Byte ranges of the file's function definitions of mapped names that HIP never compiles (see
    guards): they stay as written, and their names protect no call."""
    out = []
    for o, _ in found:
        node = o[6]
        parent = node.parent if node is not None else None
        if node is None or node.type != "identifier" or parent is None or parent.type not in ("function_declarator", "preproc_function_def"):
            continue
        holder = parent if parent.type == "preproc_function_def" else parent.parent
        while holder is not None and holder.type in ("pointer_declarator", "reference_declarator"):
            holder = holder.parent
        if holder is not None and holder.type in ("function_definition", "preproc_function_def") and guards.compiled_out(node):
            out.append((holder.start_byte, holder.end_byte))
    return out


def _pointer_parameter(param: Node) -> str | None:
    """`floatX` for a parameter `const floatX* p` (one pointer level), else None."""
    typ, decl = param.child_by_field_name("type"), param.child_by_field_name("declarator")
    if typ is None or decl is None or decl.type not in ("pointer_declarator", "abstract_pointer_declarator"):
        return None
    inner = decl.child_by_field_name("declarator")
    if inner is not None and inner.type not in ("identifier",):
        return None
    return " ".join((typ.text or b"").decode("utf-8", "replace").split()) or None


def rewrite(found: list[tuple[Any, Any]], source: bytes, starts: list[int], edits: Edits, report: Report,
            options: Options, claimed: set[int], smap: Any = None, notes: Notes | None = None) -> None:
    from xlate.translate.pointee import Pointees

    notes = notes if notes is not None else Notes()
    types = Pointees()
    for o, entry in found:
        written = o[2]
        if written == LAUNCH or entry.kind == "header":
            continue
        start = occurrence_offset(o, source, starts)
        if start in claimed:
            continue  # a preprocessor condition or an argument-aware rewrite decided this one
        end = start + len(written.encode())
        if source[start:end] != written.encode():
            continue  # position and spelling disagree (unusual bytes on the line): leave it
        target, why = hip_name(entry, options, smap)
        if why == "derived" and smap is not None:
            known = class_prefix(written, smap, options)
            if known is not None and edits.add(start, start + len(known[0].encode()), known[1].encode()):
                # `cub::DeviceRadixSort::SortPairs`: the class has a row; its member keeps its name.
                report.rewritten["identifier"] += 1
                continue
            member = approximate_member(written, smap, options) if known is None else None
            if member is not None:
                prefix, class_target, class_entry, _ = member
                if two_phase_site(o[6], types):
                    # `cub::DeviceRadixSort::SortKeys(temp, bytes, ...)`: hipCUB's member takes CUB's arguments.
                    if edits.add(start, start + len(prefix.encode()), class_target.encode()):
                        report.rewritten["identifier"] += 1
                    continue
                _keep_unproven_shape(written, class_target + written[len(prefix):], class_entry, starts, start,
                                     report, notes)
                continue
        if why in ("derived", "unknown"):
            report.unknown[written] += 1
            continue
        if why == "none":
            report.no_equivalent[written] += 1
            continue
        if why == "same" or target is None or target == written:
            continue  # (target is None only for the reasons handled above)
        if keeps_cuda_name(entry, two_phase_site(o[6], types)):
            _keep_unproven_shape(written, target, entry, starts, start, report, notes)
            continue
        if written != entry.symbol:
            # Written through a namespace alias (cg::thread_block): keep the alias when the HIP
            # spelling only differs from the resolved name after the alias's namespace.
            head, _, rest = written.partition("::")
            full_head = entry.symbol[: len(entry.symbol) - len(rest)] if entry.symbol.endswith(rest) else None
            if full_head and target.startswith(full_head):
                target = head + "::" + target[len(full_head):] if rest else target
        if edits.add(start, end, target.encode()):
            report.rewritten["identifier"] += 1
