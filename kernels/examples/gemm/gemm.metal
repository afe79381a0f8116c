// Body of a Metal matrix-multiply kernel for mx.fast.metal_kernel: inputs a (M x K) and b
// (K x N), output c (M x N), all float32. Each threadgroup is one SIMD-group of 32 threads
// computing one 8x8 tile of c with simdgroup_matrix operations, Apple's matrix hardware path:
// the SIMD-group loads 8x8 fragments, multiplies and accumulates, and stores the result.
uint2 tile = threadgroup_position_in_grid.xy;  // (column tile, row tile)
uint K = a_shape[1], N = b_shape[1];
simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
simdgroup_float8x8 fa, fb;
for (uint k = 0; k < K; k += 8) {
  simdgroup_load(fa, a + tile.y * 8 * K + k, K);
  simdgroup_load(fb, b + k * N + tile.x * 8, N);
  simdgroup_multiply_accumulate(acc, fa, fb, acc);
}
simdgroup_store(acc, c + tile.y * 8 * N + tile.x * 8, N);
