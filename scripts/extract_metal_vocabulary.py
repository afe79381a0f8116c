"""Read a metal-cpp checkout and list, per Metal header, the Objective-C spellings of the names it wraps:
classes and protocols, structs, enum types and their constants, string and numeric constants, C
functions, and methods as the first part of their selector. With --yaml, write the package vocabulary
glossary/vocabulary/metal-framework.yaml from them.

Why metal-cpp and not Apple's Objective-C headers: the SDK headers only ship inside Xcode, while
metal-cpp is Apple's Apache-2.0 C++ mirror of the same API, published per SDK release and copied into
many public repositories. Its C++ spellings are mechanical (namespace MTL or MTL4 plus the name without
the prefix), and every method calls its Objective-C selector through a table that spells the selector
in full, so the Objective-C names can be rebuilt exactly instead of guessed.

Only names (facts about the API) come out of this script; no header text or comment is copied.

Usage:
  python3 scripts/extract_metal_vocabulary.py CHECKOUT            # names per header, as text
  python3 scripts/extract_metal_vocabulary.py GITDIR --rev COMMIT # the same, from a bare git directory
  python3 scripts/extract_metal_vocabulary.py GITDIR --rev COMMIT --repo OWNER/NAME --yaml OUT.yaml
      (--yaml also drops every name the glossary already spells, using the xlate index, so run it with
      PYTHONPATH=src from the repository root)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

# Files that hold metal-cpp's own machinery (selector and class tables, macros, the umbrella include),
# not API of their own.
MACHINERY = {"MTLHeaderBridge.hpp", "MTLPrivate.hpp", "MTLDefines.hpp", "Metal.hpp"}

# Methods shorter than this are mostly accessors with plain names (size, type, label) that say nothing
# about Metal when looked up on their own.
MIN_METHOD = 8
# Selectors that every Objective-C object or many unrelated classes answer to: NSObject's lifecycle and
# accessors shared by nearly every Metal object. Listing them would make lookup claim them for one topic.
GENERIC_PREFIX = re.compile(r"^init[A-Z]")  # initWithName: and the like name the class, not a topic
GENERIC = {
    "alloc", "init", "retain", "release", "autorelease", "copy", "mutableCopy", "description", "label", "setLabel",
    "device", "length", "dealloc", "retainCount", "isEqual", "hash", "respondsToSelector", "conformsToProtocol",
    "copyWithZone", "newWithDescriptor", "initWithDevice", "initWithDescriptor", "setDescriptor", "descriptor",
    "objectAtIndexedSubscript", "setObject",
}


@dataclass
class Name:
    name: str  # the Objective-C spelling
    kind: str  # class, struct, enum, constant, function, method
    owner: str  # the class, struct or enum type it belongs to (itself for a type)


@dataclass
class Header:
    path: str  # Metal/MTLHeap.hpp
    names: list[Name] = field(default_factory=list)

    def add(self, name: str, kind: str, owner: str) -> None:
        if all(n.name != name for n in self.names):
            self.names.append(Name(name, kind, owner))


class Source:
    """A metal-cpp tree: a directory that holds Metal/, or a bare git directory read at one commit (the
    snapshot a citation names, whatever is checked out)."""

    def __init__(self, path: Path, rev: str | None) -> None:
        self.path, self.rev = path, rev

    def files(self, folder: str) -> list[str]:
        if self.rev is None:
            return sorted(f"{folder}/{p.name}" for p in (self.path / folder).glob("*.hpp"))
        out = subprocess.run(["git", "--git-dir", str(self.path), "ls-tree", "--name-only", f"{self.rev}:{folder}"],
                             check=True, capture_output=True, text=True).stdout
        return sorted(f"{folder}/{n}" for n in out.split() if n.endswith(".hpp"))

    def read(self, rel: str) -> str:
        if self.rev is None:
            return (self.path / rel).read_text()
        return subprocess.run(["git", "--git-dir", str(self.path), "show", f"{self.rev}:{rel}"],
                              check=True, capture_output=True, text=True).stdout


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def strip_comments(text: str) -> str:
    # Comments are dropped before anything is matched, so no name is read out of prose (and no prose
    # can reach the output).
    return _COMMENTS.sub(" ", text)


def block_after(text: str, open_at: int) -> tuple[str, int]:
    """The text between the brace at `open_at` and its matching close brace, and the close's offset."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i], i
    raise ValueError("unbalanced braces")


_NAMESPACE = re.compile(r"\bnamespace\s+(\w+)\s*\{")


def namespace_bodies(text: str) -> list[tuple[str, str]]:
    """(namespace, body) for each top-level `namespace MTL` / `namespace MTL4` block. A nested
    `namespace Private` holds metal-cpp's plumbing and is cut out of the body."""
    out = []
    pos = 0
    while (m := _NAMESPACE.search(text, pos)) is not None:
        body, end = block_after(text, m.end() - 1)
        pos = end + 1
        if m.group(1) not in ("MTL", "MTL4"):
            continue
        while (inner := _NAMESPACE.search(body)) is not None:
            _, inner_end = block_after(body, inner.end() - 1)
            body = body[:inner.start()] + body[inner_end + 1:]
        out.append((m.group(1), body))
    return out


# A class or struct with a body (a definition; `class Buffer;` forward declarations have none).
_TYPE = re.compile(r"\b(class|struct)\s+(\w+)\s*(?::[^{;]*)?\{")
# _MTL_ENUM / _MTL_OPTIONS wrap NS_ENUM / NS_OPTIONS: the second argument is the type's name without the
# prefix, and each enumerator is written without it too (StorageModeShared for MTLStorageModeShared).
_ENUM = re.compile(r"_MTL_(?:ENUM|OPTIONS)\(\s*[\w:]+\s*,\s*(\w+)\s*\)\s*\{([^}]*)\}")
_ENUMERATOR = re.compile(r"(?:^|,)\s*(\w+)\s*(?==|,|$)")
# _MTL_CONST declares an extern constant of the framework (an error domain, a counter name); plain
# `static const` members at namespace scope mirror numeric constants of the Objective-C headers
# (MTLCounterDontSample).
_CONST = re.compile(r"_MTL_CONST\(\s*[\w:]+\s*,\s*(\w+)\s*\)")
_STATIC_CONST = re.compile(r"^\s*static\s+const\s+[\w:]+\s+(\w+)\s*=", re.MULTILINE)
# Each inline method body names its owner (MTL::Heap::newBuffer) and sends its Objective-C selector by
# the key of metal-cpp's selector table (_MTL_PRIVATE_SEL(newBufferWithLength_options_)).
_INLINE = re.compile(r"_MTL_INLINE\b[^{;]*?\b(MTL4?)::(\w+)::~?\w+\s*\(")
_SEL_USE = re.compile(r"_MTL_PRIVATE_SEL\(\s*(\w+)\s*\)")
# C functions are called by their own Objective-C names (::MTLCreateSystemDefaultDevice), either
# directly or through metal-cpp's weakly linked private declarations.
_C_CALL = re.compile(r"(?:(?<![\w:])::|\bMTL::Private::)(MTL\w+)\s*\(")
_SEL_DEF = re.compile(r'_MTL_PRIVATE_DEF_SEL\(\s*(\w+)\s*,\s*"([^"]*)"')
_CLS_DEF = re.compile(r"_MTL_PRIVATE_DEF_CLS\(\s*(\w+)\s*\)")


def selectors(source: Source) -> dict[str, str]:
    """metal-cpp's selector table: key -> the Objective-C selector it spells (useHeaps_count_ -> useHeaps:count:).
    Most keys are defined in MTLHeaderBridge.hpp, a few in the header that uses them (MTLCaptureScope.hpp)."""
    table: dict[str, str] = {}
    for rel in source.files("Metal"):
        table.update(_SEL_DEF.findall(strip_comments(source.read(rel))))
    return table


def generic_method(first: str) -> bool:
    # A selector part with no inner capital is one English word (contents, dimensions, priority): as a
    # bare query it is more often prose than Metal, so it is left to lookup's other steps.
    return first in GENERIC or len(first) < MIN_METHOD or first == first.lower() or bool(GENERIC_PREFIX.match(first))


def extract(source: Source) -> tuple[list[Header], list[str]]:
    """Every Metal header's names, in file order, and warnings about what could not be confirmed."""
    table = selectors(source)
    known_classes = set(_CLS_DEF.findall(strip_comments(source.read("Metal/MTLHeaderBridge.hpp"))))
    headers, warnings, declared = [], [], set()
    for rel in source.files("Metal"):
        if rel.rsplit("/", 1)[-1] in MACHINERY:
            continue
        text = strip_comments(source.read(rel))
        header = Header(rel)
        for ns, body in namespace_bodies(text):
            for kind, name in _TYPE.findall(body):
                header.add(ns + name, kind, ns + name)
            for enum, members in _ENUM.findall(body):
                header.add(ns + enum, "enum", ns + enum)
                for member in _ENUMERATOR.findall(members.replace("\n", " ")):
                    header.add(ns + member, "constant", ns + enum)
            for name in _CONST.findall(body) + _STATIC_CONST.findall(body):
                header.add(ns + name, "constant", ns + name)
        for function in _C_CALL.findall(text):
            header.add(function, "function", function)
        chunks = _INLINE.split(text)  # [before, ns, class, body, ns, class, body, ...]
        properties: dict[str, set[str]] = {}
        methods: list[tuple[str, str]] = []
        for i in range(1, len(chunks) - 2, 3):
            owner = chunks[i] + chunks[i + 1]
            for key in _SEL_USE.findall(chunks[i + 2]):
                if key not in table:
                    warnings.append(f"{rel}: selector key {key} is not in the selector table")
                    continue
                selector = table[key]
                first = selector.split(":", 1)[0]
                if ":" not in selector:
                    properties.setdefault(owner, set()).add(first.removeprefix("is").lower())
                methods.append((owner, first))
        for owner, first in methods:
            # A property's setter (setStorageMode:) says no more than its getter; keep setters that set
            # something no getter of the class reads (setBuffer:offset:atIndex: on an encoder).
            if first.startswith("set") and first[3:].lower() in properties.get(owner, set()):
                continue
            if not generic_method(first):
                header.add(first, "method", owner)
        declared |= {n.name for n in header.names if n.kind == "class"}
        headers.append(header)
    missing = sorted(known_classes - declared)
    if missing:
        warnings.append(f"classes in the class table with no definition found: {missing}")
    return headers, warnings


def print_text(headers: Iterable[Header]) -> None:
    for h in headers:
        print(f"== {h.path} ({len(h.names)})")
        for kind in ("class", "struct", "enum", "constant", "function", "method"):
            names = [n.name for n in h.names if n.kind == kind]
            if names:
                print(f"  {kind}: {' '.join(names)}")


# ----------------------------------------------------------------------------------------------------
# From names to the vocabulary file. Which concept card a name belongs to is a judgement made here, once,
# so a rerun on a later metal-cpp release files new names the same way. The headers are listed in the
# order that decides where a name several headers share is filed (each name is listed once): compute
# first, so setBuffer lands on the compute encoder rather than on an argument encoder or a render pass.

# (header file, its topic, the card that covers that topic or None, rules for parts of it that belong
# elsewhere). A rule is (pattern searched in the name, topic, card).
Rule = tuple[str, str, "str | None"]
DEVICE_RULES: list[Rule] = [
    (r"^new(Buffer|Heap)|^heap\w*SizeAndAlign|^MTLSizeAndAlign$", "buffer and heap allocation", "device-malloc"),
    (r"Tensor", "tensors", "device-array"),
    (r"Texture|Sampler|PixelFormat", "textures and samplers", "texture-memory"),
    (r"^new(MTL4)?Command(Queue|Buffer|Allocator)", "command queues", "stream"),
    (r"^newPipelineDataSetSerializer", "binary archives", "fat-binary"),
    (r"^newLibraryWithSource|^newCompiler|Compilation", "compiling source at run time", "runtime-compilation"),
    (r"^new(Default)?Library|^newDynamicLibrary|^newComputePipelineState|^MTLPipelineOption$", "libraries and pipelines",
     "module-loading"),
    (r"^newLogState", "shader logging", "device-printf"),
    (r"Argument", "argument buffers", "kernel-launch"),
    (r"^newSharedEventWithHandle$", "events shared between processes", "ipc-memory-handles"),
    (r"^new(Shared)?Event", "events", "event"),
    (r"Observer|Notification$", "devices added and removed", "device-selection"),
]
BLIT_RULES: list[Rule] = [
    (r"^copy", "copies", "memcpy"),
    (r"^fillBuffer$", "filling buffers", "memset"),
    (r"Texture|Mipmap|optimizeContents", "texture maintenance", "texture-memory"),
]
LAYOUT: list[tuple[str, str, str | None, list[Rule]]] = [
    ("MTLComputeCommandEncoder.hpp", "compute command encoder", "kernel-launch", []),
    ("MTLComputePass.hpp", "compute pass", "kernel-launch", []),
    ("MTLBlitCommandEncoder.hpp", "blit command encoder", "memcpy", BLIT_RULES),
    ("MTLBlitPass.hpp", "blit pass", "memcpy", []),
    ("MTL4ComputeCommandEncoder.hpp", "Metal 4 compute encoder", "kernel-launch", BLIT_RULES),
    ("MTL4ArgumentTable.hpp", "argument tables", "kernel-launch", []),
    ("MTLArgumentEncoder.hpp", "argument buffers", "kernel-launch", []),
    ("MTLCommandQueue.hpp", "command queues", "stream", []),
    ("MTLCommandBuffer.hpp", "command buffers", "stream", [(r"DispatchType", "dispatch type", "kernel-launch")]),
    ("MTLCommandEncoder.hpp", "command encoders", "stream", [(r"ResourceUsage", "resources used indirectly", "kernel-launch")]),
    ("MTL4CommandQueue.hpp", "Metal 4 command queues", "stream", []),
    ("MTL4CommandBuffer.hpp", "Metal 4 command buffers", "stream", []),
    ("MTL4CommandAllocator.hpp", "command allocators", "stream", []),
    ("MTL4CommandEncoder.hpp", "Metal 4 command encoders", "stream", []),
    ("MTL4CommitFeedback.hpp", "commit feedback", "error-handling", []),
    ("MTLEvent.hpp", "events and shared events", "event", []),
    ("MTLFence.hpp", "fences", "grid-sync", []),
    ("MTLBuffer.hpp", "buffers", "device-malloc", [(r"Tensor", "tensors", "device-array"),
                                                   (r"Texture", "textures", "texture-memory"),
                                                   (r"DebugMarker", "debug markers", None)]),
    ("MTLHeap.hpp", "heaps", "device-malloc", [(r"Texture", "textures", "texture-memory")]),
    ("MTLAllocation.hpp", "allocations", "device-malloc", []),
    ("MTLResource.hpp", "resources", "device-malloc", []),
    ("MTLResidencySet.hpp", "residency sets", None, []),
    ("MTLCounters.hpp", "counters", "counter-api", []),
    ("MTL4Counters.hpp", "Metal 4 counter heaps", "counter-api", []),
    ("MTLCaptureManager.hpp", "GPU capture", "kernel-profiler", []),
    ("MTLCaptureScope.hpp", "GPU capture", "kernel-profiler", []),
    ("MTLLibrary.hpp", "libraries and functions", "module-loading", [
        (r"[Mm]athMode|MathFloatingPoint|fastMath", "math mode", "fast-math-intrinsics"),
        (r"^enableLogging$", "shader logging", "device-printf"),
        (r"FunctionConstant|functionConstant", "function constants", "kernel-specialization"),
        (r"CompileOptions|CompileSymbolVisibility|LanguageVersion|LibraryOptimizationLevel|LibraryType|preprocessorMacros"
         r"|allowReferencingUndefinedSymbols|compileSymbolVisibility|installName|languageVersion|libraryType"
         r"|optimizationLevel|preserveInvariance", "compile options", "runtime-compilation")]),
    ("MTL4LibraryDescriptor.hpp", "library descriptors", "runtime-compilation", []),
    ("MTL4Compiler.hpp", "Metal 4 compiler", "runtime-compilation", []),
    ("MTL4CompilerTask.hpp", "compiler tasks", "runtime-compilation", []),
    ("MTL4LibraryFunctionDescriptor.hpp", "library function descriptors", "module-loading", []),
    ("MTL4FunctionDescriptor.hpp", "function descriptors", "module-loading", []),
    ("MTLFunctionDescriptor.hpp", "function descriptors", "module-loading",
     [(r"constantValues|specializedName", "specialization", "kernel-specialization")]),
    ("MTLFunctionConstantValues.hpp", "function constant values", "kernel-specialization", []),
    ("MTL4SpecializedFunctionDescriptor.hpp", "specialized functions", "kernel-specialization", []),
    ("MTLComputePipeline.hpp", "compute pipelines", "module-loading", []),
    ("MTL4ComputePipeline.hpp", "Metal 4 compute pipelines", "module-loading", []),
    ("MTL4PipelineState.hpp", "pipeline options", "module-loading", []),
    ("MTLPipeline.hpp", "pipeline buffer mutability", "module-loading", []),
    ("MTLDynamicLibrary.hpp", "dynamic libraries", "module-loading", []),
    ("MTLLinkedFunctions.hpp", "linked functions", "module-loading", []),
    ("MTL4LinkingDescriptor.hpp", "linking descriptors", "module-loading", []),
    ("MTL4BinaryFunction.hpp", "binary functions", "module-loading", []),
    ("MTL4BinaryFunctionDescriptor.hpp", "binary function descriptors", "module-loading", []),
    ("MTLFunctionStitching.hpp", "function stitching", "runtime-compilation", []),
    ("MTL4StitchedFunctionDescriptor.hpp", "stitched functions", "runtime-compilation", []),
    ("MTLBinaryArchive.hpp", "binary archives", "fat-binary", []),
    ("MTL4Archive.hpp", "Metal 4 archives", "fat-binary", []),
    ("MTL4PipelineDataSetSerializer.hpp", "pipeline data set serializer", "fat-binary", []),
    ("MTLLogState.hpp", "shader logging", "device-printf", []),
    ("MTLFunctionLog.hpp", "shader validation logs", "sanitizer", []),
    ("MTLIndirectCommandBuffer.hpp", "indirect command buffers", "graphs", []),
    ("MTLIndirectCommandEncoder.hpp", "indirect commands", "graphs", []),
    ("MTLIOCommandQueue.hpp", "file I/O queues", "gpudirect-storage", []),
    ("MTLIOCommandBuffer.hpp", "file I/O command buffers", "gpudirect-storage", []),
    ("MTLIOCompressor.hpp", "file I/O compression", "gpudirect-storage", []),
    ("MTLTexture.hpp", "textures", "texture-memory", []),
    ("MTLTextureViewPool.hpp", "texture view pools", "texture-memory", []),
    ("MTLResourceViewPool.hpp", "resource view pools", "texture-memory", []),
    ("MTLSampler.hpp", "samplers", "texture-memory", []),
    ("MTLPixelFormat.hpp", "pixel formats", "texture-memory", []),
    ("MTLTensor.hpp", "tensors", "device-array", []),
    ("MTL4MachineLearningCommandEncoder.hpp", "machine-learning encoder", "inference-engine", []),
    ("MTL4MachineLearningPipeline.hpp", "machine-learning pipelines", "inference-engine", []),
    ("MTLDevice.hpp", "device queries", "device-properties", DEVICE_RULES),
    ("MTLResourceStateCommandEncoder.hpp", "sparse texture mapping", "virtual-memory-management", []),
    ("MTLResourceStatePass.hpp", "resource state pass", "virtual-memory-management", []),
    ("MTLTypes.hpp", "origins, sizes and regions", None, []),
    ("MTLArgument.hpp", "argument reflection", None, []),
    ("MTLDataType.hpp", "data types", None, []),
    ("MTLStageInputOutputDescriptor.hpp", "stage input", None, []),
    ("MTLFunctionHandle.hpp", "function handles", None, []),
    ("MTLVisibleFunctionTable.hpp", "visible function tables", None, []),
    ("MTLIntersectionFunctionTable.hpp", "intersection function tables", None, []),
    ("MTLRenderCommandEncoder.hpp", "render encoder", None, []),
    ("MTLRenderPass.hpp", "render passes", None, []),
    ("MTLRenderPipeline.hpp", "render pipelines", None, []),
    ("MTLParallelRenderCommandEncoder.hpp", "parallel render encoder", None, []),
    ("MTLRasterizationRate.hpp", "rasterization rate maps", None, []),
    ("MTLDepthStencil.hpp", "depth and stencil", None, []),
    ("MTLDrawable.hpp", "drawables", None, []),
    ("MTLVertexDescriptor.hpp", "vertex descriptors", None, []),
    ("MTL4RenderCommandEncoder.hpp", "Metal 4 render encoder", None, []),
    ("MTL4RenderPass.hpp", "Metal 4 render passes", None, []),
    ("MTL4RenderPipeline.hpp", "Metal 4 render pipelines", None, []),
    ("MTL4MeshRenderPipeline.hpp", "mesh render pipelines", None, []),
    ("MTL4TileRenderPipeline.hpp", "tile render pipelines", None, []),
    ("MTLAccelerationStructure.hpp", "ray-tracing acceleration structures", None, []),
    ("MTLAccelerationStructureCommandEncoder.hpp", "acceleration structure encoder", None, []),
    ("MTLAccelerationStructureTypes.hpp", "acceleration structure types", None, []),
    ("MTL4AccelerationStructure.hpp", "Metal 4 acceleration structures", None, []),
]

# Topics that cut across headers, tried before a header's own rules: the same idea is exposed on many
# objects (every encoder has fences and counters), so it is filed by what it is wherever it appears.
# Graphics and ray tracing come early so that, say, a render pass's counter attachment is not filed as
# a compute profiling name.
def words(*names: str) -> str:
    """A pattern for camel-case words anywhere in a name: capitalised inside it (setVertexBuffer), or in
    lower case at its start (vertexBuffer), so that `dispatch` does not count as holding `Patch`."""
    return "|".join(f"^{w[0].lower()}{w[1:]}|{w}" for w in names)


GRAPHICS = words("Render", "Vertex", "Fragment", "Raster", "Drawable", "Mesh", "Tessellation", "Patch", "Primitive",
                 "Viewport", "Scissor", "Stencil", "Depth", "Blend", "ColorAttachment", "AccelerationStructure",
                 "Intersection", "Winding", "CullMode", "TriangleFill", "Amplification", "Imageblock", "Barycentric",
                 "SamplePositions", "RasterOrder", "Alpha", "Present", "ColorStore", "LogicalToPhysical", "Draw",
                 "TileRender", "TileFunction", "TileWidth", "TileHeight", "PerTile")
CROSS: list[Rule] = [
    (r"(?<!With)Error(Domain|State|Option|Key)?$|ArchiveDomain$", "errors", "error-handling"),
    (GRAPHICS + r"|Visibility(Result)?(Mode|Type|Buffer)|Object(Thread|Buffer|Payload|Linking|Function|Static)",
     "graphics and ray tracing", None),
    (r"FunctionTable|FunctionHandle|functionHandle|VisibleFunction", "function tables", None),
    (r"IndirectCommand|CommandsInBuffer|Indirect(Render|Compute)Command", "indirect command buffers", "graphs"),
    (r"Fence", "fences", "grid-sync"),
    (r"^(memoryBarrier|barrierAfter)|^MTLBarrierScope$|^MTLStages$|^MTL4VisibilityOptions$", "barriers between dispatches",
     "grid-sync"),
    (r"DebugGroup|DebugSignpost|DebugCaptureBoundary|debugSignposts", "debug groups", "profiling-markers"),
    (words("Counter", "SampleBuffer", "Timestamp") + "|SampleIndex", "counters and timestamps", "counter-api"),
    (words("LogState"), "shader logging", "device-printf"),
    (words("ArgumentEncoder", "ArgumentBuffer", "GpuResourceID") + "|MTLResourceID", "argument buffers", "kernel-launch"),
    (r"[Rr]esidency", "residency sets", None),
    # Declaring what a dispatch reads through argument buffers (residency and usage) has no CUDA
    # counterpart and no card: memory a CUDA kernel can address is resident.
    (r"^use(Resource|Resources|Heap|Heaps)$|^MTLResourceUsage", "resource residency and usage", None),
    (r"[Ss]parse|Mapping", "sparse resources and page mappings", "virtual-memory-management"),
    (r"StorageMode|storageMode|CPUCacheMode|cpuCacheMode", "storage and CPU cache modes", "unified-memory"),
    (r"HazardTracking|hazardTracking", "hazard tracking", "grid-sync"),
    (r"^requiredThreadsPerThreadgroup$", "threadgroup size limits", "launch-bounds"),
    # A promise that the threadgroup size is a multiple of the SIMD-group width: a fact about the warp
    # size, not a bound on the block.
    (r"^threadGroupSizeIsMultipleOfThreadExecutionWidth$", "threadgroup size and SIMD width", "warp-size"),
    (r"[Aa]rchive", "binary archives", "fat-binary"),
    (r"[Ss]haderValidation", "shader validation", "sanitizer"),
    (r"^setThreadgroupMemoryLength$", "threadgroup memory size", "dynamic-shared-memory"),
    (r"^staticThreadgroupMemoryLength$", "threadgroup memory size", "shared-memory"),
    (r"^threadExecutionWidth$", "SIMD-group width", "warp-size"),
    (r"[Rr]emote", "remote views on another GPU", "peer-access"),
    (r"^(signalEvent|encodeSignalEvent)$", "events", "event"),
    (r"^(waitForEvent|encodeWaitForEvent)$", "waiting on events", "stream-wait-event"),
    (r"^add(Completed|Scheduled|Feedback)Handler$", "completion handlers", "host-callback"),
    (r"^newIO|^MTLIO|IOCompression", "file I/O", "gpudirect-storage"),
    (r"^MTLGPUFamily$|^MTLFeatureSet$|^supportsFeatureSet$", "GPU families", "apple-gpu-family"),
]
# Enum constants are filed with their enum type (all of MTLPixelFormat with textures), except these
# option sets, whose members are about different things (storage mode, CPU cache mode, hazard tracking).
BY_MEMBER = {"MTLResourceOptions"}


def classify(name: Name, header: str, topic: str, card: str | None, rules: list[Rule]) -> tuple[str, str | None]:
    key = name.owner if name.kind == "constant" and name.owner not in BY_MEMBER and name.owner != name.name else name.name
    # The name decides first; failing that, the class it belongs to (MTLArgumentDescriptor's dataType is
    # about argument buffers, MTLIndirectComputeCommand's setBarrier about indirect command buffers).
    for subject in (key, name.owner):
        for pattern, rule_topic, rule_card in CROSS + rules:
            if re.search(pattern, subject):
                return rule_topic, rule_card
    return topic, card


def spelled_by_glossary() -> Callable[[str], bool]:
    """A test for names the glossary already spells (a card's symbol or alias, a symbol row): lookup
    answers those itself, so listing them again would only hide that answer."""
    from xlate import kb  # noqa: PLC0415  (only --yaml needs the package)

    index = kb.load_index()

    def spelled(name: str) -> bool:
        # Another package's vocabulary counts too: gluon's gl.pointer_type answers a bare pointerType.
        top = kb.search(index, name, limit=1)
        return bool(top) and top[0].score >= kb.SCORE_LOOSE - 1 and (top[0].kind != "package" or top[0].matched != name)

    return spelled


def wrapped(opening: str, names: list[str], width: int = 120) -> list[str]:
    """A flow list of names over as many lines as it takes to stay near `width` characters."""
    out, line = [], opening
    for i, name in enumerate(names):
        piece = name + (", " if i < len(names) - 1 else "]")
        if len(line) + len(piece) > width and line.strip() not in ("", opening.strip()):
            out.append(line.rstrip())
            line = "      "
        line += piece
    return out + [line]


def render_yaml(headers: list[Header], repo: str, rev: str) -> str:
    by_file = {h.path.rsplit("/", 1)[-1]: h for h in headers}
    unplaced = sorted({f for f, h in by_file.items() if h.names} - {entry[0] for entry in LAYOUT})
    if unplaced:
        raise SystemExit(f"headers with no place in LAYOUT (give each a topic and card): {unplaced}")
    spelled = spelled_by_glossary()
    seen: set[str] = set()
    lines = [
        "# Public names of Apple's Metal framework that no concept card or symbol row spells, as Objective-C",
        "# spells them (classes, protocols, structs, enum types and constants, C functions, and methods as the",
        "# first part of their selector), grouped by the header that declares them and mapped to the card that",
        "# covers the topic (null where no card does: graphics, ray tracing, reflection). Extracted from",
        "# metal-cpp, Apple's C++ mirror of the macOS 26 / iOS 26 SDK headers, by",
        "# scripts/extract_metal_vocabulary.py; only names were taken from it. Accessors with short or",
        "# one-word names and property setters are left out.",
        "package: Metal",
        "version: macOS 26 and iOS 26 SDK",
        "namespaces: []",
        "source: https://developer.apple.com/documentation/metal",
        "groups:",
    ]
    for file, topic, card, rules in LAYOUT:
        header = by_file.get(file)
        if header is None:
            continue
        groups: dict[tuple[str, str | None], list[str]] = {}
        for name in header.names:
            if name.name in seen or spelled(name.name):
                continue
            seen.add(name.name)
            groups.setdefault(classify(name, file, topic, card, rules), []).append(name.name)
        for (section, group_card), names in groups.items():
            cite = f"Metal/{file}, metal-cpp for macOS 26, {repo}@{rev}"
            lines.append(f"  - section: '{file}: {section}'")
            lines.append(f"    header: {cite}")
            lines.append(f"    card: {group_card or 'null'}")
            lines += wrapped("    names: [", names)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", type=Path, help="a metal-cpp checkout, or a bare git directory with --rev")
    ap.add_argument("--rev", help="read this commit of a bare git directory")
    ap.add_argument("--repo", help="OWNER/NAME the snapshot comes from (cited in each group's header)")
    ap.add_argument("--yaml", type=Path, help="write the vocabulary file here")
    args = ap.parse_args(argv)
    source = Source(args.path, args.rev)
    headers, warnings = extract(source)
    for w in warnings:
        print("warning:", w, file=sys.stderr)
    if args.yaml is None:
        print_text(headers)
        return 0
    if not (args.rev and args.repo):
        ap.error("--yaml needs --rev and --repo: each group cites the snapshot it was read from")
    args.yaml.write_text(render_yaml(headers, args.repo, args.rev))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
