// Body of a Metal per-bucket statistics kernel for mx.fast.metal_kernel: inputs keys, vals; all
// outputs atomic (MLX makes every output atomic and fills all with one init value, 0, so minima
// and maxima are kept as maxima of OFFSET - v and v + OFFSET (positive for |v| <= 2^20), and-masks
// as or-masks of the complement, float maxima on an order-preserving unsigned image of the float;
// run_metal turns them back). Metal atomics take only memory_order_relaxed and no scope argument: a
// device atomic is device-wide. The compare-exchange exists only in its weak form, which may fail
// spuriously, so the "first to see the bucket" test loops until the observed value is not 0.
uint n = keys_shape[0];
for (uint i = thread_position_in_grid.x; i < n; i += threads_per_grid.x) {
  uint k = uint(keys[i]);
  int v = vals[i];
  const int OFFSET = 1 << 21;
  atomic_fetch_max_explicit(&mn_image[k], OFFSET - v, memory_order_relaxed);
  atomic_fetch_max_explicit(&mx_image[k], v + OFFSET, memory_order_relaxed);
  atomic_fetch_or_explicit(&not_band[k], ~v, memory_order_relaxed);
  atomic_fetch_or_explicit(&bor[k], v, memory_order_relaxed);
  atomic_fetch_xor_explicit(&bxor[k], v, memory_order_relaxed);
  atomic_fetch_add_explicit(&cnt[k], 1, memory_order_relaxed);
  if (atomic_exchange_explicit(&seen_x[k], 1, memory_order_relaxed) == 0)
    atomic_fetch_add_explicit(&distinct[0], 1, memory_order_relaxed);
  int expected = 0;
  bool swapped = false;
  while (!swapped && expected == 0)
    swapped = atomic_compare_exchange_weak_explicit(&seen_c[k], &expected, 1, memory_order_relaxed,
                                                    memory_order_relaxed);
  if (swapped) atomic_fetch_add_explicit(&distinct[1], 1, memory_order_relaxed);
  // float maximum on an order-preserving unsigned image of the float (ordered_image, a plain MSL
  // function passed in mx.fast.metal_kernel's header)
  atomic_fetch_max_explicit(&fmax_image[k], ordered_image(float(v) * (1.0f / 1024.0f)), memory_order_relaxed);
}
