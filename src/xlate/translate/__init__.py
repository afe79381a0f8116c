"""`xlate translate --to hip`: CUDA source to HIP source by the symbol rows, on the syntax tree.

One job per module: `edits` (byte edits that compose), `names` (identifiers, types, enumerators by
rows), `headers` (includes), `macros` (preprocessor conditions that test CUDA macros), `calls`
(rewrites that need the arguments), `masks` (full warp masks), `launch` (`<<<>>>` to
hipLaunchKernelGGL), `hazards` (explain's findings as comments), `engine` (one file), `output`
(where results go, atomically), `cli` (the command line).
"""

from xlate.translate.options import Options

__all__ = ["Options"]
