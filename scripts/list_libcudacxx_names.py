#!/usr/bin/env python3
"""The names libcu++ declares in namespace cuda (and its cuda::device and cuda::mr parts), read from the
headers of a CUDA toolkit's CCCL (include/cccl/cuda/), each with the public header that brings it in, for
the name list glossary/vocabulary/names-libcudacxx.yaml.

libcu++ opens its namespaces with macros (_LIBCUDACXX_BEGIN_NAMESPACE_CUDA, ..._CUDA_DEVICE,
..._CUDA_MR). In every header under include/cccl/cuda/ (cuda/__ptx aside) the text between such a macro
and its _END_ is read with comments, string literals and preprocessor lines taken out; at the region's
own brace depth (not inside a class, a function body or a nested namespace such as __detail) a
declaration names:

- a class, struct, union or enum (`struct aligned_size_t`, `class barrier`), and the enumerators of an
  enum declared there when it is not an `enum class`;
- an alias (`using memory_order = ...`), a using-declaration that brings a name in from another
  namespace (`using _CUDA_VSTD::thread_scope_block;`), or a variable (`inline constexpr thread_scope thread_scope_block`);
- a function: the identifier just before the first `(` of the declaration (`memcpy_async(`), not an
  `operator` and not a macro call written in upper case.

Names that begin with an underscore, and declarations only forward-declared or specialized
(`template <> struct X<...>`), are left out; a name declared several times is kept once, with its first
header. The public header of a declaration is the header without an extension (cuda/barrier,
cuda/std/atomic) that includes the declaring file, directly or through internal headers (`__x/` or
`detail/` paths): the one its folder is named for (cuda/cmath for cuda/__cmath/ceil_div.h), else the
first such public header of cuda/ in name order, else of cuda/std/.

Limits, as a regex reader: a declaration produced by a macro is not seen, and a function whose
return type contains parentheses (decltype(...)) is named by the identifier before its first `(`, which
the rule `not upper case, not a keyword` filters but does not prove. Names under cuda::std (the C++
standard library libcu++ carries) and cuda::ptx (listed by scripts/list_ptx_names.py) are not read.

Output, after two header lines (the toolkit's CUDA and CCCL versions, the folder read), one name a line:

    NAMESPACE::NAME<TAB>PUBLIC HEADER<TAB>DECLARING FILE

sorted by public header and then by name. Only the standard library is used:

    python3 scripts/list_libcudacxx_names.py "$CUDA_HOME" > tests/data/libcudacxx_names.txt
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the version reader beside this script
from list_ptx_names import versions  # noqa: E402

FOLDER = "include/cccl/cuda"
NAMESPACES = {
    "_LIBCUDACXX_BEGIN_NAMESPACE_CUDA": "cuda",
    "_LIBCUDACXX_BEGIN_NAMESPACE_CUDA_DEVICE": "cuda::device",
    "_LIBCUDACXX_BEGIN_NAMESPACE_CUDA_MR": "cuda::mr",
}
_REGION = re.compile(
    r"^\s*(_LIBCUDACXX_BEGIN_NAMESPACE_CUDA(?:_DEVICE|_MR)?)\s*$(.*?)^\s*_LIBCUDACXX_END_NAMESPACE_CUDA(?:_DEVICE|_MR)?\s*$",
    re.S | re.M,
)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_PREPROCESSOR = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_INCLUDE = re.compile(r"^\s*#\s*include\s*<(cuda/[^>]+)>", re.M)
_RECORD = re.compile(r"\b(?:struct|class|union)\s+(?:_[A-Z_]+\s+)*([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^{;]*)?$")
_ENUM = re.compile(r"\benum\s+(class\s+|struct\s+)?([A-Za-z_]\w*)\s*(?::[^{;]*)?$")
_ALIAS = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=")
_USING = re.compile(r"^using\s+(?!namespace\b)[\w:]*::([A-Za-z_]\w*)$")
_VARIABLE = re.compile(r"\b(?:constexpr|inline)\b[^(=;{]*?\b([A-Za-z_]\w*)\s*(?:=|\{|$)")
_FUNCTION = re.compile(r"([A-Za-z_]\w*)\s*\(")
_KEYWORDS = frozenset(
    "alignas alignof decltype noexcept sizeof static_assert requires template typename return if for while "
    "switch operator defined static_cast const_cast reinterpret_cast dynamic_cast".split()
)


def _clean(text: str) -> str:
    return _PREPROCESSOR.sub("", _STRING.sub('""', _COMMENT.sub(" ", text)))


def _top_level(region: str) -> list[tuple[str, str]]:
    """The region's statements at its own depth: (text before a `{` or `;`, that brace or semicolon), and
    for an enum's body the enumerators as ("enumerators", body)."""
    out: list[tuple[str, str]] = []
    depth, start, i = 0, 0, 0
    while i < len(region):
        c = region[i]
        if c == "{":
            if depth == 0:
                head = region[start:i]
                out.append((head, "{"))
                body_start = i + 1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if _ENUM.search(out[-1][0].strip()):
                    out.append((region[body_start:i], "enumerators"))
                start = i + 1
        elif c == ";" and depth == 0:
            out.append((region[start:i], ";"))
            start = i + 1
        i += 1
    return out


def _declared(head: str, end: str, previous: str) -> list[str]:
    """The names one top-level statement declares (see the module's docstring)."""
    text = " ".join(head.split())
    if end == "enumerators":
        if _ENUM.search(previous) and not _ENUM.search(previous).group(1):
            return [e.split("=")[0].strip() for e in text.split(",") if e.strip()]
        return []
    if not text or text.startswith(("namespace", "extern ")) or "template <>" in text or "template<>" in text:
        return []
    enum = _ENUM.search(text)
    if enum:
        return [enum.group(2)] if end == "{" else []
    record = _RECORD.search(text)
    if record and "(" not in text:
        return [record.group(1)] if end == "{" else []  # `struct X;` only forward-declares it
    alias = _ALIAS.search(text)
    if alias:
        return [alias.group(1)]
    declared = _USING.match(text)
    if declared:
        return [declared.group(1)]
    if text.startswith(("using ", "friend ")):
        return []
    call = None
    for found in _FUNCTION.finditer(re.sub(r"<[^<>()]*>", "", text)):
        name = found.group(1)
        if name in _KEYWORDS or name.startswith("_") or name.isupper():
            continue
        call = name
        break
    if call and re.search(r"\boperator\b", text[: text.find(call + "(") if call + "(" in text else len(text)]):
        return []
    if call:
        return [call]
    variable = _VARIABLE.search(text)
    return [variable.group(1)] if variable else []


def declarations(text: str) -> list[tuple[str, str]]:
    """(namespace, name) of each public name one header declares in namespace cuda, cuda::device or
    cuda::mr."""
    out = []
    for region in _REGION.finditer(_clean(text)):
        namespace = NAMESPACES[region.group(1)]
        previous = ""
        for head, end in _top_level(region.group(2)):
            for name in _declared(head, end, previous):
                if re.fullmatch(r"[A-Za-z]\w*", name) and name not in _KEYWORDS:
                    out.append((namespace, name))
            if end != "enumerators":
                previous = " ".join(head.split())
    return list(dict.fromkeys(out))


def _public_headers(root: Path) -> list[Path]:
    """cuda/'s headers without an extension, then cuda/std/'s, each folder in name order."""
    return [p for folder in (root, root / "std") for p in sorted(folder.iterdir()) if p.is_file() and "." not in p.name]


def _internal(include: str) -> bool:
    return "/__" in include or "/detail/" in include


def public_header_of(root: Path) -> dict[str, str]:
    """Each internal header (path under include/cccl/) -> the first public header that reaches it."""
    out: dict[str, str] = {}
    base = root.parent
    for public in _public_headers(root):  # cuda/__cmath/ceil_div.h is cuda/cmath's
        for internal in public.parent.glob(f"__{public.name}/*.h"):
            out.setdefault(internal.relative_to(base).as_posix(), public.relative_to(base).as_posix())
    for public in _public_headers(root):
        shown = public.relative_to(base).as_posix()
        out.setdefault(shown, shown)
        todo = [public]
        seen: set[str] = set()
        while todo:
            for include in _INCLUDE.findall(todo.pop().read_text(errors="replace")):
                if include in seen or not _internal(include) or not (base / include).is_file():
                    continue
                seen.add(include)
                out.setdefault(include, shown)
                todo.append(base / include)
    return out


def extract(cuda: Path) -> list[tuple[str, str, str]]:
    """(qualified name, public header, declaring file) of each name, sorted by header and name."""
    root = cuda / FOLDER
    publics = public_header_of(root)
    first: dict[str, tuple[str, str, str]] = {}
    for path in sorted(root.rglob("*")):
        shown = path.relative_to(root.parent).as_posix()
        if not path.is_file() or shown.startswith("cuda/__ptx/") or shown == "cuda/ptx" or shown not in publics:
            continue
        for namespace, name in declarations(path.read_text(errors="replace")):
            qualified = f"{namespace}::{name}"
            first.setdefault(qualified, (qualified, publics[shown], shown))
    return sorted(first.values(), key=lambda row: (row[1], row[0]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cuda", type=Path, help="the CUDA toolkit's root folder")
    args = parser.parse_args()
    if not (args.cuda / FOLDER).is_dir():
        print(f"no {FOLDER} under {args.cuda}", file=sys.stderr)
        return 1
    rows = extract(args.cuda)
    print(f"# {versions(args.cuda)}")
    print(f"# {FOLDER}/ (cuda/__ptx aside): {len(rows)} names in namespace cuda, cuda::device and cuda::mr")
    for row in rows:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
