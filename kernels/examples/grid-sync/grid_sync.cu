// y = x / sum(x) in one cooperative launch, passing messages at three scopes.
//  - block scope: warp 0 publishes the block's partial sum in shared memory behind
//    __threadfence_block and a flag, and the other warps spin on the flag instead of a barrier;
//  - device scope: every block stores its partial, fences with __threadfence and takes a ticket;
//    the block with the last ticket sees all partials and writes the total (the "last block" pattern);
//  - grid scope: grid.sync() makes every block wait for the total, then all of them normalise;
//  - system scope: the last block also writes the total into mapped pinned host memory and raises
//    a flag with a system-scoped atomic after __threadfence_system; the host spins on that flag
//    while the kernel is still running and reads the total from host memory.
// The grid is sized with the occupancy API so that every block is resident, as a grid-wide
// barrier requires, and cooperative launch support is read from the device properties.
#include <cooperative_groups.h>

#include "../../common/harness.cuh"

namespace cg = cooperative_groups;

constexpr int THREADS = 512;

__global__ __launch_bounds__(THREADS) void normalise(const float* __restrict__ x, long n, float* __restrict__ y,
                                                     float* partials, unsigned* ticket, float* total,
                                                     float* host_total, unsigned* host_flag) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float warp_sums[THREADS / 32];
  __shared__ float block_sum;
  __shared__ volatile int published;
  __shared__ bool last;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) published = 0;
  float acc = 0.0f;
  for (long i = grid.thread_rank(); i < n; i += grid.size()) acc += x[i];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    float s = lane < THREADS / 32 ? warp_sums[lane] : 0.0f;
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) {
      block_sum = s;
      __threadfence_block();  // block_sum is visible to the block before the flag is
      published = 1;
    }
  } else {
    while (published == 0) {}  // other warps wait for warp 0's message, not for a barrier
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
    __threadfence();  // the partial is visible device-wide before the ticket counts it
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && warp == 0) {  // every other block's partial is visible: they fenced before their ticket
    float s = 0.0f;
    for (unsigned b = lane; b < gridDim.x; b += 32) s += __ldcg(&partials[b]);
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) {
      *total = s;
      *ticket = 0;  // ready for the next launch
      *host_total = s;
      __threadfence_system();  // the host sees the total before it sees the flag
      atomicExch_system(host_flag, 1u);
    }
  }
  grid.sync();  // every block waits here until the total exists
  float inv = 1.0f / __ldcg(total);
  for (long i = grid.thread_rank(); i < n; i += grid.size()) y[i] = x[i] * inv;
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int dev = 0;
  CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  if (!prop.cooperativeLaunch || !prop.canMapHostMemory) {
    std::fprintf(stderr, "%s cannot launch cooperative kernels or map host memory\n", prop.name);
    return 3;
  }
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalise, THREADS, 0));
  int blocks = per_sm * prop.multiProcessorCount;  // all resident at once: grid.sync() needs that
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* y = harness::poisoned<float>(n);
  float* partials = harness::poisoned<float>(blocks);
  float* total = harness::poisoned<float>(1);
  unsigned* ticket = nullptr;
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  float* host_total = nullptr;  // pinned, mapped into the device's address space
  unsigned* host_flag = nullptr;
  CHECK(cudaHostAlloc(&host_total, sizeof(float), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&host_flag, sizeof(unsigned), cudaHostAllocMapped));
  float* d_host_total = nullptr;
  unsigned* d_host_flag = nullptr;
  CHECK(cudaHostGetDevicePointer(&d_host_total, host_total, 0));
  CHECK(cudaHostGetDevicePointer(&d_host_flag, host_flag, 0));
  void* params[] = {&x, &n, &y, &partials, &ticket, &total, &d_host_total, &d_host_flag};
  auto launch = [&] {
    CHECK(cudaLaunchCooperativeKernel((void*)normalise, blocks, THREADS, params, 0, 0));
  };
  float ms = harness::median_ms(launch, args.iters);
  // One more launch, watched from the host: the flag arrives while the kernel may still be running.
  *host_flag = 0;
  *host_total = -1.0f;
  launch();
  CHECK_LAUNCH();
  auto t0 = std::chrono::steady_clock::now();
  while (reinterpret_cast<volatile unsigned*>(host_flag)[0] == 0) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) {
      std::fprintf(stderr, "the system-scope message never arrived\n");
      return 4;
    }
  }
  float seen = reinterpret_cast<volatile float*>(host_total)[0];
  CHECK(cudaDeviceSynchronize());
  auto out = harness::to_host(y, n);
  auto tot = harness::to_host(total, 1);
  harness::write(args, "y", out.data(), n);
  harness::write(args, "total", tot.data(), 1);
  harness::write(args, "host_total", &seen, 1);
  char extra[128];
  std::snprintf(extra, sizeof extra, "\"blocks\": %d, \"blocks_per_sm\": %d", blocks, per_sm);
  harness::report(ms, extra);
  CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(partials)); CHECK(cudaFree(total)); CHECK(cudaFree(ticket));
  CHECK(cudaFreeHost(host_total)); CHECK(cudaFreeHost(host_flag));
  return 0;
}
