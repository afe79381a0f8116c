// Inclusive prefix sum of n int32 values, reduce-then-scan in three launches: (1) each block sums
// a tile of 2048 elements, (2) one block scans the tile totals, (3) each block scans its tile
// again and adds the total of the tiles before it. The input is read twice and the output
// written once, all with 16-byte coalesced accesses staged through shared memory. Inside a
// block, warps scan with shuffle-up steps and combine their totals through shared memory.
#include "../../common/harness.cuh"

constexpr int THREADS = 256;
constexpr int ITEMS = 8;  // consecutive elements per thread, scanned serially in registers
constexpr int TILE = THREADS * ITEMS;
constexpr int WARPS = THREADS / 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    int below = __shfl_up_sync(FULL_MASK, v, d);  // value of lane - d (own value where lane < d)
    if (lane >= d) v += below;
  }
  return v;
}

// Inclusive scan of one value per thread across the block. `totals` is shared, WARPS ints.
__device__ int block_inclusive_scan(int v, int* totals) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_inclusive_scan(v);
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < WARPS ? totals[lane] : 0;
    t = warp_inclusive_scan(t);
    if (lane < WARPS) totals[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  __syncthreads();  // totals may be reused by the caller's next scan
  return v;
}

__global__ __launch_bounds__(THREADS) void tile_sums(const int4* __restrict__ in4, const int* __restrict__ in,
                                                     long n, int* __restrict__ tile_totals) {
  __shared__ int warp_totals[WARPS];
  long base = (long)blockIdx.x * TILE;
  int s = 0;
  if (base + TILE <= n) {
#pragma unroll
    for (int k = 0; k < TILE / 4 / THREADS; ++k) {
      int4 v = in4[base / 4 + threadIdx.x + k * THREADS];
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (long i = base + threadIdx.x; i < n; i += THREADS) s += in[i];
  }
  s = __reduce_add_sync(FULL_MASK, s);  // the warp's integer sum in one instruction (sm_80 and later)
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    int t = 0;
    for (int w = 0; w < WARPS; ++w) t += warp_totals[w];
    tile_totals[blockIdx.x] = t;
  }
}

// One block walks the tile totals in chunks of THREADS, carrying the running sum between chunks.
__global__ __launch_bounds__(THREADS) void scan_totals(int* totals, long count) {
  __shared__ int scratch[WARPS];
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

__global__ __launch_bounds__(THREADS) void scan_tiles(const int4* __restrict__ in4, const int* __restrict__ in,
                                                      int4* __restrict__ out4, int* __restrict__ out,
                                                      const int* __restrict__ scanned_totals, long n) {
  __shared__ int4 stage4[TILE / 4];  // the tile, loaded coalesced, then read per thread
  __shared__ int scratch[WARPS];
  int* stage = reinterpret_cast<int*>(stage4);
  long base = (long)blockIdx.x * TILE;
  bool full = base + TILE <= n;
  if (full) {
#pragma unroll
    for (int k = 0; k < TILE / 4 / THREADS; ++k) stage4[threadIdx.x + k * THREADS] = in4[base / 4 + threadIdx.x + k * THREADS];
  } else {
    for (int i = threadIdx.x; i < TILE; i += THREADS) stage[i] = base + i < n ? in[base + i] : 0;
  }
  __syncthreads();
  int4 a = stage4[2 * threadIdx.x], b = stage4[2 * threadIdx.x + 1];
  int items[ITEMS] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  int run = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) items[k] = (run += items[k]);
  int before = block_inclusive_scan(run, scratch) - run + (blockIdx.x > 0 ? scanned_totals[blockIdx.x - 1] : 0);
  stage4[2 * threadIdx.x] = make_int4(items[0] + before, items[1] + before, items[2] + before, items[3] + before);
  stage4[2 * threadIdx.x + 1] = make_int4(items[4] + before, items[5] + before, items[6] + before, items[7] + before);
  __syncthreads();  // the scanned tile is complete before the coalesced store reads it
  if (full) {
#pragma unroll
    for (int k = 0; k < TILE / 4 / THREADS; ++k) out4[base / 4 + threadIdx.x + k * THREADS] = stage4[threadIdx.x + k * THREADS];
  } else {
    for (int i = threadIdx.x; i < TILE; i += THREADS)
      if (base + i < n) out[base + i] = stage[i];
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int* in = harness::to_device(harness::read<int>(args, "x", n));
  int* out = harness::poisoned<int>(n);
  long tiles = (n + TILE - 1) / TILE;
  int* totals = harness::poisoned<int>(tiles);
  auto* in4 = reinterpret_cast<const int4*>(in);
  auto launch = [&] {
    tile_sums<<<tiles, THREADS>>>(in4, in, n, totals);
    scan_totals<<<1, THREADS>>>(totals, tiles);
    scan_tiles<<<tiles, THREADS>>>(in4, in, reinterpret_cast<int4*>(out), out, totals, n);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(totals));
  return 0;
}
