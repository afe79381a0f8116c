// Number formats below float32. CONVERT rounds every x to fp16, bf16, fp8 E4M3 and fp8 E5M2
// (the OCP encodings of cuda_fp8.h) and back, squares pairs in packed half2 arithmetic, and
// takes packed int8 dot products with __dp4a (four multiplies and an add in one instruction).
// MATMUL multiplies two 64 x 64 float32 matrices on the tensor cores in tf32, the matrix units'
// float32 mode: operands keep 10 of float32's 23 mantissa bits, accumulation stays float32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

#include "../../common/harness.cuh"

using namespace nvcuda;

constexpr int THREADS = 256;
constexpr int MM = 64;  // the tf32 product is MM x MM x MM

// Four values per thread (one 16-byte load), handled as two pairs: fp16, bf16 and fp8 have
// two-element vector types whose conversions and arithmetic work on both halves at once.
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
    __nv_bfloat162 b_lo = __float22bfloat162_rn(lo), b_hi = __float22bfloat162_rn(hi);
    b[i] = join(__bfloat1622float2(b_lo), __bfloat1622float2(b_hi));
    __nv_fp8x2_e4m3 e4_lo(lo), e4_hi(hi);  // round to nearest even, saturating to the largest finite value
    e4[i] = join(static_cast<float2>(e4_lo), static_cast<float2>(e4_hi));
    __nv_fp8x2_e5m2 e5_lo(lo), e5_hi(hi);
    e5[i] = join(static_cast<float2>(e5_lo), static_cast<float2>(e5_hi));
    // two fp16 products per instruction
    hh[i] = join(__half22float2(__hmul2(h_lo, h_lo)), __half22float2(__hmul2(h_hi, h_hi)));
    dot[i] = __dp4a(qa[i], qb[i], 0);  // qa[i] and qb[i] each pack four int8 values
  }
}

__global__ void matmul_tf32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  // one warp per 16 x 16 tile of c
  int tile_row = blockIdx.y * 16, tile_col = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < MM; k += 8) {
    wmma::load_matrix_sync(fa, a + tile_row * MM + k, MM);
    wmma::load_matrix_sync(fb, b + k * MM + tile_col, MM);
    for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
    for (int t = 0; t < fb.num_elements; ++t) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tile_row * MM + tile_col, acc, MM, wmma::mem_row_major);
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];  // a multiple of 4; qa and qb hold n int8 values, n / 4 dot products
  float* x = harness::to_device(harness::read<float>(args, "x", n));
  int* qa = harness::to_device(harness::read<int>(args, "qa", n / 4));
  int* qb = harness::to_device(harness::read<int>(args, "qb", n / 4));
  float* ma = harness::to_device(harness::read<float>(args, "ma", MM * MM));
  float* mb = harness::to_device(harness::read<float>(args, "mb", MM * MM));
  float *h = harness::poisoned<float>(n), *b = harness::poisoned<float>(n), *e4 = harness::poisoned<float>(n),
        *e5 = harness::poisoned<float>(n), *hh = harness::poisoned<float>(n), *mm = harness::poisoned<float>(MM * MM);
  int* dot = harness::poisoned<int>(n / 4);
  int blocks = harness::sm_count() * (2048 / THREADS);
  auto launch = [&] {
    convert<<<blocks, THREADS>>>(reinterpret_cast<const float4*>(x), n / 4, qa, qb, reinterpret_cast<float4*>(h),
                                 reinterpret_cast<float4*>(b), reinterpret_cast<float4*>(e4),
                                 reinterpret_cast<float4*>(e5), reinterpret_cast<float4*>(hh), dot);
  };
  float ms = harness::median_ms(launch, args.iters);
  matmul_tf32<<<dim3(MM / 16, MM / 16), 32>>>(ma, mb, mm);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  auto w = [&](const char* name, auto* d, size_t count) {
    auto v = harness::to_host(d, count);
    harness::write(args, name, v.data(), count);
  };
  w("h", h, n); w("b", b, n); w("e4", e4, n); w("e5", e5, n); w("hh", hh, n); w("dot", dot, n / 4); w("mm", mm, MM * MM);
  harness::report(ms);
  for (void* p : {(void*)x, (void*)qa, (void*)qb, (void*)ma, (void*)mb, (void*)h, (void*)b, (void*)e4, (void*)e5,
                  (void*)hh, (void*)mm, (void*)dot})
    CHECK(cudaFree(p));
  return 0;
}
