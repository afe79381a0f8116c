// Deliberately empty (see benchmarks/stubs/README.md): a CUDA header that has no HIP
// counterpart and that neither tool rewrites. Present only so that clang does not stop at
// the include; every use of its names still fails, on the line that uses it.
#pragma once
