// C = A x B^T (bf16 A M x K, B N x K, float32 C) for CDNA GPUs, in the shape AMD's fast kernels
// take instead of Hopper's: there is no TMA and no warpgroup MMA, so waves load tiles straight
// into LDS with global_load_lds_dword on gfx942 (each lane's 4 bytes land at the wave's LDS base,
// held in M0, + 4 * lane, with no VGPRs in between; written as inline assembly because clang 19's
// __builtin_amdgcn_global_load_lds crashes its post-RA scheduler at -O1 and above), with ordinary
// loads and ds_write on gfx90a, which has no global-to-LDS form of global loads, and multiply with one 64-lane v_mfma_f32_16x16x16bf16_1k at a time. The block's two
// wave groups take turns, "ping-pong": while one group loads its next tiles the other runs its
// MFMAs, and s_barrier flips the roles, so memory and matrix units are busy at once without a
// producer that only copies (AMD has no register hand-over between waves like setmaxnreg). Each
// group owns 32 rows of the 64 x 64 tile and keeps its own LDS buffers.
#include "../../common/harness_hip.h"

constexpr int BM = 64, BN = 64, BK = 32;
constexpr int THREADS = 256;  // 4 waves: group 0 = waves 0-1, group 1 = waves 2-3

typedef short short4v __attribute__((ext_vector_type(4)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef __attribute__((address_space(3))) unsigned lds_u32;

// 4 bytes per lane from `src` to wave_base[lane] in LDS.
__device__ void copy_to_lds(unsigned* wave_base, const unsigned short* src, int lane) {
#if defined(__gfx942__)
  // the LDS byte address of the wave's base: an address_space(3) pointer is a 32-bit LDS offset
  unsigned lds = (unsigned)(unsigned long)(lds_u32*)wave_base;
  asm volatile("s_mov_b32 m0, %0\n global_load_lds_dword %1, off" ::"s"(__builtin_amdgcn_readfirstlane(lds)),
               "v"(src) : "memory", "m0");
#else
  wave_base[lane] = *reinterpret_cast<const unsigned*>(src);
#endif
}

struct GroupTiles {
  unsigned a[32 * BK / 2];  // 32 rows x BK bf16, as dwords
  unsigned b[BN * BK / 2];  // BN rows (of B^T) x BK bf16
};

// One group's tiles for k-tile kt, global -> LDS. Dword q of the tile comes from row q / 16,
// dword q % 16 of that row's BK bf16; wave-level instruction i of wave w fills dwords (2i + w) * 64 + lane.
__device__ void load_tiles(GroupTiles* tiles, const unsigned short* A, const unsigned short* Bt, int K, int rowA,
                           int colB, int kt, int w, int lane) {
  for (int i = 0; i < 2; ++i) {  // A: 512 dwords = 2 instructions x 2 waves x 64 lanes
    int q = (2 * i + w) * 64 + lane;
    const unsigned short* src = A + (long)(rowA + q / 16) * K + kt * BK + 2 * (q % 16);
    copy_to_lds(&tiles->a[(2 * i + w) * 64], src, lane);
  }
  for (int i = 0; i < 8; ++i) {  // B^T: 1024 dwords
    int q = (2 * i + w) * 64 + lane;
    const unsigned short* src = Bt + (long)(colB + q / 16) * K + kt * BK + 2 * (q % 16);
    copy_to_lds(&tiles->b[(2 * i + w) * 64], src, lane);
  }
}

// One wave: 16 rows x 64 columns += its rows of A x B^T over one k-tile.
__device__ void multiply(const GroupTiles* tiles, float4v (&acc)[4], int w, int lane) {
  const unsigned short* a = reinterpret_cast<const unsigned short*>(tiles->a);
  const unsigned short* b = reinterpret_cast<const unsigned short*>(tiles->b);
  for (int kk = 0; kk < BK; kk += 16) {
    int r = 16 * w + lane % 16, k = kk + 4 * (lane / 16);
    short4v av = *reinterpret_cast<const short4v*>(&a[r * BK + k]);
    for (int j = 0; j < 4; ++j) {
      short4v bv = *reinterpret_cast<const short4v*>(&b[(16 * j + lane % 16) * BK + k]);
      acc[j] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(av, bv, acc[j], 0, 0, 0);
    }
  }
}

__global__ __launch_bounds__(THREADS) void gemm_ping_pong(const unsigned short* __restrict__ A,
                                                          const unsigned short* __restrict__ Bt,
                                                          float* __restrict__ C, int M, int N, int K) {
  __shared__ GroupTiles tiles[2];
  const int wave = threadIdx.x / 64, lane = threadIdx.x % 64;
  const int group = wave / 2, w = wave % 2;
  const int row0 = blockIdx.y * BM + 32 * group, col0 = blockIdx.x * BN;
  float4v acc[4] = {};
  const int k_tiles = K / BK;
  for (int kt = 0; kt <= k_tiles; ++kt) {
    // phase 1: group 0 loads tile kt while group 1 multiplies tile kt - 1
    if (group == 0 && kt < k_tiles) load_tiles(&tiles[0], A, Bt, K, row0, col0, kt, w, lane);
    if (group == 1 && kt > 0) multiply(&tiles[1], acc, w, lane);
    __builtin_amdgcn_s_waitcnt(0);  // this wave's loads into LDS are done
    __syncthreads();                // ... and every wave's: the roles flip
    // phase 2: group 1 loads tile kt while group 0 multiplies it
    if (group == 1 && kt < k_tiles) load_tiles(&tiles[1], A, Bt, K, row0, col0, kt, w, lane);
    if (group == 0 && kt < k_tiles) multiply(&tiles[0], acc, w, lane);
    __builtin_amdgcn_s_waitcnt(0);
    __syncthreads();
  }
  for (int j = 0; j < 4; ++j)
    for (int v = 0; v < 4; ++v)
      C[(long)(row0 + 16 * w + 4 * (lane / 16) + v) * N + col0 + 16 * j + lane % 16] = acc[j][v];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 3, "M N K");
  int M = (int)args.sizes[0], N = (int)args.sizes[1], K = (int)args.sizes[2];
  if (M % BM || N % BN || K % BK) {
    std::fprintf(stderr, "M, N and K must be multiples of %d, %d and %d\n", BM, BN, BK);
    return 64;
  }
  auto* a = harness::to_device(harness::read<unsigned short>(args, "a", (size_t)M * K));
  auto* bt = harness::to_device(harness::read<unsigned short>(args, "bt", (size_t)N * K));
  float* c = harness::poisoned<float>((size_t)M * N);
  auto launch = [&] {
    hipLaunchKernelGGL(gemm_ping_pong, dim3(N / BN, M / BM), dim3(THREADS), 0, 0, a, bt, c, M, N, K);
  };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(c, (size_t)M * N);
  harness::write(args, "c", host.data(), (size_t)M * N);
  harness::report(ms);
  CHECK(hipFree(a)); CHECK(hipFree(bt)); CHECK(hipFree(c));
  return 0;
}
