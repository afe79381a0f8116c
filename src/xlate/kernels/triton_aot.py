"""Ahead-of-time Triton compilation for a GPU this machine does not have.

`triton.compile(ASTSource(...), target=GPUTarget(...))` lowers a kernel for NVIDIA (PTX) or AMD
(AMDGCN) without a device. The ASTSource signature changed across releases: newer ones list
constexpr parameters in the signature and take `constexprs=`, older ones take `constants=`.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from xlate.kernels.backends import BuildError, load_module

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


def compile_here(path: Path, kernel: str, signature: dict[str, str], constexprs: dict[str, Any], target: str) -> str:
    """The PTX (target 'cuda') or AMDGCN (target 'hip') text of one kernel in an example file."""
    warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
    import triton
    from triton.backends.compiler import GPUTarget

    module = _load_compiled(path)
    fn = getattr(module, kernel)
    compiled = triton.compile(make_source(fn, signature, constexprs), target=GPUTarget(*TARGETS[target]))
    asm: str = compiled.asm[ASM_KEY[target]]
    return asm


def compile_kernel(path: Path, kernel: str, signature: dict[str, str], constexprs: dict[str, Any], target: str) -> str:
    """As compile_here, in a fresh process: the interpreter, once used, patches triton.language
    in the process that ran it, which breaks later real compilations there."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    spec = json.dumps({"path": str(path), "kernel": kernel, "signature": signature, "constexprs": constexprs,
                       "target": target})
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "xlate.kernels.triton_aot", spec], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-5:]
        raise BuildError(f"Triton AOT compile for {target} failed: " + " | ".join(tail))
    return proc.stdout


if __name__ == "__main__":
    args = json.loads(sys.argv[1])
    try:
        sys.stdout.write(compile_here(Path(args["path"]), args["kernel"], args["signature"], args["constexprs"],
                                      args["target"]))
    except Exception as exc:  # noqa: BLE001 - reported to the parent process as one line
        print(f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}", file=sys.stderr)
        sys.exit(1)
