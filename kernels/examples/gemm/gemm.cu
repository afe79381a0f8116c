// C = A @ B with bf16 inputs and float32 accumulation on the tensor cores, through the warp
// matrix (wmma) API. A block computes a 128x128 tile of C with 8 warps, each warp a 64x32
// sub-tile of 4x2 fragments of 16x16. A and B tiles are staged in shared memory (16-byte
// copies, rows padded by 8 elements against bank conflicts) before the warps load fragments.
#include <cuda_bf16.h>
#include <mma.h>

#include "../../common/harness.cuh"

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WM = 64, WN = 32;  // one warp's sub-tile
constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
constexpr int PAD = 8;
constexpr int FM = WM / 16, FN = WN / 16;  // fragments per warp

__global__ __launch_bounds__(THREADS) void gemm_bf16(const __nv_bfloat16* __restrict__ A,
                                                     const __nv_bfloat16* __restrict__ B,
                                                     float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(32) __nv_bfloat16 As[BM][BK + PAD];
  __shared__ __align__(32) __nv_bfloat16 Bs[BK][BN + PAD];
  int warp = threadIdx.x / 32;
  int wm = warp / (BN / WN), wn = warp % (BN / WN);
  long row0 = (long)blockIdx.y * BM, col0 = (long)blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {  // 8 bf16 = 16 bytes per copy
      int r = c / (BK / 8), k = (c % (BK / 8)) * 8;
      *reinterpret_cast<uint4*>(&As[r][k]) = *reinterpret_cast<const uint4*>(&A[(row0 + r) * K + k0 + k]);
    }
    for (int c = threadIdx.x; c < BK * BN / 8; c += THREADS) {
      int r = c / (BN / 8), n = (c % (BN / 8)) * 8;
      *reinterpret_cast<uint4*>(&Bs[r][n]) = *reinterpret_cast<const uint4*>(&B[(long)(k0 + r) * N + col0 + n]);
    }
    __syncthreads();  // tiles complete before any warp loads fragments from them
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], &As[wm * WM + i * 16][kk], BK + PAD);
#pragma unroll
      for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn * WN + j * 16], BN + PAD);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // every warp is done with the tiles before they are overwritten
  }
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
      wmma::store_matrix_sync(&C[(row0 + wm * WM + i * 16) * N + col0 + wn * WN + j * 16], acc[i][j], N,
                              wmma::mem_row_major);
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 3, "M N K");
  int M = (int)args.sizes[0], N = (int)args.sizes[1], K = (int)args.sizes[2];
  if (M % BM || N % BN || K % BK) {
    std::fprintf(stderr, "M and N must be multiples of %d and K of %d\n", BM, BK);
    return 64;
  }
  // bf16 values arrive as their 16-bit patterns.
  auto a_bits = harness::read<unsigned short>(args, "a", (size_t)M * K);
  auto b_bits = harness::read<unsigned short>(args, "b", (size_t)K * N);
  auto* a = reinterpret_cast<__nv_bfloat16*>(harness::to_device(a_bits));
  auto* b = reinterpret_cast<__nv_bfloat16*>(harness::to_device(b_bits));
  float* c = harness::poisoned<float>((size_t)M * N);
  dim3 grid(N / BN, M / BM);
  auto launch = [&] { gemm_bf16<<<grid, THREADS>>>(a, b, c, M, N, K); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(c, (size_t)M * N);
  harness::write(args, "c", host.data(), host.size());
  harness::report(ms);
  CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c));
  return 0;
}
