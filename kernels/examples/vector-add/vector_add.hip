// c = a + b over n floats, for AMD GPUs. The indexing is the CUDA spelling (HIP keeps it); what
// changes is the width of a wavefront on CDNA: 64 lanes, so one wavefront's float4 access spans
// 1 KiB. The launch goes through hipLaunchKernelGGL, HIP's portable launch macro.
// c is written once and never read back by the kernel, so its stores carry the nontemporal hint
// (clang's __builtin_nontemporal_store): the per-access cache policy that stands in for CUDA's
// streaming access property, since HIP has no access-policy window. It sets the nt bit on gfx942
// and glc slc on gfx90a (LLVM's AMDGPUUsage memory model): a hint that the lines will not be
// reused, so the caches hold them as streaming data rather than at the expense of a and b.
#include "../../common/harness_hip.h"

__global__ void vector_add(const float4* __restrict__ a, const float4* __restrict__ b,
                           float4* __restrict__ c, long n4) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;  // global thread id
  if (i < n4) {
    float4 x = a[i], y = b[i];
    __builtin_nontemporal_store(make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w).data, &c[i].data);
  }
}

__global__ void vector_add_tail(const float* a, const float* b, float* c, long start, long n) {
  long i = start + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  auto host_a = harness::read<float>(args, "a", n), host_b = harness::read<float>(args, "b", n);
  size_t bytes = n * sizeof(float);
  float *a, *b, *c;
  CHECK(hipMalloc(&a, bytes));
  CHECK(hipMalloc(&b, bytes));
  CHECK(hipMalloc(&c, bytes));
  CHECK(hipMemcpy(a, host_a.data(), bytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(b, host_b.data(), bytes, hipMemcpyHostToDevice));
  CHECK(hipMemset(c, 0xFF, bytes));
  long n4 = n / 4;
  const int threads = 256;  // four 64-lane wavefronts
  long blocks = (n4 + threads - 1) / threads;
  auto launch = [&] {
    if (blocks > 0)
      hipLaunchKernelGGL(vector_add, dim3(blocks), dim3(threads), 0, 0, reinterpret_cast<const float4*>(a),
                         reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(c), n4);
    if (n % 4) hipLaunchKernelGGL(vector_add_tail, dim3(1), dim3(4), 0, 0, a, b, c, n4 * 4, n);
  };
  float ms = harness::median_ms(launch, args.iters);
  std::vector<float> out(n);
  CHECK(hipMemcpy(out.data(), c, bytes, hipMemcpyDeviceToHost));
  harness::write(args, "c", out.data(), n);
  harness::report(ms);
  CHECK(hipFree(a)); CHECK(hipFree(b)); CHECK(hipFree(c));
  return 0;
}
