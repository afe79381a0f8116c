// 256-bin histogram of n bytes, for AMD GPUs. Each block counts into 256 bins in LDS with LDS
// atomics (ds_add_u32), then merges them into the global bins with global atomics. A block of
// 1024 threads is 16 wavefronts on CDNA; bigger blocks mean fewer global merges per byte.
#include "../../common/harness_hip.h"

constexpr int BINS = 256;
constexpr int THREADS = 1024;

__device__ void count_word(unsigned int* bins, unsigned int w) {
  atomicAdd(&bins[w & 0xFF], 1u);
  atomicAdd(&bins[(w >> 8) & 0xFF], 1u);
  atomicAdd(&bins[(w >> 16) & 0xFF], 1u);
  atomicAdd(&bins[w >> 24], 1u);
}

__global__ __launch_bounds__(THREADS) void histogram256(const uint4* __restrict__ data16, long n16,
                                                        const unsigned char* __restrict__ data, long n,
                                                        unsigned int* __restrict__ bins) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
    uint4 v = data16[i];
    count_word(local, v.x); count_word(local, v.y); count_word(local, v.z); count_word(local, v.w);
  }
  if (blockIdx.x == 0)
    for (long j = n16 * 16 + threadIdx.x; j < n; j += blockDim.x) atomicAdd(&local[data[j]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  unsigned char* data = harness::to_device(harness::read<unsigned char>(args, "data", n));
  unsigned int* bins = harness::poisoned<unsigned int>(BINS);
  int blocks = harness::sm_count() * 2;
  auto launch = [&] {
    CHECK(hipMemsetAsync(bins, 0, BINS * sizeof(unsigned int)));
    hipLaunchKernelGGL(histogram256, dim3(blocks), dim3(THREADS), 0, 0, reinterpret_cast<const uint4*>(data),
                       n / 16, data, n, bins);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(bins, BINS);
  harness::write(args, "bins", host.data(), BINS);
  harness::report(ms);
  CHECK(hipFree(data)); CHECK(hipFree(bins));
  return 0;
}
