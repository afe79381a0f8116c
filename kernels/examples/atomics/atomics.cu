// Per-bucket statistics of (key, value) pairs with every kind of atomic. Each block keeps a
// private copy of the statistics in shared memory, updated with block-scoped atomics (min, max,
// and, or, xor, add; a compare-and-swap loop for a float maximum), then merges each bucket
// into the global copy with device-scoped atomics. Exchange and compare-and-swap each mark a
// bucket as seen, so the first block to touch a bucket counts it once. Lanes of one warp that
// share a key first agree on a leader with __match_any_sync, which adds the group's count once.
#include <climits>
#include <cfloat>

#include "../../common/harness.cuh"

constexpr int BUCKETS = 1024;
constexpr int THREADS = 512;
constexpr float SCALE = 1.0f / 1024.0f;  // the float statistic is value * SCALE

// A float maximum from compare-and-swap on the bit pattern: retry until no other thread changed
// the word between our read and our swap.
__device__ void atomic_max_float(float* addr, float v) {
  unsigned* word = reinterpret_cast<unsigned*>(addr);
  unsigned seen = *word;
  while (__uint_as_float(seen) < v) {
    unsigned prev = atomicCAS(word, seen, __float_as_uint(v));
    if (prev == seen) break;
    seen = prev;
  }
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
  const int lane = threadIdx.x % 32;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i - threadIdx.x < n; i += (long)gridDim.x * blockDim.x) {
    bool valid = i < n;
    unsigned k = valid ? keys[i] : BUCKETS;  // an out-of-range key groups the idle lanes
    int v = valid ? vals[i] : 0;
    unsigned peers = __match_any_sync(0xffffffffu, k);  // lanes holding the same key
    if (!valid) continue;
    if (lane == __ffs(peers) - 1) atomicAdd_block(&cnt[k], __popc(peers));  // one add per key group
    atomicMin_block(&mn[k], v);
    atomicMax_block(&mx[k], v);
    atomicAnd_block(&band[k], (unsigned)v);
    atomicOr_block(&bor[k], (unsigned)v);
    atomicXor_block(&bxor[k], (unsigned)v);
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
    // the first block to see bucket b gets back 0 from the exchange (and from the swap)
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
  int blocks = harness::sm_count() * 2;  // 2 x 512 threads and 29 KB of shared memory each
  auto launch = [&] {
    init_stats<<<(BUCKETS + 255) / 256, 256>>>(g, seen_x, seen_c, distinct);
    bucket_stats<<<blocks, THREADS>>>(keys, vals, n, g, seen_x, seen_c, distinct);
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
    CHECK(cudaFree(p));
  return 0;
}
