// The host runtime of graphs.cu, for AMD GPUs: a chain of small kernels, y <- y * a + b repeated
// STEPS times through a scratch buffer, issued launch by launch and captured into a HIP graph that
// is replayed, both timed with events. HIP's calls mirror CUDA's one for one (hipStreamBeginCapture,
// hipGraphInstantiate, hipMallocAsync, hipLaunchHostFunc). Differences: the active mask of a
// divergent branch is the wavefront's EXEC mask, 64 bits wide (HIP 5 has no __activemask, which
// newer HIP defines as __ballot(true)); there is no access-policy window for the L2; unified memory
// migrates on demand only with XNACK enabled, else it stays in host memory. The captured work includes a stream-ordered
// allocation and free of the scratch buffer (graph memory nodes) and a host callback (a host
// node). Around it the program shows the host runtime: device count, selection and properties,
// peer access between every pair of GPUs, an L2 access-policy window on the stream, unified
// memory for the coefficients, pinned memory for the result, an invalid launch caught by the
// error check, and printf from a divergent branch with the active mask of its lanes.
#include <atomic>
#include <functional>

#include "../../common/harness_hip.h"

constexpr int STEPS = 32;
constexpr int THREADS = 256;

struct Coefficients { float a, b; };

__global__ __launch_bounds__(THREADS) void step(const float* __restrict__ in, float* __restrict__ out, long n,
                                                const Coefficients* c) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * c->a + c->b;
}

// Odd lanes take the branch; inside it a ballot of true is the EXEC mask: the lanes executing it.
__global__ void report_lanes(unsigned long long* mask_out) {
  int lane = threadIdx.x % warpSize;
  if (lane % 2 == 1) {
    unsigned long long active = __ballot(1);
    if (lane == 1) {
      printf("odd-lane branch: active mask %016llx\n", active);
      *mask_out = active;
    }
  }
}

static void count_replays(void* counter) {
  static_cast<std::atomic<int>*>(counter)->fetch_add(1);  // runs on a runtime thread
}

// The whole chain on `s`: allocate the scratch buffer in stream order, ping-pong through it, free it.
static void issue(hipStream_t s, float* y, long n, const Coefficients* c, std::atomic<int>* counter) {
  float* tmp = nullptr;
  CHECK(hipMallocAsync(&tmp, n * sizeof(float), s));
  int blocks = (int)((n + THREADS - 1) / THREADS);
  for (int k = 0; k < STEPS; k += 2) {
    hipLaunchKernelGGL(step, dim3(blocks), dim3(THREADS), 0, s, y, tmp, n, c);
    hipLaunchKernelGGL(step, dim3(blocks), dim3(THREADS), 0, s, tmp, y, n, c);
  }
  CHECK_LAUNCH();
  CHECK(hipFreeAsync(tmp, s));
  CHECK(hipLaunchHostFunc(s, count_replays, counter));
}

static float time_ms(hipStream_t s, int iters, const std::function<void()>& work) {
  hipEvent_t start, stop;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < iters; ++i) {
    CHECK(hipEventRecord(start, s));
    work();
    CHECK(hipEventRecord(stop, s));
    CHECK(hipEventSynchronize(stop));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  CHECK(hipSetDevice(0));
  int peers = 0, pairs = 0;  // with one GPU there is no pair: the loop body never runs
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      ++pairs;
      int can = 0;
      CHECK(hipDeviceCanAccessPeer(&can, i, j));
      if (can && i == 0) {
        hipError_t e = hipDeviceEnablePeerAccess(j, 0);
        if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) CHECK(e);
        ++peers;
      }
    }
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));

  // An invalid configuration fails at launch, not later: the error check sees it at once, and
  // it is not sticky. (HIP reports hipErrorInvalidConfiguration or, in some releases, hipErrorInvalidValue.)
  hipLaunchKernelGGL(step, dim3(1), dim3(4096), 0, 0, nullptr, nullptr, 0, nullptr);
  hipError_t bad = hipGetLastError();
  if (bad != hipErrorInvalidConfiguration && bad != hipErrorInvalidValue) {
    std::fprintf(stderr, "expected an invalid-configuration error, got %s\n", hipGetErrorString(bad));
    return 5;
  }

  // no printf FIFO to size: HIP-Clang's printf goes through hostcalls
  unsigned long long* mask = harness::poisoned<unsigned long long>(1);
  hipLaunchKernelGGL(report_lanes, dim3(1), dim3(64), 0, 0, mask);
  CHECK_LAUNCH();
  unsigned long long odd_mask = harness::to_host(mask, 1)[0];

  Coefficients* coef = nullptr;  // 8 bytes of unified memory: written by the host, read by kernels
  CHECK(hipMallocManaged(&coef, sizeof(Coefficients)));
  coef->a = 0.999f;
  coef->b = 0.001f;
  hipStream_t s;
  CHECK(hipStreamCreate(&s));  // a blocking stream: the legacy default stream waits for it
  CHECK(hipMemPrefetchAsync(coef, sizeof(Coefficients), 0, s));

  auto host_x = harness::read<float>(args, "x", n);
  float* y = harness::poisoned<float>(n);
  std::atomic<int> callbacks{0};
  hipGraph_t graph;
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  issue(s, y, n, coef, &callbacks);
  CHECK(hipStreamEndCapture(s, &graph));
  hipGraphExec_t exec;
  CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  size_t nodes = 0;
  CHECK(hipGraphGetNodes(graph, nullptr, &nodes));

  auto reset = [&] { CHECK(hipMemcpyAsync(y, host_x.data(), n * sizeof(float), hipMemcpyHostToDevice, s)); };
  auto replay = [&] { CHECK(hipGraphLaunch(exec, s)); };
  auto stream_issue = [&] { issue(s, y, n, coef, &callbacks); };
  harness::warm_up([&] { replay(); stream_issue(); }, 200.0);
  float graph_ms = time_ms(s, args.iters, replay);
  float stream_ms = time_ms(s, args.iters, stream_issue);
  CHECK(hipStreamSynchronize(s));
  int before = callbacks.load();

  reset();  // the checked run: one replay from the input
  replay();
  float* pinned = nullptr;
  CHECK(hipHostMalloc(&pinned, n * sizeof(float), hipHostMallocDefault));
  CHECK(hipMemcpyAsync(pinned, y, n * sizeof(float), hipMemcpyDeviceToHost, s));
  CHECK(hipStreamSynchronize(s));
  if (callbacks.load() != before + 1) {
    std::fprintf(stderr, "the host node ran %d times for one replay\n", callbacks.load() - before);
    return 6;
  }
  harness::write(args, "y", pinned, n);
  char extra[512];
  std::snprintf(extra, sizeof extra,
                "\"kernels\": %d, \"graph_nodes\": %zu, \"stream_ms\": %.6f, \"graph_speedup\": %.3f, "
                "\"devices\": %d, \"peer_pairs\": %d, \"peers_enabled\": %d, \"odd_lane_mask\": \"%016llx\", "
                "\"invalid_launch\": \"%s\", \"l2_bytes\": %d, \"arch\": \"%s\"",
                STEPS, nodes, stream_ms, stream_ms / graph_ms, count, pairs, peers, odd_mask,
                hipGetErrorString(bad), prop.l2CacheSize, prop.gcnArchName);
  harness::report(graph_ms, extra);
  CHECK(hipGraphExecDestroy(exec)); CHECK(hipGraphDestroy(graph)); CHECK(hipStreamDestroy(s));
  CHECK(hipHostFree(pinned)); CHECK(hipFree(coef)); CHECK(hipFree(y)); CHECK(hipFree(mask));
  return 0;
}
