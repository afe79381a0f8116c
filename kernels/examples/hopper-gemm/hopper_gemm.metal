// Body of a Metal kernel for C = A x B^T with mx.fast.metal_kernel: inputs a (M x K) and bt
// (N x K), output c (M x N), float32. Apple GPUs have no tensor memory accelerator and no
// warpgroup MMA: the matrix path is the SIMD-group's 8 x 8 simdgroup_matrix. Each threadgroup of
// 4 SIMD-groups stages a 32 x 32 tile of A and B^T per K step in threadgroup memory (the whole
// threadgroup copies, then a barrier), and each SIMD-group multiplies 16 x 16 of c as 2 x 2
// fragments. B^T is read transposed straight from threadgroup memory (simdgroup_load's last
// argument), as wgmma reads a K-major B.
const uint T = 32;
threadgroup float as[T * T];
threadgroup float bs[T * T];
uint2 tile = threadgroup_position_in_grid.xy;  // (column tile, row tile)
uint K = a_shape[1], N = bt_shape[0];
uint tid = thread_index_in_threadgroup;
uint sg = simdgroup_index_in_threadgroup;      // 0..3: which 16 x 16 quarter of the tile
uint qr = (sg / 2) * 16, qc = (sg % 2) * 16;
simdgroup_float8x8 acc[2][2];
for (uint i = 0; i < 2; ++i)
  for (uint j = 0; j < 2; ++j) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
for (uint k0 = 0; k0 < K; k0 += T) {
  for (uint e = tid; e < T * T; e += 128) {
    as[e] = a[(tile.y * T + e / T) * K + k0 + e % T];
    bs[e] = bt[(tile.x * T + e / T) * K + k0 + e % T];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint kk = 0; kk < T; kk += 8) {
    simdgroup_float8x8 fa[2], fb[2];
    for (uint i = 0; i < 2; ++i) simdgroup_load(fa[i], as + (qr + 8 * i) * T + kk, T);
    for (uint j = 0; j < 2; ++j) simdgroup_load(fb[j], bs + (qc + 8 * j) * T + kk, T, ulong2(0, 0), true);
    for (uint i = 0; i < 2; ++i)
      for (uint j = 0; j < 2; ++j) simdgroup_multiply_accumulate(acc[i][j], fa[i], fb[j], acc[i][j]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
for (uint i = 0; i < 2; ++i)
  for (uint j = 0; j < 2; ++j)
    simdgroup_store(acc[i][j], c + (tile.y * T + qr + 8 * i) * N + tile.x * T + qc + 8 * j, N);
