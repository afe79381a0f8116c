"""xlate: a cross-vendor GPU knowledge base (CUDA, HIP/ROCm, Metal/MLX, Triton)."""

__version__ = "0.1.0"
