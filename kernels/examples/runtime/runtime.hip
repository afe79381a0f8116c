// The host runtime of runtime.cu, for AMD GPUs: the same two-stage chunked pipeline
//
//   t = c0 * x[i] + c1 * x[i + 1]      (stage 1, `stencil`: hipLaunchKernelGGL, dynamic LDS)
//   y = c2 * t * t + c3                (stage 2, `finish`: loaded from a code object, hipModuleLaunchKernel)
//
// HIP's runtime carries CUDA's driver API inside it, so no second library is linked: hipModuleLoadData,
// hipModuleGetFunction and hipModuleLaunchKernel load and launch a code object (the runner builds
// module.hsaco from this file with hipcc --genco), and the virtual memory calls (hipMemAddressReserve,
// hipMemCreate, hipMemMap, hipMemSetAccess; Beta in ROCm 6.4, Linux only) map the output range from
// two physical allocations. Differences from CUDA: the dynamic shared memory is LDS (64 KiB per
// workgroup on CDNA); a failed module lookup returns hipErrorNotFound; unified memory migrates on
// demand only with XNACK enabled, else it stays in host memory; launch bounds cap the workgroup
// size the compiler plans registers for, with no minimum-blocks argument that means the same.
// Compiled for gfx942 and gfx90a with the host code type-checked; no AMD GPU was here to run it.
#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../common/harness_hip.h"

constexpr int kThreads = 256;

// Stage 1. Each workgroup stages its slice of x plus one element of halo in dynamic LDS
// (kThreads + 1 floats, sized at launch).
extern "C" __global__ void __launch_bounds__(kThreads) stencil(const float* x, float* t, const float* c,
                                                               long lo, long hi, long n) {
  extern __shared__ float tile[];
  long base = lo + (long)blockIdx.x * blockDim.x;
  long i = base + threadIdx.x;
  long limit = hi < n ? hi + 1 : n;  // the chunk's upload includes x[hi], the halo of its last element
  tile[threadIdx.x] = i < limit ? x[i] : 0.0f;
  if (threadIdx.x == 0) {
    long j = base + blockDim.x;
    tile[blockDim.x] = j < limit ? x[j] : 0.0f;
  }
  __syncthreads();
  if (i < hi) t[i] = c[0] * tile[threadIdx.x] + c[1] * tile[threadIdx.x + 1];
}

// Stage 2: in this program's code too, but launched only from the loaded code object.
extern "C" __global__ void __launch_bounds__(kThreads) finish(const float* t, float* y, const float* c,
                                                              long lo, long hi) {
  long i = lo + (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < hi) y[i] = fmaf(c[2], t[i] * t[i], c[3]);
}

static void chunk_done(void* counter) {
  static_cast<std::atomic<int>*>(counter)->fetch_add(1);  // host code on a runtime thread: no HIP calls
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "N CHUNKS");
  const long n = args.sizes[0];
  const int chunks = (int)std::min<long>(args.sizes[1], n);
  auto hx = harness::read<float>(args, "x", n);

  // --- device: count, properties, pick the one with the most compute units, peer access ---------
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  int best = 0, best_cus = -1;
  hipDeviceProp_t prop{};
  for (int d = 0; d < count; ++d) {
    CHECK(hipGetDeviceProperties(&prop, d));
    if (prop.multiProcessorCount > best_cus) best = d, best_cus = prop.multiProcessorCount;
  }
  CHECK(hipSetDevice(best));
  CHECK(hipGetDeviceProperties(&prop, best));
  int peer_pairs = 0;
  for (int a = 0; a < count; ++a)
    for (int b = 0; b < count; ++b) {
      int can = 0;
      if (a != b) CHECK(hipDeviceCanAccessPeer(&can, a, b));
      peer_pairs += can;
    }

  // --- memory of every kind -------------------------------------------------------------------
  float *h_x = nullptr, *h_y = nullptr, *d_x = nullptr, *c = nullptr;
  CHECK(hipHostMalloc(&h_x, n * sizeof(float), hipHostMallocDefault));  // pinned
  CHECK(hipHostMalloc(&h_y, n * sizeof(float), hipHostMallocDefault));
  std::copy(hx.begin(), hx.end(), h_x);
  CHECK(hipMalloc(&d_x, n * sizeof(float)));
  CHECK(hipMallocManaged(&c, 4 * sizeof(float)));
  c[0] = 1.5f, c[1] = -0.5f, c[2] = 0.25f, c[3] = 1.0f;

  hipStream_t s1, s2;
  CHECK(hipStreamCreate(&s1));
  CHECK(hipStreamCreate(&s2));
  float* t = nullptr;
  CHECK(hipMallocAsync(reinterpret_cast<void**>(&t), n * sizeof(float), s1));
  CHECK(hipStreamSynchronize(s1));

  hipMemAllocationProp vm{};
  vm.type = hipMemAllocationTypePinned;
  vm.location.type = hipMemLocationTypeDevice;
  vm.location.id = best;
  size_t gran = 0;
  CHECK(hipMemGetAllocationGranularity(&gran, &vm, hipMemAllocationGranularityMinimum));
  size_t half = ((n * sizeof(float) + 1) / 2 + gran - 1) / gran * gran;
  void* y_base = nullptr;
  CHECK(hipMemAddressReserve(&y_base, 2 * half, 0, nullptr, 0));
  hipMemGenericAllocationHandle_t phys[2];
  hipMemAccessDesc access{};
  access.location = vm.location;
  access.flags = hipMemAccessFlagsProtReadWrite;
  for (int k = 0; k < 2; ++k) {
    CHECK(hipMemCreate(&phys[k], half, &vm, 0));
    CHECK(hipMemMap(static_cast<char*>(y_base) + k * half, half, 0, phys[k], 0));
  }
  CHECK(hipMemSetAccess(y_base, 2 * half, &access, 1));
  float* y = static_cast<float*>(y_base);

  // --- the module -----------------------------------------------------------------------------
  std::ifstream file(args.dir + "/module.hsaco", std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s/module.hsaco\n", args.dir.c_str());
    return 66;
  }
  hipModule_t module;
  hipFunction_t finish_fn, missing_fn;
  CHECK(hipModuleLoadData(&module, image.data()));
  CHECK(hipModuleGetFunction(&finish_fn, module, "finish"));
  hipError_t expected = hipModuleGetFunction(&missing_fn, module, "no_such_kernel");
  if (expected != hipErrorNotFound) {
    std::fprintf(stderr, "looking up a missing kernel returned %s, not hipErrorNotFound\n", hipGetErrorName(expected));
    return 3;
  }
  (void)hipGetLastError();  // the expected failure must not be read back as a launch error below

  // --- occupancy ------------------------------------------------------------------------------
  const size_t smem = (kThreads + 1) * sizeof(float);
  int stencil_blocks = 0, finish_blocks = 0, finish_max_threads = 0;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&stencil_blocks, stencil, kThreads, smem));
  CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&finish_blocks, finish_fn, kThreads, 0));
  CHECK(hipFuncGetAttribute(&finish_max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, finish_fn));

  // --- the schedule -----------------------------------------------------------------------------
  std::vector<hipEvent_t> staged(chunks);
  for (auto& e : staged) CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  hipEvent_t joined;
  CHECK(hipEventCreateWithFlags(&joined, hipEventDisableTiming));
  std::atomic<int> callbacks{0};
  const long per = (n + chunks - 1) / chunks;

  auto issue = [&]() {
    for (int k = 0; k < chunks; ++k) {
      long lo = k * per, hi = std::min(n, lo + per);
      if (lo >= hi) break;
      long upload = std::min(n, hi + 1) - lo;
      CHECK(hipMemcpyAsync(d_x + lo, h_x + lo, upload * sizeof(float), hipMemcpyHostToDevice, s1));
      CHECK(hipMemsetAsync(t + lo, 0xFF, (hi - lo) * sizeof(float), s1));
      unsigned blocks = (unsigned)((hi - lo + kThreads - 1) / kThreads);
      hipLaunchKernelGGL(stencil, dim3(blocks), dim3(kThreads), smem, s1, d_x, t, c, lo, hi, n);
      CHECK_LAUNCH();
      CHECK(hipEventRecord(staged[k], s1));
      CHECK(hipStreamWaitEvent(s2, staged[k], 0));
      void* params[] = {&t, &y, &c, &lo, &hi};
      CHECK(hipModuleLaunchKernel(finish_fn, blocks, 1, 1, kThreads, 1, 1, 0, s2, params, nullptr));
      CHECK(hipMemcpyAsync(h_y + lo, y + lo, (hi - lo) * sizeof(float), hipMemcpyDeviceToHost, s2));
      CHECK(hipLaunchHostFunc(s2, chunk_done, &callbacks));
    }
    CHECK(hipEventRecord(joined, s2));
    CHECK(hipStreamWaitEvent(s1, joined, 0));
  };

  hipGraph_t graph;
  hipGraphExec_t exec;
  CHECK(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  issue();
  CHECK(hipStreamEndCapture(s1, &graph));
  CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  size_t nodes = 0;
  CHECK(hipGraphGetNodes(graph, nullptr, &nodes));

  CHECK(hipGraphLaunch(exec, s1));
  CHECK(hipStreamSynchronize(s1));
  const int issued = (int)((n + per - 1) / per);
  if (callbacks.load() != issued) {
    std::fprintf(stderr, "host callback ran %d times for %d chunks\n", callbacks.load(), issued);
    return 4;
  }
  harness::write(args, "y", h_y, n);

  float graph_ms = harness::median_ms([&] { CHECK(hipGraphLaunch(exec, s1)); }, args.iters);
  float direct_ms = harness::median_ms(issue, args.iters);
  CHECK(hipDeviceSynchronize());
  CHECK_LAUNCH();

  char extra[768];
  std::snprintf(extra, sizeof extra,
                "\"device\": \"%s (%d of %d, %d CUs)\", \"peer_pairs\": %d, \"graph_nodes\": %zu, "
                "\"direct_ms\": %.6f, \"graph_speedup\": %.3f, \"vmm_granularity\": %zu, "
                "\"occupancy\": \"stencil %d blocks/CU (%zu B dynamic LDS), finish %d blocks/CU\", "
                "\"launch_bounds\": \"finish %d threads max\", \"expected_error\": \"%s\", \"callbacks\": %d",
                prop.name, best, count, prop.multiProcessorCount, peer_pairs, nodes, direct_ms, direct_ms / graph_ms,
                gran, stencil_blocks, smem, finish_blocks, finish_max_threads, hipGetErrorName(expected),
                callbacks.load());
  harness::report(graph_ms, extra);

  CHECK(hipGraphExecDestroy(exec));
  CHECK(hipGraphDestroy(graph));
  for (auto& e : staged) CHECK(hipEventDestroy(e));
  CHECK(hipEventDestroy(joined));
  CHECK(hipModuleUnload(module));
  CHECK(hipMemUnmap(y_base, 2 * half));
  for (auto& p : phys) CHECK(hipMemRelease(p));
  CHECK(hipMemAddressFree(y_base, 2 * half));
  CHECK(hipFreeAsync(t, s1));
  CHECK(hipStreamSynchronize(s1));
  CHECK(hipStreamDestroy(s1));
  CHECK(hipStreamDestroy(s2));
  CHECK(hipFree(c));
  CHECK(hipFree(d_x));
  CHECK(hipHostFree(h_x));
  CHECK(hipHostFree(h_y));
  return 0;
}
