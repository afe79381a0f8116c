// Sum of n floats. Teaches the three levels of a GPU reduction: a register sum per thread
// (grid-stride, 16-byte loads, four in flight), a warp sum through register shuffles, a block
// sum through shared memory and a barrier, and one atomic add per block into the result.
#include "../../common/harness.cuh"

constexpr int THREADS = 512;
constexpr int WARP = 32;  // NVIDIA's warp width; a compile-time constant keeps the index math cheap
constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ float warp_sum(float v) {
  // Tree reduction across the 32 lanes: after the loop, lane 0 holds the warp's total.
  for (int offset = WARP / 2; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

__device__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__global__ __launch_bounds__(THREADS) void reduce_sum(const float4* __restrict__ x4, long n4,
                                                      const float* __restrict__ x, long n,
                                                      float* __restrict__ out) {
  float acc = 0.f;
  long stride = (long)gridDim.x * blockDim.x;
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride)  // four independent loads before the first add
    acc += (sum4(x4[i]) + sum4(x4[i + stride])) + (sum4(x4[i + 2 * stride]) + sum4(x4[i + 3 * stride]));
  for (; i < n4; i += stride) acc += sum4(x4[i]);
  if (blockIdx.x == 0)
    for (long j = n4 * 4 + threadIdx.x; j < n; j += blockDim.x) acc += x[j];

  __shared__ float warp_totals[THREADS / WARP];
  int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  acc = warp_sum(acc);
  if (lane == 0) warp_totals[warp] = acc;
  __syncthreads();  // every warp's total is in shared memory before warp 0 reads them
  if (warp == 0) {
    acc = lane < THREADS / WARP ? warp_totals[lane] : 0.f;
    acc = warp_sum(acc);
    if (lane == 0) atomicAdd(out, acc);
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* out = harness::poisoned<float>(1);
  int blocks = harness::sm_count() * (2048 / THREADS);  // one full wave of resident blocks
  auto launch = [&] {
    CHECK(cudaMemsetAsync(out, 0, sizeof(float)));
    reduce_sum<<<blocks, THREADS>>>(reinterpret_cast<const float4*>(x), n / 4, x, n, out);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, 1);
  harness::write(args, "sum", host.data(), 1);
  harness::report(ms);
  CHECK(cudaFree(x)); CHECK(cudaFree(out));
  return 0;
}
