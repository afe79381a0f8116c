#include <hip/hip_runtime.h>

namespace xlate_compat {
// CUDA's cooperative-groups function objects (cooperative_groups/functional.h), which HIP lacks:
// plus adds, less and greater pick the smaller and the larger value, bit_* combine the bits.
template <class T> struct plus { __host__ __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __host__ __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __host__ __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __host__ __device__ T operator()(T a, T b) const { return a ^ b; } };
}  // namespace xlate_compat
