// Body of a Metal RMSNorm kernel for mx.fast.metal_kernel: inputs x (rows x cols) and w,
// output y. One threadgroup per row; a simd_shuffle_xor butterfly and simd_sum reduce the sum
// of squares, threadgroup memory joins the SIMD-groups.
uint row = threadgroup_position_in_grid.x;
uint tid = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup;
uint group = simdgroup_index_in_threadgroup;
uint threads = threads_per_threadgroup.x;
uint cols = x_shape[1];
const device float* in = x + row * cols;
threadgroup float scratch[32];
float ss = 0.0f;
for (uint c = tid; c < cols; c += threads) ss += in[c] * in[c];
for (uint o = threads_per_simdgroup / 2; o > 0; o /= 2) ss += simd_shuffle_xor(ss, o);
if (lane == 0) scratch[group] = ss;
threadgroup_barrier(mem_flags::mem_threadgroup);
ss = simd_sum(lane < threads / threads_per_simdgroup ? scratch[lane] : 0.0f);
float scale = rsqrt(ss / cols + 1e-6f);
for (uint c = tid; c < cols; c += threads) y[row * cols + c] = in[c] * scale * w[c];
