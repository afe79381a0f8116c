// Body of a Metal stream-compaction kernel for mx.fast.metal_kernel: input x (float), outputs y
// (atomic float, since MLX makes every output atomic once one is) and count (atomic uint). simd_ballot returns a simd_vote of 64 bits whatever the
// SIMD-group width, so the bits are masked to the width before counting; simd_is_first elects
// the lane that claims the SIMD-group's range and simd_broadcast_first hands it to the others.
uint n = x_shape[0];
uint lane = thread_index_in_simdgroup;
uint width = threads_per_simdgroup;
for (uint base = (thread_position_in_grid.x / width) * width; base < n; base += threads_per_grid.x) {
  uint i = base + lane;
  float v = i < n ? x[i] : 0.0f;
  bool keep = v > 0.0f;
  if (!simd_any(keep)) continue;  // the whole SIMD-group skips an empty chunk
  uint slot;
  uint total;
  if (simd_all(keep)) {
    slot = lane;
    total = width;
  } else {
    ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(simd_ballot(keep)));
    ulong below = bits & ((1ul << lane) - 1ul);
    slot = popcount(below);
    // only the bits of threads that are executing count: the active-threads mask, not the width
    ulong active = static_cast<ulong>(static_cast<simd_vote::vote_t>(simd_active_threads_mask()));
    total = popcount(bits & active);
  }
  uint start = 0;
  if (simd_is_first()) start = atomic_fetch_add_explicit(&count[0], total, memory_order_relaxed);
  start = simd_broadcast_first(start);
  if (keep) atomic_store_explicit(&y[start + slot], v, memory_order_relaxed);
}
