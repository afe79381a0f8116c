// Stream compaction for AMD GPUs: copy the positive elements of x to y, in any order across
// blocks. A wavefront is 64 lanes on CDNA, so the ballot is 64 bits wide (__ballot returns
// unsigned long long) and ranks need __popcll and a 64-bit lane mask. HIP has no elect: the
// leader is the lowest set bit of a ballot of true, and a value is broadcast with
// ds_bpermute (the LDS crossbar that __shfl is built on) or with readlane into a scalar register.
#include "../../common/harness_hip.h"
#include "../../common/hip_cg.h"

namespace cg = cooperative_groups;

constexpr int THREADS = 256;

// lane `src` of the wavefront -> every lane, through the LDS permute hardware (byte address)
__device__ unsigned bpermute(unsigned v, int src) {
  return (unsigned)__builtin_amdgcn_ds_bpermute(src << 2, (int)v);
}

__global__ __launch_bounds__(THREADS) void compact(const float* __restrict__ x, long n, float* __restrict__ y,
                                                   unsigned* __restrict__ count) {
  constexpr int MAX_WAVES = THREADS / 32;  // enough for wave32 builds too
  __shared__ unsigned wave_total[MAX_WAVES];
  __shared__ unsigned wave_base[MAX_WAVES];
  cg::thread_block block = cg::this_thread_block();
  const int lane = threadIdx.x % warpSize;
  const int w = threadIdx.x / warpSize;
  const int waves = THREADS / warpSize;
  for (long start = (long)blockIdx.x * THREADS; start < n; start += (long)gridDim.x * THREADS) {
    long i = start + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    bool keep = v > 0.0f;
    unsigned rank;
    if (__all(keep)) {
      rank = lane;
      if (lane == 0) wave_total[w] = warpSize;
    } else {
      unsigned long long bits = __ballot(keep);  // 64 bits on wave64
      bool any = __any(keep);  // outside `lane == 0`: a vote counts only the lanes that reach it
      rank = __popcll(bits & ((1ull << lane) - 1));
      if (lane == 0) wave_total[w] = any ? __popcll(bits) : 0;
    }
    int block_total = __syncthreads_count(keep);
    if (w == 0) {
      // exclusive scan of the wave totals with shuffles (no warp-scan primitive in HIP itself)
      unsigned t = lane < waves ? wave_total[lane] : 0;
      unsigned incl = t;
      for (int d = 1; d < warpSize; d *= 2) {
        unsigned up = __shfl_up(incl, d);
        if (lane >= d) incl += up;
      }
      int leader = __ffsll((unsigned long long)__ballot(1)) - 1;  // lowest active lane
      unsigned base = 0;
      if (lane == leader && block_total) base = atomicAdd(count, (unsigned)block_total);
      base = bpermute(base, leader);
      if (lane < waves) wave_base[lane] = base + incl - t;
      __builtin_amdgcn_wave_barrier();
    }
    block.sync();
    if (keep) y[wave_base[w] + rank] = v;
    block.sync();
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* y = harness::poisoned<float>(n);
  unsigned* count = harness::poisoned<unsigned>(1);
  int blocks = harness::sm_count() * 8;
  auto launch = [&] {
    CHECK(hipMemsetAsync(count, 0, sizeof(unsigned)));
    hipLaunchKernelGGL(compact, dim3(blocks), dim3(THREADS), 0, 0, x, n, y, count);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host_y = harness::to_host(y, n);
  auto host_count = harness::to_host(count, 1);
  harness::write(args, "y", host_y.data(), n);
  harness::write(args, "count", host_count.data(), 1);
  harness::report(ms);
  CHECK(hipFree(x)); CHECK(hipFree(y)); CHECK(hipFree(count));
  return 0;
}
