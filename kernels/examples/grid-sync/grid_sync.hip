// y = x / sum(x) in one cooperative launch on an AMD GPU, passing messages at three scopes, as
// grid_sync.cu does. HIP's __threadfence_block / __threadfence / __threadfence_system are
// sequentially consistent fences at work-group, agent and system scope; with the HIP 5 headers
// they call a device-library function, so the fences are written here with the clang builtin
// they stand for, which shows the cache maintenance each scope costs in the assembly (none
// for the work-group, write-back and invalidate of the L2 for agent and system scope on gfx942,
// buffer_wbl2 / buffer_inv). A kernel that calls
// grid.sync() must be launched with hipLaunchCooperativeKernel on a grid that fits on the GPU at
// once. A wavefront is 64 lanes: the shuffles reduce over warpSize lanes, not 32.
// Caches: x never changes during the kernel, so its first pass reads it with __ldg, which the HIP
// headers (hip_ldg.h) define as an ordinary load: CDNA has no separate read-only path, and a
// plain global_load_dword is cached in the CU's vector L1. The partials and the total are written
// by other blocks while the kernel runs, and the vector L1 is not coherent across CUs, so they are
// read with agent-scope atomic loads, the counterpart of CUDA's __ldcg: the compiler sets the bit
// that makes the load miss the L1 (sc1 on gfx942, glc on gfx90a; LLVM's AMDGPUUsage memory model).
#include "../../common/harness_hip.h"
#include "../../common/hip_cg.h"

namespace cg = cooperative_groups;

constexpr int THREADS = 512;

__device__ float wave_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
}

__global__ __launch_bounds__(THREADS) void normalise(const float* __restrict__ x, long n, float* __restrict__ y,
                                                     float* partials, unsigned* ticket, float* total,
                                                     float* host_total, unsigned* host_flag) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float wave_sums[THREADS / 32];
  __shared__ float block_sum;
  __shared__ volatile int published;
  __shared__ bool last;
  const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  const int waves = THREADS / warpSize;
  if (threadIdx.x == 0) published = 0;
  float acc = 0.0f;
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += __ldg(&x[i]);
  acc = wave_sum(acc);
  if (lane == 0) wave_sums[wave] = acc;
  __syncthreads();
  if (wave == 0) {
    float s = wave_sum(lane < waves ? wave_sums[lane] : 0.0f);
    if (lane == 0) {
      block_sum = s;
      __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
      published = 1;
    }
  } else {
    while (published == 0) {}  // waves of one work-group run independently: no deadlock
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent");
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && wave == 0) {
    float s = 0.0f;
    for (unsigned b = lane; b < gridDim.x; b += warpSize)
      s += __hip_atomic_load(&partials[b], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    s = wave_sum(s);
    if (lane == 0) {
      *total = s;
      *ticket = 0;
      *host_total = s;
      __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "");  // "" is the system scope
      atomicExch_system(host_flag, 1u);
    }
  }
  grid.sync();
  float inv = 1.0f / __hip_atomic_load(total, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = x[i] * inv;
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int dev = 0;
  CHECK(hipGetDevice(&dev));
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, dev));
  if (!prop.cooperativeLaunch || !prop.canMapHostMemory) {
    std::fprintf(stderr, "%s (%s) cannot launch cooperative kernels or map host memory\n", prop.name, prop.gcnArchName);
    return 3;
  }
  int per_cu = 0;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, normalise, THREADS, 0));
  int blocks = per_cu * prop.multiProcessorCount;
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* y = harness::poisoned<float>(n);
  float* partials = harness::poisoned<float>(blocks);
  float* total = harness::poisoned<float>(1);
  unsigned* ticket = nullptr;
  CHECK(hipMalloc(&ticket, sizeof(unsigned)));
  CHECK(hipMemset(ticket, 0, sizeof(unsigned)));
  float* host_total = nullptr;
  unsigned* host_flag = nullptr;
  // fine-grained ("coherent") host memory, so the device's system-scope writes reach the host during the kernel
  CHECK(hipHostMalloc(&host_total, sizeof(float), hipHostMallocMapped | hipHostMallocCoherent));
  CHECK(hipHostMalloc(&host_flag, sizeof(unsigned), hipHostMallocMapped | hipHostMallocCoherent));
  float* d_host_total = nullptr;
  unsigned* d_host_flag = nullptr;
  CHECK(hipHostGetDevicePointer((void**)&d_host_total, host_total, 0));
  CHECK(hipHostGetDevicePointer((void**)&d_host_flag, host_flag, 0));
  void* params[] = {&x, &n, &y, &partials, &ticket, &total, &d_host_total, &d_host_flag};
  auto launch = [&] {
    CHECK(hipLaunchCooperativeKernel((void*)normalise, dim3(blocks), dim3(THREADS), params, 0, 0));
  };
  float ms = harness::median_ms(launch, args.iters);
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
  CHECK(hipDeviceSynchronize());
  auto out = harness::to_host(y, n);
  auto tot = harness::to_host(total, 1);
  harness::write(args, "y", out.data(), n);
  harness::write(args, "total", tot.data(), 1);
  harness::write(args, "host_total", &seen, 1);
  char extra[128];
  std::snprintf(extra, sizeof extra, "\"blocks\": %d, \"blocks_per_cu\": %d", blocks, per_cu);
  harness::report(ms, extra);
  CHECK(hipFree(x)); CHECK(hipFree(y)); CHECK(hipFree(partials)); CHECK(hipFree(total)); CHECK(hipFree(ticket));
  CHECK(hipHostFree(host_total)); CHECK(hipHostFree(host_flag));
  return 0;
}
