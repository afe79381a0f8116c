// Body of a Metal tile-scan kernel for mx.fast.metal_kernel: input x (int32), outputs y (each
// 1024-element tile scanned on its own) and totals (one per tile). Each of 256 threads scans 4
// elements, SIMD-groups scan with shuffle-up, and the SIMD-group totals are scanned with
// simd_prefix_inclusive_sum. The host adds the scanned tile totals afterwards.
constexpr uint ITEMS = 4;
constexpr uint TILE = 1024;
threadgroup int group_totals[32];
uint tid = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup;
uint group = simdgroup_index_in_threadgroup;
uint n = x_shape[0];
uint base = threadgroup_position_in_grid.x * TILE + tid * ITEMS;
int items[ITEMS];
int run = 0;
for (uint k = 0; k < ITEMS; ++k) {
  run += base + k < n ? x[base + k] : 0;
  items[k] = run;
}
int v = run;
for (uint d = 1; d < threads_per_simdgroup; d *= 2) {
  int below = simd_shuffle_up(v, d);
  if (lane >= d) v += below;
}
if (lane == threads_per_simdgroup - 1) group_totals[group] = v;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (group == 0) {
  uint groups = threads_per_threadgroup.x / threads_per_simdgroup;
  int t = lane < groups ? group_totals[lane] : 0;
  t = simd_prefix_inclusive_sum(t);
  if (lane < groups) group_totals[lane] = t;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
int before = v - run + (group > 0 ? group_totals[group - 1] : 0);
for (uint k = 0; k < ITEMS; ++k)
  if (base + k < n) y[base + k] = items[k] + before;
if (tid == threads_per_threadgroup.x - 1) totals[threadgroup_position_in_grid.x] = before + run;
