// Inclusive prefix sum of n int32 values in one pass: a single-pass scan with decoupled
// look-back. Each block takes the next tile index from a counter (so every tile's predecessors
// were started before it), scans its tile, publishes the tile's total ("aggregate") at once, then
// looks back over its predecessors' published words until it meets one that carries a full
// inclusive prefix, adds what it passed, publishes its own inclusive prefix and writes the tile.
// The data is read once and written once, with 16-byte coalesced accesses.
//
// A memory-bound pass runs at the speed of the bytes it keeps in flight. The tile is copied into
// dynamic shared memory with cp.async (16 bytes per thread and instruction, no registers held
// while the copies fly), so a block's tile can be larger than its registers, and each thread
// then reads back only the vectors it copied itself (no barrier needed). Row r of a tile is
// int4 r * THREADS + t; warps scan the per-thread sums with shuffle-up steps, warp 0 scans the
// ROWS x WARPS warp totals. A tile's status word packs the launch's epoch, a kind and the value
// in 64 bits, so one relaxed load or store moves them together, and no memset is needed between
// launches. A second kernel adds a warp that looks back while the others are still loading. A
// third keeps two tiles in the registers of each persistent block, so that a block loads and
// publishes its next tile while it looks back for the one it holds (see scan_two_tiles).
// Several tile shapes of all three are compiled; the program times each on the real input, checks
// each one's output against the first shape's on the device, keeps the fastest that agrees,
// and reports which.
#include "../../common/harness.cuh"

#ifndef SCAN_ONLY
#define SCAN_ONLY -1  // >= 0: time that shape alone (the tuning sweep checks each shape this way)
#endif
#ifndef SCAN_EARLY
#define SCAN_EARLY 1  // 0: leave out the shapes with a look-back warp
#endif
#ifndef SCAN_TRIES
#define SCAN_TRIES 5
#endif

constexpr unsigned FULL_MASK = 0xffffffffu;
// A status word: the value in the low 32 bits; above it the kind (bits 32-33: 0 nothing yet, 1 the
// tile's aggregate, 2 its inclusive prefix) and the launch's epoch (bits 34-63, counting from 1).
// Words of earlier launches read as "nothing yet", so the words are zeroed once, not per launch.
constexpr unsigned AGGREGATE = 1, PREFIX = 2;

__device__ __forceinline__ unsigned long long status_word(unsigned kind, unsigned epoch, int value) {
  return ((unsigned long long)((epoch << 2) | kind) << 32) | (unsigned)value;
}

__device__ __forceinline__ unsigned kind_of(unsigned long long w, unsigned epoch) {
  unsigned flags = (unsigned)(w >> 32);
  return (flags >> 2) == epoch ? (flags & 3u) : 0u;
}

__device__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    int below = __shfl_up_sync(FULL_MASK, v, d);  // value of lane - d (own value where lane < d)
    if (lane >= d) v += below;
  }
  return v;
}

__device__ void publish(unsigned long long* word, unsigned kind, unsigned epoch, int value) {
  unsigned long long w = status_word(kind, epoch, value);
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(w) : "memory");
}

__device__ unsigned long long peek(const unsigned long long* word) {
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(word) : "memory");
  return w;
}

// 16 bytes from global to shared memory without passing through registers (sm_80 and later).
__device__ void copy_async_16(int4* smem, const int4* gmem) {
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(gmem) : "memory");
}

// Warp 0: the sum of every element before tile `tile`, from the predecessors' status words,
// 32 predecessors per step (lane 0 the nearest), until one of them carries an inclusive prefix.
__device__ int look_back(const unsigned long long* status, long tile, unsigned epoch) {
  int lane = threadIdx.x % 32;
  int exclusive = 0;
  for (long pred = tile - 1;; pred -= 32) {
    long idx = pred - lane;
    unsigned long long w = idx >= 0 ? peek(&status[idx]) : status_word(PREFIX, epoch, 0);  // before tile 0
    while (__any_sync(FULL_MASK, kind_of(w, epoch) == 0))  // some predecessor has not published yet
      if (kind_of(w, epoch) == 0) w = peek(&status[idx]);
    unsigned prefixes = __ballot_sync(FULL_MASK, kind_of(w, epoch) == PREFIX);
    int v = (int)(unsigned)w;
    if (prefixes) {
      int nearest = __ffs(prefixes) - 1;  // stop at the nearest inclusive prefix
      exclusive += __reduce_add_sync(FULL_MASK, lane <= nearest ? v : 0);
      return exclusive;
    }
    exclusive += __reduce_add_sync(FULL_MASK, v);
  }
}

template <int THREADS, int ROWS>
__global__ __launch_bounds__(THREADS) void scan_single_pass(const int4* __restrict__ in4, const int* __restrict__ in,
                                                            int4* __restrict__ out4, int* __restrict__ out, long n,
                                                            unsigned long long* status, unsigned* next_tile,
                                                            unsigned* spare_counter, unsigned epoch) {
  constexpr int WARPS = THREADS / 32;
  constexpr int TILE = THREADS * ROWS * 4;
  constexpr int PER_LANE = ROWS * WARPS / 32;  // warp totals scanned per lane of warp 0
  static_assert(PER_LANE * 32 == ROWS * WARPS, "ROWS x WARPS must be a multiple of 32");
  extern __shared__ int4 stage[];  // TILE / 4 vectors: THREADS * ROWS
  __shared__ int warp_totals[ROWS * WARPS];
  __shared__ long tile_shared;
  __shared__ int tile_prefix;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (blockIdx.x == 0 && threadIdx.x == 0) *spare_counter = 0;  // the next launch's counter
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  const long tile = tile_shared;
  const long base = tile * TILE;
  const bool full = base + TILE <= n;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    int slot = r * THREADS + threadIdx.x;
    long e = base + (long)slot * 4;
    if (full) {
      copy_async_16(&stage[slot], &in4[e / 4]);
    } else {
      stage[slot] = make_int4(e < n ? in[e] : 0, e + 1 < n ? in[e + 1] : 0, e + 2 < n ? in[e + 2] : 0,
                              e + 3 < n ? in[e + 3] : 0);
    }
  }
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");  // this thread's copies landed
  int incl[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    int4 v = stage[r * THREADS + threadIdx.x];
    incl[r] = warp_inclusive_scan((v.x + v.y) + (v.z + v.w));
    if (lane == 31) warp_totals[r * WARPS + warp] = incl[r];
  }
  __syncthreads();
  if (warp == 0) {
    int t[PER_LANE], s = 0;
#pragma unroll
    for (int j = 0; j < PER_LANE; ++j) s += (t[j] = warp_totals[lane * PER_LANE + j]);
    int lane_incl = warp_inclusive_scan(s);
    int aggregate = __shfl_sync(FULL_MASK, lane_incl, 31);
    if (lane == 0) publish(&status[tile], tile == 0 ? PREFIX : AGGREGATE, epoch, aggregate);
    int before = tile == 0 ? 0 : look_back(status, tile, epoch);
    if (lane == 0) {
      if (tile > 0) publish(&status[tile], PREFIX, epoch, before + aggregate);
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
    int4 v = stage[r * THREADS + threadIdx.x];
    int add = prefix + warp_totals[r * WARPS + warp] + incl[r] - ((v.x + v.y) + (v.z + v.w));
    v.x += add; v.y += v.x; v.z += v.y; v.w += v.z;  // add the offset, then scan inside the vector
    long e = base + (long)(r * THREADS + threadIdx.x) * 4;
    if (full) {
      out4[e / 4] = v;
    } else {
      if (e < n) out[e] = v.x;
      if (e + 1 < n) out[e + 1] = v.y;
      if (e + 2 < n) out[e + 2] = v.z;
      if (e + 3 < n) out[e + 3] = v.w;
    }
  }
}

// The same scan with one more warp per block that does the look-back while the other warps load
// and scan the tile (SCAN_EARLY): the predecessors' words are read while the tile's bytes are
// still on their way, instead of after them. The look-back warp also publishes the tile's
// aggregate as soon as the scanning warps hand it over, so successors never wait for its look-back.
__device__ bool post_aggregate(unsigned long long* status, long tile, unsigned epoch, volatile int* ready,
                               volatile int* aggregate) {
  int lane = threadIdx.x % 32, posted = 0;
  if (lane == 0 && *ready) {
    __threadfence_block();  // the aggregate was written before the flag
    publish(&status[tile], AGGREGATE, epoch, *aggregate);
    posted = 1;
  }
  return __shfl_sync(FULL_MASK, posted, 0);
}

__device__ int look_back_early(unsigned long long* status, long tile, unsigned epoch, volatile int* ready,
                               volatile int* aggregate) {
  int lane = threadIdx.x % 32;
  int exclusive = 0;
  bool posted = false;
  for (long pred = tile - 1;; pred -= 32) {
    long idx = pred - lane;
    unsigned long long w = idx >= 0 ? peek(&status[idx]) : status_word(PREFIX, epoch, 0);
    while (__any_sync(FULL_MASK, kind_of(w, epoch) == 0)) {
      if (!posted) posted = post_aggregate(status, tile, epoch, ready, aggregate);
      if (kind_of(w, epoch) == 0) w = peek(&status[idx]);
    }
    unsigned prefixes = __ballot_sync(FULL_MASK, kind_of(w, epoch) == PREFIX);
    int v = (int)(unsigned)w;
    if (prefixes) {
      int nearest = __ffs(prefixes) - 1;
      return exclusive + __reduce_add_sync(FULL_MASK, lane <= nearest ? v : 0);
    }
    exclusive += __reduce_add_sync(FULL_MASK, v);
  }
}

template <int THREADS, int ROWS>
__global__ __launch_bounds__(THREADS + 32) void scan_early_look_back(const int4* __restrict__ in4,
                                                                    const int* __restrict__ in,
                                                                    int4* __restrict__ out4, int* __restrict__ out,
                                                                    long n, unsigned long long* status,
                                                                    unsigned* next_tile, unsigned* spare_counter,
                                                                    unsigned epoch) {
  constexpr int WARPS = THREADS / 32;  // scanning warps; warp WARPS looks back
  constexpr int TILE = THREADS * ROWS * 4;
  constexpr int PER_LANE = ROWS * WARPS / 32;
  static_assert(PER_LANE * 32 == ROWS * WARPS, "ROWS x WARPS must be a multiple of 32");
  extern __shared__ int4 stage[];
  __shared__ int warp_totals[ROWS * WARPS];
  __shared__ long tile_shared;
  __shared__ int tile_prefix;
  __shared__ volatile int aggregate_shared, aggregate_ready;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (blockIdx.x == 0 && threadIdx.x == 0) *spare_counter = 0;  // the next launch's counter
  if (threadIdx.x == 0) {
    tile_shared = atomicAdd(next_tile, 1u);
    aggregate_ready = 0;
  }
  __syncthreads();
  const long tile = tile_shared;
  const long base = tile * TILE;
  const bool full = base + TILE <= n;
  int incl[ROWS];
  if (warp == WARPS) {
    int before = tile == 0 ? 0 : look_back_early(status, tile, epoch, &aggregate_ready, &aggregate_shared);
    if (lane == 0) {
      while (!aggregate_ready) {
      }
      __threadfence_block();
      publish(&status[tile], PREFIX, epoch, before + aggregate_shared);
      tile_prefix = before;
    }
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      int slot = r * THREADS + threadIdx.x;
      long e = base + (long)slot * 4;
      if (full) {
        copy_async_16(&stage[slot], &in4[e / 4]);
      } else {
        stage[slot] = make_int4(e < n ? in[e] : 0, e + 1 < n ? in[e + 1] : 0, e + 2 < n ? in[e + 2] : 0,
                                e + 3 < n ? in[e + 3] : 0);
      }
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      int4 v = stage[r * THREADS + threadIdx.x];
      incl[r] = warp_inclusive_scan((v.x + v.y) + (v.z + v.w));
      if (lane == 31) warp_totals[r * WARPS + warp] = incl[r];
    }
    asm volatile("bar.sync 1, %0;" ::"r"(THREADS) : "memory");  // the scanning warps only
    if (warp == 0) {
      int t[PER_LANE], s = 0;
#pragma unroll
      for (int j = 0; j < PER_LANE; ++j) s += (t[j] = warp_totals[lane * PER_LANE + j]);
      int lane_incl = warp_inclusive_scan(s);
      if (lane == 31) {
        aggregate_shared = lane_incl;
        __threadfence_block();
        aggregate_ready = 1;  // to the look-back warp
      }
      int run = lane_incl - s;
#pragma unroll
      for (int j = 0; j < PER_LANE; ++j) {
        warp_totals[lane * PER_LANE + j] = run;
        run += t[j];
      }
    }
  }
  __syncthreads();
  if (warp < WARPS) {
    const int prefix = tile_prefix;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      int4 v = stage[r * THREADS + threadIdx.x];
      int add = prefix + warp_totals[r * WARPS + warp] + incl[r] - ((v.x + v.y) + (v.z + v.w));
      v.x += add; v.y += v.x; v.z += v.y; v.w += v.z;
      long e = base + (long)(r * THREADS + threadIdx.x) * 4;
      if (full) {
        out4[e / 4] = v;
      } else {
        if (e < n) out[e] = v.x;
        if (e + 1 < n) out[e + 1] = v.y;
        if (e + 2 < n) out[e + 2] = v.z;
        if (e + 3 < n) out[e + 3] = v.w;
      }
    }
  }
}

// Persistent blocks that hold two tiles. In the kernels above a block waits in its look-back until every
// predecessor's bytes have landed, and loads nothing while it waits: one late tile stalls every block
// behind it, and the memory system runs dry (the same kernel with the look-back left out runs at a copy's
// speed). Here a block takes its next tile, loads it, reduces it and publishes its aggregate first, and
// only then looks back for the tile it already holds and writes that one out. The look-back overlaps the
// next tile's loads, it finds its predecessors' words already published, and no aggregate ever waits on a
// look-back. Every wait is on a lower tile, and every tile handed out publishes its aggregate as soon as
// its own loads land, so the chain always ends at tile 0. Tiles live in registers: warp w of a block holds
// 32 x VECS vectors in a row, lane l vector j * 32 + l, so each load and store instruction of a warp moves
// 512 contiguous bytes.
template <int THREADS, int VECS>
__device__ __forceinline__ long first_vector(long tile) {
  return tile * (THREADS * VECS) + (long)(threadIdx.x / 32) * 32 * VECS + threadIdx.x % 32;
}

template <int THREADS, int VECS>
__device__ __forceinline__ void load_tile(const int4* __restrict__ in4, const int* __restrict__ in, long n, long tile,
                                          int4 (&v)[VECS]) {
  const long first = first_vector<THREADS, VECS>(tile);
  const bool full = (tile + 1) * (long)(THREADS * VECS * 4) <= n;
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    long e = (first + j * 32) * 4;
    v[j] = full ? in4[e / 4]
                : make_int4(e < n ? in[e] : 0, e + 1 < n ? in[e + 1] : 0, e + 2 < n ? in[e + 2] : 0, e + 3 < n ? in[e + 3] : 0);
  }
}

// The warp's total; pre[j] is what comes before vector j inside the warp's run of vectors.
template <int VECS>
__device__ __forceinline__ int reduce_vectors(const int4 (&v)[VECS], int (&pre)[VECS]) {
  int run = 0;
#pragma unroll
  for (int j = 0; j < VECS; ++j) {
    int sum = (v[j].x + v[j].y) + (v[j].z + v[j].w);
    int incl = warp_inclusive_scan(sum);
    pre[j] = run + incl - sum;
    run += __shfl_sync(FULL_MASK, incl, 31);
  }
  return run;
}

// Warp 0: turns the warp totals in `totals` into each warp's offset inside the tile; returns the tile's sum.
template <int WARPS>
__device__ __forceinline__ int warp_offsets(int* totals) {
  int lane = threadIdx.x % 32;
  int t = lane < WARPS ? totals[lane] : 0;
  int incl = warp_inclusive_scan(t);
  if (lane < WARPS) totals[lane] = incl - t;
  return __shfl_sync(FULL_MASK, incl, 31);
}

template <int THREADS, int VECS, int MIN_BLOCKS>
__global__ __launch_bounds__(THREADS, MIN_BLOCKS) void scan_two_tiles(const int4* __restrict__ in4,
                                                                      const int* __restrict__ in,
                                                                      int4* __restrict__ out4, int* __restrict__ out,
                                                                      long n, unsigned long long* status,
                                                                      unsigned* next_tile, unsigned* spare_counter,
                                                                      unsigned epoch) {
  constexpr int WARPS = THREADS / 32;
  static_assert(WARPS <= 32, "warp 0 scans the warp totals");
  constexpr long TILE = (long)THREADS * VECS * 4;
  const long tiles = (n + TILE - 1) / TILE;
  __shared__ int totals[2][WARPS];  // the held tile's and the next tile's
  __shared__ long tile_shared;
  __shared__ int tile_prefix;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (blockIdx.x == 0 && threadIdx.x == 0) *spare_counter = 0;  // the next launch's counter
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  __syncthreads();
  long held = tile_shared;
  if (held >= tiles) return;
  int4 v[VECS];
  int pre[VECS];
  load_tile<THREADS, VECS>(in4, in, n, held, v);
  int run = reduce_vectors<VECS>(v, pre);
  if (lane == 0) totals[0][warp] = run;
  __syncthreads();
  int aggregate = 0;
  if (warp == 0) {
    aggregate = warp_offsets<WARPS>(totals[0]);
    if (lane == 0) publish(&status[held], held == 0 ? PREFIX : AGGREGATE, epoch, aggregate);
  }
  int slot = 0;  // totals[slot] holds the held tile's warp offsets
  for (;;) {
    __syncthreads();  // every warp has read tile_shared and last round's offsets
    if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
    __syncthreads();
    const long next = tile_shared;
    const bool more = next < tiles;  // the same for the whole block
    int4 w[VECS];
    int next_pre[VECS];
    int next_aggregate = 0;
    if (more) {
      load_tile<THREADS, VECS>(in4, in, n, next, w);
      int next_run = reduce_vectors<VECS>(w, next_pre);
      if (lane == 0) totals[slot ^ 1][warp] = next_run;
      __syncthreads();
      if (warp == 0) {
        next_aggregate = warp_offsets<WARPS>(totals[slot ^ 1]);
        if (lane == 0) publish(&status[next], AGGREGATE, epoch, next_aggregate);  // next > held >= 0
      }
    }
    if (warp == 0) {
      int before = held == 0 ? 0 : look_back(status, held, epoch);
      if (lane == 0) {
        if (held > 0) publish(&status[held], PREFIX, epoch, before + aggregate);
        tile_prefix = before;
      }
    }
    __syncthreads();
    const int offset = tile_prefix + totals[slot][warp];
    const long first = first_vector<THREADS, VECS>(held);
    const bool full = (held + 1) * TILE <= n;
#pragma unroll
    for (int j = 0; j < VECS; ++j) {
      int4 x = v[j];
      x.x += offset + pre[j]; x.y += x.x; x.z += x.y; x.w += x.z;
      long e = (first + j * 32) * 4;
      if (full) {
        out4[e / 4] = x;
      } else {
        if (e < n) out[e] = x.x;
        if (e + 1 < n) out[e + 1] = x.y;
        if (e + 2 < n) out[e + 2] = x.z;
        if (e + 3 < n) out[e + 3] = x.w;
      }
    }
    if (!more) break;
#pragma unroll
    for (int j = 0; j < VECS; ++j) {
      v[j] = w[j];
      pre[j] = next_pre[j];
    }
    aggregate = next_aggregate;  // lane values matter only in warp 0, which computed it
    held = next;
    slot ^= 1;
  }
}

struct Variant {
  const char* name;
  int threads, tile;
  size_t smem;
  void (*kernel)(const int4*, const int*, int4*, int*, long, unsigned long long*, unsigned*, unsigned*, unsigned);
  int launch_threads;  // THREADS, or THREADS + 32 with a look-back warp
  int grid = 0;        // 0: one block per tile; else a persistent grid of this many blocks
};

template <int THREADS, int ROWS>
Variant variant(const char* name) {
  auto k = scan_single_pass<THREADS, ROWS>;
  size_t smem = (size_t)THREADS * ROWS * sizeof(int4);
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  return {name, THREADS, THREADS * ROWS * 4, smem, k, THREADS};
}

template <int THREADS, int ROWS>
Variant early(const char* name) {
  auto k = scan_early_look_back<THREADS, ROWS>;
  size_t smem = (size_t)THREADS * ROWS * sizeof(int4);
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  return {name, THREADS, THREADS * ROWS * 4, smem, k, THREADS + 32};
}

template <int THREADS, int VECS, int MIN_BLOCKS>
Variant two_tiles(const char* name) {
  auto k = scan_two_tiles<THREADS, VECS, MIN_BLOCKS>;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, THREADS, 0));
  return {name, THREADS, THREADS * VECS * 4, 0, k, THREADS, per_sm * harness::sm_count()};
}

// Counts the elements where a and b differ (one atomic per block that found any).
__global__ void count_mismatches(const int* __restrict__ a, const int* __restrict__ b, long n,
                                 unsigned long long* count) {
  unsigned long long local = 0;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    local += a[i] != b[i];
  local = __reduce_add_sync(FULL_MASK, (unsigned)local);
  if (threadIdx.x % 32 == 0 && local) atomicAdd(count, local);
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int* in = harness::to_device(harness::read<int>(args, "x", n));
  int* out = harness::poisoned<int>(n);
  Variant variants[] = {variant<512, 4>("512x4"), variant<256, 8>("256x8"), variant<256, 16>("256x16"),
                        variant<128, 16>("128x16"), variant<512, 8>("512x8"), variant<384, 8>("384x8"),
                        variant<512, 6>("512x6"), variant<256, 12>("256x12"),
#if SCAN_EARLY
                        early<512, 8>("early 512x8"), early<256, 16>("early 256x16"), early<384, 8>("early 384x8"),
                        early<512, 6>("early 512x6"),
#endif
                        two_tiles<256, 8, 2>("two-tile 256x8"), two_tiles<256, 4, 4>("two-tile 256x4"),
                        two_tiles<512, 4, 2>("two-tile 512x4"), two_tiles<128, 8, 4>("two-tile 128x8"),
  };
  // one status word per tile of the smallest tiles, then two tile counters: each launch uses one
  // and zeroes the other for the next launch
  long max_tiles = (n + 2047) / 2048 + 1;
  unsigned long long* status = nullptr;
  size_t status_bytes = max_tiles * sizeof(unsigned long long) + 2 * sizeof(unsigned);
  CHECK(cudaMalloc(&status, status_bytes));
  CHECK(cudaMemset(status, 0, status_bytes));
  unsigned* counters = reinterpret_cast<unsigned*>(status + max_tiles);
  unsigned epoch = 0;
  auto* in4 = reinterpret_cast<const int4*>(in);
  auto launcher = [&](const Variant& v) {
    return [&, v] {
      ++epoch;
      long tiles = (n + v.tile - 1) / v.tile;
      v.kernel<<<v.grid ? v.grid : tiles, v.launch_threads, v.smem>>>(in4, in, reinterpret_cast<int4*>(out), out, n, status,
                                                    counters + (epoch & 1), counters + ((epoch + 1) & 1), epoch);
    };
  };
  // choose the tile shape on this input: the median of a few timed runs of each, among the shapes
  // whose output equals the first shape's
  int* reference = nullptr;
  unsigned long long* mismatches = nullptr;
  CHECK(cudaMalloc(&reference, n * sizeof(int)));
  CHECK(cudaMalloc(&mismatches, sizeof(unsigned long long)));
  float best_ms = 1e30f;
  std::string tried, disagreed;
  int first = 0, last = (int)(sizeof(variants) / sizeof(variants[0]));
  if (SCAN_ONLY >= 0) first = SCAN_ONLY, last = SCAN_ONLY + 1;  // one shape: its output is the one checked
  int best = first;
  for (int i = first; i < last; ++i) {
    CHECK(cudaMemset(out, 0xFF, n * sizeof(int)));
    float ms = harness::median_ms(launcher(variants[i]), SCAN_TRIES);
    char part[80];
    std::snprintf(part, sizeof part, "%s\"%s\": %.4f", tried.empty() ? "" : ", ", variants[i].name, ms);
    tried += part;
    unsigned long long wrong = 0;
    if (i == first) {
      CHECK(cudaMemcpy(reference, out, n * sizeof(int), cudaMemcpyDeviceToDevice));
    } else {
      CHECK(cudaMemset(mismatches, 0, sizeof(unsigned long long)));
      count_mismatches<<<harness::sm_count() * 8, 256>>>(out, reference, n, mismatches);
      CHECK_LAUNCH();
      CHECK(cudaMemcpy(&wrong, mismatches, sizeof wrong, cudaMemcpyDeviceToHost));
    }
    if (wrong) {
      disagreed += std::string(disagreed.empty() ? "\"" : ", \"") + variants[i].name + "\"";
      continue;
    }
    if (ms < best_ms) best_ms = ms, best = i;
  }
  CHECK(cudaMemset(out, 0xFF, n * sizeof(int)));  // poison again: the checked output is the chosen variant's
  float ms = harness::median_ms(launcher(variants[best]), args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "y", host.data(), n);
  std::string extra = std::string("\"tile_shape\": \"") + variants[best].name + "\", \"tried_ms\": {" + tried +
                      "}, \"disagreed\": [" + disagreed + "]";
  harness::report(ms, extra.c_str());
  CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(status));
  CHECK(cudaFree(reference)); CHECK(cudaFree(mismatches));
  return 0;
}
