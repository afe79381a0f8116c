// C = A @ B with bf16 inputs and float32 accumulation on the tensor cores, through the warp
// matrix (wmma) API. A block computes a BM x BN tile of C with 8 warps; each warp owns a
// WM x WN sub-tile made of 16x16 fragments. Tiles of A and B stream through shared memory in a
// STAGES-deep ring filled by asynchronous copies (cp.async through the pipeline primitives),
// so the loads for step k + STAGES - 1 are in flight while the tensor cores work on step k.
// Rows are padded by 8 elements against bank conflicts in the fragment loads.
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include "../../common/harness.cuh"

using namespace nvcuda;

// Tuning knobs (defaults measured best of the variants tried; see benchmarks/).
#ifndef GEMM_BN
#define GEMM_BN 256
#endif
#ifndef GEMM_WN
#define GEMM_WN 64
#endif
#ifndef GEMM_STAGES
#define GEMM_STAGES 2
#endif
#ifndef GEMM_BK
#define GEMM_BK 64
#endif
#ifndef GEMM_GROUP
#define GEMM_GROUP 1
#endif
constexpr int BM = 128, BN = GEMM_BN, BK = GEMM_BK, STAGES = GEMM_STAGES;
constexpr int GROUP = GEMM_GROUP;  // > 1: consecutive blocks share B column tiles, for L2 reuse
constexpr int WM = 64, WN = GEMM_WN;
constexpr int WARPS_N = BN / WN;
constexpr int THREADS = (BM / WM) * WARPS_N * 32;
constexpr int PAD = 8;
constexpr int LDA = BK + PAD, LDB = BN + PAD;
constexpr int FM = WM / 16, FN = WN / 16;
constexpr size_t A_STAGE = (size_t)BM * LDA, B_STAGE = (size_t)BK * LDB;  // elements
constexpr size_t SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * sizeof(__nv_bfloat16);

__global__ __launch_bounds__(THREADS) void gemm_bf16(const __nv_bfloat16* __restrict__ A,
                                                     const __nv_bfloat16* __restrict__ B,
                                                     float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem[];  // dynamic: more than the 48 KB static limit
  auto* As = reinterpret_cast<__nv_bfloat16*>(smem);
  auto* Bs = As + STAGES * A_STAGE;
  int warp = threadIdx.x / 32;
  int wm = warp / WARPS_N, wn = warp % WARPS_N;
  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  if (GROUP > 1) {  // walk GROUP row tiles down one column before moving right
    int tiles_m = gridDim.y, id = blockIdx.y * gridDim.x + blockIdx.x;
    int per_group = GROUP * gridDim.x, first = (id / per_group) * GROUP;
    int rows = min(tiles_m - first, GROUP);
    tile_m = first + (id % per_group) % rows;
    tile_n = (id % per_group) / rows;
  }
  long row0 = (long)tile_m * BM, col0 = (long)tile_n * BN;

  auto load_stage = [&](int stage, int k0) {
    __nv_bfloat16* as = As + stage * A_STAGE;
    __nv_bfloat16* bs = Bs + stage * B_STAGE;
    for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {  // 16-byte asynchronous copies
      int r = c / (BK / 8), k = (c % (BK / 8)) * 8;
      __pipeline_memcpy_async(as + r * LDA + k, A + (row0 + r) * K + k0 + k, 16);
    }
    for (int c = threadIdx.x; c < BK * BN / 8; c += THREADS) {
      int r = c / (BN / 8), n = (c % (BN / 8)) * 8;
      __pipeline_memcpy_async(bs + r * LDB + n, B + (long)(k0 + r) * N + col0 + n, 16);
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  int ktiles = K / BK;
  for (int s = 0; s < STAGES - 1; ++s) {  // fill the ring
    if (s < ktiles) load_stage(s, s * BK);
    __pipeline_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    __pipeline_wait_prior(STAGES - 2);  // this thread's copies for step kt have landed
    __syncthreads();                    // ... and everyone else's; the oldest stage is free again
    int next = kt + STAGES - 1;
    if (next < ktiles) load_stage(next % STAGES, next * BK);
    __pipeline_commit();
    const __nv_bfloat16* as = As + (kt % STAGES) * A_STAGE;
    const __nv_bfloat16* bs = Bs + (kt % STAGES) * B_STAGE;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
#pragma unroll
      for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], bs + kk * LDB + wn * WN + j * 16, LDB);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
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
    std::fprintf(stderr, "M must be a multiple of %d, N of %d and K of %d\n", BM, BN, BK);
    return 64;
  }
  // bf16 values arrive as their 16-bit patterns.
  auto a_bits = harness::read<unsigned short>(args, "a", (size_t)M * K);
  auto b_bits = harness::read<unsigned short>(args, "b", (size_t)K * N);
  auto* a = reinterpret_cast<__nv_bfloat16*>(harness::to_device(a_bits));
  auto* b = reinterpret_cast<__nv_bfloat16*>(harness::to_device(b_bits));
  float* c = harness::poisoned<float>((size_t)M * N);
  CHECK(cudaFuncSetAttribute(gemm_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES));
  dim3 grid(N / BN, M / BM);
  auto launch = [&] { gemm_bf16<<<grid, THREADS, SMEM_BYTES>>>(a, b, c, M, N, K); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(c, (size_t)M * N);
  harness::write(args, "c", host.data(), host.size());
  harness::report(ms);
  CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c));
  return 0;
}
