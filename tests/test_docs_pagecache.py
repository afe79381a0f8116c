"""The generated pages' theme output from a cache by content hash or a second process (docsgen/pagecache.py):
the same site and messages every way, and nothing in src/ that reaches into mkdocs' or Material's private names."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import build_minimal_site, write_glossary
from xlate import processes
from xlate.docsgen import pagecache

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("mkdocs", "material")
# Names of the standard library's public API that start with an underscore (namedtuple's methods).
STDLIB_PUBLIC = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in STDLIB_PUBLIC


@lru_cache(maxsize=1)
def private_names() -> frozenset[str]:
    """Every `_`-prefixed name mkdocs and Material define or set (functions, classes, attributes, globals)."""
    found: set[str] = set()
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        for path in Path(spec.origin).parent.rglob("*.py"):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names = [node.name]
                elif isinstance(node, ast.Attribute):
                    names = [node.attr]
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = [t.id for t in targets if isinstance(t, ast.Name)]
                else:
                    continue
                found.update(n for n in names if _private(n))
    return frozenset(found)


def private_uses(tree: ast.AST) -> list[str]:
    """Imports of a private module or name of mkdocs or Material, and attributes named like one of their
    private names (`mk_build._build_page`, `config._current_page`, `page._title_from_render`), on
    anything but `self` or `cls`."""
    private = private_names()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            parts = node.module.split(".") + [a.name for a in node.names]
            out += [f"{node.lineno}: from {node.module} import {p}" for p in parts if _private(p)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES and any(_private(p) for p in alias.name.split(".")):
                    out.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in private and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                out.append(f"{node.lineno}: .{node.attr}")
    return out


def test_the_walk_finds_private_names() -> None:
    if "_build_page" not in private_names():
        pytest.skip("mkdocs is not installed")
    code = ("from mkdocs.commands.build import _build_page\nfrom mkdocs.commands import build as mk\n"
            "import mkdocs._private\nmk._build_page = None\npage._title_from_render = 'x'\nconfig._current_page = 1\n"
            "self._current_page = 2\nrow._replace(a=1)\n")
    assert private_uses(ast.parse(code)) == [
        "1: from mkdocs.commands.build import _build_page", "3: import mkdocs._private", "4: ._build_page",
        "5: ._title_from_render", "6: ._current_page"]


def test_no_private_name_of_mkdocs_or_material_in_src() -> None:
    if not private_names():
        pytest.skip("mkdocs is not installed")
    found = []
    for path in sorted(SRC.rglob("*.py")):
        found += [f"{path.relative_to(SRC)}:{hit}" for hit in private_uses(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, found


class _Anchor:
    def __init__(self, title: str, id: str) -> None:
        self.title, self.id, self.level, self.children = title, id, 1, []


class _Page:
    def __init__(self, content: str) -> None:
        class file:  # noqa: N801 - stands in for mkdocs' File
            src_uri = "glossary/x.md"

        self.file = file
        self.url, self.title, self.edit_url, self.canonical_url = "glossary/x.html", "X", None, None
        self.meta = {"source": "glossary/"}
        self.toc = [_Anchor("X", "x")]
        self.content = content


def test_a_key_changes_with_what_the_output_is_made_of() -> None:
    page = _Page("<h1>X</h1>")
    key = pagecache.page_key("site", page)
    assert key == pagecache.page_key("site", _Page("<h1>X</h1>"))
    assert key != pagecache.page_key("other site", page)
    assert key != pagecache.page_key("site", _Page("<h1>Y</h1>"))
    retitled = _Page("<h1>X</h1>")
    retitled.toc = [_Anchor("X", "y")]
    assert key != pagecache.page_key("site", retitled)
    moved = _Page("<h1>X</h1>")
    moved.meta = {"source": "src/"}
    assert key != pagecache.page_key("site", moved)


def test_the_cache_stores_loads_and_forgets_what_no_page_uses(tmp_path: Path) -> None:
    value = ("<html>x</html>", [{"location": "x.html", "title": "X", "text": ""}])
    rendered = {"markdown": "d", "content": "<h1>X</h1>", "title": "X", "toc": [("X", "x", 1, [])],
                "anchors": ["x"], "records": [("mkdocs.structure.pages", 20, "a note")], "links": None}
    assert pagecache._store(tmp_path, {"a.page": value, "b.page": value, "a.render": rendered},
                            keep={"a.page", "b.page", "a.render"}) == 3
    assert pagecache._load(tmp_path, "a") == value
    assert pagecache._load_rendered(tmp_path, "a") == rendered
    assert pagecache._load_rendered(tmp_path, "b") is None
    assert pagecache._store(tmp_path, {"a.page": value}, keep={"a.page"}) == 0  # already there; the rest unused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.page"]
    (tmp_path / "a.page").write_bytes(b"m\x00garbage")
    assert pagecache._load(tmp_path, "a") is None  # a damaged file is a miss, not an error


def test_only_the_heading_is_left_to_render() -> None:
    assert pagecache._stub("Intro\n\n# Title *x*\n\nText\n## Sub\n") == "# Title *x*\n"
    assert pagecache._stub("## Only a sub heading\n") is None


def test_one_process_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLATE_DOCS_JOBS", "1")
    assert not pagecache.copies_enabled()
    monkeypatch.setenv("XLATE_DOCS_CACHE", "0")
    assert not pagecache.cache_enabled()


def _site(work: Path) -> dict[str, bytes]:
    site = work / "site"
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_the_same_site_and_messages_from_one_process_two_or_the_cache(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "g")
    cache = tmp_path / "cache"
    runs = {
        "one process, no cache": {"XLATE_DOCS_JOBS": "1", "XLATE_DOCS_CACHE": "0"},
        "two processes, cold cache": {},
        "warm cache": {},
    }
    out = {}
    for n, (name, env) in enumerate(runs.items()):
        work = tmp_path / f"run{n}"
        proc = build_minimal_site(work, root, cache, env=env, args=("-v",))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        lines = proc.stderr.splitlines()
        log = [line.replace(str(work), "WORK") for line in lines
               if not line.startswith("DEBUG") and "Documentation built in" not in line]
        done = re.search(r"generated pages: (\d+) from the cache, (\d+) written by the second process, (\d+) here",
                         proc.stderr)
        rendered = re.search(r"generated pages rendered: (\d+) from the cache, (\d+) by the second process, (\d+) here",
                             proc.stderr)
        assert done and rendered, proc.stderr[-2000:]
        out[name] = (_site(work), log, tuple(int(x) for x in done.groups() + rendered.groups()))
        # Every page entry was annotated for the search tuning as it was indexed, whoever wrote the page.
        index = json.loads(out[name][0]["search/search_index.json"])
        pages = [d for d in index["docs"] if "#across-vendors-" not in d["location"]]
        annotated = re.search(r"search: (\d+) page entries annotated", proc.stderr)
        assert annotated and int(annotated.group(1)) == len(pages) > 0, proc.stderr[-2000:]
    generated = sum(out["one process, no cache"][2][:3])
    assert generated >= 3
    assert out["one process, no cache"][2] == (0, 0, generated, 0, 0, generated)
    cold = out["two processes, cold cache"][2]  # the second process wrote pages and rendered others
    assert cold[0] == cold[3] == 0 and ((cold[1] >= 1 and cold[4] >= 1) or not processes.can_fork())
    assert out["warm cache"][2] == (generated, 0, 0, generated, 0, 0)
    first = out["one process, no cache"]
    for name, (files, log, _) in out.items():
        assert files == first[0], f"{name}: {sorted(k for k in files if files[k] != first[0].get(k))}"
        assert log == first[1], name


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform: the pages are rendered in one process")
def test_the_same_pages_in_the_same_order_with_the_later_sections_rendered_in_a_fork(tmp_path: Path) -> None:
    from xlate.docsgen import build

    root = write_glossary(tmp_path / "g")
    g = build.load_checked(root)
    one = build.render(root, g)
    split = build.render(root, g, split=True)
    assert list(split.items()) == list(one.items())
    assert any(rel.startswith("rules/") for rel in one) and any(rel.startswith("glossary/") for rel in one)


def test_a_fork_that_fails_leaves_the_work_to_this_process() -> None:
    from xlate.docsgen import build

    calls = []

    def work() -> dict[str, str]:
        calls.append(os.getpid())
        if os.getpid() != me:
            raise RuntimeError("the copy fails")
        return {"a.md": "# A\n"}

    me = os.getpid()
    later = build._in_fork(work)
    if later is None:
        pytest.skip("this process cannot fork here (no fork, one CPU or other threads running)")
    assert later() == {"a.md": "# A\n"} and calls == [me]


def test_the_prebuilt_template_prints_the_output_or_is_main_html() -> None:
    import jinja2
    from markupsafe import Markup

    theme = SRC / "xlate" / "docsgen" / "theme"
    main = "<html>{% block content %}{{ page }}{% endblock %}</html>\n"
    env = jinja2.Environment(loader=jinja2.ChoiceLoader([
        jinja2.DictLoader({"main.html": main}), jinja2.FileSystemLoader(str(theme))]))
    prebuilt = env.get_template(pagecache.TEMPLATE)
    assert prebuilt.render(page="P", xlate_prebuilt=Markup("<p>made before</p>")) == "<p>made before</p>"
    assert prebuilt.render(page="P") == env.get_template("main.html").render(page="P") == "<html>P</html>"
    assert prebuilt.render(page="P", xlate_prebuilt=None) == "<html>P</html>"


def test_the_fingerprint_covers_the_sites_own_theme_folder(tmp_path: Path) -> None:
    import importlib.util

    class Theme:
        spec = importlib.util.find_spec("mkdocs")
        dirs = [str(tmp_path)] + ([str(Path(spec.origin).parent / "templates")] if spec and spec.origin else [])

    assert pagecache._own_theme_dirs(Theme()) == [tmp_path.resolve()]


@pytest.mark.slow
def test_a_changed_glossary_gets_the_site_an_uncached_build_makes(tmp_path: Path) -> None:
    """A warm cache from the old glossary, then an edit: a changed concept's title shows on every page's
    navigation, so nothing stale may be reused; the site equals the one built without any cache."""
    root = write_glossary(tmp_path / "g")
    cache = tmp_path / "cache"
    assert build_minimal_site(tmp_path / "before", root, cache).returncode == 0
    warp = root / "execution-model" / "warp.yaml"
    warp.write_text(warp.read_text(encoding="utf-8").replace("title: Warp", "title: Warp & wavefront")
                    .replace("execute one instruction together", "issue one instruction together"), encoding="utf-8")
    warm = build_minimal_site(tmp_path / "warm", root, cache)
    cold = build_minimal_site(tmp_path / "cold", root, tmp_path / "cache2", env={"XLATE_DOCS_CACHE": "0"})
    assert warm.returncode == 0 and cold.returncode == 0, warm.stderr + cold.stderr
    files, fresh = _site(tmp_path / "warm"), _site(tmp_path / "cold")
    assert files == fresh, sorted(k for k in files if files[k] != fresh.get(k))
    assert any(b"Warp &amp; wavefront" in v for k, v in files.items() if k.endswith(".html"))
    assert not any(b"execute one instruction together" in v for v in files.values())
