// A 65536-bin histogram of 16-bit keys, then the three most frequent keys. Hopper (sm_90).
//
// Step 1, distributed shared memory. 65536 32-bit bins are 256 KB, more than one SM's shared
// memory (227 KB per block on the H200), so no single block can hold a private copy. A thread
// block cluster of CLUSTER blocks can: the bins are split into CLUSTER slices of 64 KB, block
// rank r of the cluster keeps slice r in its shared memory, and every thread of the cluster adds
// its key's count straight into the owning block's slice through a pointer from
// cluster.map_shared_rank (an address in the cluster's shared memory window, reached over the
// SM-to-SM network; the adds never touch global memory or the L2). The cluster barrier at the
// start makes sure every slice is zeroed before a peer adds to it, the one at the end that every
// add has landed before the slices are merged into the global bins, and that no block leaves
// while its peers still write into its shared memory. The grid is sized by
// cudaOccupancyMaxActiveClusters and launched with cudaLaunchKernelEx and a cluster-dimension
// launch attribute. The same run times the cluster histogram alone and a histogram made of global
// atomic adds only on as many blocks, checks that both counted the same, and reports both times.
//
// Step 2, independent thread scheduling. The top three (count, key) pairs (higher count first, then
// the smaller key) are a six-word record, too wide for one atomic, so it is guarded by a spin lock:
// first a per-block record in shared memory, then one global record. Lanes of one warp contend for
// the same lock, and the winner runs its critical section and releases the lock while its
// neighbours keep spinning in the acquire loop. That is correct only because, since Volta, each
// thread has its own program counter and the scheduler guarantees the diverged winner progress;
// with warp-wide lockstep (pre-Volta NVIDIA, or AMD wavefronts, see the .hip file) this loop can
// hang forever.
#include <climits>
#include <cooperative_groups.h>

#include "../../common/harness.cuh"

namespace cg = cooperative_groups;

constexpr int BINS = 65536;
constexpr int CLUSTER = 4;              // blocks per cluster; 8 is the portable maximum
constexpr int SLICE = BINS / CLUSTER;   // bins held by each block of a cluster
constexpr int SLICE_SHIFT = 14;         // log2(SLICE)
constexpr int THREADS = 1024;
constexpr int TOP_THREADS = 256;
static_assert(SLICE == 1 << SLICE_SHIFT, "SLICE_SHIFT must match SLICE");

// Key k lives in block k / SLICE of the cluster, at k % SLICE of its slice: map_shared_rank turns
// the address of that bin in this block's slice into the same bin's address in the owner's.
__device__ void count_key(cg::cluster_group& cluster, unsigned* slice, unsigned k) {
  atomicAdd(cluster.map_shared_rank(slice + (k & (SLICE - 1)), k >> SLICE_SHIFT), 1u);
}

__global__ __launch_bounds__(THREADS) void cluster_histogram(const uint4* __restrict__ keys8, long n8,
                                                             const unsigned short* __restrict__ keys, long n,
                                                             unsigned* __restrict__ bins) {
  extern __shared__ unsigned slice[];  // SLICE bins of this block: dynamic, 64 KB is over the 48 KB static limit
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  for (int b = threadIdx.x; b < SLICE; b += blockDim.x) slice[b] = 0;
  cluster.sync();  // every slice of the cluster is zeroed before any block adds into it
  const long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += stride) {
    uint4 w = keys8[i];  // eight 16-bit keys per 16-byte load
    for (unsigned word : {w.x, w.y, w.z, w.w}) {
      count_key(cluster, slice, word & 0xFFFFu);
      count_key(cluster, slice, word >> 16);
    }
  }
  if (blockIdx.x == 0)
    for (long j = n8 * 8 + threadIdx.x; j < n; j += blockDim.x) count_key(cluster, slice, keys[j]);
  cluster.sync();  // all adds of the cluster have landed; no block exits while peers still write to it
  for (int b = threadIdx.x; b < SLICE; b += blockDim.x)
    if (slice[b]) atomicAdd(&bins[rank * SLICE + b], slice[b]);
}

// The same counts without clusters, for comparison in the same run: every key is a global atomic
// add, executed at the L2 (what the HIP version does on CDNA, which has no clusters).
__global__ __launch_bounds__(THREADS) void global_histogram(const uint4* __restrict__ keys8, long n8,
                                                            const unsigned short* __restrict__ keys, long n,
                                                            unsigned* __restrict__ bins) {
  const long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += stride) {
    uint4 w = keys8[i];
    for (unsigned word : {w.x, w.y, w.z, w.w}) {
      atomicAdd(&bins[word & 0xFFFFu], 1u);
      atomicAdd(&bins[word >> 16], 1u);
    }
  }
  if (blockIdx.x == 0)
    for (long j = n8 * 8 + threadIdx.x; j < n; j += blockDim.x) atomicAdd(&bins[keys[j]], 1u);
}

// (count, key) a ranks above (count2, key2): higher count first, then the smaller key.
__device__ bool ranks_above(unsigned count, unsigned key, unsigned count2, unsigned key2) {
  return count > count2 || (count == count2 && key < key2);
}

// Insert (count, key) into a sorted three-entry record; the caller holds the record's lock.
__device__ void insert(volatile unsigned* counts, volatile unsigned* keys, unsigned count, unsigned key) {
  int pos = 3;
  while (pos > 0 && ranks_above(count, key, counts[pos - 1], keys[pos - 1])) --pos;
  for (int j = 2; j > pos; --j) {
    counts[j] = counts[j - 1];
    keys[j] = keys[j - 1];
  }
  if (pos < 3) {
    counts[pos] = count;
    keys[pos] = key;
  }
}

__global__ __launch_bounds__(TOP_THREADS) void top3(const unsigned* __restrict__ bins, unsigned* top_counts,
                                                    unsigned* top_keys, int* global_lock) {
  __shared__ unsigned counts[3], keys[3];
  __shared__ int lock;
  if (threadIdx.x < 3) {
    counts[threadIdx.x] = 0;
    keys[threadIdx.x] = UINT_MAX;  // ranks below every real key
  }
  if (threadIdx.x == 0) lock = 0;
  __syncthreads();
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < BINS; b += gridDim.x * blockDim.x) {
    unsigned c = bins[b];
    // third place only ever rises, so a count below it (read without the lock) can never enter
    if (c < *(volatile unsigned*)&counts[2]) continue;
    // The acquire loop: lanes of this warp that lost the swap spin here while the winner, diverged
    // from them, runs the critical section below and releases; independent thread scheduling.
    while (atomicCAS_block(&lock, 0, 1) != 0) {
    }
    __threadfence_block();  // the record is read after the lock is held
    insert(counts, keys, c, (unsigned)b);
    __threadfence_block();  // the record is written before the lock is free
    atomicExch_block(&lock, 0);
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // merge the block's record into the global one under a device-wide lock
    while (atomicCAS(global_lock, 0, 1) != 0) {
    }
    __threadfence();
    for (int j = 0; j < 3; ++j)
      if (keys[j] != UINT_MAX) insert(top_counts, top_keys, counts[j], keys[j]);
    __threadfence();
    atomicExch(global_lock, 0);
  }
}

__global__ void init_top(unsigned* top_counts, unsigned* top_keys, int* global_lock) {
  if (threadIdx.x < 3) {
    top_counts[threadIdx.x] = 0;
    top_keys[threadIdx.x] = UINT_MAX;
  }
  if (threadIdx.x == 0) *global_lock = 0;
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  int dev = 0;
  CHECK(cudaGetDevice(&dev));
  int cluster_ok = 0;
  CHECK(cudaDeviceGetAttribute(&cluster_ok, cudaDevAttrClusterLaunch, dev));
  if (!cluster_ok) {
    std::fprintf(stderr, "this GPU cannot launch thread block clusters (compute capability 9.0 or newer needed)\n");
    return 3;
  }
  unsigned short* keys = harness::to_device(harness::read<unsigned short>(args, "keys", n));
  unsigned* bins = harness::poisoned<unsigned>(BINS);
  unsigned* top_counts = harness::poisoned<unsigned>(3);
  unsigned* top_keys = harness::poisoned<unsigned>(3);
  int* global_lock = harness::poisoned<int>(1);

  const size_t smem = SLICE * sizeof(unsigned);
  CHECK(cudaFuncSetAttribute(cluster_histogram, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CLUSTER;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(THREADS);
  config.dynamicSmemBytes = smem;
  config.attrs = attr;
  config.numAttrs = 1;
  config.gridDim = dim3(CLUSTER);  // the occupancy query reads the block and cluster shape from config
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, cluster_histogram, &config));
  if (clusters < 1) {
    std::fprintf(stderr, "no cluster of %d blocks with %zu bytes of shared memory each fits this GPU\n", CLUSTER, smem);
    return 3;
  }
  config.gridDim = dim3(clusters * CLUSTER);  // every cluster resident at once: a persistent grid
  const uint4* keys8 = reinterpret_cast<const uint4*>(keys);
  auto launch = [&] {
    CHECK(cudaMemsetAsync(bins, 0, BINS * sizeof(unsigned)));
    CHECK(cudaLaunchKernelEx(&config, cluster_histogram, keys8, n / 8, (const unsigned short*)keys, n, bins));
    init_top<<<1, 32>>>(top_counts, top_keys, global_lock);
    top3<<<BINS / TOP_THREADS / 8, TOP_THREADS>>>(bins, top_counts, top_keys, global_lock);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto w = [&](const char* name, unsigned* d, size_t count) {
    auto h = harness::to_host(d, count);
    harness::write(args, name, h.data(), count);
  };
  w("bins", bins, BINS);
  w("top_counts", top_counts, 3);
  w("top_keys", top_keys, 3);

  // The histogram step alone, against a baseline of global atomics only on as many blocks, both
  // timed the same way; the baseline's bins must equal the cluster kernel's (which the runner
  // checks against NumPy).
  auto histogram_only = [&] {
    CHECK(cudaMemsetAsync(bins, 0, BINS * sizeof(unsigned)));
    CHECK(cudaLaunchKernelEx(&config, cluster_histogram, keys8, n / 8, (const unsigned short*)keys, n, bins));
  };
  float cluster_ms = harness::median_ms(histogram_only, args.iters);
  unsigned* plain = harness::poisoned<unsigned>(BINS);
  auto baseline = [&] {
    CHECK(cudaMemsetAsync(plain, 0, BINS * sizeof(unsigned)));
    global_histogram<<<clusters * CLUSTER, THREADS>>>(keys8, n / 8, keys, n, plain);
  };
  float plain_ms = harness::median_ms(baseline, args.iters);
  if (harness::to_host(plain, BINS) != harness::to_host(bins, BINS)) {
    std::fprintf(stderr, "the global-atomic baseline counted differently from the cluster kernel\n");
    return 4;
  }
  char extra[256];
  std::snprintf(extra, sizeof extra,
                "\"clusters\": %d, \"cluster_size\": %d, \"cluster_histogram_ms\": %.6f, "
                "\"global_atomics_ms\": %.6f, \"cluster_speedup\": %.3f",
                clusters, CLUSTER, cluster_ms, plain_ms, plain_ms / cluster_ms);
  harness::report(ms, extra);
  for (void* p : {(void*)keys, (void*)bins, (void*)top_counts, (void*)top_keys, (void*)global_lock, (void*)plain})
    CHECK(cudaFree(p));
  return 0;
}
