#include <hip/hip_runtime.h>
#include <cstddef>

namespace xlate_compat {
// cuBLAS has a call returning the CUDA runtime version as a size_t; hipBLAS has none. The nearest fact is the HIP runtime's own version from hipRuntimeGetVersion, a different
// numbering (major * 10000000 + minor * 100000 + patch) that says nothing about CUDA. 0 if the query fails.
inline std::size_t cudart_version() {
  int version = 0;
  return hipRuntimeGetVersion(&version) == hipSuccess ? static_cast<std::size_t>(version) : 0;
}
}  // namespace xlate_compat
