// Body of a Metal reduction kernel for mx.fast.metal_kernel: input x, output sum (atomic).
// A SIMD-group is 32 threads on Apple GPUs; the shuffle loop reads the width instead of
// assuming it. The second level uses simd_sum, Metal's built-in SIMD-group reduction.
uint lane = thread_index_in_simdgroup;
uint group = simdgroup_index_in_threadgroup;
uint width = threads_per_simdgroup;
uint n = x_shape[0];
float acc = 0.0f;
for (uint i = thread_position_in_grid.x; i < n; i += threads_per_grid.x) acc += x[i];
for (uint offset = width / 2; offset > 0; offset /= 2) acc += simd_shuffle_down(acc, offset);
threadgroup float partial[32];
if (lane == 0) partial[group] = acc;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (group == 0) {
  uint groups = threads_per_threadgroup.x / width;
  float v = lane < groups ? partial[lane] : 0.0f;
  v = simd_sum(v);
  if (lane == 0) atomic_fetch_add_explicit(&sum[0], v, memory_order_relaxed);
}
