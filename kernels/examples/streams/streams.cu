// Overlapping copies with compute. The input goes host -> device, through a kernel and back.
// Done in one stream, the copies and the kernel run one after another. Split into chunks and
// spread over several streams, the copy engines move chunk i+1 while the SMs work on chunk i.
// Host buffers are pinned (page-locked): asynchronous copies from pageable memory would not
// overlap. Events time both schedules; the last stream's work is joined with an event wait.
#include "../../common/harness.cuh"

constexpr int STEPS = 64;  // enough arithmetic per element that the kernel is not trivially short

__global__ void transform(const float* __restrict__ x, float* __restrict__ y, long n) {
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
#pragma unroll 8
    for (int s = 0; s < STEPS; ++s) v = fmaf(v, 0.999f, 0.001f);
    y[i] = v;
  }
}

static void launch_transform(const float* x, float* y, long n, cudaStream_t s) {
  int blocks = (int)std::min<long>((n + 255) / 256, 4096);
  transform<<<blocks, 256, 0, s>>>(x, y, n);
  CHECK_LAUNCH();
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "N CHUNKS");
  long n = args.sizes[0];
  int chunks = (int)args.sizes[1];
  const int NSTREAMS = 4;
  auto input = harness::read<float>(args, "x", n);
  float *h_in, *h_out, *d_in, *d_out;
  CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
  std::copy(input.begin(), input.end(), h_in);
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  cudaStream_t streams[NSTREAMS];
  cudaEvent_t done[NSTREAMS];
  for (int s = 0; s < NSTREAMS; ++s) {
    CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
  }
  cudaStream_t main_stream = streams[0];
  cudaEvent_t t0, t1, fork;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  const size_t bytes = n * sizeof(float);

  auto serial = [&] {
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, main_stream));
    launch_transform(d_in, d_out, n, main_stream);
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, main_stream));
  };
  auto overlapped = [&] {
    CHECK(cudaEventRecord(fork, main_stream));
    for (int s = 1; s < NSTREAMS; ++s) CHECK(cudaStreamWaitEvent(streams[s], fork, 0));  // fork
    long per = (n + chunks - 1) / chunks;
    for (int c = 0; c < chunks; ++c) {
      long off = (long)c * per, len = std::min(per, n - off);
      if (len <= 0) break;
      cudaStream_t s = streams[c % NSTREAMS];
      CHECK(cudaMemcpyAsync(d_in + off, h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s));
      launch_transform(d_in + off, d_out + off, len, s);
      CHECK(cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    for (int s = 1; s < NSTREAMS; ++s) {  // join: main stream waits for every other stream
      CHECK(cudaEventRecord(done[s], streams[s]));
      CHECK(cudaStreamWaitEvent(main_stream, done[s], 0));
    }
  };
  auto timed = [&](auto&& schedule) {
    harness::warm_up(schedule);
    std::vector<float> times;
    for (int i = 0; i < args.iters + 2; ++i) {
      CHECK(cudaEventRecord(t0, main_stream));
      schedule();
      CHECK(cudaEventRecord(t1, main_stream));
      CHECK(cudaEventSynchronize(t1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, t0, t1));
      if (i >= 2) times.push_back(ms);  // two more warm-up runs on this schedule
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  float serial_ms = timed(serial);
  std::memset(h_out, 0xFF, bytes);  // poison: the overlapped run must write every element
  float overlap_ms = timed(overlapped);
  CHECK(cudaDeviceSynchronize());
  harness::write(args, "y", h_out, n);
  char extra[128];
  std::snprintf(extra, sizeof extra, "\"serial_ms\": %.6f, \"overlap_speedup\": %.4f", serial_ms,
                serial_ms / overlap_ms);
  harness::report(overlap_ms, extra);
  for (int s = 0; s < NSTREAMS; ++s) {
    CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaEventDestroy(done[s]));
  }
  CHECK(cudaFreeHost(h_in)); CHECK(cudaFreeHost(h_out)); CHECK(cudaFree(d_in)); CHECK(cudaFree(d_out));
  return 0;
}
