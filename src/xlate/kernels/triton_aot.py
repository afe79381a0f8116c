"""Ahead-of-time Triton compilation for a GPU this machine does not have.

`triton.compile(ASTSource(...), target=GPUTarget(...))` lowers a kernel for NVIDIA (PTX) or AMD
(AMDGCN) without a device. The ASTSource signature changed across releases: newer ones list
constexpr parameters in the signature and take `constexprs=`, older ones take `constants=`.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from xlate.kernels.backends import load_module

TARGETS = {"cuda": ("cuda", 90, 32), "hip": ("hip", "gfx942", 64)}
ASM_KEY = {"cuda": "ptx", "hip": "amdgcn"}


def _load_compiled(path: Path) -> Any:
    # The interpreter replaces @triton.jit functions when TRITON_INTERPRET is set; AOT needs the
    # real JIT functions, so load a separate copy of the module with the interpreter off.
    saved = os.environ.pop("TRITON_INTERPRET", None)
    try:
        return load_module(path, "aot")
    finally:
        if saved is not None:
            os.environ["TRITON_INTERPRET"] = saved


def make_source(fn: Any, signature: dict[str, str], constexprs: dict[str, Any]) -> Any:
    from triton.compiler import ASTSource

    params = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in params:
        full = dict(signature)
        for name in constexprs:
            full[name] = "constexpr"
        return ASTSource(fn=fn, signature=full, constexprs=dict(constexprs))
    return ASTSource(fn=fn, signature=dict(signature), constants=dict(constexprs))  # triton <= 3.2


def compile_kernel(path: Path, kernel: str, signature: dict[str, str], constexprs: dict[str, Any], target: str) -> str:
    """The PTX (target 'cuda') or AMDGCN (target 'hip') text of one kernel in an example file."""
    import triton
    from triton.backends.compiler import GPUTarget

    module = _load_compiled(path)
    fn = getattr(module, kernel)
    compiled = triton.compile(make_source(fn, signature, constexprs), target=GPUTarget(*TARGETS[target]))
    return compiled.asm[ASM_KEY[target]]
