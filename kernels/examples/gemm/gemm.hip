// C = A @ B with bf16 inputs and float32 accumulation on CDNA's matrix cores, through the MFMA
// compiler builtin. One v_mfma_f32_16x16x16bf16_1k is issued by a whole 64-lane wavefront and
// multiplies a 16x16 tile of A by a 16x16 tile of B. Operand layout (per lane l of 64): A
// supplies row l % 16, columns 4*(l/16) .. +3; B supplies column l % 16, rows 4*(l/16) .. +3;
// the four accumulators hold C rows 4*(l/16) .. +3 of column l % 16.
// A block of four wavefronts computes a 64x64 tile of C (each wavefront 32x32, i.e. 2x2 MFMA
// tiles), staging 64x16 slices of A and 16x64 slices of B in LDS.
#include "../../common/harness_hip.h"

typedef short bf16x4 __attribute__((ext_vector_type(4)));  // four bf16 bit patterns
typedef float floatx4 __attribute__((ext_vector_type(4)));

constexpr int BM = 64, BN = 64, BK = 16;
constexpr int THREADS = 256;  // four wavefronts of 64
constexpr int PAD = 4;

__global__ __launch_bounds__(THREADS) void gemm_bf16(const unsigned short* __restrict__ A,
                                                     const unsigned short* __restrict__ B,
                                                     float* __restrict__ C, int M, int N, int K) {
  __shared__ unsigned short As[BM][BK + PAD];
  __shared__ unsigned short Bs[BK][BN + PAD];
  int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
  int wm = (wave / 2) * 32, wn = (wave % 2) * 32;  // this wavefront's 32x32 corner of the tile
  long row0 = (long)blockIdx.y * BM, col0 = (long)blockIdx.x * BN;
  floatx4 acc[2][2] = {};

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += THREADS) As[e / BK][e % BK] = A[(row0 + e / BK) * K + k0 + e % BK];
    for (int e = threadIdx.x; e < BK * BN; e += THREADS) Bs[e / BN][e % BN] = B[(long)(k0 + e / BN) * N + col0 + e % BN];
    __syncthreads();
    int r = lane % 16, kq = 4 * (lane / 16);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      bf16x4 a;
      for (int v = 0; v < 4; ++v) a[v] = (short)As[wm + 16 * i + r][kq + v];
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        bf16x4 b;
        for (int v = 0; v < 4; ++v) b[v] = (short)Bs[kq + v][wn + 16 * j + r];
        acc[i][j] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc[i][j], 0, 0, 0);
      }
    }
    __syncthreads();
  }
  int c = lane % 16, rq = 4 * (lane / 16);
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v)
        C[(row0 + wm + 16 * i + rq + v) * N + col0 + wn + 16 * j + c] = acc[i][j][v];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 3, "M N K");
  int M = (int)args.sizes[0], N = (int)args.sizes[1], K = (int)args.sizes[2];
  if (M % BM || N % BN || K % BK) {
    std::fprintf(stderr, "M and N must be multiples of %d and K of %d\n", BM, BK);
    return 64;
  }
  unsigned short* a = harness::to_device(harness::read<unsigned short>(args, "a", (size_t)M * K));
  unsigned short* b = harness::to_device(harness::read<unsigned short>(args, "b", (size_t)K * N));
  float* c = harness::poisoned<float>((size_t)M * N);
  dim3 grid(N / BN, M / BM);
  auto launch = [&] { hipLaunchKernelGGL(gemm_bf16, grid, dim3(THREADS), 0, 0, a, b, c, M, N, K); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(c, (size_t)M * N);
  harness::write(args, "c", host.data(), host.size());
  harness::report(ms);
  CHECK(hipFree(a)); CHECK(hipFree(b)); CHECK(hipFree(c));
  return 0;
}
