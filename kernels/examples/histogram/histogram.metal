// Body of a Metal histogram kernel for mx.fast.metal_kernel: input data (bytes), output bins
// (atomic). Each threadgroup counts into 256 atomic counters in threadgroup memory, then adds
// them into the device bins.
threadgroup atomic_uint local[256];
uint tid = thread_position_in_threadgroup.x;
for (uint b = tid; b < 256; b += threads_per_threadgroup.x) atomic_store_explicit(&local[b], 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
uint n = data_shape[0];
for (uint i = thread_position_in_grid.x; i < n; i += threads_per_grid.x)
  atomic_fetch_add_explicit(&local[data[i]], 1u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
for (uint b = tid; b < 256; b += threads_per_threadgroup.x) {
  uint count = atomic_load_explicit(&local[b], memory_order_relaxed);
  if (count) atomic_fetch_add_explicit(&bins[b], count, memory_order_relaxed);
}
