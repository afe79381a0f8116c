// Inclusive prefix sum of n int32 values in one pass: a single-pass scan with decoupled
// look-back. Each block takes the next tile index from a counter (so every tile's predecessors
// were started before it), scans its tile, publishes the tile's total ("aggregate") at once, then
// looks back over its predecessors' published words until it meets one that carries a full
// inclusive prefix, adds what it passed, publishes its own inclusive prefix and writes the tile.
// The data is read once and written once, with 16-byte coalesced accesses and no staging.
// Within a tile each thread holds ROWS int4 vectors (row r of the tile is int4 r * THREADS + t),
// warps scan the per-thread sums with shuffle-up steps for all rows at once, and warp 0 scans the
// ROWS x WARPS warp totals. A tile's status word packs a flag and the value in 64 bits, so one
// relaxed load or store moves both together.
#include "../../common/harness.cuh"

constexpr int THREADS = 512;
constexpr int ROWS = 4;  // int4 vectors per thread
constexpr int TILE = THREADS * ROWS * 4;
constexpr int WARPS = THREADS / 32;
constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr unsigned long long FLAG_AGGREGATE = 1ull << 32, FLAG_PREFIX = 2ull << 32;

__device__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    int below = __shfl_up_sync(FULL_MASK, v, d);  // value of lane - d (own value where lane < d)
    if (lane >= d) v += below;
  }
  return v;
}

__device__ void publish(unsigned long long* word, unsigned long long flag, int value) {
  unsigned long long w = flag | (unsigned)value;
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(w) : "memory");
}

__device__ unsigned long long peek(const unsigned long long* word) {
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(word) : "memory");
  return w;
}

// Warp 0: the sum of every element before tile `tile`, from the predecessors' status words,
// 32 predecessors per step (lane 0 the nearest), until one of them carries an inclusive prefix.
__device__ int look_back(const unsigned long long* status, long tile) {
  int lane = threadIdx.x % 32;
  int exclusive = 0;
  for (long pred = tile - 1;; pred -= 32) {
    long idx = pred - lane;
    unsigned long long w = idx >= 0 ? peek(&status[idx]) : FLAG_PREFIX;  // before tile 0: prefix 0
    while (__any_sync(FULL_MASK, (w >> 32) == 0))  // some predecessor has not published yet
      if ((w >> 32) == 0) w = peek(&status[idx]);
    unsigned prefixes = __ballot_sync(FULL_MASK, (w >> 32) == 2);
    int v = (int)(unsigned)w;
    if (prefixes) {
      int nearest = __ffs(prefixes) - 1;  // stop at the nearest inclusive prefix
      exclusive += __reduce_add_sync(FULL_MASK, lane <= nearest ? v : 0);
      return exclusive;
    }
    exclusive += __reduce_add_sync(FULL_MASK, v);
  }
}

__global__ __launch_bounds__(THREADS) void scan_single_pass(const int4* __restrict__ in4, const int* __restrict__ in,
                                                            int4* __restrict__ out4, int* __restrict__ out, long n,
                                                            unsigned long long* status, unsigned* next_tile) {
  __shared__ int warp_totals[ROWS * WARPS];
  __shared__ long tile_shared;
  __shared__ int tile_prefix;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  const long tile = tile_shared;
  const long base = tile * TILE;
  const bool full = base + TILE <= n;
  int4 v[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    long e = base + (long)(r * THREADS + threadIdx.x) * 4;
    if (full) {
      v[r] = in4[e / 4];
    } else {
      v[r].x = e < n ? in[e] : 0;
      v[r].y = e + 1 < n ? in[e + 1] : 0;
      v[r].z = e + 2 < n ? in[e + 2] : 0;
      v[r].w = e + 3 < n ? in[e + 3] : 0;
    }
  }
  // serial scan inside each int4, then a warp scan of the per-thread sums of every row
  int incl[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    v[r].y += v[r].x; v[r].z += v[r].y; v[r].w += v[r].z;
    incl[r] = warp_inclusive_scan(v[r].w);
    if (lane == 31) warp_totals[r * WARPS + warp] = incl[r];
  }
  __syncthreads();
  if (warp == 0) {
    // ROWS * WARPS totals in row-major order = the tile's order: two per lane for 4 x 16
    constexpr int PER_LANE = ROWS * WARPS / 32;
    int t[PER_LANE], s = 0;
#pragma unroll
    for (int j = 0; j < PER_LANE; ++j) s += (t[j] = warp_totals[lane * PER_LANE + j]);
    int lane_incl = warp_inclusive_scan(s);
    int aggregate = __shfl_sync(FULL_MASK, lane_incl, 31);
    if (lane == 0) publish(&status[tile], tile == 0 ? FLAG_PREFIX : FLAG_AGGREGATE, aggregate);
    int before = tile == 0 ? 0 : look_back(status, tile);
    if (lane == 0) {
      if (tile > 0) publish(&status[tile], FLAG_PREFIX, before + aggregate);
      tile_prefix = before;
    }
    int run = lane_incl - s;
#pragma unroll
    for (int j = 0; j < PER_LANE; ++j) {
      warp_totals[lane * PER_LANE + j] = run;  // exclusive offset of (row, warp) inside the tile
      run += t[j];
    }
  }
  __syncthreads();
  const int prefix = tile_prefix;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    int add = prefix + warp_totals[r * WARPS + warp] + incl[r] - v[r].w;
    int4 o = make_int4(v[r].x + add, v[r].y + add, v[r].z + add, v[r].w + add);
    long e = base + (long)(r * THREADS + threadIdx.x) * 4;
    if (full) {
      out4[e / 4] = o;
    } else {
      if (e < n) out[e] = o.x;
      if (e + 1 < n) out[e + 1] = o.y;
      if (e + 2 < n) out[e + 2] = o.z;
      if (e + 3 < n) out[e + 3] = o.w;
    }
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int* in = harness::to_device(harness::read<int>(args, "x", n));
  int* out = harness::poisoned<int>(n);
  long tiles = (n + TILE - 1) / TILE;
  unsigned long long* status = nullptr;  // one status word per tile, then the tile counter
  CHECK(cudaMalloc(&status, tiles * sizeof(unsigned long long) + sizeof(unsigned)));
  auto* next_tile = reinterpret_cast<unsigned*>(status + tiles);
  auto* in4 = reinterpret_cast<const int4*>(in);
  auto launch = [&] {
    CHECK(cudaMemsetAsync(status, 0, tiles * sizeof(unsigned long long) + sizeof(unsigned)));
    scan_single_pass<<<tiles, THREADS>>>(in4, in, reinterpret_cast<int4*>(out), out, n, status, next_tile);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "y", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(status));
  return 0;
}
