"""The docs site: generated pages, escaping of glossary text, strict builds with mkdocs and zensical."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GOOD_CONCEPTS, REPO, write_glossary
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
    assert r"\_\_syncthreads" in out


def test_generated_concept_page_has_the_cross_vendor_table(tmp_path: Path) -> None:
    root = write_glossary(tmp_path)
    pages = generate(root, tmp_path / "docs")
    page = pages["glossary/execution-model/warp.md"]
    assert "| HIP / ROCm | wavefront" in page
    assert "approximate" in page and "64 lanes on CDNA." in page
    assert "[Thread block](../execution-model/thread-block.md)" in page
    assert "<svg" in page and 'href="../execution-model/thread-block.html"' in page
    assert "rosetta.md" in pages and "glossary/execution-model/index.md" in pages


def _build_minimal_site(tmp_path: Path, root: Path) -> Path:
    """The project's own config and hook on a small glossary: one hand-written page, the generated ones."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# test\n")
    for sub in ("stylesheets", "javascripts"):
        shutil.copytree(REPO / "docs" / sub, docs / sub)
    config = (REPO / "mkdocs.yml").read_text()
    config = config.replace("custom_dir: src/", f"custom_dir: {REPO}/src/").replace("  - src/xlate/", f"  - {REPO}/src/xlate/")
    config = config.replace("strict: true", "strict: false")  # the hand-written pages of the nav are absent here
    (tmp_path / "mkdocs.yml").write_text(config)
    env = {"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "XLATE_GLOSSARY": str(root),
           "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(tmp_path / "mkdocs.yml")],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path / "site"


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
def test_same_config_builds_with_zensical(tmp_path: Path) -> None:
    generate()
    work = tmp_path / "z"
    shutil.copytree(REPO / "docs", work / "docs")
    shutil.copy(REPO / "mkdocs.yml", work / "mkdocs.yml")
    proc = subprocess.run([shutil.which("zensical"), "build", "-f", "mkdocs.yml"], capture_output=True, text=True,
                          cwd=work, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (work / "site" / "rosetta.html").exists() or (work / "site" / "rosetta" / "index.html").exists()
