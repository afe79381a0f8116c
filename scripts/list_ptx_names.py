#!/usr/bin/env python3
"""The PTX instructions that libcu++'s cuda::ptx namespace wraps, and the wrappers' names, read from the
generated headers of a CUDA toolkit's CCCL (include/cccl/cuda/__ptx/instructions/generated/*.h), for the
name list glossary/vocabulary/names-ptx-instructions.yaml.

Each wrapper in those headers is documented by a comment block that opens with the PTX form it emits and
closes with the C++ declaration:

    /*
    // cp.async.bulk.tensor.1d.dst.src.tile.mbarrier::complete_tx::bytes [dstMem], ...; // PTX ISA 80, SM_90
    // .dst       = { .shared::cluster }
    // .src       = { .global }
    template <typename = void>
    __device__ static inline void cp_async_bulk_tensor(
    ...
    */

From each block come two names:

- the wrapper: the function name of the declaration (cp_async_bulk_tensor), which code calls as
  cuda::ptx::cp_async_bulk_tensor;
- the instruction's base name: the form's leading dot-separated parts, up to the first part that is a
  placeholder the block defines (.dst, .sem, .scope, .op, .type), a part spelled with `::`
  (shared::cluster, kind::f16; as the first qualifier, its part before `::`: tcgen05.wait::ld is
  tcgen05.wait), an operand type or vector width (b32, f16x2, pred, v4), a tensor
  dimension (2d), a memory-ordering or state-space word (relaxed, release, global, shared) or a caching
  hint (L1, L2); past the first qualifier, also at a word that qualifies the instruction before it
  (.sync.aligned, .tile, .parity, .noComplete, .expect_tx, .read) and at an .async followed by a state
  space (clusterlaunchcontrol.try_cancel.async.shared::cta). `ld.space.nc` with `.space = { .global }` is `ld.global.nc`, which the PTX ISA describes
  as an instruction of its own.

Output, one name a line after two header lines (the toolkit's CUDA and CCCL versions, the folder read):

    instruction<TAB>BASE<TAB>HEADER
    wrapper<TAB>NAME<TAB>BASE<TAB>HEADER

each pair once, in header order and then in order of first appearance. Only the standard library is used:

    python3 scripts/list_ptx_names.py "$CUDA_HOME" > tests/data/ptx_names.txt
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

FOLDER = "include/cccl/cuda/__ptx/instructions/generated"

_BLOCK = re.compile(r"^/\*\n(.*?)^\*/", re.S | re.M)
_FORM = re.compile(r"^// ([a-z][A-Za-z0-9_.:]*)", re.M)
_PLACEHOLDER = re.compile(r"^// (\.[a-z_0-9]+)\s*=\s*\{([^}]*)\}", re.M)
_DECLARATION = re.compile(r"^__device__ static inline [^\n(]*?\b([a-z_][a-z0-9_]*)\(", re.M)
_TYPE = re.compile(r"^(?:[bsuf]\d+(?:x\d+)?|bf16(?:x2)?|tf32|e[45]m[23]|pred|v\d+|\d+d)$")
_STOP = frozenset(
    {
        "weak",
        "relaxed",
        "acquire",
        "release",
        "acq_rel",
        "sc",
        "global",
        "shared",
        "local",
        "const",
        "param",
        "shiftamt",
        "L1",
        "L2",
        "L2_cache_hint",
        "noftz",
        "ftz",
        "rn",
        "rz",
        "sat",
        "clamp",
        "wrap",
    }
)
# Words that qualify an instruction named by the parts before them, past its first qualifier (the
# `.expect_tx` of mbarrier.arrive.expect_tx, while mbarrier.expect_tx is an instruction).
_MODIFIERS = frozenset(
    {"sync", "aligned", "tile", "parity", "noComplete", "noinc", "read", "get_first_ctaid", "is_canceled", "expect_tx"}
)


def base_name(form: str, placeholders: dict[str, list[str]]) -> str:
    """The instruction a documented PTX form is a variant of (see the module's docstring)."""
    parts = form.split(".")
    if parts[:3] == ["ld", "space", "nc"] and placeholders.get(".space") == [".global"]:
        return "ld.global.nc"
    kept = [parts[0]]
    for i, part in enumerate(parts[1:], 1):
        if i == 1 and "::" in part:
            kept.append(part.split("::")[0])  # tcgen05.fence::before_thread_sync: tcgen05.fence
            break
        if "." + part in placeholders or "::" in part or _TYPE.match(part) or part in _STOP:
            break
        if i >= 2 and part in _MODIFIERS:
            break
        if i >= 2 and part == "async" and "::" in (parts[i + 1 :] or [""])[0]:
            break  # clusterlaunchcontrol.try_cancel.async.shared::cta: how it completes, not its name
        kept.append(part)
    return ".".join(kept)


def blocks(text: str) -> list[tuple[str, str]]:
    """(base name, wrapper name) of each documented wrapper in one header."""
    out = []
    for block in _BLOCK.finditer(text):
        body = block.group(1)
        form = _FORM.search(body)
        declared = _DECLARATION.search(body)
        if not form or not declared:
            continue
        placeholders = {m.group(1): re.findall(r"\.[A-Za-z_0-9:]+", m.group(2)) for m in _PLACEHOLDER.finditer(body)}
        out.append((base_name(form.group(1), placeholders), declared.group(1)))
    return out


def versions(cuda: Path) -> str:
    """`CUDA 13.0.88, CCCL 3.0.1` from the toolkit's version.json, or nvcc's dist-info, and CCCL's header."""
    cuda_version = "unknown"
    version_json = cuda / "version.json"
    if version_json.is_file():
        cuda_version = json.loads(version_json.read_text())["cuda"]["version"]
    else:
        infos = sorted((cuda / "dist-info").glob("nvidia_cuda_nvcc-*.dist-info"))
        if infos:
            cuda_version = infos[-1].name.removeprefix("nvidia_cuda_nvcc-").removesuffix(".dist-info")
    cccl = "unknown"
    header = cuda / "include/cccl/cuda/std/__cccl/version.h"
    if header.is_file():
        found = re.search(r"#define CCCL_VERSION (\d+)", header.read_text())
        if found:
            n = int(found.group(1))
            cccl = f"{n // 1000000}.{n // 1000 % 1000}.{n % 1000}"
    return f"CUDA {cuda_version}, CCCL {cccl}"


def extract(cuda: Path) -> list[tuple[str, ...]]:
    """The instruction and wrapper lines, in header order."""
    rows: list[tuple[str, ...]] = []
    for header in sorted((cuda / FOLDER).glob("*.h")):
        for base, wrapper in blocks(header.read_text()):
            rows += [("instruction", base, header.name), ("wrapper", wrapper, base, header.name)]
    return list(dict.fromkeys(rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cuda", type=Path, help="the CUDA toolkit's root folder")
    args = parser.parse_args()
    if not (args.cuda / FOLDER).is_dir():
        print(f"no {FOLDER} under {args.cuda}", file=sys.stderr)
        return 1
    rows = extract(args.cuda)
    print(f"# {versions(args.cuda)}")
    print(
        f"# {FOLDER}/*.h: {sum(r[0] == 'instruction' for r in rows)} instruction base names, "
        f"{len({r[1] for r in rows if r[0] == 'wrapper'})} cuda::ptx wrapper names"
    )
    for row in rows:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
