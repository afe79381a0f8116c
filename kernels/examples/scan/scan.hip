// Inclusive prefix sum of n int32 values for AMD GPUs, in three launches (scan tiles, scan
// totals, add offsets). The wavefront scan runs log2(warpSize) shuffle-up steps: six on CDNA's 64
// lanes. A 256-thread block is four wavefronts, so the cross-wave step scans only four totals:
// hipCUB's WarpScan with a logical warp of four lanes does it, which rocPRIM lowers to DPP row
// shifts (v_mov_b32_dpp ... row_shr) inside one row of 16 lanes, with no LDS round trip.
#include "../../common/harness_hip.h"
#include <hipcub/warp/warp_scan.hpp>

#ifdef __AMDGCN_WAVEFRONT_SIZE
constexpr int WAVE = __AMDGCN_WAVEFRONT_SIZE;  // 64 on gfx9 (CDNA), 32 on gfx1100 by default
#else
constexpr int WAVE = 64;  // host compilation pass: value unused
#endif
constexpr int THREADS = 256;
constexpr int ITEMS = 8;
constexpr int TILE = THREADS * ITEMS;
constexpr int WAVES = THREADS / WAVE;

__device__ int wave_inclusive_scan(int v) {
  int lane = threadIdx.x % WAVE;
#pragma unroll
  for (int d = 1; d < WAVE; d *= 2) {
    int below = __shfl_up(v, d);
    if (lane >= d) v += below;
  }
  return v;
}

using TotalsScan = hipcub::WarpScan<int, WAVES>;  // WAVES lanes form one logical warp

__device__ int block_inclusive_scan(int v, int* totals) {
  __shared__ typename TotalsScan::TempStorage scan_storage;
  int lane = threadIdx.x % WAVE, wave = threadIdx.x / WAVE;
  v = wave_inclusive_scan(v);
  if (lane == WAVE - 1) totals[wave] = v;
  __syncthreads();
  if (threadIdx.x < WAVES) {  // the first WAVES lanes of wave 0: one whole logical warp
    int t;
    TotalsScan(scan_storage).InclusiveSum(totals[threadIdx.x], t);
    totals[threadIdx.x] = t;
  }
  __syncthreads();
  if (wave > 0) v += totals[wave - 1];
  __syncthreads();
  return v;
}

__global__ __launch_bounds__(THREADS) void scan_tiles(const int* __restrict__ in, int* __restrict__ out,
                                                      int* __restrict__ tile_totals, long n) {
  __shared__ int totals[WAVES];
  long base = (long)blockIdx.x * TILE + (long)threadIdx.x * ITEMS;
  int items[ITEMS];
  int run = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    run += base + k < n ? in[base + k] : 0;
    items[k] = run;
  }
  int before = block_inclusive_scan(run, totals) - run;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (base + k < n) out[base + k] = items[k] + before;
  if (threadIdx.x == THREADS - 1) tile_totals[blockIdx.x] = before + run;
}

__global__ __launch_bounds__(THREADS) void scan_totals(int* totals, long count) {
  __shared__ int scratch[WAVES];
  __shared__ int chunk_total;
  int carry = 0;
  for (long start = 0; start < count; start += THREADS) {
    long i = start + threadIdx.x;
    int v = i < count ? totals[i] : 0;
    int incl = block_inclusive_scan(v, scratch);
    if (i < count) totals[i] = incl + carry;
    if (threadIdx.x == THREADS - 1) chunk_total = incl;
    __syncthreads();
    carry += chunk_total;
    __syncthreads();
  }
}

__global__ void add_offsets(int* __restrict__ out, const int* __restrict__ totals, long n) {
  if (blockIdx.x == 0) return;
  int offset = totals[blockIdx.x - 1];
  long base = (long)blockIdx.x * TILE;
  for (int k = threadIdx.x; k < TILE; k += blockDim.x)
    if (base + k < n) out[base + k] += offset;
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int* in = harness::to_device(harness::read<int>(args, "x", n));
  int* out = harness::poisoned<int>(n);
  long tiles = (n + TILE - 1) / TILE;
  int* totals = harness::poisoned<int>(tiles);
  auto launch = [&] {
    hipLaunchKernelGGL(scan_tiles, dim3(tiles), dim3(THREADS), 0, 0, in, out, totals, n);
    hipLaunchKernelGGL(scan_totals, dim3(1), dim3(THREADS), 0, 0, totals, tiles);
    hipLaunchKernelGGL(add_offsets, dim3(tiles), dim3(THREADS), 0, 0, out, totals, n);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(hipFree(in)); CHECK(hipFree(out)); CHECK(hipFree(totals));
  return 0;
}
