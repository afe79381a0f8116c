// Inclusive prefix sum of n int32 values in three launches: (1) each block scans a tile of
// 2048 elements and records the tile's total, (2) one block scans the tile totals, (3) every
// tile adds the total of the tiles before it. Inside a block, warps scan with shuffle-up
// (Hillis-Steele over 32 lanes) and combine their totals through shared memory.
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

__global__ __launch_bounds__(THREADS) void scan_tiles(const int* __restrict__ in, int* __restrict__ out,
                                                      int* __restrict__ tile_totals, long n) {
  __shared__ int totals[WARPS];
  long base = (long)blockIdx.x * TILE + (long)threadIdx.x * ITEMS;
  int items[ITEMS];
  int run = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    run += base + k < n ? in[base + k] : 0;
    items[k] = run;
  }
  int before = block_inclusive_scan(run, totals) - run;  // exclusive prefix of this thread
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (base + k < n) out[base + k] = items[k] + before;
  if (threadIdx.x == THREADS - 1) tile_totals[blockIdx.x] = before + run;
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

__global__ void add_offsets(int* __restrict__ out, const int* __restrict__ totals, long n) {
  if (blockIdx.x == 0) return;  // the first tile has nothing before it
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
    scan_tiles<<<tiles, THREADS>>>(in, out, totals, n);
    scan_totals<<<1, THREADS>>>(totals, tiles);
    add_offsets<<<tiles, THREADS>>>(out, totals, n);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(totals));
  return 0;
}
