// The host runtime end to end, around a two-stage chunked pipeline.
//
//   t = c0 * x[i] + c1 * x[i + 1]      (stage 1, `stencil`: launched with <<<>>>, dynamic shared memory)
//   y = c2 * t * t + c3                (stage 2, `finish`: loaded from a cubin at run time, cuLaunchKernel)
//
// The program queries every GPU and picks the one with the most SMs, checks peer access for every
// pair, allocates device memory (cudaMalloc), pinned host memory (cudaMallocHost), unified memory
// for the coefficients (cudaMallocManaged), a stream-ordered scratch buffer (cudaMallocAsync) and
// an output range mapped from two physical allocations with the virtual memory management API
// (cuMemAddressReserve / cuMemCreate / cuMemMap / cuMemSetAccess). Per chunk, stream s1 uploads,
// poisons t (cudaMemsetAsync) and runs stage 1; an event orders stream s2 after it, and s2 runs
// stage 2, downloads and calls back to the host. The whole schedule is captured once into a graph
// and replayed; replay and direct issue are timed in the same run. Errors are checked on every
// call, and one call that must fail (a kernel name the module lacks) is checked to fail as it should.
//
// Driver API calls need -lcuda (example.yaml `link:`); the runner builds module.cubin from this
// file's device code for the GPU it runs on and puts it in the run folder (example.yaml `module:`).
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../common/harness.cuh"

#define CU_CHECK(call)                                                                     \
  do {                                                                                     \
    CUresult res_ = (call);                                                                \
    if (res_ != CUDA_SUCCESS) {                                                            \
      const char* name_ = nullptr;                                                         \
      cuGetErrorName(res_, &name_);                                                        \
      std::fprintf(stderr, "%s:%d: CUDA driver error: %s\n", __FILE__, __LINE__,           \
                   name_ ? name_ : "unknown");                                             \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

constexpr int kThreads = 256;

// Stage 1. Each block stages its slice of x plus one element of halo in dynamic shared memory
// (sized at launch: kThreads + 1 floats), so every x is read from global memory once.
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

// Stage 2. Compiled into this program like stencil, but never launched from it with <<<>>>: the
// program loads it from module.cubin and launches it through the driver API, as a plug-in would.
extern "C" __global__ void __launch_bounds__(kThreads) finish(const float* t, float* y, const float* c,
                                                              long lo, long hi) {
  long i = lo + (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < hi) y[i] = fmaf(c[2], t[i] * t[i], c[3]);
}

static void chunk_done(void* counter) {
  static_cast<std::atomic<int>*>(counter)->fetch_add(1);  // host code: no CUDA calls allowed here
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "N CHUNKS");
  const long n = args.sizes[0];
  const int chunks = (int)std::min<long>(args.sizes[1], n);
  auto hx = harness::read<float>(args, "x", n);

  // --- device: count, properties, pick the one with the most SMs, peer access -------------------
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  int best = 0, best_sms = -1;
  cudaDeviceProp prop{};
  for (int d = 0; d < count; ++d) {
    CHECK(cudaGetDeviceProperties(&prop, d));
    if (prop.multiProcessorCount > best_sms) best = d, best_sms = prop.multiProcessorCount;
  }
  CHECK(cudaSetDevice(best));
  CHECK(cudaGetDeviceProperties(&prop, best));
  int peer_pairs = 0;
  for (int a = 0; a < count; ++a)
    for (int b = 0; b < count; ++b) {
      int can = 0;
      if (a != b) CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      peer_pairs += can;
    }
  CU_CHECK(cuInit(0));  // the runtime has made the device's primary context current; the driver API uses it

  // --- memory of every kind -------------------------------------------------------------------
  float *h_x = nullptr, *h_y = nullptr, *d_x = nullptr, *c = nullptr;
  CHECK(cudaMallocHost(&h_x, n * sizeof(float)));  // pinned: the copies below run asynchronously
  CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
  std::copy(hx.begin(), hx.end(), h_x);
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&c, 4 * sizeof(float)));  // unified: written here, read by both kernels
  c[0] = 1.5f, c[1] = -0.5f, c[2] = 0.25f, c[3] = 1.0f;

  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  float* t = nullptr;
  CHECK(cudaMallocAsync(&t, n * sizeof(float), s1));  // stream-ordered: usable by work queued after it on s1
  CHECK(cudaStreamSynchronize(s1));  // allocated before the capture below, so the graph only uses it

  // Output: one contiguous virtual range backed by two physical allocations.
  CUmemAllocationProp vm{};
  vm.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  vm.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  vm.location.id = best;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &vm, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  size_t half = ((n * sizeof(float) + 1) / 2 + gran - 1) / gran * gran;
  CUdeviceptr y_base = 0;
  CU_CHECK(cuMemAddressReserve(&y_base, 2 * half, 0, 0, 0));
  CUmemGenericAllocationHandle phys[2];
  CUmemAccessDesc access{};
  access.location = vm.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (int k = 0; k < 2; ++k) {
    CU_CHECK(cuMemCreate(&phys[k], half, &vm, 0));
    // CUdeviceptr is an integer in CUDA and a pointer in HIP: offsetting through char* reads the same in both
    CUdeviceptr at = reinterpret_cast<CUdeviceptr>(reinterpret_cast<char*>(y_base) + k * half);
    CU_CHECK(cuMemMap(at, half, 0, phys[k], 0));
  }
  CU_CHECK(cuMemSetAccess(y_base, 2 * half, &access, 1));
  float* y = reinterpret_cast<float*>(y_base);

  // --- the module: loaded at run time, its kernel found by name ---------------------------------
  std::ifstream file(args.dir + "/module.cubin", std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s/module.cubin\n", args.dir.c_str());
    return 66;
  }
  CUmodule module;
  CUfunction finish_fn, missing_fn;
  CU_CHECK(cuModuleLoadData(&module, image.data()));
  CU_CHECK(cuModuleGetFunction(&finish_fn, module, "finish"));
  CUresult expected = cuModuleGetFunction(&missing_fn, module, "no_such_kernel");
  if (expected != CUDA_ERROR_NOT_FOUND) {
    std::fprintf(stderr, "looking up a missing kernel returned %d, not CUDA_ERROR_NOT_FOUND\n", (int)expected);
    return 3;
  }
  const char* expected_name = nullptr;
  cuGetErrorName(expected, &expected_name);
  (void)cudaGetLastError();  // the expected failure must not be read back as a launch error below

  // --- occupancy of both kernels ----------------------------------------------------------------
  const size_t smem = (kThreads + 1) * sizeof(float);
  int stencil_blocks = 0, finish_blocks = 0, finish_max_threads = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&stencil_blocks, stencil, kThreads, smem));
  CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&finish_blocks, finish_fn, kThreads, 0));
  CU_CHECK(cuFuncGetAttribute(&finish_max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, finish_fn));
  cudaFuncAttributes stencil_attr{};
  CHECK(cudaFuncGetAttributes(&stencil_attr, reinterpret_cast<const void*>(stencil)));

  // --- the schedule -----------------------------------------------------------------------------
  std::vector<cudaEvent_t> staged(chunks);
  for (auto& e : staged) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  cudaEvent_t joined;
  CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  std::atomic<int> callbacks{0};
  const long per = (n + chunks - 1) / chunks;

  auto issue = [&]() {
    for (int k = 0; k < chunks; ++k) {
      long lo = k * per, hi = std::min(n, lo + per);
      if (lo >= hi) break;
      long upload = std::min(n, hi + 1) - lo;
      CHECK(cudaMemcpyAsync(d_x + lo, h_x + lo, upload * sizeof(float), cudaMemcpyHostToDevice, s1));
      CHECK(cudaMemsetAsync(t + lo, 0xFF, (hi - lo) * sizeof(float), s1));  // NaN unless stage 1 writes it
      unsigned blocks = (unsigned)((hi - lo + kThreads - 1) / kThreads);
      stencil<<<blocks, kThreads, smem, s1>>>(d_x, t, c, lo, hi, n);
      CHECK_LAUNCH();
      CHECK(cudaEventRecord(staged[k], s1));
      CHECK(cudaStreamWaitEvent(s2, staged[k], 0));  // s2 runs stage 2 of chunk k only after its stage 1
      void* params[] = {&t, &y, &c, &lo, &hi};
      CU_CHECK(cuLaunchKernel(finish_fn, blocks, 1, 1, kThreads, 1, 1, 0, s2, params, nullptr));
      CHECK(cudaMemcpyAsync(h_y + lo, y + lo, (hi - lo) * sizeof(float), cudaMemcpyDeviceToHost, s2));
      CHECK(cudaLaunchHostFunc(s2, chunk_done, &callbacks));
    }
    CHECK(cudaEventRecord(joined, s2));
    CHECK(cudaStreamWaitEvent(s1, joined, 0));  // s1 ends after all of s2: one stream to wait on
  };

  // Capture the schedule once: the fork into s2 and the join back become graph edges.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  issue();
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));

  CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  const int issued = (int)((n + per - 1) / per);
  if (callbacks.load() != issued) {
    std::fprintf(stderr, "host callback ran %d times for %d chunks\n", callbacks.load(), issued);
    return 4;
  }
  harness::write(args, "y", h_y, n);

  // Both schedules timed in this run: s1 and s2 are blocking streams, so the harness's events on
  // the default stream enclose all of their work.
  float graph_ms = harness::median_ms([&] { CHECK(cudaGraphLaunch(exec, s1)); }, args.iters);
  float direct_ms = harness::median_ms(issue, args.iters);
  CHECK(cudaDeviceSynchronize());
  CHECK_LAUNCH();

  char extra[768];
  std::snprintf(extra, sizeof extra,
                "\"device\": \"%s (%d of %d, %d SMs)\", \"peer_pairs\": %d, \"graph_nodes\": %zu, "
                "\"direct_ms\": %.6f, \"graph_speedup\": %.3f, \"vmm_granularity\": %zu, "
                "\"occupancy\": \"stencil %d blocks/SM (%zu B dynamic shared), finish %d blocks/SM\", "
                "\"launch_bounds\": \"stencil %d, finish %d threads max\", \"expected_error\": \"%s\", "
                "\"callbacks\": %d",
                prop.name, best, count, prop.multiProcessorCount, peer_pairs, nodes, direct_ms,
                direct_ms / graph_ms, gran, stencil_blocks, smem, finish_blocks, stencil_attr.maxThreadsPerBlock,
                finish_max_threads, expected_name ? expected_name : "?", callbacks.load());
  harness::report(graph_ms, extra);

  // --- teardown, in reverse ---------------------------------------------------------------------
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  for (auto& e : staged) CHECK(cudaEventDestroy(e));
  CHECK(cudaEventDestroy(joined));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuMemUnmap(y_base, 2 * half));
  for (auto& p : phys) CU_CHECK(cuMemRelease(p));
  CU_CHECK(cuMemAddressFree(y_base, 2 * half));
  CHECK(cudaFreeAsync(t, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(c));
  CHECK(cudaFree(d_x));
  CHECK(cudaFreeHost(h_x));
  CHECK(cudaFreeHost(h_y));
  return 0;
}
