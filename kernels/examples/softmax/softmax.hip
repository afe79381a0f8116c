// Row-wise softmax for AMD GPUs, one block per row. The butterfly reduction runs over all
// warpSize lanes (six xor steps on CDNA), and a 256-thread block is four wavefronts, so the
// cross-wave step combines four partial results through LDS.
#include <cfloat>

#include "../../common/harness_hip.h"

constexpr int THREADS = 256;
constexpr int MAX_ITEMS = 32;
constexpr int MAX_WAVES = THREADS / 32;  // room for the wave32 case too

template <bool IS_MAX>
__device__ float block_reduce(float v, float* scratch) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    float other = __shfl_xor(v, o);
    v = IS_MAX ? fmaxf(v, other) : v + other;
  }
  int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  int waves = blockDim.x / warpSize;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  float identity = IS_MAX ? -FLT_MAX : 0.f;
  v = lane < waves ? scratch[lane] : identity;
  for (int o = warpSize / 2; o > 0; o /= 2) {
    float other = __shfl_xor(v, o);
    v = IS_MAX ? fmaxf(v, other) : v + other;
  }
  __syncthreads();
  return v;
}

__global__ __launch_bounds__(THREADS) void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float scratch[MAX_WAVES];
  const float* row = x + (long)blockIdx.x * cols;
  float v[MAX_ITEMS];
  float m = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    v[k] = c < cols ? row[c] : -FLT_MAX;
    m = fmaxf(m, v[k]);
  }
  m = block_reduce<true>(m, scratch);
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    v[k] = c < cols ? __expf(v[k] - m) : 0.f;
    s += v[k];
  }
  s = block_reduce<false>(s, scratch);
  float inv = 1.f / s;
  float* out = y + (long)blockIdx.x * cols;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    if (c < cols) out[c] = v[k] * inv;
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "ROWS COLS");
  long rows = args.sizes[0];
  int cols = (int)args.sizes[1];
  if (cols > THREADS * MAX_ITEMS) {
    std::fprintf(stderr, "cols must be at most %d for this kernel\n", THREADS * MAX_ITEMS);
    return 64;
  }
  size_t n = (size_t)rows * cols;
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* y = harness::poisoned<float>(n);
  auto launch = [&] { hipLaunchKernelGGL(softmax_rows, dim3(rows), dim3(THREADS), 0, 0, x, y, cols); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(y, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(hipFree(x)); CHECK(hipFree(y));
  return 0;
}
