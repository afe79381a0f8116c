// Sum of n floats for AMD GPUs. A wavefront is 64 lanes on CDNA (gfx90a, gfx942) and 32 on RDNA
// (gfx1100) by default, so the shuffle loop starts at warpSize / 2 rather than a hard-coded 16,
// and the shared scratch has room for the most wavefronts a block can hold (the 32-lane case).
// HIP's __shfl_down takes no lane mask: every lane of the wavefront takes part. It lowers to
// ds_bpermute_b32, a cross-lane permute through the LDS hardware. The two steps that stay inside
// a quad of four lanes use DPP instead (data-parallel primitives: a source-operand modifier that
// reads a neighbouring lane's register in the same VALU instruction), written with clang's
// __builtin_amdgcn_update_dpp: quad_perm [1,0,3,2] swaps neighbours and [2,3,0,1] swaps pairs, so
// after them every lane holds its quad's sum and the shuffles start at offset 4. DPP quad_perm
// exists on CDNA and RDNA alike.
#include "../../common/harness_hip.h"

constexpr int THREADS = 512;
constexpr int MAX_WAVES = THREADS / 32;
constexpr int QUAD_SWAP_NEIGHBOURS = 0xB1;  // quad_perm:[1,0,3,2], two bits per lane
constexpr int QUAD_SWAP_PAIRS = 0x4E;       // quad_perm:[2,3,0,1]

template <int QUAD_PERM>
__device__ float quad_permute(float v) {
  // row and bank masks 0xf: every lane is written; quad_perm always has a source lane in the quad
  return __int_as_float(__builtin_amdgcn_update_dpp(0, __float_as_int(v), QUAD_PERM, 0xf, 0xf, false));
}

__device__ float wave_sum(float v) {
  v += quad_permute<QUAD_SWAP_NEIGHBOURS>(v);
  v += quad_permute<QUAD_SWAP_PAIRS>(v);
  for (int offset = warpSize / 2; offset >= 4; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

__device__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__global__ __launch_bounds__(THREADS) void reduce_sum(const float4* __restrict__ x4, long n4,
                                                      const float* __restrict__ x, long n,
                                                      float* __restrict__ out) {
  float acc = 0.f;
  long stride = (long)gridDim.x * blockDim.x;
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride)
    acc += (sum4(x4[i]) + sum4(x4[i + stride])) + (sum4(x4[i + 2 * stride]) + sum4(x4[i + 3 * stride]));
  for (; i < n4; i += stride) acc += sum4(x4[i]);
  if (blockIdx.x == 0)
    for (long j = n4 * 4 + threadIdx.x; j < n; j += blockDim.x) acc += x[j];

  __shared__ float wave_totals[MAX_WAVES];
  int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  int waves = blockDim.x / warpSize;  // 8 on CDNA, 16 on RDNA in wave32
  acc = wave_sum(acc);
  if (lane == 0) wave_totals[wave] = acc;
  __syncthreads();  // lowers to s_barrier
  if (wave == 0) {
    acc = lane < waves ? wave_totals[lane] : 0.f;
    acc = wave_sum(acc);
    // unsafeAtomicAdd asks for the hardware float atomic; plain atomicAdd compiles to a
    // compare-and-swap loop on gfx90a, whose float atomics do not work on fine-grained memory.
    if (lane == 0) unsafeAtomicAdd(out, acc);
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  float* out = harness::poisoned<float>(1);
  int blocks = harness::sm_count() * 4;  // compute units x 4 resident blocks
  auto launch = [&] {
    CHECK(hipMemsetAsync(out, 0, sizeof(float)));
    hipLaunchKernelGGL(reduce_sum, dim3(blocks), dim3(THREADS), 0, 0, reinterpret_cast<const float4*>(x), n / 4,
                       x, n, out);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, 1);
  harness::write(args, "sum", host.data(), 1);
  harness::report(ms);
  CHECK(hipFree(x)); CHECK(hipFree(out));
  return 0;
}
