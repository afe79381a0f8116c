// Measures what CUDA's conversion intrinsics return for NaN, infinities and
// out-of-range inputs on the device, and, where the header also defines the
// function for the host, what the host path returns for the same input.
// The glossary's conversion rows cite the JSON this prints; it is a probe,
// not an example, and prints bit patterns rather than judging them.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

static float f_from_bits(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
static double d_from_bits(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }

// Float inputs: quiet NaNs with and without a payload, a signalling NaN,
// infinities, values past the 32- and 64-bit integer ranges, a negative value.
static const uint32_t kFloatBits[] = {0x7fc00000u, 0xffc00000u, 0x7fa12345u, 0x7f800001u,
                                      0x7f800000u, 0xff800000u, 0x4f800000u /*2^32*/,
                                      0x5f800000u /*2^64*/, 0xbfc00000u /*-1.5*/, 0xdf800000u /*-2^64*/};
constexpr int kNF = sizeof(kFloatBits) / sizeof(kFloatBits[0]);
// Double inputs: the same classes, plus a value whose double-to-bf16 rounding
// differs from rounding through float first (1 + 2^-8 + 2^-40).
static const uint64_t kDoubleBits[] = {0x7ff8000000000000ull, 0xfff8000000000000ull,
                                       0x7ff4000000012345ull, 0x7ff0000000000000ull,
                                       0x41f0000000000000ull /*2^32*/, 0x43f0000000000000ull /*2^64*/,
                                       0xbff8000000000000ull /*-1.5*/, 0x3ff0100000010000ull};
constexpr int kND = sizeof(kDoubleBits) / sizeof(kDoubleBits[0]);

#define FLOAT_TO_INT_OPS(X) \
  X(__float2int_rn, int32_t) X(__float2int_rz, int32_t) X(__float2int_rd, int32_t) X(__float2int_ru, int32_t) \
  X(__float2uint_rn, uint32_t) X(__float2uint_rz, uint32_t) X(__float2uint_rd, uint32_t) X(__float2uint_ru, uint32_t) \
  X(__float2ll_rn, int64_t) X(__float2ll_rz, int64_t) X(__float2ll_rd, int64_t) X(__float2ll_ru, int64_t) \
  X(__float2ull_rn, uint64_t) X(__float2ull_rz, uint64_t) X(__float2ull_rd, uint64_t) X(__float2ull_ru, uint64_t)
#define DOUBLE_TO_INT_OPS(X) \
  X(__double2int_rn, int32_t) X(__double2int_rz, int32_t) X(__double2ll_rz, int64_t)
#define FLOAT_TO_16_OPS(X) \
  X(__float2bfloat16) X(__float2bfloat16_rn) X(__float2bfloat16_rz) X(__float2bfloat16_rd) X(__float2bfloat16_ru) \
  X(__float2half) X(__float2half_rn) X(__float2half_rz) X(__float2half_rd) X(__float2half_ru)

#define COUNT1(f, t) +1
#define COUNT0(f) +1
constexpr int kFI = 0 FLOAT_TO_INT_OPS(COUNT1);
constexpr int kDI = 0 DOUBLE_TO_INT_OPS(COUNT1);
constexpr int kF16 = 0 FLOAT_TO_16_OPS(COUNT0);

template <typename T> __host__ __device__ unsigned long long raw64(T v) {
  unsigned long long r = 0; memcpy(&r, &v, sizeof(T)); return r;
}

__global__ void probe(const float* fin, const double* din, unsigned long long* fi, unsigned long long* di,
                      unsigned long long* f16, unsigned long long* d16, unsigned long long* pair) {
  for (int i = 0; i < kNF; ++i) {
    int k = 0;
#define RUN_FI(f, t) fi[(k++) * kNF + i] = raw64<t>(f(fin[i]));
    FLOAT_TO_INT_OPS(RUN_FI)
    k = 0;
#define RUN_F16(f) f16[(k++) * kNF + i] = raw64(f(fin[i]));
    FLOAT_TO_16_OPS(RUN_F16)
    pair[2 * i] = raw64(__floats2bfloat162_rn(fin[i], 1.0f));
    pair[2 * i + 1] = raw64(__floats2half2_rn(fin[i], 1.0f));
  }
  for (int i = 0; i < kND; ++i) {
    int k = 0;
#define RUN_DI(f, t) di[(k++) * kND + i] = raw64<t>(f(din[i]));
    DOUBLE_TO_INT_OPS(RUN_DI)
    d16[2 * i] = raw64(__double2bfloat16(din[i]));
    d16[2 * i + 1] = raw64(__double2half(din[i]));
  }
}

static void print_row(const char* name, const char* where, const unsigned long long* v, int n, int width, bool last) {
  printf("    {\"function\": \"%s\", \"where\": \"%s\", \"bits\": [", name, where);
  for (int i = 0; i < n; ++i) printf("%s\"0x%0*llx\"", i ? ", " : "", width, v[i]);
  printf("]}%s\n", last ? "" : ",");
}

int main() {
  float fin[kNF]; double din[kND];
  for (int i = 0; i < kNF; ++i) fin[i] = f_from_bits(kFloatBits[i]);
  for (int i = 0; i < kND; ++i) din[i] = d_from_bits(kDoubleBits[i]);
  float* dfin; double* ddin; unsigned long long *dfi, *ddi, *df16, *dd16, *dpair;
  cudaMalloc(&dfin, sizeof fin); cudaMalloc(&ddin, sizeof din);
  cudaMalloc(&dfi, 8 * kFI * kNF); cudaMalloc(&ddi, 8 * kDI * kND);
  cudaMalloc(&df16, 8 * kF16 * kNF); cudaMalloc(&dd16, 8 * 2 * kND); cudaMalloc(&dpair, 8 * 2 * kNF);
  cudaMemcpy(dfin, fin, sizeof fin, cudaMemcpyHostToDevice);
  cudaMemcpy(ddin, din, sizeof din, cudaMemcpyHostToDevice);
  probe<<<1, 1>>>(dfin, ddin, dfi, ddi, df16, dd16, dpair);
  unsigned long long fi[kFI * kNF], di[kDI * kND], f16[kF16 * kNF], d16[2 * kND], pair[2 * kNF];
  cudaMemcpy(fi, dfi, sizeof fi, cudaMemcpyDeviceToHost);
  cudaMemcpy(di, ddi, sizeof di, cudaMemcpyDeviceToHost);
  cudaMemcpy(f16, df16, sizeof f16, cudaMemcpyDeviceToHost);
  cudaMemcpy(d16, dd16, sizeof d16, cudaMemcpyDeviceToHost);
  cudaMemcpy(pair, dpair, sizeof pair, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }

  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  int rt = 0; cudaRuntimeGetVersion(&rt);
  printf("{\n  \"device\": \"%s\", \"compute_capability\": \"%d.%d\", \"cuda_runtime\": %d,\n", prop.name, prop.major, prop.minor, rt);
  printf("  \"float_inputs\": [");
  for (int i = 0; i < kNF; ++i) printf("%s\"0x%08x\"", i ? ", " : "", kFloatBits[i]);
  printf("],\n  \"double_inputs\": [");
  for (int i = 0; i < kND; ++i) printf("%s\"0x%016llx\"", i ? ", " : "", (unsigned long long)kDoubleBits[i]);
  printf("],\n  \"results\": [\n");
  static const char* fi_names[] = {
#define NAME1(f, t) #f,
      FLOAT_TO_INT_OPS(NAME1)};
  static const int fi_width[] = {
#define WIDTH1(f, t) 2 * (int)sizeof(t),
      FLOAT_TO_INT_OPS(WIDTH1)};
  for (int k = 0; k < kFI; ++k) print_row(fi_names[k], "device", fi + k * kNF, kNF, fi_width[k], false);
  static const char* di_names[] = {DOUBLE_TO_INT_OPS(NAME1)};
  static const int di_width[] = {DOUBLE_TO_INT_OPS(WIDTH1)};
  for (int k = 0; k < kDI; ++k) print_row(di_names[k], "device", di + k * kND, kND, di_width[k], false);
  static const char* f16_names[] = {
#define NAME0(f) #f,
      FLOAT_TO_16_OPS(NAME0)};
  for (int k = 0; k < kF16; ++k) {
    print_row(f16_names[k], "device", f16 + k * kNF, kNF, 4, false);
  }
  // The host path of the same header functions, for the 16-bit conversions.
  unsigned long long host[kNF];
  int k = 0;
#define RUN_HOST(f) \
  for (int i = 0; i < kNF; ++i) host[i] = raw64(f(fin[i])); \
  print_row(f16_names[k++], "host", host, kNF, 4, false);
  FLOAT_TO_16_OPS(RUN_HOST)
  unsigned long long lo[kNF];
  for (int i = 0; i < kNF; ++i) lo[i] = pair[2 * i] & 0xffff;
  print_row("__floats2bfloat162_rn (low half)", "device", lo, kNF, 4, false);
  for (int i = 0; i < kNF; ++i) lo[i] = pair[2 * i + 1] & 0xffff;
  print_row("__floats2half2_rn (low half)", "device", lo, kNF, 4, false);
  unsigned long long dv[kND];
  for (int i = 0; i < kND; ++i) dv[i] = d16[2 * i];
  print_row("__double2bfloat16", "device", dv, kND, 4, false);
  for (int i = 0; i < kND; ++i) dv[i] = raw64(__double2bfloat16(din[i]));
  print_row("__double2bfloat16", "host", dv, kND, 4, false);
  for (int i = 0; i < kND; ++i) dv[i] = d16[2 * i + 1];
  print_row("__double2half", "device", dv, kND, 4, false);
  for (int i = 0; i < kND; ++i) dv[i] = raw64(__double2half(din[i]));
  print_row("__double2half", "host", dv, kND, 4, true);
  printf("  ]\n}\n");
  return 0;
}
