"""Only xlate.kb opens the glossary: a static walk of every module outside it.

Outside src/xlate/kb a module may ask kb where the glossary is (`kb.glossary_root()`) and hand that to
kb, but it may not build a path under it (`glossary_root() / "gpus"`, `repo / "glossary"`, a literal
"glossary/..."), resolve the folder itself (its own `glossary_root`, $XLATE_GLOSSARY), or import kb's
private modules (`xlate.kb._index`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "xlate"
OUTSIDE = sorted(p for p in SRC.rglob("*.py") if "kb" not in p.relative_to(SRC).parts[:1])


def _is_glossary_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and (
        node.value.strip("/") == "glossary" or node.value.startswith("glossary/"))


def _calls_root(node: ast.AST) -> bool:
    """`glossary_root()` or `kb.glossary_root()`."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "glossary_root") or (isinstance(f, ast.Attribute) and f.attr == "glossary_root")


def _resolves_root(node: ast.AST) -> bool:
    """`os.environ["XLATE_GLOSSARY"]`, or a function of the package's own that finds the glossary."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "XLATE_GLOSSARY"
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("glossary_root", "gpus_dir")


def offences(tree: ast.AST) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if _calls_root(node.left) or _is_glossary_literal(node.right) or _is_glossary_literal(node.left):
                out.append((line, "builds a path under the glossary"))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            args = [*node.args, *(k.value for k in node.keywords)]
            if name in ("join", "joinpath", "Path", "PurePath", "open") and any(_is_glossary_literal(a) for a in args):
                out.append((line, "builds a path under the glossary"))
            if name == "joinpath" and isinstance(f, ast.Attribute) and _calls_root(f.value):
                out.append((line, "builds a path under the glossary"))
            if name == "get" and any(isinstance(a, ast.Constant) and a.value == "XLATE_GLOSSARY" for a in node.args):
                out.append((line, "resolves the glossary folder itself"))
        elif _resolves_root(node):
            out.append((line, "resolves the glossary folder itself"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.startswith("xlate.kb._") or (module == "xlate.kb" and any(a.name.startswith("_") for a in node.names)):
                out.append((line, f"imports kb's private module {module}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("xlate.kb._"):
                    out.append((line, f"imports kb's private module {alias.name}"))
    return out


def test_the_walk_covers_the_package() -> None:
    names = {p.relative_to(SRC).as_posix() for p in OUTSIDE}
    assert {"compare.py", "lookup.py", "kernels/specs.py", "rules/memory.py", "translate/datafile.py"} <= names
    assert not any(n.startswith("kb/") for n in names)


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_module_outside_kb_reads_the_glossary(path: Path) -> None:
    found = offences(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    assert not found, "\n".join(f"{path.relative_to(SRC)}:{line}: {what}" for line, what in found)


@pytest.mark.parametrize("code", [
    'from xlate.kb import glossary_root\nopen(glossary_root() / "gpus" / "mi300x.yaml")\n',
    'from xlate import kb\n(kb.glossary_root() / "translate").glob("*.yaml")\n',
    'from pathlib import Path\nPath(__file__).parents[3] / "glossary" / "gpus"\n',
    'import os\nos.path.join(root, "glossary", "gpus")\n',
    'import os\nbase = os.environ.get("XLATE_GLOSSARY")\n',
    'def glossary_root():\n    return None\n',
    'from xlate.kb._index import load_index\n',
    'from xlate.kb import _paths\n',
    'import xlate.kb._symbols\n',
    'open("glossary/gpus/h100-sxm.yaml")\n',
])
def test_the_walk_catches_each_way_in(code: str) -> None:
    assert offences(ast.parse(code))


def test_the_walk_lets_kb_be_asked() -> None:
    ok = ('from xlate import kb\nsheet = kb.resolve_gpu("mi300x")\nroot = kb.glossary_root()\ng = kb.load_glossary(root)\n'
          'print(f"no spec sheet in glossary/gpus matches")\n')
    assert offences(ast.parse(ok)) == []


def test_the_public_surface_lists_every_export() -> None:
    import xlate.kb as kb_package

    assert sorted(kb_package.__all__) == sorted(kb_package._EXPORTS)
    for name in kb_package.__all__:
        getattr(kb_package, name)  # each resolves to its private module's object
