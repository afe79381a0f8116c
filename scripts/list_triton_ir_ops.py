"""Which operation names the installed Triton registers in its own MLIR dialects.

Candidates are the dotted strings in Triton's compiled libraries (libtriton.so, libproton.so) whose
prefix is one of Triton's dialects. Each candidate is parsed, in a context where Triton loads all its
dialects, as a generic operation with no operands or results; MLIR then either parses it or complains.
A complaint that names the operation ("'tt.make_range' op requires one result") comes from the
operation's own verifier, so the operation is registered; "unregistered operation" or "unregistered
dialect" means it is not (attribute names such as tt.divisibility end there).

    python3 scripts/list_triton_ir_ops.py            # JSON: registered ops by dialect
    python3 scripts/list_triton_ir_ops.py tt.dot x.y  # verdict and diagnostic for the names given
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

# Triton's own dialects as the installed package names them: Triton (tt), TritonGPU (ttg),
# TritonNvidiaGPU (ttng), TritonAMDGPU (amdg), NVWS (nvws), NVGPU (nvg), TritonInstrument (tti), Gluon
# (gluon), Proton (proton, proton_gpu). MLIR's upstream dialects (llvm, nvvm, rocdl, gpu, arith, scf,
# amdgpu, nvgpu, ...) are left out.
DIALECTS = ("tt", "ttg", "ttng", "amdg", "nvws", "nvg", "tti", "gluon", "proton", "proton_gpu")
_NAME = re.compile(r"^([a-z_]+)\.[a-z_][a-z0-9_.]*$")

# Runs in a fresh interpreter: one verdict line per name on stdout, MLIR's diagnostics on stderr,
# each name's diagnostics preceded by a marker line so they can be told apart.
_PROBE = r'''
import os, sys, tempfile
from triton._C import libtriton as L
ctx = L.ir.context()
L.ir.load_dialects(ctx)
for backend in (L.amd, L.nvidia, L.proton):
    backend.load_dialects(ctx)
folder = tempfile.mkdtemp()
for i, op in enumerate(sys.argv[1:]):
    path = os.path.join(folder, "%d.mlir" % i)
    with open(path, "w") as f:
        f.write('module { "%s"() : () -> () }' % op)
    sys.stderr.write("@@" + op + "\n")
    sys.stderr.flush()
    try:
        L.ir.parse_mlir_module(path, ctx)
        sys.stderr.write("@parsed\n")
    except Exception:
        pass
    sys.stderr.flush()
    os.remove(path)
os.rmdir(folder)
'''


def libraries() -> list[Path]:
    import triton

    folder = Path(triton.__file__).parent / "_C"
    return sorted(p for p in folder.glob("lib*.so") if p.is_file())


def candidates() -> list[str]:
    """Dotted strings of the compiled libraries whose prefix is one of Triton's dialects."""
    out: set[str] = set()
    for lib in libraries():
        text = subprocess.run(["strings", "-n", "4", str(lib)], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            m = _NAME.match(line)
            if m and m.group(1) in DIALECTS:
                out.add(line)
    return sorted(out)


def diagnostics(names: list[str]) -> dict[str, str]:
    """Each name -> what MLIR said when parsing it ("@parsed" when it parsed), in one subprocess."""
    done = subprocess.run([sys.executable, "-c", _PROBE, *names], capture_output=True, text=True, timeout=600)
    said: dict[str, str] = {}
    current = None
    for line in done.stderr.splitlines():
        if line.startswith("@@"):
            current = line[2:]
            said[current] = ""
        elif current is not None:
            said[current] += line.strip() + " "
    missing = [n for n in names if n not in said]
    if missing:
        raise RuntimeError(f"the probe stopped before {missing[:3]}: {done.stderr[-2000:]}")
    return {n: t.strip() for n, t in said.items()}


def is_registered(name: str, said: str) -> bool:
    """Parsed, or the complaint is the operation's own ("'name' op ...")."""
    if "unregistered" in said:
        return False
    return said.startswith("@parsed") or f"'{name}' op " in said


def registered(names: list[str]) -> dict[str, bool]:
    return {n: is_registered(n, t) for n, t in diagnostics(names).items()}


def main(argv: list[str]) -> int:
    if argv:
        for name, said in diagnostics(argv).items():
            print(f"{name}\t{'op' if is_registered(name, said) else 'not an op'}\t{said}")
        return 0
    found = registered(candidates())
    by_dialect: dict[str, list[str]] = {}
    for name, ok in found.items():
        if ok:
            by_dialect.setdefault(name.split(".", 1)[0], []).append(name)
    print(json.dumps(by_dialect, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
