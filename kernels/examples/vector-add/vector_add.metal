// Body of a Metal kernel for mx.fast.metal_kernel (MLX writes the signature: inputs a, b,
// output c, and the thread-position attributes this body names). Each thread adds one float4.
uint i = thread_position_in_grid.x;
uint n = a_shape[0];
uint base = i * 4;
if (base + 3 < n) {
  float4 x = *((const device float4*)(a + base));
  float4 y = *((const device float4*)(b + base));
  *((device float4*)(c + base)) = x + y;
} else {
  for (uint k = base; k < n; ++k) c[k] = a[k] + b[k];
}
