// Bodies of the Metal number-format kernels for mx.fast.metal_kernel. CONVERT: half and bfloat
// (MSL 3.1) round to nearest even; half2 arithmetic squares two values per operation. Metal has no
// fp8 type or packed int8 dot: run_metal takes those from MLX's array operations. MATMUL: one
// SIMD-group per 8 x 8 tile of c, with simdgroup_float8x8 loads and multiply-accumulates; Apple's
// matrix units have no tf32 mode, so the product is float32 throughout.
#if defined(MATMUL)
const uint MM = 64;
uint2 tile = threadgroup_position_in_grid.xy;
simdgroup_float8x8 acc = simdgroup_float8x8(0.0f);
for (uint k = 0; k < MM; k += 8) {
  simdgroup_float8x8 ta, tb;
  simdgroup_load(ta, ma + tile.y * 8 * MM + k, MM);
  simdgroup_load(tb, mb + k * MM + tile.x * 8, MM);
  simdgroup_multiply_accumulate(acc, ta, tb, acc);
}
simdgroup_store(acc, mm + tile.y * 8 * MM + tile.x * 8, MM);
#else
uint i = thread_position_in_grid.x;
if (2 * i + 1 < x_shape[0]) {
  float2 v = float2(x[2 * i], x[2 * i + 1]);
  half2 hv = half2(v);
  h[2 * i] = float(hv.x); h[2 * i + 1] = float(hv.y);
  b[2 * i] = float(bfloat(v.x)); b[2 * i + 1] = float(bfloat(v.y));
  half2 sq = hv * hv;
  hh[2 * i] = float(sq.x); hh[2 * i + 1] = float(sq.y);
}
#endif
