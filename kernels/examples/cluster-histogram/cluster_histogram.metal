// Body of a Metal 65536-bin histogram kernel for mx.fast.metal_kernel: input keys (16-bit), output
// bins (atomic). Metal has no thread block clusters and no way for a threadgroup to reach another
// threadgroup's memory, and Apple GPUs give a threadgroup 32 KB, an eighth of the 256 KB of bins.
// What the CUDA version spreads over the shared memory of a 4-block cluster is spread here over
// eight threadgroups that read the same chunk of keys: threadgroup g counts only the keys of slice
// g % 8 (8192 bins) into threadgroup atomics, for the keys of chunk g / 8, and adds its slice into
// the device bins. Each key is read eight times (mostly from the GPU's caches) but counted once.
threadgroup atomic_uint slice[8192];
const uint SLICES = 8;
const uint SLICE_BINS = 8192;
uint tid = thread_position_in_threadgroup.x;
uint width = threads_per_threadgroup.x;
uint part = threadgroup_position_in_grid.x % SLICES;
uint chunk = threadgroup_position_in_grid.x / SLICES;
uint chunks = threadgroups_per_grid.x / SLICES;
for (uint b = tid; b < SLICE_BINS; b += width) atomic_store_explicit(&slice[b], 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
uint n = keys_shape[0];
for (uint i = chunk * width + tid; i < n; i += chunks * width) {
  uint k = keys[i];
  if (k / SLICE_BINS == part) atomic_fetch_add_explicit(&slice[k % SLICE_BINS], 1u, memory_order_relaxed);
}
threadgroup_barrier(mem_flags::mem_threadgroup);
for (uint b = tid; b < SLICE_BINS; b += width) {
  uint count = atomic_load_explicit(&slice[b], memory_order_relaxed);
  if (count) atomic_fetch_add_explicit(&bins[part * SLICE_BINS + b], count, memory_order_relaxed);
}
