#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <type_traits>

namespace xlate_compat {
namespace detail {

// A value the tile's shfl_xor takes as it is (HIP's members accept integer and floating-point types).
template <class T>
struct shuffles_directly : std::integral_constant<bool, std::is_integral<T>::value || std::is_floating_point<T>::value> {};

template <class G, class T>
__device__ inline typename std::enable_if<shuffles_directly<T>::value, T>::type exchange(const G& g, T value, unsigned int mask) {
  return g.shfl_xor(value, mask);
}
// Any other value (a struct, __half, __hip_bfloat16) goes over as 32-bit words of its bytes.
template <class G, class T>
__device__ inline typename std::enable_if<!shuffles_directly<T>::value, T>::type exchange(const G& g, T value, unsigned int mask) {
  unsigned int w[(sizeof(T) + 3) / 4] = {};
  __builtin_memcpy(w, static_cast<const void*>(&value), sizeof(T));
  for (unsigned int i = 0; i < (sizeof(T) + 3) / 4; ++i) w[i] = g.shfl_xor(w[i], mask);
  __builtin_memcpy(static_cast<void*>(&value), w, sizeof(T));
  return value;
}

}  // namespace detail

// CUDA's cooperative_groups::reduce(group, value, op) for a thread_block_tile<N> (N a power of
// two): a butterfly over the tile with its shfl_xor, so every lane ends with op applied over all
// N values, as CUDA's does. No other group type matches: a coalesced_group or a thread_block is
// not accepted (the call does not compile), never reduced wrongly.
template <unsigned int N, class Parent, class T, class Op>
__device__ inline auto reduce(const cooperative_groups::thread_block_tile<N, Parent>& g, T value, Op op)
    -> decltype(op(value, value)) {
  static_assert(N > 0 && (N & (N - 1)) == 0, "xlate_compat::reduce: the tile size must be a power of two");
  for (unsigned int mask = N / 2; mask > 0; mask /= 2) value = op(value, detail::exchange(g, value, mask));
  return value;
}

}  // namespace xlate_compat
