// Number formats below float32 on AMD GPUs. CONVERT rounds every x to fp16, bf16 and the two fp8
// formats and back, squares pairs in packed half2 arithmetic and takes packed int8 dot products.
// fp8 is where the vendors part: gfx942 (MI300) converts in hardware to the FNUZ encodings
// (E4M3 with exponent bias 8, largest value 240, one NaN and no negative zero; E5M2 with bias 16),
// not to the OCP ones (bias 7 and 15, largest E4M3 448) of CUDA and of gfx950. For the normal
// values this example draws (2^-6 .. 240) both encodings hold the same numbers, so decoded
// results agree; the stored bytes do not. gfx90a has no fp8 instructions: there the rounding is
// done with integer arithmetic on the float's bits. The packed dot product is
// __builtin_amdgcn_sdot4 (v_dot4_i32_i8). MATMUL multiplies two 64 x 64 float32 matrices on the
// matrix cores: xf32 (gfx942's reduced-precision float32 input, like tf32) where it exists, plain
// float32 MFMA on gfx90a.
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>

#include "../../common/harness_hip.h"

constexpr int THREADS = 256;
constexpr int MM = 64;

typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float2v __attribute__((ext_vector_type(2)));

// Round a normal float to `keep` mantissa bits, nearest even (no overflow or subnormal handling:
// the callers' values are normal and in range).
__device__ float round_mantissa(float v, int keep) {
  unsigned u = __float_as_uint(v);
  int drop = 23 - keep;
  unsigned half = (1u << (drop - 1)) - 1 + ((u >> drop) & 1u);
  return __uint_as_float((u + half) & ~((1u << drop) - 1));
}

__device__ float2 to_fp8_e4m3(float2 v) {
#if defined(__gfx942__)
  int packed = __builtin_amdgcn_cvt_pk_fp8_f32(v.x, v.y, 0, false);  // two E4M3 FNUZ bytes
  return make_float2(__builtin_amdgcn_cvt_f32_fp8(packed, 0), __builtin_amdgcn_cvt_f32_fp8(packed, 1));
#else
  return make_float2(round_mantissa(v.x, 3), round_mantissa(v.y, 3));
#endif
}

__device__ float2 to_fp8_e5m2(float2 v) {
#if defined(__gfx942__)
  int packed = __builtin_amdgcn_cvt_pk_bf8_f32(v.x, v.y, 0, false);  // two E5M2 FNUZ bytes
  return make_float2(__builtin_amdgcn_cvt_f32_bf8(packed, 0), __builtin_amdgcn_cvt_f32_bf8(packed, 1));
#else
  return make_float2(round_mantissa(v.x, 2), round_mantissa(v.y, 2));
#endif
}

__device__ float4 join(float2 lo, float2 hi) { return make_float4(lo.x, lo.y, hi.x, hi.y); }

__global__ __launch_bounds__(THREADS) void convert(const float4* __restrict__ x4, long quads,
                                                   const int* __restrict__ qa, const int* __restrict__ qb,
                                                   float4* h, float4* b, float4* e4, float4* e5, float4* hh,
                                                   int* dot) {
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < quads; i += (long)gridDim.x * blockDim.x) {
    float4 v = x4[i];
    float2 lo = make_float2(v.x, v.y), hi = make_float2(v.z, v.w);
    __half2 h_lo = __float22half2_rn(lo), h_hi = __float22half2_rn(hi);
    h[i] = join(__half22float2(h_lo), __half22float2(h_hi));
    b[i] = make_float4(float(hip_bfloat16(v.x)), float(hip_bfloat16(v.y)), float(hip_bfloat16(v.z)),
                       float(hip_bfloat16(v.w)));
    e4[i] = join(to_fp8_e4m3(lo), to_fp8_e4m3(hi));
    e5[i] = join(to_fp8_e5m2(lo), to_fp8_e5m2(hi));
    hh[i] = join(__half22float2(__hmul2(h_lo, h_lo)), __half22float2(__hmul2(h_hi, h_hi)));
    dot[i] = __builtin_amdgcn_sdot4(qa[i], qb[i], 0, false);
  }
}

// One 64-lane wavefront per 16 x 16 tile of c. Lane l supplies A row l % 16 and B column l % 16;
// the four accumulators hold c rows 4 * (l / 16) .. +3 of column l % 16.
__global__ __launch_bounds__(64) void matmul_xf32(const float* __restrict__ a, const float* __restrict__ b,
                                                  float* __restrict__ c) {
  int lane = threadIdx.x % 64;
  int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  int r = lane % 16, q = lane / 16;
  float4v acc = {0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__gfx942__)
  for (int k = 0; k < MM; k += 8) {  // K = 8 per instruction, two values per lane
    float2v av = {a[(row0 + r) * MM + k + 2 * q], a[(row0 + r) * MM + k + 2 * q + 1]};
    float2v bv = {b[(k + 2 * q) * MM + col0 + r], b[(k + 2 * q + 1) * MM + col0 + r]};
    acc = __builtin_amdgcn_mfma_f32_16x16x8_xf32(av, bv, acc, 0, 0, 0);
  }
#else
  for (int k = 0; k < MM; k += 4) {  // K = 4 per instruction, one value per lane
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[(row0 + r) * MM + k + q], b[(k + q) * MM + col0 + r], acc, 0, 0, 0);
  }
#endif
  for (int v = 0; v < 4; ++v) c[(row0 + 4 * q + v) * MM + col0 + r] = acc[v];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  int* qa = harness::to_device(harness::read<int>(args, "qa", n / 4));
  int* qb = harness::to_device(harness::read<int>(args, "qb", n / 4));
  float* ma = harness::to_device(harness::read<float>(args, "ma", MM * MM));
  float* mb = harness::to_device(harness::read<float>(args, "mb", MM * MM));
  float *h = harness::poisoned<float>(n), *b = harness::poisoned<float>(n), *e4 = harness::poisoned<float>(n),
        *e5 = harness::poisoned<float>(n), *hh = harness::poisoned<float>(n), *mm = harness::poisoned<float>(MM * MM);
  int* dot = harness::poisoned<int>(n / 4);
  int blocks = harness::sm_count() * 8;
  auto launch = [&] {
    hipLaunchKernelGGL(convert, dim3(blocks), dim3(THREADS), 0, 0, reinterpret_cast<const float4*>(x), n / 4, qa, qb,
                       reinterpret_cast<float4*>(h), reinterpret_cast<float4*>(b), reinterpret_cast<float4*>(e4),
                       reinterpret_cast<float4*>(e5), reinterpret_cast<float4*>(hh), dot);
  };
  float ms = harness::median_ms(launch, args.iters);
  hipLaunchKernelGGL(matmul_xf32, dim3(MM / 16, MM / 16), dim3(64), 0, 0, ma, mb, mm);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  auto w = [&](const char* name, auto* d, size_t count) {
    auto v = harness::to_host(d, count);
    harness::write(args, name, v.data(), count);
  };
  w("h", h, n); w("b", b, n); w("e4", e4, n); w("e5", e5, n); w("hh", hh, n); w("dot", dot, n / 4); w("mm", mm, MM * MM);
  harness::report(ms);
  for (void* p : {(void*)x, (void*)qa, (void*)qb, (void*)ma, (void*)mb, (void*)h, (void*)b, (void*)e4, (void*)e5,
                  (void*)hh, (void*)mm, (void*)dot})
    CHECK(hipFree(p));
  return 0;
}
