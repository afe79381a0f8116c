// c = a + b over n floats. Teaches the global thread index, the launch configuration and device
// buffers. Each thread moves one 16-byte float4 of each array, so a warp's access is one
// contiguous 512-byte span and the memory system sees few, wide requests.
#include "../../common/harness.cuh"

__global__ void vector_add(const float4* __restrict__ a, const float4* __restrict__ b,
                           float4* __restrict__ c, long n4) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;  // global thread id
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// The last n % 4 elements, one per thread.
__global__ void vector_add_tail(const float* a, const float* b, float* c, long start, long n) {
  long i = start + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 1, "N");
  long n = args.sizes[0];
  auto host_a = harness::read<float>(args, "a", n), host_b = harness::read<float>(args, "b", n);
  size_t bytes = n * sizeof(float);
  float *a, *b, *c;  // device buffers: plain cudaMalloc, copied to and from explicitly
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMemcpy(a, host_a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host_b.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(c, 0xFF, bytes));  // NaN poison: an element never written fails the check
  long n4 = n / 4;
  const int threads = 256;
  long blocks = (n4 + threads - 1) / threads;
  auto launch = [&] {
    if (blocks > 0)
      vector_add<<<blocks, threads>>>(reinterpret_cast<const float4*>(a),
                                      reinterpret_cast<const float4*>(b),
                                      reinterpret_cast<float4*>(c), n4);
    if (n % 4) vector_add_tail<<<1, 4>>>(a, b, c, n4 * 4, n);
  };
  float ms = harness::median_ms(launch, args.iters);
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), c, bytes, cudaMemcpyDeviceToHost));
  harness::write(args, "c", out.data(), n);
  harness::report(ms);
  CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c));
  return 0;
}
