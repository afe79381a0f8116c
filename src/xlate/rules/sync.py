"""Asynchronous copies, asynchronous barriers and atomics whose width or scope does not travel."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate.rules.asm import asm_template
from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_arguments, call_name, call_qualified_name
from xlate.rules.model import Hazard, Rule
from xlate.rules.registry import register
from xlate.rules.refs import CUDA_GUIDE, HIP_EXT, MSL_SPEC
from xlate.rules.syntax import declared_type, name_nodes, names_in, strip_parens, text


ASYNC_COPY_NAMES = frozenset({
    "memcpy_async", "__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior",
    "pipeline_shared_state", "make_pipeline", "pipeline_producer_commit", "pipeline_consumer_wait_prior",
    "cp_async_bulk_tensor_1d_global_to_shared", "cp_async_bulk_tensor_2d_global_to_shared",
    "cp_async_bulk_tensor_3d_global_to_shared", "cp_async_bulk_tensor_4d_global_to_shared",
    "cp_async_bulk_tensor_5d_global_to_shared", "cp_async_bulk_tensor_2d_shared_to_global",
    "cp_async_bulk_global_to_shared", "cp_async_bulk_shared_to_global", "cp_async_bulk_commit_group",
    "cp_async_bulk_wait_group_read", "fence_proxy_async_shared_cta",
    "cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "CUtensorMap", "cudaTensorMapEncodeTiled",
})
ASYNC_ASM = ("cp.async", "cp.reduce.async", "tensormap")


@register
class AsyncCopy(Rule):
    code = "XL050"
    covers = ASYNC_COPY_NAMES | {"pipeline", "cuda/pipeline", "cuda_pipeline.h"}
    concepts = ("async-copy", "tensor-memory-accelerator")
    references = (CUDA_GUIDE,)
    summary = "Asynchronous global-to-shared copies: `cp.async`, `memcpy_async`, pipelines and TMA."
    why = (
        "Ampere's `cp.async` (exposed as `cuda::memcpy_async`, `cooperative_groups::memcpy_async` and the "
        "`cuda::pipeline` / `__pipeline_*` API) and Hopper's tensor memory accelerator (TMA, `CUtensorMap` "
        "and `cp.async.bulk.tensor`) copy into shared memory without passing through registers while the "
        "block keeps computing. HIP's headers provide none of these APIs; AMD CDNA GPUs offer only a "
        "lower-level direct global-to-LDS load through the compiler builtin "
        "`__builtin_amdgcn_global_load_lds` (RDNA lacks it), with no pipeline objects or tensor maps. Metal "
        "has no asynchronous copy into threadgroup memory for compute kernels. The multi-stage software "
        "pipelines built on these APIs need a different structure on both."
    )
    example = (
        "#include <cuda/pipeline>\n"
        "__global__ void k(const float* in, float* out) {\n"
        "  __shared__ float tile[256];\n"
        "  auto pipe = cuda::make_pipeline();\n"
        "  cuda::memcpy_async(tile + threadIdx.x, in + threadIdx.x, sizeof(float), pipe);\n"
        "}\n"
    )
    fix = (
        "Load through registers: each thread reads global memory and stores to shared memory, then "
        "`__syncthreads()` (Metal: `threadgroup_barrier(mem_flags::mem_threadgroup)`). Double-buffer in "
        "registers to overlap the next tile's loads with this tile's math. On CDNA, "
        "`__builtin_amdgcn_global_load_lds` can replace the register round trip in tuned kernels."
    )
    fixed_example = (
        "__global__ void k(const float* in, float* out) {\n"
        "  __shared__ float tile[256];\n"
        "  tile[threadIdx.x] = in[threadIdx.x];\n"
        "  __syncthreads();\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        lines: set[int] = set()
        for node in name_nodes(src, ASYNC_COPY_NAMES | {"pipeline"}):
            name = text(node)
            if name == "pipeline" and not _in_cuda_namespace(src, node):
                continue
            lines.add(node.start_point[0])
            yield self.hazard(
                src, node,
                f"{name}: asynchronous copies into shared memory (cp.async, pipelines, TMA) have no HIP or Metal "
                "API; load through registers and synchronise the block (CDNA: __builtin_amdgcn_global_load_lds)",
            )
        for call in src.calls(("wait", "wait_prior")):
            if call_qualified_name(call).startswith(
                    ("cooperative_groups::", "cg::")) and call.start_point[0] not in lines:
                lines.add(call.start_point[0])
                yield self.hazard(src, call, f"{call_qualified_name(call)} waits for cooperative-groups "
                                             "memcpy_async, which HIP and Metal lack")
        for asm in src.nodes("gnu_asm_expression"):
            tmpl = asm_template(asm)
            if any(m in tmpl for m in ASYNC_ASM) and asm.start_point[0] not in lines:
                yield self.hazard(src, asm, "inline cp.async / TMA copy: no HIP or Metal equivalent; "
                                            "load through registers instead")


def _in_cuda_namespace(src: SourceView, node: Node) -> bool:
    parent = src.parent(node)
    while parent is not None and parent.type in ("qualified_identifier", "template_type"):
        first = parent.named_children[0] if parent.named_children else None
        if first is not None and first.type == "namespace_identifier" and text(first) in ("cuda", "std"):
            return text(first) == "cuda"
        parent = src.parent(parent)
    return False


BARRIER_FUNCS = frozenset({
    "__mbarrier_init", "__mbarrier_arrive", "__mbarrier_arrive_and_drop", "__mbarrier_test_wait",
    "__mbarrier_inval", "__mbarrier_token_pending_count", "barrier_arrive_tx", "mbarrier_init",
    "mbarrier_arrive", "mbarrier_arrive_expect_tx", "mbarrier_try_wait", "mbarrier_try_wait_parity",
})


@register
class AsyncBarrier(Rule):
    code = "XL051"
    covers = BARRIER_FUNCS | {"barrier", "cuda/barrier"}
    concepts = ("async-barrier", "block-barrier")
    references = (CUDA_GUIDE,)
    summary = "Split arrive/wait barriers: `cuda::barrier`, `cuda::std::barrier` in device code, mbarrier."
    why = (
        "`cuda::barrier` lets threads arrive early and wait later (and tracks asynchronous copy "
        "transactions on Hopper through mbarrier objects in shared memory). HIP provides `__syncthreads()` "
        "and cooperative-groups `sync()` but no split arrive/wait barrier object, and Metal offers only "
        "`threadgroup_barrier`, which all threads reach together."
    )
    example = (
        "#include <cuda/barrier>\n"
        "__global__ void k(float* x) {\n"
        "  __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n"
        "  auto token = bar.arrive();\n"
        "  bar.wait(std::move(token));\n"
        "}\n"
    )
    fix = (
        "Use a full block barrier (`__syncthreads()`, Metal `threadgroup_barrier`) at the point of the "
        "wait, and move independent work before the barrier rather than between arrive and wait."
    )
    fixed_example = (
        "__global__ void k(float* x) {\n"
        "  // independent work first\n"
        "  __syncthreads();\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        lines: set[int] = set()
        for node in src.named(BARRIER_FUNCS | {"barrier"}):
            if node.type not in ("type_identifier", "identifier"):
                continue
            name = text(node)
            if name == "barrier" and _in_cuda_namespace(src, node) and node.start_point[0] not in lines:
                lines.add(node.start_point[0])
                yield self.hazard(src, node, "cuda::barrier (split arrive/wait) has no HIP or Metal equivalent: "
                                             "use a full block barrier (__syncthreads / threadgroup_barrier)")
            elif name in BARRIER_FUNCS and node.start_point[0] not in lines:
                lines.add(node.start_point[0])
                yield self.hazard(src, node, f"{name}: mbarrier objects exist only on NVIDIA GPUs; "
                                             "use a full block barrier on HIP and Metal")


ATOMIC_FUNCS = frozenset({
    f"{base}{suffix}"
    for base in ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicCAS",
                 "atomicAnd", "atomicOr", "atomicXor", "atomicInc", "atomicDec")
    for suffix in ("", "_block", "_system")
})
WIDE_TYPES = ("double", "long long", "int64_t", "uint64_t", "unsigned long long", "size_t", "unsigned long",
              "long", "ulonglong", "longlong")
# Every wide type above spells at least one of these words; a file that spells none has no 64-bit atomics.
WIDE_WORDS = frozenset({"double", "long", "int64_t", "uint64_t", "size_t", "ulonglong", "longlong"})


@register
class Atomic64Bit(Rule):
    code = "XL052"
    concepts = ("atomic-add", "atomic-compare-and-swap")
    references = (MSL_SPEC,)
    summary = "Atomics on 64-bit values (double, long long, unsigned long long)."
    why = (
        "CUDA and HIP both offer 64-bit atomics on integers and doubles. Metal's atomic types are 32-bit "
        "(`atomic_int`, `atomic_uint`, `atomic_float`, `atomic_bool`); 64-bit atomics are limited to "
        "`atomic_ulong` min/max on recent Apple GPUs, and there are no double-precision atomics since Metal "
        "has no `double`."
    )
    example = (
        "__global__ void count_hits(const float* x, unsigned long long* count) {\n"
        "  if (x[threadIdx.x] > 0.0f) atomicAdd(count, 1ull);\n"
        "}\n"
    )
    fix = (
        "Accumulate in 32-bit types (float partial sums reduced per block, or a pair of 32-bit counters "
        "with carry), or reduce per block first and combine the partials on the host or in a second pass."
    )
    fixed_example = (
        "__global__ void total(const float* x, float* block_sums) {\n"
        "  // reduce within the block, then one 32-bit atomic (or store) per block\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        if not src.spells(WIDE_WORDS):
            return
        for call in src.calls(ATOMIC_FUNCS):
            name = call_name(call)
            args = call_arguments(call)
            if not args:
                continue
            type_text = _pointee_type(args[0])
            if type_text is None:
                return_type = None
                for ident in names_in(args[0]):
                    if ident.type == "identifier":
                        return_type = declared_type(src, text(ident), call)
                        break
                type_text = return_type
            if type_text is None:
                continue
            base = " ".join(type_text.replace("*", " ").replace("const", " ").replace("volatile", " ").split())
            if base in WIDE_TYPES or base.endswith(" int") and base[:-4] in WIDE_TYPES:
                yield self.hazard(
                    src, call,
                    f"{name} on '{base}' is a 64-bit atomic; Metal atomics are 32-bit (atomic_int, atomic_uint, "
                    "atomic_float): reduce per block and use 32-bit atomics",
                )


def _pointee_type(arg: Node) -> str | None:
    """The cast type when the address argument is cast, e.g. `(unsigned long long*)p`."""
    arg = strip_parens(arg)
    if arg.type == "cast_expression":
        t = arg.child_by_field_name("type")
        return text(t) if t is not None else None
    return None


@register
class SystemScopeAtomic(Rule):
    code = "XL053"
    covers = frozenset({"__threadfence_system"})
    concepts = ("scoped-atomics", "memory-fence-system")
    references = (HIP_EXT, MSL_SPEC)
    summary = "System-scope atomics and fences (`atomicAdd_system`, `__threadfence_system`)."
    why = (
        "System scope makes an atomic or fence visible to the host and to other GPUs while the kernel "
        "runs, which CPU-GPU producer/consumer code relies on. HIP keeps the `_system` atomics and "
        "`__threadfence_system()` (they need host memory allocated as coherent to be seen by the CPU "
        "during the kernel). Metal atomics and fences reach device or threadgroup scope only, so a CPU "
        "thread cannot watch a kernel's progress through them."
    )
    example = (
        "__global__ void produce(int* host_flag, float* data) {\n"
        "  data[threadIdx.x] = 1.0f;\n"
        "  __threadfence_system();\n"
        "  if (threadIdx.x == 0) atomicExch_system(host_flag, 1);\n"
        "}\n"
    )
    fix = (
        "On Metal, let the command buffer's completion (a completed handler or shared event) signal the "
        "CPU instead of an in-kernel flag, and split the work so that hand-offs happen between dispatches."
    )
    fixed_example = (
        "__global__ void produce(float* data) {\n"
        "  data[threadIdx.x] = 1.0f;  // the host waits for the kernel (or an event) instead of a flag\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for call in src.calls({"__threadfence_system"} | {f for f in ATOMIC_FUNCS if f.endswith("_system")}):
            name = call_name(call)
            yield self.hazard(
                src, call,
                f"{name} has system scope; Metal atomics and fences stop at device scope: signal the host "
                "through command-buffer completion or shared events instead",
            )
