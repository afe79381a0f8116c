// Metal version of bezier.cu for mx.fast.metal_kernel, in two parts: program-scope declarations
// (passed as the kernel's `header`) and the kernel body (its `source`); bezier_mlx.py splits the
// file at the BODY marker line.
//
// The Metal Shading Language has no double. To keep double's accuracy, each value is a pair of
// floats (hi, lo) whose sum carries about 48 significant bits ("float-float" arithmetic): sums
// recover their rounding error exactly (two_sum), products recover theirs with one fused
// multiply-add (two_prod). This relies on IEEE float arithmetic without reassociation, which is
// why the MLX file asks for math_mode "safe". Inputs arrive split into hi and lo float arrays and
// the results leave the same way; the MLX file joins them in float64 on the CPU.
//
//   constant: the Gauss-Legendre table is program-scope data in the constant address space
//             (Metal's program-scope variables must be constant, and their values compile-time).
//             The control points are run-time data and arrive as an ordinary input buffer.
//   thread:   de Casteljau's workspace is a per-thread array in the thread address space, indexed
//             at run time (the degree comes from the input's shape).
//   quad:     the four lanes of a quad-group hold the four nodes of one subinterval and add their
//             weighted values with quad_shuffle_xor.

struct ff {
  float hi;
  float lo;
};

inline ff two_sum(float a, float b) {
  float s = a + b;
  float bb = s - a;
  return ff{s, (a - (s - bb)) + (b - bb)};
}

inline ff fast_two_sum(float a, float b) {  // needs |a| >= |b|
  float s = a + b;
  return ff{s, b - (s - a)};
}

inline ff ff_add(ff a, ff b) {
  ff s = two_sum(a.hi, b.hi);
  ff e = two_sum(a.lo, b.lo);
  s = fast_two_sum(s.hi, s.lo + e.hi);
  return fast_two_sum(s.hi, s.lo + e.lo);
}

inline ff ff_sub(ff a, ff b) { return ff_add(a, ff{-b.hi, -b.lo}); }

inline ff ff_mul(ff a, ff b) {
  float p = a.hi * b.hi;
  float e = metal::fma(a.hi, b.hi, -p);  // the exact rounding error of the product
  e = metal::fma(a.hi, b.lo, e);
  e = metal::fma(a.lo, b.hi, e);
  return fast_two_sum(p, e);
}

constant constexpr int MAX_DEGREE = 31;
// The four-point Gauss-Legendre rule mapped to [0, 1], each double split into a float pair.
constant float GL_NODE_HI[4] = {0.0694318414f, 0.33000949f, 0.66999054f, 0.930568159f};
constant float GL_NODE_LO[4] = {2.82953017e-09f, -1.20439694e-08f, -1.7758353e-08f, -2.82953017e-09f};
constant float GL_WEIGHT_HI[4] = {0.173927426f, 0.326072574f, 0.326072574f, 0.173927426f};
constant float GL_WEIGHT_LO[4] = {-3.76946918e-09f, 3.76946918e-09f, 3.76946918e-09f, -3.76946918e-09f};

// ---- BODY ----
// One thread per Gauss node; the grid has exactly 4n threads and 256-thread groups, so every
// quad-group is whole and holds one subinterval.
uint g = thread_position_in_grid.x;
uint i = g / 4;
uint k = thread_index_in_quadgroup;
int degree = int(ctrl_hi_shape[0]) - 1;

ff a = ff{edges_hi[i], edges_lo[i]};
ff width = ff_sub(ff{edges_hi[i + 1], edges_lo[i + 1]}, a);
ff t = ff_add(a, ff_mul(width, ff{GL_NODE_HI[k], GL_NODE_LO[k]}));

thread ff b[MAX_DEGREE + 1];
for (int j = 0; j <= degree && j <= MAX_DEGREE; ++j) b[j] = ff{ctrl_hi[j], ctrl_lo[j]};
for (int r = min(degree, MAX_DEGREE); r > 0; --r)
  for (int j = 0; j < r; ++j) b[j] = ff_add(b[j], ff_mul(t, ff_sub(b[j + 1], b[j])));
ff v = b[0];
y_hi[g] = v.hi;
y_lo[g] = v.lo;

ff part = ff_mul(ff{GL_WEIGHT_HI[k], GL_WEIGHT_LO[k]}, v);
for (ushort mask = 1; mask < 4; mask <<= 1)
  part = ff_add(part, ff{quad_shuffle_xor(part.hi, mask), quad_shuffle_xor(part.lo, mask)});
if (k == 0) {
  ff s = ff_mul(part, width);
  area_hi[i] = s.hi;
  area_lo[i] = s.lo;
}
