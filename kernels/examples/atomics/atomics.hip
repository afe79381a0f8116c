// Per-bucket statistics of (key, value) pairs with every kind of atomic, for AMD GPUs. The block's
// private copy lives in LDS and is updated with clang's scoped atomic builtins at work-group
// scope (ds_min_i32, ds_or_b32 ...); the merge into global memory uses HIP's atomics, which are
// device (agent) scoped (global_atomic_*). HIP 5 has no __match_any: match_any below is the
// software loop that newer HIP uses too, one readfirstlane and one 64-bit ballot per distinct key.
#include <climits>
#include <cfloat>

#include "../../common/harness_hip.h"

constexpr int BUCKETS = 1024;
constexpr int THREADS = 512;
constexpr float SCALE = 1.0f / 1024.0f;

__device__ void atomic_max_float(float* addr, float v) {
  unsigned* word = reinterpret_cast<unsigned*>(addr);
  unsigned seen = __hip_atomic_load(word, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__uint_as_float(seen) < v) {
    unsigned prev = atomicCAS(word, seen, __float_as_uint(v));
    if (prev == seen) break;
    seen = prev;
  }
}

// Lanes of the wavefront whose key equals this lane's key, as a 64-bit mask.
__device__ unsigned long long match_any(unsigned key) {
  unsigned long long result = 0;
  unsigned long long todo = __ballot(1);
  while (todo) {
    unsigned pick = __builtin_amdgcn_readfirstlane(key);  // the first remaining lane's key, wave-uniform
    unsigned long long same = __ballot(key == pick);
    if (key == pick) result = same;
    todo &= ~same;
    if (key == pick) break;
  }
  return result;
}

struct Stats {
  int* mn; int* mx; unsigned* band; unsigned* bor; unsigned* bxor; unsigned* cnt; float* fmax;
};

__global__ __launch_bounds__(THREADS) void bucket_stats(const unsigned* __restrict__ keys, const int* __restrict__ vals,
                                                        long n, Stats g, unsigned* seen_x, unsigned* seen_c,
                                                        unsigned* distinct) {
  __shared__ int mn[BUCKETS], mx[BUCKETS];
  __shared__ unsigned band[BUCKETS], bor[BUCKETS], bxor[BUCKETS], cnt[BUCKETS];
  __shared__ float fmax[BUCKETS];
  for (int b = threadIdx.x; b < BUCKETS; b += blockDim.x) {
    mn[b] = INT_MAX; mx[b] = INT_MIN; band[b] = ~0u; bor[b] = 0; bxor[b] = 0; cnt[b] = 0; fmax[b] = -FLT_MAX;
  }
  __syncthreads();
  const int lane = threadIdx.x % warpSize;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i - threadIdx.x < n; i += (long)gridDim.x * blockDim.x) {
    bool valid = i < n;
    unsigned k = valid ? keys[i] : BUCKETS;
    int v = valid ? vals[i] : 0;
    unsigned long long peers = match_any(k);
    if (!valid) continue;
    if (lane == __ffsll(peers) - 1)
      __hip_atomic_fetch_add(&cnt[k], (unsigned)__popcll(peers), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_min(&mn[k], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_max(&mx[k], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_and(&band[k], (unsigned)v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_or(&bor[k], (unsigned)v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_xor(&bxor[k], (unsigned)v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    atomic_max_float(&fmax[k], v * SCALE);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BUCKETS; b += blockDim.x) {
    if (!cnt[b]) continue;
    atomicAdd(&g.cnt[b], cnt[b]);
    atomicMin(&g.mn[b], mn[b]);
    atomicMax(&g.mx[b], mx[b]);
    atomicAnd(&g.band[b], band[b]);
    atomicOr(&g.bor[b], bor[b]);
    atomicXor(&g.bxor[b], bxor[b]);
    atomic_max_float(&g.fmax[b], fmax[b]);
    if (atomicExch(&seen_x[b], 1u) == 0u) atomicAdd(&distinct[0], 1u);
    if (atomicCAS(&seen_c[b], 0u, 1u) == 0u) atomicAdd(&distinct[1], 1u);
  }
}

__global__ void init_stats(Stats g, unsigned* seen_x, unsigned* seen_c, unsigned* distinct) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < 2) distinct[b] = 0;
  if (b >= BUCKETS) return;
  g.mn[b] = INT_MAX; g.mx[b] = INT_MIN; g.band[b] = ~0u; g.bor[b] = 0; g.bxor[b] = 0; g.cnt[b] = 0;
  g.fmax[b] = -FLT_MAX; seen_x[b] = 0; seen_c[b] = 0;
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  unsigned* keys = harness::to_device(harness::read<unsigned>(args, "keys", n));
  int* vals = harness::to_device(harness::read<int>(args, "vals", n));
  Stats g{harness::poisoned<int>(BUCKETS), harness::poisoned<int>(BUCKETS), harness::poisoned<unsigned>(BUCKETS),
          harness::poisoned<unsigned>(BUCKETS), harness::poisoned<unsigned>(BUCKETS), harness::poisoned<unsigned>(BUCKETS),
          harness::poisoned<float>(BUCKETS)};
  unsigned* seen_x = harness::poisoned<unsigned>(BUCKETS);
  unsigned* seen_c = harness::poisoned<unsigned>(BUCKETS);
  unsigned* distinct = harness::poisoned<unsigned>(2);
  int blocks = harness::sm_count() * 2;
  auto launch = [&] {
    hipLaunchKernelGGL(init_stats, dim3((BUCKETS + 255) / 256), dim3(256), 0, 0, g, seen_x, seen_c, distinct);
    hipLaunchKernelGGL(bucket_stats, dim3(blocks), dim3(THREADS), 0, 0, keys, vals, n, g, seen_x, seen_c, distinct);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto w = [&](const char* name, auto* d, size_t count) {
    auto h = harness::to_host(d, count);
    harness::write(args, name, h.data(), count);
  };
  w("mn", g.mn, BUCKETS); w("mx", g.mx, BUCKETS); w("band", g.band, BUCKETS); w("bor", g.bor, BUCKETS);
  w("bxor", g.bxor, BUCKETS); w("cnt", g.cnt, BUCKETS); w("fmax", g.fmax, BUCKETS); w("distinct", distinct, 2);
  harness::report(ms);
  for (void* p : {(void*)keys, (void*)vals, (void*)g.mn, (void*)g.mx, (void*)g.band, (void*)g.bor, (void*)g.bxor,
                  (void*)g.cnt, (void*)g.fmax, (void*)seen_x, (void*)seen_c, (void*)distinct})
    CHECK(hipFree(p));
  return 0;
}
