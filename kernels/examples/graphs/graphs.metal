// Body of one step of the chain for mx.fast.metal_kernel: out = in * a + b, with the two
// coefficients in a small input array. The host side (graphs_mlx.py) dispatches it STEPS times;
// Metal records dispatches into a command buffer, and MLX batches them into its own.
uint i = thread_position_in_grid.x;
if (i < src_shape[0]) out[i] = src[i] * coef[0] + coef[1];
