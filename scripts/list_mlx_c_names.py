"""List the public names of MLX's C API (ml-explore/mlx-c): every function and every type that a header
under mlx/c/ declares (mlx/c/private/ is the binding's own C++ side and is skipped).

    python3 scripts/list_mlx_c_names.py GIT_DIR [COMMIT] > tests/data/names-mlx-c.txt

GIT_DIR is a clone of ml-explore/mlx-c (a bare one will do), COMMIT a commit of it (HEAD by default).
The output opens with a line naming the repository, the full commit and the folder read, then one line
per name: header, kind (function or type), name, tab-separated, in the order the headers declare them.

What counts as a name: a declaration at file level (outside every struct, enum and parameter list) that
calls something a function (the identifier before its first parenthesis), and the name a typedef gives
(after a struct's or enum's closing brace, or inside `(*NAME)` for a function-pointer type). Struct and
enum tags (mlx_array_) are not listed: code writes the typedef's name. Neither are enum constants
(MLX_FLOAT32, MLX_GPU), which are values, nor typedefs of names outside the mlx_ prefix (half.h's
float16_t and bfloat16_t).

`parse(text)` reads one header's text; `python_counterpart` and `card_for` are the rule that places each
name on a card (glossary/vocabulary/names-mlx-c.yaml says it in words), which tests/test_vocabulary_mlx_c.py
applies again to the stored list.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

REPOSITORY = "ml-explore/mlx-c"
FOLDER = "mlx/c"

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DIRECTIVE = re.compile(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", re.M)
_EXTERN_C = re.compile(r'extern\s+"C"\s*\{')
_IDENT = re.compile(r"[A-Za-z_]\w*")
_POINTER_TYPEDEF = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)")
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(mlx_\w+)\(", re.M)


def _statements(text: str) -> list[str]:
    """The file-level declarations of a header, comments and preprocessor lines taken out, each with
    whatever braces and parentheses it holds."""
    text = _DIRECTIVE.sub("", _COMMENT.sub(" ", text))
    text = _EXTERN_C.sub(" ", text)
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:  # the brace that closes extern "C"
                depth = 0
                start = i + 1
        elif ch == ";" and depth == 0:
            out.append(" ".join(text[start:i].split()))
            start = i + 1
    return out


def parse(text: str) -> list[tuple[str, str]]:
    """(kind, name) for each mlx_ function, function-like macro and type one header declares, in order
    (a name declared twice, in two branches of an #if, once)."""
    out: list[tuple[str, str]] = [("macro", m) for m in _MACRO.findall(_COMMENT.sub(" ", text))]
    for statement in _statements(text):
        if statement.startswith("typedef"):
            pointer = _POINTER_TYPEDEF.search(statement)
            if pointer and "{" not in statement:
                name = pointer.group(1)
            else:
                tail = statement.rsplit("}", 1)[-1] if "}" in statement else statement
                name = _IDENT.findall(tail)[-1]
            kind = "type"
        elif "(" in statement:
            name = _IDENT.findall(statement.split("(", 1)[0])[-1]
            kind = "function"
        else:
            continue
        if name.startswith("mlx_"):
            out.append((kind, name))
    return list(dict.fromkeys(out))


# Each header -> (the Python module its names mirror: mx.random for mlx_random_*, mx itself for
# mlx_add; mx.array for mlx_array_*) and the card its names go on when they mirror no Python name
# (constructors, destructors, setters and the C-only container types); None: no card covers the topic.
HEADERS: dict[str, tuple[str, str | None]] = {
    "array.h": ("array", "device-array"),
    "closure.h": ("", "function-transformations"),  # the C form of a function the transforms take
    "compile.h": ("", "function-transformations"),
    "cuda.h": ("cuda", "device-selection"),
    "device.h": ("", "device-selection"),
    "distributed.h": ("distributed", "collectives"),
    "distributed_group.h": ("distributed", "collectives"),
    "error.h": ("", "error-handling"),
    "export.h": ("", None),
    "fast.h": ("fast", "framework-custom-kernels"),  # the custom-kernel objects and their configs
    "fft.h": ("fft", "fft"),
    "graph_utils.h": ("", None),
    "io.h": ("", None),
    "io_types.h": ("", None),
    "linalg.h": ("linalg", "solver"),
    "map.h": ("", None),
    "memory.h": ("", "stream-ordered-allocation"),
    "metal.h": ("metal", "device-selection"),
    "ops.h": ("", None),
    "optional.h": ("", None),
    "random.h": ("random", "rng"),
    "stream.h": ("", "stream"),
    "string.h": ("", None),
    "transforms.h": ("", "function-transformations"),
    "transforms_impl.h": ("", "function-transformations"),
    "vector.h": ("", None),
    "version.h": ("", None),
}
# Names whose topic is not their header's, by the start of the name: the dtype enum and the complex
# scalar that array.h declares with the array, and device.h's device-information object (mx.device_info).
NAME_CARDS = {
    "mlx_dtype": "device-scalar-types",
    "mlx_complex64_t": "device-scalar-types",
    "mlx_device_info": "device-properties",
}


def python_counterpart(header: str, name: str, has: Callable[[str, str], bool]) -> str | None:
    """The Python name a C name mirrors (mlx_random_bits -> mx.random.bits, mlx_sum_axis -> mx.sum,
    mlx_array_itemsize -> mx.array.itemsize): its header's module, then the longest run of its
    underscore-separated words that the module has (`has(module, attribute)`), or None. A name longer
    than its Python counterpart ends in one word that tells the overload (mlx_sum_axes,
    mlx_slice_update_add, mlx_fast_rope_dynamic), and only in a header that mirrors a submodule, the
    array's methods or mx's operations (ops.h): mlx_stream_free is not mx.stream, nor
    mlx_number_of_elements mx.number."""
    module = HEADERS[header][0]
    prefix = f"mlx_{module}_" if module else "mlx_"
    if not name.startswith(prefix):
        return None
    words = name[len(prefix) :].split("_")
    for end in range(len(words), 0, -1):
        attribute = "_".join(words[:end])
        if end < len(words) and (len(words) - end > 1 or not (module or header == "ops.h")):
            continue
        if has(module, attribute):
            return f"mx.{module}.{attribute}" if module else f"mx.{attribute}"
    return None


def card_for(header: str, name: str, counterpart: str | None, answer: Callable[[str], str | None]) -> str | None:
    """The card a C name goes on: the one lookup gives its Python counterpart (`answer`), else the
    card of its header's topic."""
    for start, card in NAME_CARDS.items():
        if name == start or name.startswith(start + "_"):
            return card
    if counterpart is not None:
        return answer(counterpart)
    return HEADERS[header][1]


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def headers(git_dir: str, commit: str) -> list[str]:
    """The public headers under mlx/c at the commit, by name."""
    listed = _git(git_dir, "ls-tree", "--name-only", f"{commit}:{FOLDER}").split()
    return sorted(f"{FOLDER}/{n}" for n in listed if n.endswith(".h"))


def main(argv: list[str]) -> int:
    if not 2 <= len(argv) <= 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    git_dir = argv[1]
    commit = _git(git_dir, "rev-parse", argv[2] if len(argv) == 3 else "HEAD").strip()
    print(f"# {REPOSITORY} {commit} {FOLDER}")
    for path in headers(git_dir, commit):
        for kind, name in parse(_git(git_dir, "show", f"{commit}:{path}")):
            print(f"{path.rsplit('/', 1)[-1]}\t{kind}\t{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
