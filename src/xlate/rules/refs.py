"""Official documentation that several rules cite (each address written once)."""

from __future__ import annotations

# HIP C++ language extensions: warp functions, clocks, textures, memory fences, device-side APIs.
HIP_EXT = "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html"
HIP_PORTING = "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html"
AMD_GPU_SPECS = "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"
CUDA_GUIDE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
MSL_SPEC = "https://developer.apple.com/metal/Metal-Shading-Language-Specification.pdf"
