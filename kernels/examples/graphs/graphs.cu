// A chain of small kernels, y <- y * a + b repeated STEPS times through a scratch buffer, issued
// two ways and timed with events in the same run: launch by launch on a stream, and captured
// once into a CUDA graph that is then replayed. The captured work includes a stream-ordered
// allocation and free of the scratch buffer (graph memory nodes) and a host callback (a host
// node). Around it the program shows the host runtime: device count, selection and properties,
// peer access between every pair of GPUs, an L2 access-policy window on the stream, unified
// memory for the coefficients, pinned memory for the result, an invalid launch caught by the
// error check, and printf from a divergent branch with the active mask of its lanes.
#include <atomic>
#include <functional>

#include "../../common/harness.cuh"

constexpr int STEPS = 32;
constexpr int THREADS = 256;

struct Coefficients { float a, b; };

__global__ __launch_bounds__(THREADS) void step(const float* __restrict__ in, float* __restrict__ out, long n,
                                                const Coefficients* c) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * c->a + c->b;
}

// Odd lanes take the branch; inside it __activemask() names the lanes that are executing it.
__global__ void report_lanes(unsigned* mask_out) {
  int lane = threadIdx.x % warpSize;
  if (lane % 2 == 1) {
    unsigned active = __activemask();
    if (lane == 1) {
      printf("odd-lane branch: active mask %08x\n", active);
      *mask_out = active;
    }
  }
}

static void CUDART_CB count_replays(void* counter) {
  static_cast<std::atomic<int>*>(counter)->fetch_add(1);  // runs on a runtime thread
}

// The whole chain on `s`: allocate the scratch buffer in stream order, ping-pong through it, free it.
static void issue(cudaStream_t s, float* y, long n, const Coefficients* c, std::atomic<int>* counter) {
  float* tmp = nullptr;
  CHECK(cudaMallocAsync(&tmp, n * sizeof(float), s));
  int blocks = (int)((n + THREADS - 1) / THREADS);
  for (int k = 0; k < STEPS; k += 2) {
    step<<<blocks, THREADS, 0, s>>>(y, tmp, n, c);
    step<<<blocks, THREADS, 0, s>>>(tmp, y, n, c);
  }
  CHECK_LAUNCH();
  CHECK(cudaFreeAsync(tmp, s));
  CHECK(cudaLaunchHostFunc(s, count_replays, counter));
}

static float time_ms(cudaStream_t s, int iters, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < iters; ++i) {
    CHECK(cudaEventRecord(start, s));
    work();
    CHECK(cudaEventRecord(stop, s));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  int peers = 0, pairs = 0;  // with one GPU there is no pair: the loop body never runs
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      ++pairs;
      int can = 0;
      CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      if (can && i == 0) {
        cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);
        ++peers;
      }
    }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));

  // An invalid configuration fails at launch, not later: the error check sees it at once, and
  // it is not sticky, so the context stays usable.
  step<<<1, 4096>>>(nullptr, nullptr, 0, nullptr);
  cudaError_t bad = cudaGetLastError();
  // 4096 threads exceed the per-block limit: CUDA 13 reports it as an invalid argument
  if (bad != cudaErrorInvalidConfiguration && bad != cudaErrorInvalidValue) {
    std::fprintf(stderr, "expected an invalid-configuration error, got %s\n", cudaGetErrorString(bad));
    return 5;
  }

  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20));
  unsigned* mask = harness::poisoned<unsigned>(1);
  report_lanes<<<1, 32>>>(mask);
  CHECK_LAUNCH();
  unsigned odd_mask = harness::to_host(mask, 1)[0];

  Coefficients* coef = nullptr;  // 8 bytes of unified memory: written by the host, read by kernels
  CHECK(cudaMallocManaged(&coef, sizeof(Coefficients)));
  coef->a = 0.999f;
  coef->b = 0.001f;
  cudaMemLocation here{};
  here.type = cudaMemLocationTypeDevice;
  here.id = 0;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));  // a blocking stream: the legacy default stream waits for it
  CHECK(cudaMemPrefetchAsync(coef, sizeof(Coefficients), here, 0, s));

  auto host_x = harness::read<float>(args, "x", n);
  float* y = harness::poisoned<float>(n);
  // Keep y in the persisting part of L2 across the chain, as far as the device allows.
  if (prop.persistingL2CacheMaxSize > 0) {
    size_t window = std::min<size_t>(n * sizeof(float), prop.accessPolicyMaxWindowSize);
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::min<size_t>(window, prop.persistingL2CacheMaxSize)));
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = y;
    attr.accessPolicyWindow.num_bytes = window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr));
  }

  std::atomic<int> callbacks{0};
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  issue(s, y, n, coef, &callbacks);
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));

  auto reset = [&] { CHECK(cudaMemcpyAsync(y, host_x.data(), n * sizeof(float), cudaMemcpyHostToDevice, s)); };
  auto replay = [&] { CHECK(cudaGraphLaunch(exec, s)); };
  auto stream_issue = [&] { issue(s, y, n, coef, &callbacks); };
  harness::warm_up([&] { replay(); stream_issue(); }, 200.0);
  float graph_ms = time_ms(s, args.iters, replay);
  float stream_ms = time_ms(s, args.iters, stream_issue);
  CHECK(cudaStreamSynchronize(s));
  int before = callbacks.load();

  reset();  // the checked run: one replay from the input
  replay();
  float* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  CHECK(cudaMemcpyAsync(pinned, y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  if (callbacks.load() != before + 1) {
    std::fprintf(stderr, "the host node ran %d times for one replay\n", callbacks.load() - before);
    return 6;
  }
  harness::write(args, "y", pinned, n);
  char extra[512];
  std::snprintf(extra, sizeof extra,
                "\"kernels\": %d, \"graph_nodes\": %zu, \"stream_ms\": %.6f, \"graph_speedup\": %.3f, "
                "\"devices\": %d, \"peer_pairs\": %d, \"peers_enabled\": %d, \"odd_lane_mask\": \"%08x\", "
                "\"invalid_launch\": \"%s\", \"l2_bytes\": %d, \"persisting_l2_max\": %d",
                STEPS, nodes, stream_ms, stream_ms / graph_ms, count, pairs, peers, odd_mask,
                cudaGetErrorString(bad), prop.l2CacheSize, prop.persistingL2CacheMaxSize);
  harness::report(graph_ms, extra);
  CHECK(cudaGraphExecDestroy(exec)); CHECK(cudaGraphDestroy(graph)); CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(pinned)); CHECK(cudaFree(coef)); CHECK(cudaFree(y)); CHECK(cudaFree(mask));
  return 0;
}
