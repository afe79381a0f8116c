#include <hip/hip_runtime.h>

namespace xlate_compat {
// CUDA's warp barrier for the HIP headers that lack one (ROCm 6.4 and earlier; 7.0's are unconfirmed). The lanes of a wavefront
// issue together, so what remains is ordering their memory accesses: a release fence, a wave barrier
// (which only keeps the compiler from moving accesses across it) and an acquire fence, all at wavefront
// scope, the sequence HIP 7.1 uses for its own __syncwarp. A mask of any integer width is taken and not
// checked: every lane of the wavefront is ordered.
__device__ inline void syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <class Mask> __device__ inline void syncwarp(Mask) { syncwarp(); }
}  // namespace xlate_compat
