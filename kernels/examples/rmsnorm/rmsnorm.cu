// RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * w, one block per row. The row is
// read once into registers; the block sums squares (warp shuffles, then shared memory across
// warps) and each thread scales its own elements.
#include "../../common/harness.cuh"

constexpr int THREADS = 256;
constexpr int MAX_ITEMS = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(FULL_MASK, v, o);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < THREADS / 32 ? scratch[lane] : 0.f;
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(FULL_MASK, v, o);
  return v;
}

__global__ __launch_bounds__(THREADS) void rmsnorm_rows(const float* __restrict__ x, const float* __restrict__ w,
                                                        float* __restrict__ y, int cols, float eps) {
  __shared__ float scratch[THREADS / 32];
  const float* row = x + (long)blockIdx.x * cols;
  float v[MAX_ITEMS];
  float ss = 0.f;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    v[k] = c < cols ? row[c] : 0.f;
    ss += v[k] * v[k];
  }
  float scale = rsqrtf(block_sum(ss, scratch) / cols + eps);
  float* out = y + (long)blockIdx.x * cols;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    if (c < cols) out[c] = v[k] * scale * w[c];
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
  float* w = harness::to_device(harness::read<float>(args, "w", cols));
  float* y = harness::poisoned<float>(n);
  const float eps = 1e-6f;
  auto launch = [&] { rmsnorm_rows<<<rows, THREADS>>>(x, w, y, cols, eps); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(y, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(x)); CHECK(cudaFree(w)); CHECK(cudaFree(y));
  return 0;
}
