// Overlapping copies with compute on AMD GPUs: the same chunked schedule as the CUDA version,
// with HIP's stream, event and pinned-memory calls. hipHostMalloc gives page-locked host memory,
// which the DMA engines need for hipMemcpyAsync to run alongside kernels.
#include "../../common/harness_hip.h"

constexpr int STEPS = 64;

__global__ void transform(const float* __restrict__ x, float* __restrict__ y, long n) {
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    for (int s = 0; s < STEPS; ++s) v = fmaf(v, 0.999f, 0.001f);
    y[i] = v;
  }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "N CHUNKS");
  long n = args.sizes[0];
  int chunks = (int)args.sizes[1];
  const int NSTREAMS = 4;
  auto input = harness::read<float>(args, "x", n);
  const size_t bytes = n * sizeof(float);
  float *h_in, *h_out, *d_in, *d_out;
  CHECK(hipHostMalloc(&h_in, bytes, hipHostMallocDefault));
  CHECK(hipHostMalloc(&h_out, bytes, hipHostMallocDefault));
  std::copy(input.begin(), input.end(), h_in);
  CHECK(hipMalloc(&d_in, bytes));
  CHECK(hipMalloc(&d_out, bytes));
  hipStream_t streams[NSTREAMS];
  hipEvent_t done[NSTREAMS];
  for (int s = 0; s < NSTREAMS; ++s) {
    CHECK(hipStreamCreateWithFlags(&streams[s], hipStreamNonBlocking));
    CHECK(hipEventCreateWithFlags(&done[s], hipEventDisableTiming));
  }
  hipStream_t main_stream = streams[0];
  hipEvent_t t0, t1, fork;
  CHECK(hipEventCreate(&t0));
  CHECK(hipEventCreate(&t1));
  CHECK(hipEventCreateWithFlags(&fork, hipEventDisableTiming));
  auto launch = [&](const float* x, float* y, long len, hipStream_t s) {
    int blocks = (int)std::min<long>((len + 255) / 256, 4096);
    hipLaunchKernelGGL(transform, dim3(blocks), dim3(256), 0, s, x, y, len);
    CHECK_LAUNCH();
  };
  auto serial = [&] {
    CHECK(hipMemcpyAsync(d_in, h_in, bytes, hipMemcpyHostToDevice, main_stream));
    launch(d_in, d_out, n, main_stream);
    CHECK(hipMemcpyAsync(h_out, d_out, bytes, hipMemcpyDeviceToHost, main_stream));
  };
  auto overlapped = [&] {
    CHECK(hipEventRecord(fork, main_stream));
    for (int s = 1; s < NSTREAMS; ++s) CHECK(hipStreamWaitEvent(streams[s], fork, 0));
    long per = (n + chunks - 1) / chunks;
    for (int c = 0; c < chunks; ++c) {
      long off = (long)c * per, len = std::min(per, n - off);
      if (len <= 0) break;
      hipStream_t s = streams[c % NSTREAMS];
      CHECK(hipMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), hipMemcpyHostToDevice, s));
      launch(d_in + off, d_out + off, len, s);
      CHECK(hipMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), hipMemcpyDeviceToHost, s));
    }
    for (int s = 1; s < NSTREAMS; ++s) {
      CHECK(hipEventRecord(done[s], streams[s]));
      CHECK(hipStreamWaitEvent(main_stream, done[s], 0));
    }
  };
  auto timed = [&](auto&& schedule) {
    harness::warm_up(schedule);
    std::vector<float> times;
    for (int i = 0; i < args.iters + 2; ++i) {
      CHECK(hipEventRecord(t0, main_stream));
      schedule();
      CHECK(hipEventRecord(t1, main_stream));
      CHECK(hipEventSynchronize(t1));
      float ms = 0;
      CHECK(hipEventElapsedTime(&ms, t0, t1));
      if (i >= 2) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  float serial_ms = timed(serial);
  std::memset(h_out, 0xFF, bytes);
  float overlap_ms = timed(overlapped);
  CHECK(hipDeviceSynchronize());
  harness::write(args, "y", h_out, n);
  char extra[128];
  std::snprintf(extra, sizeof extra, "\"serial_ms\": %.6f, \"overlap_speedup\": %.4f", serial_ms, serial_ms / overlap_ms);
  harness::report(overlap_ms, extra);
  for (int s = 0; s < NSTREAMS; ++s) {
    CHECK(hipStreamDestroy(streams[s]));
    CHECK(hipEventDestroy(done[s]));
  }
  CHECK(hipHostFree(h_in)); CHECK(hipHostFree(h_out)); CHECK(hipFree(d_in)); CHECK(hipFree(d_out));
  return 0;
}
