"""CUDA source parsing with tree-sitter-cuda."""
