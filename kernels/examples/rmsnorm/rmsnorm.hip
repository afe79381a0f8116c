// RMSNorm for AMD GPUs, one block per row: a wavefront-wide reduction of the sum of squares, wave
// totals combined through LDS, then each thread scales its elements. The wavefront reduction is
// hipCUB's WarpReduce (softmax.hip writes the same kind of reduction as an xor-shuffle loop):
// rocPRIM lowers it to DPP moves within rows of 16 lanes (v_mov_b32_dpp with quad_perm and
// row_ror) and row_bcast steps across rows, then one ds_bpermute_b32, where a six-step __shfl_xor
// loop costs six ds_bpermute_b32 round trips through the LDS crossbar. Like CUB's, its
// result is valid in lane 0 only, so the block total goes through LDS to every thread.
#include "../../common/harness_hip.h"
#include <hipcub/warp/warp_reduce.hpp>

constexpr int THREADS = 256;
constexpr int MAX_ITEMS = 32;
constexpr int MAX_WAVES = THREADS / 32;

using WaveSum = hipcub::WarpReduce<float>;  // a logical warp of the whole wavefront (64 lanes on CDNA)

__device__ float block_sum(float v, float* scratch) {
  __shared__ typename WaveSum::TempStorage storage[MAX_WAVES];
  __shared__ float total;
  int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  v = WaveSum(storage[wave]).Sum(v);
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  if (wave == 0) {
    v = WaveSum(storage[0]).Sum(lane < (int)(blockDim.x / warpSize) ? scratch[lane] : 0.f);
    if (lane == 0) total = v;
  }
  __syncthreads();
  return total;
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
