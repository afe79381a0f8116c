// Host-side harness shared by the HIP examples: argument parsing, binary I/O with the runner,
// error checks and event timing. Kernels stay in each example's own file.
//
// Protocol with the runner: `prog DIR ITERS SIZE...`. Inputs are raw little-endian arrays in
// DIR/in_<name>.bin, outputs go to DIR/out_<name>.bin, and the program prints one JSON line
// with the median time of ITERS timed repetitions after warm-up.
#pragma once
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    hipError_t err_ = (call);                                                           \
    if (err_ != hipSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: HIP error: %s\n", __FILE__, __LINE__,                \
                   hipGetErrorString(err_));                                            \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

// Launches are asynchronous: ask for the launch error at once, and for execution errors at the
// next synchronising call (every CHECK after it).
#define CHECK_LAUNCH() CHECK(hipGetLastError())

namespace harness {

struct Args {
  std::string dir;
  int iters = 20;
  std::vector<long> sizes;
};

inline Args parse(int argc, char** argv, int nsizes, const char* usage) {
  if (argc != 3 + nsizes) {
    std::fprintf(stderr, "usage: %s DIR ITERS %s\n", argv[0], usage);
    std::exit(64);
  }
  Args a;
  a.dir = argv[1];
  a.iters = std::atoi(argv[2]);
  for (int i = 0; i < nsizes; ++i) {
    long v = std::atol(argv[3 + i]);
    if (v <= 0) {
      std::fprintf(stderr, "size %d must be a positive integer, got %s\n", i, argv[3 + i]);
      std::exit(64);
    }
    a.sizes.push_back(v);
  }
  if (a.iters <= 0) a.iters = 1;
  return a;
}

template <class T>
std::vector<T> read(const Args& a, const char* name, size_t count) {
  std::string path = a.dir + "/in_" + name + ".bin";
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "cannot open %s\n", path.c_str()); std::exit(66); }
  std::vector<T> v(count);
  size_t got = std::fread(v.data(), sizeof(T), count, f);
  std::fclose(f);
  if (got != count) { std::fprintf(stderr, "%s: expected %zu elements, read %zu\n", path.c_str(), count, got); std::exit(65); }
  return v;
}

template <class T>
void write(const Args& a, const char* name, const T* data, size_t count) {
  std::string path = a.dir + "/out_" + name + ".bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, sizeof(T), count, f) != count) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(73);
  }
  std::fclose(f);
}

template <class T>
T* to_device(const std::vector<T>& host) {
  T* d = nullptr;
  CHECK(hipMalloc(&d, host.size() * sizeof(T)));
  CHECK(hipMemcpy(d, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

// A device buffer filled with 0xFF bytes (NaN for floats, -1 for integers), so an element the
// kernel never writes cannot pass the check.
template <class T>
T* poisoned(size_t count) {
  T* d = nullptr;
  CHECK(hipMalloc(&d, count * sizeof(T)));
  CHECK(hipMemset(d, 0xFF, count * sizeof(T)));
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, size_t count) {
  std::vector<T> h(count);
  CHECK(hipMemcpy(h.data(), d, count * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

inline int sm_count() {
  int dev = 0, sms = 0;
  CHECK(hipGetDevice(&dev));
  CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
  return sms;
}

// Runs `launch` until at least `min_ms` of wall time and three runs have passed. GPU clocks
// ramp up from idle over tens of milliseconds; timing a half-awake GPU understates it.
template <class F>
void warm_up(F launch, double min_ms = 200.0) {
  auto t0 = std::chrono::steady_clock::now();
  for (int runs = 0;; ++runs) {
    launch();
    CHECK_LAUNCH();
    CHECK(hipDeviceSynchronize());
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (runs >= 2 && ms >= min_ms) break;
  }
}

// Median of `iters` event-timed runs of `launch` after warm_up. `launch` must leave the
// complete, correct result behind each time (it re-zeroes accumulators itself).
template <class F>
float median_ms(F launch, int iters) {
  warm_up(launch);
  hipEvent_t start, stop;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < iters; ++i) {
    CHECK(hipEventRecord(start));
    launch();
    CHECK(hipEventRecord(stop));
    CHECK(hipEventSynchronize(stop));
    CHECK_LAUNCH();
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

inline void report(float ms, const char* extra = "") {
  std::printf("{\"ms\": %.6f%s%s}\n", ms, extra[0] ? ", " : "", extra);
}

}  // namespace harness
