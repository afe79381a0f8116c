// Bodies of the Metal normalisation for mx.fast.metal_kernel (Metal has no grid-wide barrier, so
// the scaling is a second dispatch, SCALE below). PARTIAL: each threadgroup sums its part; SIMD-group
// 0 publishes the threadgroup's sum behind a threadgroup-scope fence and a flag the other
// SIMD-groups spin on; the threadgroup's partial is then stored, fenced at device scope and counted
// with a ticket, and the threadgroup that draws the last ticket adds all partials. The
// thread_scope argument of atomic_thread_fence needs MSL 3.2. Outputs are atomic (MLX makes all
// outputs of a kernel atomic when one must be).
#if defined(PARTIAL)
threadgroup float simd_sums[32];
threadgroup float group_sum;
threadgroup atomic_int published;
threadgroup bool last;
uint tid = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup;
uint sg = simdgroup_index_in_threadgroup;
uint groups = threads_per_threadgroup.x / threads_per_simdgroup;
if (tid == 0) atomic_store_explicit(&published, 0, memory_order_relaxed);
uint n = x_shape[0];
float acc = 0.0f;
for (uint i = thread_position_in_grid.x; i < n; i += threads_per_grid.x) acc += x[i];
acc = simd_sum(acc);
if (lane == 0) simd_sums[sg] = acc;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (sg == 0) {
  // rotating the SIMD-group by halving distances leaves every lane holding the sum of all lanes
  float s = lane < groups ? simd_sums[lane] : 0.0f;
  for (uint o = threads_per_simdgroup / 2; o > 0; o /= 2) s += simd_shuffle_rotate_down(s, o);
  if (lane == 0) {
    group_sum = s;
    atomic_thread_fence(mem_flags::mem_threadgroup, memory_order_seq_cst, thread_scope_threadgroup);
    atomic_store_explicit(&published, 1, memory_order_relaxed);
  }
} else {
  while (atomic_load_explicit(&published, memory_order_relaxed) == 0) {}
}
if (tid == 0) {
  atomic_store_explicit(&partials[threadgroup_position_in_grid.x], group_sum, memory_order_relaxed);
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device);
  uint groups_in_grid = threads_per_grid.x / threads_per_threadgroup.x;
  last = atomic_fetch_add_explicit(&ticket[0], 1, memory_order_relaxed) == int(groups_in_grid - 1);
}
threadgroup_barrier(mem_flags::mem_threadgroup);
if (last && tid == 0) {
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device);
  float s = 0.0f;
  uint groups_in_grid = threads_per_grid.x / threads_per_threadgroup.x;
  for (uint b = 0; b < groups_in_grid; ++b) s += atomic_load_explicit(&partials[b], memory_order_relaxed);
  atomic_store_explicit(&total[0], s, memory_order_relaxed);
}
#else  // SCALE
uint i = thread_position_in_grid.x;
if (i < x_shape[0]) y[i] = x[i] / total[0];
#endif
