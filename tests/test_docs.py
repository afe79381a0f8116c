"""The docs site: generated pages, escaping of glossary text, strict builds with mkdocs and zensical."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GOOD_CONCEPTS, REPO, build_minimal_site, write_glossary
from xlate.docsgen import text
from xlate.docsgen.build import generate

HOSTILE = GOOD_CONCEPTS["execution-model/warp.yaml"].replace(
    "The group of threads that execute one instruction together.",
    "The group of threads <script>alert('x')</script> that run <img src=x onerror=alert(1)> together.",
).replace("title: Warp", 'title: "Warp <b onmouseover=alert(2)>bold</b>"')


def test_prose_escapes_html_and_keeps_code_spans() -> None:
    out = text.prose("a <script>x</script> and `__shfl_down_sync<T>` with __syncthreads")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "`__shfl_down_sync<T>`" in out
    assert "`__syncthreads`" in out  # a code name written without backticks is spelled as code


def test_code_names_in_prose_become_code_and_prose_stays_prose() -> None:
    out = text.codify("num_warps sets warps; read threadExecutionWidth or [[threads_per_simdgroup]], call mx.eval() "
                      "or cuda::pipeline, pass -mwavefrontsize64; cuBLAS on macOS, e.g. 1.5 TB/s on MI300X, thread-block")
    for name in ("num_warps", "threadExecutionWidth", "[[threads_per_simdgroup]]", "mx.eval()", "cuda::pipeline",
                 "-mwavefrontsize64"):
        assert f"`{name}`" in out, name
    for word in ("cuBLAS", "macOS", "e.g.", "1.5", "MI300X", "thread-block"):
        assert f"`{word}" not in out, word
    assert text.codify("a `tl.dot` span") == "a `tl.dot` span"  # existing code spans are left alone


def test_generated_concept_page_has_the_cross_vendor_table(tmp_path: Path) -> None:
    root = write_glossary(tmp_path)
    pages = generate(root, tmp_path / "docs")
    page = pages["glossary/execution-model/warp.md"]
    assert "| HIP / ROCm | wavefront" in page
    assert "approximate" in page and "64 lanes on CDNA." in page
    assert "[Thread block](../execution-model/thread-block.md)" in page
    assert "xlate-graph" not in page  # no relation drawing: it would repeat the Related list
    assert "- Part of, see also: [Thread block](../execution-model/thread-block.md)" in page
    assert "rosetta.md" in pages and "glossary/execution-model/index.md" in pages


def _build_minimal_site(tmp_path: Path, root: Path) -> Path:
    """The project's own config and hook on a small glossary: one hand-written page, the generated ones."""
    proc = build_minimal_site(tmp_path, root, tmp_path / "cache", args=("-q",))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path / "site"


@pytest.mark.slow
def test_hostile_glossary_text_renders_inert(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "g", {"execution-model/warp.yaml": HOSTILE})
    site = _build_minimal_site(tmp_path, root)
    html = (site / "glossary" / "execution-model" / "warp.html").read_text()
    assert "<script>alert" not in html
    assert "<img src=x" not in html and "<b onmouseover" not in html
    assert "&lt;script&gt;alert" in html


@pytest.mark.slow
def test_site_builds_strict_with_mkdocs(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "xlate", "docs", "build", "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site = tmp_path / "site"
    assert (site / "rosetta.html").exists() and (site / "hardware.html").exists()
    assert len(list((site / "glossary").rglob("*.html"))) >= 150


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zensical") is None, reason="zensical is not installed")
def test_zensical_builds_the_same_pages_with_the_same_titles(tmp_path: Path) -> None:
    import re

    sites = {}
    for engine in ("mkdocs", "zensical"):
        out = tmp_path / engine
        proc = subprocess.run([sys.executable, "-m", "xlate", "docs", "build", "--engine", engine, "--site-dir", str(out)],
                              capture_output=True, text=True, cwd=REPO, timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"site: {out.resolve()}" in proc.stdout  # --site-dir is honoured by both engines
        sites[engine] = out
    pages = {e: sorted(p.relative_to(s).as_posix() for p in s.rglob("*.html") if p.name != "404.html") for e, s in sites.items()}
    assert pages["mkdocs"] == pages["zensical"] and len(pages["mkdocs"]) > 250

    def title(path: Path) -> str:
        return re.search(r"<title>(.*?)</title>", path.read_text(encoding="utf-8"), re.S).group(1).strip()

    differ = [rel for rel in pages["mkdocs"] if title(sites["mkdocs"] / rel) != title(sites["zensical"] / rel)]
    assert differ == [], differ[:10]


def test_search_separator_keeps_code_spellings_whole_and_matches_mkdocs_yml() -> None:
    from xlate.docsgen import search
    from xlate.docsgen.build import read_config

    assert search.tokens("hipMalloc, mx.eval and __syncthreads() on v_mfma_f32_32x32x8_f16.") == [
        "hipmalloc", "mx.eval", "and", "__syncthreads", "on", "v_mfma_f32_32x32x8_f16"]
    assert search.tokens("<code>.metallib</code> files") == ["metallib", "files"]
    assert search.pieces("hipMallocManaged") == ["hip", "malloc", "managed"]
    assert search.pieces("mx.eval") == ["mx", "eval"]
    config = read_config(REPO / "mkdocs.yml")
    assert config["plugins"][0]["search"]["separator"] == search.SEPARATOR


def test_search_tuning_puts_the_exact_spelling_first(tmp_path: Path) -> None:
    """A prefix of another concept's spelling still wins its own query (the wildcard would favour the longer one)."""
    from xlate import kb
    from xlate.docsgen import search

    g = kb.load_glossary(write_glossary(tmp_path))
    index = {"config": {"separator": search.SEPARATOR, "pipeline": ["trimmer"], "lang": ["en"]}, "docs": [
        {"location": f"glossary/{c.category.value}/{c.id}.html", "title": c.title, "text": c.summary} for c in g.concepts.values()]}
    result = search.tune(index, g)
    entries = [d for d in index["docs"] if "#across-vendors-" in d["location"]]
    assert entries and all(d["text"] == "" for d in entries)
    assert result.queries and result.unresolved == []
    assert set(index["config"]["fields"]) >= {"title", "text", "keys", "keyparts", "parts"}


def test_snippet_starts_at_the_statement_and_skips_comments(tmp_path: Path) -> None:
    from xlate.docsgen import snippets
    from xlate.examples_check import blank_prose

    lines = ["// uses __syncthreads below", "__global__ void k(float* a,", "                  int n) {",
             "  a[0] = 1;", "  __syncthreads();", "}"]
    code = blank_prose("\n".join(lines), python=False)
    assert snippets.find(lines, code, "__syncthreads", "cuda") == (4, 4, 4)
    assert snippets.find(lines, code, "n", "cuda") == (1, 2, 2)
    py = ['"""Uses tl.dot', 'like this."""', "acc = tl.dot(a, b)"]
    assert snippets.find(py, blank_prose("\n".join(py), python=True), "tl.dot", "triton") == (2, 2, 2)


def test_navigation_lists_every_generated_page_after_its_index() -> None:
    from xlate.docsgen.build import expand_nav

    pages = {"glossary/index.md": "# Glossary", "glossary/memory/index.md": "# Memory", "glossary/memory/lds.md": "# LDS",
             "rules/index.md": "# Hazards", "rules/a.md": "# a"}
    nav = expand_nav([{"Glossary": ["glossary/index.md"]}, {"Hazards": ["rules/index.md"]}], pages,
                     {"glossary/memory/index.md": "Memory", "glossary/memory/lds.md": "LDS"})
    assert nav == [{"Glossary": ["glossary/index.md", {"Memory": ["glossary/memory/index.md", "glossary/memory/lds.md"]}]},
                   {"Hazards": ["rules/index.md", "rules/a.md"]}]


def test_concept_page_starts_with_the_definition_then_the_equivalence_then_the_table(tmp_path: Path) -> None:
    root = write_glossary(tmp_path)
    page = generate(root, tmp_path / "out")["glossary/execution-model/warp.md"]
    body = page.split("---\n", 2)[2].lstrip()
    assert body.startswith("# ")  # the heading first: engines take the title from it
    question = page.index("## What is a warp?")
    assert question < page.index("The group of threads") < page.index("{: .xl-equiv }") < page.index("| backend | term |")
