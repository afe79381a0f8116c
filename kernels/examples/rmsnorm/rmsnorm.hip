// RMSNorm for AMD GPUs, one block per row: a wavefront-wide xor reduction of the sum of squares
// (log2(warpSize) steps), wave totals combined through LDS, then each thread scales its elements.
#include "../../common/harness_hip.h"

constexpr int THREADS = 256;
constexpr int MAX_ITEMS = 32;
constexpr int MAX_WAVES = THREADS / 32;

__device__ float block_sum(float v, float* scratch) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < (int)(blockDim.x / warpSize) ? scratch[lane] : 0.f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  return v;
}

__global__ __launch_bounds__(THREADS) void rmsnorm_rows(const float* __restrict__ x, const float* __restrict__ w,
                                                        float* __restrict__ y, int cols, float eps) {
  __shared__ float scratch[MAX_WAVES];
  const float* row = x + (long)blockIdx.x * cols;
  float v[MAX_ITEMS];
  float ss = 0.f;
#pragma unroll
  for (int k = 0; k < MAX_ITEMS; ++k) {
    int c = threadIdx.x + k * THREADS;
    v[k] = c < cols ? row[c] : 0.f;
    ss += v[k] * v[k];
  }
  // the hardware reciprocal square root (v_rsq_f32, about 1 ulp), without the device math library
  float scale = __builtin_amdgcn_rsqf(block_sum(ss, scratch) / cols + eps);
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
  auto launch = [&] { hipLaunchKernelGGL(rmsnorm_rows, dim3(rows), dim3(THREADS), 0, 0, x, w, y, cols, 1e-6f); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(y, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(hipFree(x)); CHECK(hipFree(w)); CHECK(hipFree(y));
  return 0;
}
