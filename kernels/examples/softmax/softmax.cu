// Row-wise softmax of a rows x cols float matrix, one block per row. The row is read once into
// registers; the block reduces the row maximum and then the sum of exponentials (warp shuffles,
// then shared memory across warps), and writes the normalised row. Subtracting the maximum
// keeps exp() from overflowing.
#include <cfloat>

#include "../../common/harness.cuh"

constexpr int THREADS = 256;
constexpr int MAX_ITEMS = 32;  // columns per thread held in registers: rows up to 8192 wide
constexpr unsigned FULL_MASK = 0xffffffffu;

template <bool IS_MAX>
__device__ float block_reduce(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) {
    float other = __shfl_xor_sync(FULL_MASK, v, o);  // butterfly: every lane ends with the result
    v = IS_MAX ? fmaxf(v, other) : v + other;
  }
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float identity = IS_MAX ? -FLT_MAX : 0.f;
  v = lane < THREADS / 32 ? scratch[lane] : identity;
  for (int o = 16; o > 0; o /= 2) {
    float other = __shfl_xor_sync(FULL_MASK, v, o);
    v = IS_MAX ? fmaxf(v, other) : v + other;
  }
  __syncthreads();  // scratch is free again
  return v;
}

__global__ __launch_bounds__(THREADS) void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float scratch[THREADS / 32];
  const float* row = x + (long)blockIdx.x * cols;
  float v[MAX_ITEMS];
  float m = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;  // strided so that each load is coalesced across the warp
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
  auto launch = [&] { softmax_rows<<<rows, THREADS>>>(x, y, cols); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(y, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(x)); CHECK(cudaFree(y));
  return 0;
}
