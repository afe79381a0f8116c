// Stream compaction: copy the positive elements of x to y, in any order across blocks. Teaches
// the warp vote family: each warp ballots its predicate, a lane's slot is the popcount of the
// ballot bits below it, the block's count comes from a counting barrier, warp offsets from a
// warp scan of the warp totals, and one elected lane claims the block's range with one atomic.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include "../../common/harness.cuh"

namespace cg = cooperative_groups;

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr unsigned FULL = 0xffffffffu;

// elect.sync (sm_90): exactly one lane of `mask` is chosen; every lane learns which one.
__device__ unsigned elect_lane(unsigned mask, bool* elected) {
  unsigned lane;
  unsigned pred;
  asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
               : "=r"(lane), "=r"(pred) : "r"(mask));
  *elected = pred != 0;
  return lane;
}

// The instruction under __shfl_sync, written out: read `v` from lane `src` of the warp.
__device__ unsigned shfl_idx(unsigned v, int src) {
  unsigned out;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;" : "=r"(out) : "r"(v), "r"(src), "r"(FULL));
  return out;
}

__global__ __launch_bounds__(THREADS) void compact(const float* __restrict__ x, long n, float* __restrict__ y,
                                                   unsigned* __restrict__ count) {
  __shared__ unsigned warp_total[WARPS];
  __shared__ unsigned warp_base[WARPS];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int lane = threadIdx.x % warpSize;
  const int w = threadIdx.x / warpSize;
  for (long start = (long)blockIdx.x * THREADS; start < n; start += (long)gridDim.x * THREADS) {
    long i = start + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    bool keep = v > 0.0f;
    unsigned rank;
    if (__all_sync(FULL, keep)) {
      rank = lane;  // every lane keeps: no ballot needed
      if (lane == 0) warp_total[w] = 32;
    } else {
      unsigned bits = __ballot_sync(FULL, keep);
      bool any = __any_sync(FULL, keep);  // every lane of FULL must take part: not inside `lane == 0`
      rank = __popc(bits & ((1u << lane) - 1));  // kept lanes below this one
      if (lane == 0) warp_total[w] = any ? __popc(bits) : 0;
    }
    // a barrier that also counts: the block's kept elements, and warp_total is visible after it
    int block_total = __syncthreads_count(keep);
    if (w == 0) {
      unsigned t = lane < WARPS ? warp_total[lane] : 0;
      unsigned offset = cg::exclusive_scan(warp, t);
      bool elected;
      unsigned leader = elect_lane(FULL, &elected);
      unsigned base = 0;
      if (elected && block_total) base = atomicAdd(count, (unsigned)block_total);
      base = shfl_idx(base, leader);  // broadcast the claimed range from the elected lane
      if (lane < WARPS) warp_base[lane] = base + offset;
      __syncwarp();
    }
    __syncthreads();
    if (keep) y[warp_base[w] + rank] = v;
    __syncthreads();  // warp_total and warp_base are rewritten in the next tile
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* y = harness::poisoned<float>(n);
  unsigned* count = harness::poisoned<unsigned>(1);
  int blocks = harness::sm_count() * (2048 / THREADS);
  auto launch = [&] {
    CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned)));
    compact<<<blocks, THREADS>>>(x, n, y, count);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host_y = harness::to_host(y, n);
  auto host_count = harness::to_host(count, 1);
  harness::write(args, "y", host_y.data(), n);
  harness::write(args, "count", host_count.data(), 1);
  harness::report(ms);
  CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(count));
  return 0;
}
