// The two stages of runtime.cu as a Metal library that runtime_host.mm compiles at run time
// (newLibraryWithSource:options:error:, Metal 3.2 with shader logging enabled). Unlike the other
// gallery .metal files, this is a whole library with kernel signatures, not a body for
// mx.fast.metal_kernel: the native host binds every argument itself.
//
// Written against Apple's documentation, not compiled: no Apple SDK here. Checked against the
// Metal Shading Language specification (attributes [[max_total_threads_per_threadgroup]],
// [[threadgroup(0)]], [[buffer(n)]]) and Apple's article "Logging shader debug messages"
// (<metal_logging>, os_log_default, Metal 3.2).
#include <metal_stdlib>
#include <metal_logging>
using namespace metal;

// One chunk of the pipeline; the host keeps one per chunk, 256 bytes apart, in a shared buffer.
struct Chunk {
  uint lo;
  uint hi;
  uint n;
};

// Stage 1. The slice of x plus one halo element is staged in threadgroup memory whose size the
// host sets at dispatch (setThreadgroupMemoryLength:atIndex:0), the counterpart of CUDA's dynamic
// shared memory. The attribute caps the threadgroup size, as __launch_bounds__ does.
[[max_total_threads_per_threadgroup(256)]]
kernel void stencil(device const float* x [[buffer(0)]],
                    device float* t [[buffer(1)]],
                    device const float* c [[buffer(2)]],
                    device const Chunk& chunk [[buffer(3)]],
                    threadgroup float* tile [[threadgroup(0)]],
                    uint lid [[thread_position_in_threadgroup]],
                    uint group [[threadgroup_position_in_grid]],
                    uint width [[threads_per_threadgroup]]) {
  uint base = chunk.lo + group * width;
  uint i = base + lid;
  uint limit = chunk.hi < chunk.n ? chunk.hi + 1 : chunk.n;  // the halo of the chunk's last element
  tile[lid] = i < limit ? x[i] : 0.0f;
  if (lid == 0) {
    uint j = base + width;
    tile[width] = j < limit ? x[j] : 0.0f;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (i < chunk.hi) t[i] = c[0] * tile[lid] + c[1] * tile[lid + 1];
}

// Stage 2. The first thread of the first chunk logs once through the log state the host attached
// to the command queue (messages go to its log handler, or to the unified log).
[[max_total_threads_per_threadgroup(256)]]
kernel void finish(device const float* t [[buffer(0)]],
                   device float* y [[buffer(1)]],
                   device const float* c [[buffer(2)]],
                   device const Chunk& chunk [[buffer(3)]],
                   uint gid [[thread_position_in_grid]]) {
  uint i = chunk.lo + gid;
  if (gid == 0 && chunk.lo == 0) os_log_default.log("finish: first chunk, t[0] = %f", t[0]);
  if (i < chunk.hi) y[i] = fma(c[2], t[i] * t[i], c[3]);
}
