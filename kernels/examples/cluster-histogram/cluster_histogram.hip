// A 65536-bin histogram of 16-bit keys, then the three most frequent keys, for AMD GPUs.
//
// No clusters on CDNA: a work-group's LDS (64 KB at most on gfx90a and gfx942) is private to it,
// and no work-group can address another's, so the 256 KB of bins cannot be split over the LDS of
// several work-groups as the CUDA version splits them over a cluster's shared memory. The HIP 6.4
// headers have a clusterLaunch device property but no cluster launch attribute or
// __cluster_dims__; the program reads the property, reports it, and always takes the path that
// works without clusters: every key is counted with a global atomic add into the bins, which on
// CDNA is executed at the L2 (global_atomic_add_u32 without a return value).
//
// The top three (count, key) pairs are a six-word record behind a spin lock, first one per
// work-group in LDS, then one in global memory. A wavefront executes in lockstep: a lane that
// wins the lock cannot run ahead of lanes of its wavefront still spinning, so the acquire loop
// that CUDA allows since Volta (spin until the swap succeeds, then enter the critical section)
// can hang here. The loop below is the lockstep-safe form: the critical section and the release
// sit inside the loop, in the branch of the lane that won, and every lane leaves the loop only
// after its own turn.
#include <climits>

#include "../../common/harness_hip.h"

constexpr int BINS = 65536;
constexpr int THREADS = 1024;
constexpr int TOP_THREADS = 256;

__global__ __launch_bounds__(THREADS) void global_histogram(const uint4* __restrict__ keys8, long n8,
                                                            const unsigned short* __restrict__ keys, long n,
                                                            unsigned* __restrict__ bins) {
  const long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += stride) {
    uint4 w = keys8[i];  // eight 16-bit keys per 16-byte load
    for (unsigned word : {w.x, w.y, w.z, w.w}) {
      atomicAdd(&bins[word & 0xFFFFu], 1u);
      atomicAdd(&bins[word >> 16], 1u);
    }
  }
  if (blockIdx.x == 0)
    for (long j = n8 * 8 + threadIdx.x; j < n; j += blockDim.x) atomicAdd(&bins[keys[j]], 1u);
}

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
    keys[threadIdx.x] = UINT_MAX;
  }
  if (threadIdx.x == 0) lock = 0;
  __syncthreads();
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < BINS; b += gridDim.x * blockDim.x) {
    unsigned c = bins[b];
    if (c < *(volatile unsigned*)&counts[2]) continue;  // third place only rises
    for (bool done = false; !done;) {
      int expected = 0;
      if (__hip_atomic_compare_exchange_strong(&lock, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,
                                               __HIP_MEMORY_SCOPE_WORKGROUP)) {
        insert(counts, keys, c, (unsigned)b);
        __hip_atomic_store(&lock, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
        done = true;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // one lane per work-group: no lockstep neighbour contends here
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
  CHECK(hipGetDevice(&dev));
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, dev));
  // 0 on CDNA: there is no cluster path to take, only this report of the property
  const int cluster_launch = prop.clusterLaunch;
  unsigned short* keys = harness::to_device(harness::read<unsigned short>(args, "keys", n));
  unsigned* bins = harness::poisoned<unsigned>(BINS);
  unsigned* top_counts = harness::poisoned<unsigned>(3);
  unsigned* top_keys = harness::poisoned<unsigned>(3);
  int* global_lock = harness::poisoned<int>(1);
  int blocks = harness::sm_count() * 2;
  const uint4* keys8 = reinterpret_cast<const uint4*>(keys);
  auto launch = [&] {
    CHECK(hipMemsetAsync(bins, 0, BINS * sizeof(unsigned)));
    hipLaunchKernelGGL(global_histogram, dim3(blocks), dim3(THREADS), 0, 0, keys8, n / 8,
                       (const unsigned short*)keys, n, bins);
    hipLaunchKernelGGL(init_top, dim3(1), dim3(64), 0, 0, top_counts, top_keys, global_lock);
    hipLaunchKernelGGL(top3, dim3(BINS / TOP_THREADS / 8), dim3(TOP_THREADS), 0, 0, bins, top_counts, top_keys,
                       global_lock);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto w = [&](const char* name, unsigned* d, size_t count) {
    auto h = harness::to_host(d, count);
    harness::write(args, name, h.data(), count);
  };
  w("bins", bins, BINS);
  w("top_counts", top_counts, 3);
  w("top_keys", top_keys, 3);
  char extra[64];
  std::snprintf(extra, sizeof extra, "\"cluster_launch\": %d", cluster_launch);
  harness::report(ms, extra);
  for (void* p : {(void*)keys, (void*)bins, (void*)top_counts, (void*)top_keys, (void*)global_lock}) CHECK(hipFree(p));
  return 0;
}
