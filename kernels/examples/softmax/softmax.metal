// Body of a Metal row-softmax kernel for mx.fast.metal_kernel: input x (rows x cols), output y.
// One threadgroup of 256 threads per row; simd_max reduces the maximum within a SIMD-group, a
// butterfly of simd_shuffle_xor the sum, and threadgroup memory joins the 8 SIMD-groups.
uint row = threadgroup_position_in_grid.x;
uint tid = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup;
uint group = simdgroup_index_in_threadgroup;
uint threads = threads_per_threadgroup.x;
uint groups = threads / threads_per_simdgroup;
uint cols = x_shape[1];
const device float* in = x + row * cols;
device float* out = y + row * cols;
threadgroup float scratch[32];

float m = -INFINITY;
for (uint c = tid; c < cols; c += threads) m = max(m, in[c]);
m = simd_max(m);
if (lane == 0) scratch[group] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = simd_max(lane < groups ? scratch[lane] : -INFINITY);
threadgroup_barrier(mem_flags::mem_threadgroup);

float s = 0.0f;
for (uint c = tid; c < cols; c += threads) s += exp(in[c] - m);
for (uint o = threads_per_simdgroup / 2; o > 0; o /= 2) s += simd_shuffle_xor(s, o);
if (lane == 0) scratch[group] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
s = lane < groups ? scratch[lane] : 0.0f;
for (uint o = threads_per_simdgroup / 2; o > 0; o /= 2) s += simd_shuffle_xor(s, o);

for (uint c = tid; c < cols; c += threads) out[c] = exp(in[c] - m) / s;
