// C = A x B^T for bf16 A (M x K) and B (N x K, both K-major as in a linear layer), float32 C, on
// Hopper's own machinery (sm_90a): the tensor memory accelerator (TMA) copies 128 x 64 and 256 x 64
// tiles into shared memory, 128-byte swizzled, completing on mbarriers (asynchronous barriers that
// count arrivals and bytes); warpgroups of four warps issue wgmma.mma_async on operands read
// straight from shared memory through matrix descriptors; and the block is warp-specialized: one
// producer warpgroup only issues copies and gives most of its registers away (setmaxnreg), two
// consumer warpgroups only multiply, each owning 64 rows x 256 columns of the 128 x 256 tile. The
// shared-memory ring has STAGES slots; "full" barriers say a slot's bytes have landed, "empty"
// barriers say both consumers are done with it.
#include <cuda.h>  // CUtensorMap and its enums only: the encoder is fetched from the driver at run time
#include <cuda_bf16.h>

#include "../../common/harness.cuh"

constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4;
constexpr int CONSUMERS = 2;  // warpgroups that multiply; one more produces
constexpr int THREADS = 128 * (CONSUMERS + 1);
constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES + 1024;  // + alignment slack

// --- mbarrier: arrival counts plus a transaction byte count, waited on by phase parity ---------
__device__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
               "r"(bytes) : "memory");
}
__device__ void mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}
__device__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity) : "memory");
}

// --- TMA: one 2-D tile, global -> shared, completion counted in bytes on `bar` -------------------
__device__ void tma_load_2d(void* smem, const CUtensorMap* map, unsigned long long* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
      ::"r"((unsigned)__cvta_generic_to_shared(smem)), "l"(map), "r"((unsigned)__cvta_generic_to_shared(bar)),
        "r"(x), "r"(y) : "memory");
}

// --- wgmma operand descriptors ---------------------------------------------------------------
// A K-major tile of rows of 64 bf16 (128 bytes), 128-byte swizzled as TMA wrote it: start address
// and the 1024-byte stride between 8-row groups, both in 16-byte units, and swizzle mode 1 (128 B).
__device__ unsigned long long smem_desc(const void* tile) {
  unsigned long long addr = (unsigned)__cvta_generic_to_shared(tile);
  return ((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}

// One wgmma.mma_async m64n256k16: D (64 x 256 float32, 128 registers per thread) += A (64 x 16
// bf16, from shared memory via descriptor) x B (16 x 256 bf16, from shared memory, K-major).
__device__ void wgmma_m64n256k16(float (&d)[128], unsigned long long desc_a, unsigned long long desc_b) {
  asm volatile(
      "{\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, 1, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b));
}

__global__ __launch_bounds__(THREADS, 1) void gemm_wgmma(const __grid_constant__ CUtensorMap map_a,
                                                         const __grid_constant__ CUtensorMap map_b, float* c,
                                                         int M, int N, int K) {
  extern __shared__ unsigned char smem_raw[];
  // TMA's 128-byte swizzle repeats every 1024 bytes: align the ring to that
  unsigned char* smem = reinterpret_cast<unsigned char*>(((size_t)smem_raw + 1023) & ~(size_t)1023);
  __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int k_tiles = K / BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);           // the producer's arrive.expect_tx, then the bytes
      mbar_init(&empty[s], CONSUMERS);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (wg == CONSUMERS) {  // producer warpgroup: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(&empty[s], ((kt / STAGES) - 1) & 1);  // both consumers released the slot
        unsigned char* a_tile = smem + s * STAGE_BYTES;
        mbar_expect_tx(&full[s], STAGE_BYTES);
        tma_load_2d(a_tile, &map_a, &full[s], kt * BK, row0);
        tma_load_2d(a_tile + A_BYTES, &map_b, &full[s], kt * BK, col0);
      }
    }
  } else {  // consumer warpgroups: 64 rows each
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;
    for (int kt = 0; kt < k_tiles; ++kt) {
      int s = kt % STAGES;
      mbar_wait(&full[s], (kt / STAGES) & 1);
      const unsigned char* a_tile = smem + s * STAGE_BYTES + wg * 64 * 128;  // this warpgroup's 64 rows
      const unsigned char* b_tile = smem + s * STAGE_BYTES + A_BYTES;
      unsigned long long da = smem_desc(a_tile), db = smem_desc(b_tile);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)  // 16 bf16 = 32 bytes further along K: +2 in 16-byte units
        wgmma_m64n256k16(d, da + 2 * kk, db + 2 * kk);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (t == 0) mbar_arrive(&empty[s]);
    }
    // accumulator layout of m64nN: warp w of the warpgroup holds rows 16w .. 16w+15; lane l holds
    // rows l/4 and l/4 + 8 of those, columns 8j + 2(l%4) and the next, for j = 0 .. N/8 - 1
    int warp = t / 32, lane = t % 32;
    int r = row0 + wg * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      int col = col0 + 8 * j + 2 * (lane % 4);
      *reinterpret_cast<float2*>(&c[(long)r * N + col]) = make_float2(d[4 * j], d[4 * j + 1]);
      *reinterpret_cast<float2*>(&c[(long)(r + 8) * N + col]) = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
  }
}

// A rows x cols bf16 matrix, row-major, as TMA boxes of box_rows x 64, 128-byte swizzled.
static CUtensorMap tensor_map(const void* base, int rows, int cols, int box_rows) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), cudaEnableDefault,
                                  &found));
    if (found != cudaDriverEntryPointSuccess) {
      std::fprintf(stderr, "the driver has no cuTensorMapEncodeTiled\n");
      std::exit(3);
    }
  }
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};  // innermost first
  cuuint64_t strides[1] = {(cuuint64_t)cols * 2};             // bytes between rows
  cuuint32_t box[2] = {BK, (cuuint32_t)box_rows};
  cuuint32_t elem_strides[2] = {1, 1};
  CUresult res = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                        elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed with %d\n", (int)res);
    std::exit(3);
  }
  return map;
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
  CUtensorMap map_a = tensor_map(a, M, K, BM), map_b = tensor_map(bt, N, K, BN);
  CHECK(cudaFuncSetAttribute(gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES));
  dim3 grid(N / BN, M / BM);
  auto launch = [&] { gemm_wgmma<<<grid, THREADS, SMEM_BYTES>>>(map_a, map_b, c, M, N, K); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(c, (size_t)M * N);
  harness::write(args, "c", host.data(), (size_t)M * N);
  harness::report(ms);
  CHECK(cudaFree(a)); CHECK(cudaFree(bt)); CHECK(cudaFree(c));
  return 0;
}
