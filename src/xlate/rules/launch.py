"""Launch and grid-structure rules: launch bounds, device-side launches, clusters, grid-wide sync."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from xlate.cuda.source import SourceView
from xlate.cuda.tree import call_name
from xlate.rules.model import Hazard, Rule, SymbolRule
from xlate.rules.registry import register
from xlate.rules.refs import CUDA_GUIDE, HIP_EXT
from xlate.rules.syntax import guarded_by_hip, name_nodes, text

HIP_COOP = "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html"
CLANG_CLUSTER_TEST = "https://github.com/llvm/llvm-project/blob/main/clang/test/SemaCUDA/cluster_dims.cu"


@register
class LaunchBoundsSemantics(Rule):
    code = "XL030"
    covers = frozenset({"__launch_bounds__"})
    concepts = ("launch-bounds", "occupancy")
    references = (HIP_EXT,)
    summary = "`__launch_bounds__` with a second (or third) argument, whose meaning differs in HIP."
    why = (
        "CUDA reads `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` as: at most MAX_THREADS per block and at "
        "least MIN_BLOCKS resident blocks per SM. HIP keeps the first argument but reads the second as "
        "MIN_WARPS_PER_EXECUTION_UNIT, the minimum number of wavefronts per SIMD, from which the compiler "
        "derives a register cap. The same number therefore asks for a different occupancy, and can force "
        "register spills or be ignored. A third CUDA argument (maximum blocks per cluster) has no HIP "
        "meaning. Metal has no launch bounds; the closest is `[[max_total_threads_per_threadgroup]]`."
    )
    example = "__global__ void __launch_bounds__(256, 4) gemm(const float* a, float* c) { }\n"
    fix = (
        "Keep the first argument. Recompute the second for AMD as wavefronts per SIMD "
        "(a CU has 4 SIMDs: blocks per CU x waves per block / 4), or drop it and tune occupancy "
        "per target with a macro."
    )
    fixed_example = (
        "#if defined(__HIP_PLATFORM_AMD__)\n"
        "#define MIN_OCCUPANCY 2   // wavefronts per SIMD\n"
        "#else\n"
        "#define MIN_OCCUPANCY 4   // blocks per SM\n"
        "#endif\n"
        "__global__ void __launch_bounds__(256, MIN_OCCUPANCY) gemm(const float* a, float* c) { }\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for lb in src.nodes("launch_bounds"):
            if guarded_by_hip(src, lb):
                continue  # the author wrote these bounds for one platform
            args = [c for c in lb.named_children if c.type != "comment"]
            if len(args) >= 3:
                yield self.hazard(
                    src, args[2],
                    "third __launch_bounds__ argument (max blocks per cluster) has no HIP meaning; remove it for HIP",
                )
            if len(args) >= 2 and not _defined_per_platform(src, args[1]):
                yield self.hazard(
                    src, args[1],
                    f"second __launch_bounds__ argument '{text(args[1])}' means min blocks per SM in CUDA but "
                    "min wavefronts per SIMD (execution unit) in HIP: recompute it for AMD",
                )


def _defined_per_platform(src: SourceView, arg: Node) -> bool:
    """Whether an argument is a macro whose every #define sits under a condition testing HIP: the
    value was chosen per platform (what the rule's fix asks for)."""
    if arg.type != "identifier":
        return False
    name = text(arg)
    defs = [d for d in src.nodes("preproc_def") if (n := d.child_by_field_name("name")) is not None and text(n) == name]
    return bool(defs) and all(guarded_by_hip(src, d) for d in defs)


DEVICE_LAUNCH_API = frozenset({
    "cudaLaunchDevice", "cudaGetParameterBuffer", "cudaGetParameterBufferV2", "cudaGraphLaunch",
    "cudaDeviceSynchronize", "cudaStreamCreateWithFlags",
})
DEVICE_LAUNCH_NAMES = frozenset({"cudaStreamTailLaunch", "cudaStreamFireAndForget", "cudaStreamGraphTailLaunch",
                                 "cudaStreamGraphFireAndForget"})


@register
class DynamicParallelism(Rule):
    code = "XL031"
    covers = DEVICE_LAUNCH_NAMES
    concepts = ("dynamic-parallelism", "kernel-launch")
    references = (HIP_EXT, CUDA_GUIDE)
    summary = "A kernel launched from device code (CUDA dynamic parallelism or device graph launch)."
    why = (
        "CUDA lets a kernel launch child kernels (`child<<<...>>>` inside a `__global__` function) and "
        "launch graphs from the device. HIP does not support dynamic parallelism: kernels can only be "
        "launched from the host. Metal kernels cannot launch kernels either; the closest is a kernel that "
        "encodes commands into an indirect command buffer which the host then executes."
    )
    example = (
        "__global__ void child(float* x) { x[threadIdx.x] *= 2; }\n"
        "__global__ void parent(float* x, int n) {\n"
        "  if (threadIdx.x == 0) child<<<n / 256, 256>>>(x);\n"
        "}\n"
    )
    fix = (
        "Move the launch to the host: split the parent at the launch point into two kernels, or launch "
        "the largest grid up front and let each block pick its work (a persistent or work-queue kernel). "
        "Sizes computed on the device can drive `hipLaunchKernel`-style indirect launches via a small "
        "copy back to the host, or a stream-ordered graph."
    )
    fixed_example = (
        "__global__ void child(float* x) { x[threadIdx.x] *= 2; }\n"
        "void run(float* x, int n, hipStream_t s) {\n"
        "  child<<<n / 256, 256, 0, s>>>(x);  // launched by the host\n"
        "}\n"
    )

    def check(self, src: SourceView) -> Iterable[Hazard]:
        for launch in src.nodes("kernel_call_syntax"):
            call = src.parent(launch)
            if call is not None and src.in_device_code(launch):
                yield self.hazard(
                    src, call,
                    f"kernel '{call_name(call)}' launched from device code: HIP and Metal launch kernels only "
                    "from the host; split the kernel or launch from the host",
                )
        for call in src.device_calls(DEVICE_LAUNCH_API):
            yield self.hazard(
                src, call,
                f"{call_name(call)} called on the device is part of dynamic parallelism, which HIP and Metal lack",
            )
        for node in name_nodes(src, DEVICE_LAUNCH_NAMES):
            yield self.hazard(src, node, f"{text(node)} is a device-side launch stream with no HIP or Metal equivalent")


CLUSTER_NAMES = frozenset({
    "__cluster_dims__", "this_cluster", "cluster_group", "map_shared_rank",
    "cudaLaunchAttributeClusterDimension", "cudaLaunchAttributeClusterSchedulingPolicyPreference",
    "cudaFuncAttributeRequiredClusterWidth", "cudaFuncAttributeRequiredClusterHeight",
    "cudaFuncAttributeRequiredClusterDepth", "cudaFuncAttributeNonPortableClusterSizeAllowed",
    "cudaFuncAttributeClusterSchedulingPolicyPreference", "cudaFuncAttributeClusterDimMustBeSet",
    "cudaOccupancyMaxActiveClusters", "cudaOccupancyMaxPotentialClusterSize",
    "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", "cuOccupancyMaxActiveClusters",
    "__cluster_barrier_arrive", "__cluster_barrier_wait", "__cluster_barrier_arrive_relaxed",
    "__clusterDim", "__clusterIdx", "__clusterRelativeBlockIdx", "__clusterRelativeBlockRank",
    "__clusterGridDimInClusters", "__clusterSizeInBlocks", "__cluster_map_shared_rank",
    "__cluster_query_shared_rank", "__cluster_map_shared_multicast", "__isClusterShared",
})


@register
class ThreadBlockCluster(SymbolRule):
    code = "XL032"
    covers = CLUSTER_NAMES
    concepts = ("thread-block-cluster", "distributed-shared-memory")
    references = (CUDA_GUIDE, CLANG_CLUSTER_TEST)
    summary = "Thread block clusters and distributed shared memory (Hopper and later)."
    why = (
        "Clusters group thread blocks that are co-scheduled on one GPC, can synchronise with "
        "`cluster.sync()` and read each other's shared memory (`map_shared_rank`). AMD Instinct GPUs up to "
        "CDNA4 (gfx942, gfx950) have no level between the workgroup and the grid: Clang rejects "
        "`__cluster_dims__` for them and accepts it on AMD only for the newer gfx1250 target (at most 16 "
        "blocks). Metal has no clusters either: no cluster launch attribute, no cluster barrier and no "
        "access to another threadgroup's memory."
    )
    example = (
        "__global__ void __cluster_dims__(2, 1, 1) k(float* out) {\n"
        "  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();\n"
        "  cluster.sync();\n"
        "}\n"
    )
    fix = (
        "Exchange data between blocks through global memory (and the L2 cache), or make one larger block "
        "do the work of the cluster. Keep the cluster version behind an NVIDIA-only branch if it matters "
        "for Hopper performance."
    )
    fixed_example = (
        "__global__ void k(float* out, float* exchange) {\n"
        "  // each block writes its partial result to global memory;\n"
        "  // a second kernel (or a grid-wide sync) combines them\n"
        "}\n"
    )

    symbols = CLUSTER_NAMES
    after_name = (
        ": thread block clusters and distributed shared memory need NVIDIA Hopper or "
        "later (on AMD only gfx1250); on MI300-class GPUs and Metal exchange data through global memory"
    )


GRID_SYNC_NAMES = frozenset({
    "this_grid", "grid_group", "this_multi_grid", "multi_grid_group",
    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice", "cudaLaunchAttributeCooperative",
    "cuLaunchCooperativeKernel",
})


@register
class CooperativeGridSync(SymbolRule):
    code = "XL033"
    covers = GRID_SYNC_NAMES
    concepts = ("grid-sync", "cooperative-groups")
    references = (HIP_COOP,)
    summary = "Grid-wide synchronisation through cooperative groups (`this_grid().sync()`, cooperative launch)."
    why = (
        "A grid barrier only works when every block of the grid is resident at once, which CUDA "
        "guarantees through a cooperative launch. HIP supports `grid_group::sync()` when the kernel is "
        "launched with `hipLaunchCooperativeKernel` and the grid fits the device's co-resident limit "
        "(query it with the occupancy API on AMD, where CU counts and limits differ). Metal has no "
        "grid-wide barrier inside a dispatch."
    )
    example = (
        "__global__ void step(float* x) {\n"
        "  auto grid = cooperative_groups::this_grid();\n"
        "  x[grid.thread_rank()] += 1.0f;\n"
        "  grid.sync();\n"
        "}\n"
    )
    fix = (
        "On HIP, launch with `hipLaunchCooperativeKernel` and size the grid with "
        "`hipOccupancyMaxActiveBlocksPerMultiprocessor` times the CU count. On Metal, split the kernel at "
        "each grid barrier into separate dispatches in one command buffer."
    )
    fixed_example = (
        "// Metal-friendly: one dispatch per phase\n"
        "__global__ void phase1(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }\n"
        "__global__ void phase2(float* x) { /* reads what phase1 wrote */ }\n"
    )

    symbols = GRID_SYNC_NAMES
    after_name = (
        ": a grid-wide barrier needs a cooperative launch (hipLaunchCooperativeKernel on "
        "HIP, with all blocks co-resident); Metal has none: split into dispatches"
    )
