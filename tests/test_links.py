"""Links to the docs site: one meaning of $XLATE_DOCS_URL, and every link followed into a built site.

The slow test builds the site once with `xlate docs build`, points $XLATE_DOCS_URL at it, and follows
each link that text, markdown and SARIF output and the language server print to a file of that build.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlparse

import pytest

from conftest import REPO
from xlate import links

FIXTURES = REPO / "tests" / "fixtures"  # explain fixtures and each rule's positive and negative examples
URL = re.compile(r"(?:https?|file)://[^\s)\]\"'<>`]+")


def test_docs_url_is_the_site_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLATE_DOCS_URL", "https://mirror.example.org/xlate")
    assert links.site_root() == "https://mirror.example.org/xlate/"
    # one meaning for every kind of page: the root plus the page's path in the built site
    assert links.rule_url("hardcoded-warp-size") == "https://mirror.example.org/xlate/rules/hardcoded-warp-size.html"
    assert links.concept_url("memory", "shared-memory") == "https://mirror.example.org/xlate/glossary/memory/shared-memory.html"
    monkeypatch.setenv("XLATE_DOCS_URL", "http://127.0.0.1:8000/")
    assert links.rule_url("x") == "http://127.0.0.1:8000/rules/x.html"


def test_default_is_the_local_build_not_a_foreign_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLATE_DOCS_URL", raising=False)
    root = links.site_root()
    assert root == (REPO / "site").as_uri() + "/"
    target = urlparse(links.rule_url("hardcoded-warp-size"))
    assert target.scheme == "file"
    assert Path(unquote(target.path)) == REPO / "site" / "rules" / "hardcoded-warp-size.html"
    monkeypatch.setenv("XLATE_DOCS_URL", "   ")  # blank counts as unset
    assert links.site_root() == root


def test_links_name_the_pages_the_generator_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator's page paths and the links' paths come from the same functions."""
    from xlate.docsgen import concepts as docs_concepts
    from xlate.docsgen import rules as docs_rules
    from xlate.rules import all_rules

    monkeypatch.setenv("XLATE_DOCS_URL", "https://site.example/")
    rules = all_rules()
    assert rules
    for rule in rules:
        page = docs_rules.rule_page_path(rule.name)
        assert links.rule_url(rule.name) == "https://site.example/" + page.removesuffix(".md") + ".html"
    concept = SimpleNamespace(category=SimpleNamespace(value="memory"), id="shared-memory")
    assert links.concept_url("memory", "shared-memory") == "https://site.example/" + docs_concepts.concept_path(concept)[:-3] + ".html"


# --- following links into a real build ---------------------------------------------------------------


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site") / "site"
    proc = subprocess.run([sys.executable, "-m", "xlate", "docs", "build", "--site-dir", str(site)],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site


def _follow(urls: list[str], site: Path) -> list[str]:
    """Each link as a file of the build; returns the links that lead nowhere."""
    root = links.site_root()
    broken = []
    for url in urls:
        assert url.startswith(root), f"{url} is not under the site root {root}"
        page = site / unquote(url[len(root):].split("#", 1)[0])
        if not page.is_file():
            broken.append(url)
    return broken


def _site_links(text: str) -> list[str]:
    root = links.site_root()
    return sorted({u for u in URL.findall(text) if u.startswith(root)})


@pytest.mark.slow
def test_every_printed_link_leads_to_a_built_page(built_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from xlate import explain
    from xlate import kb
    from xlate.lsp import cards as lsp_cards
    from xlate.lsp import worker as lsp_worker
    from xlate.render import markdown, sarif, text

    monkeypatch.setenv("XLATE_DOCS_URL", built_site.as_uri())
    smap = kb.load_symbols()
    results = [explain.explain_path(str(p), p, smap) for p in sorted(FIXTURES.rglob("*.cu"))]
    hazards = [h for r in results for h in r["hazards"]]
    assert len({h["name"] for h in hazards}) >= 10, "the fixtures must fire many rules for this test to mean anything"

    out = io.StringIO()
    text.write(results, out)
    text_links = _site_links(out.getvalue())
    md_links = _site_links(markdown.render(results))
    doc = sarif.document(results)
    sarif_rules = doc["runs"][0]["tool"]["driver"]["rules"]
    sarif_links = [r["helpUri"] for r in sarif_rules]
    # every rule that fired is linked by each surface
    fired = {links.rule_url(h["name"]) for h in hazards}
    assert fired <= set(text_links) and fired <= set(md_links) and fired <= set(sarif_links)
    from xlate.rules import all_rules

    assert len(sarif_links) == len(sarif_rules) == len(all_rules())  # every rule's page, fired or not

    index = kb.load_index()
    wire = lsp_worker.diagnostics({"hazards": hazards, "annotations": []}, [], "utf-16")
    lsp_links = [d["codeDescription"]["href"] for d in wire if "codeDescription" in d]
    hover_links: list[str] = []
    for cid in sorted(index["concepts"]):
        match = kb.search(index, cid, limit=1)[0]
        hover_links += _site_links(lsp_cards.concept_markdown(index, match))
    assert len(hover_links) == len(index["concepts"])

    for surface, found in (("text", text_links), ("markdown", md_links), ("sarif", sarif_links),
                           ("lsp diagnostics", lsp_links), ("lsp hover", hover_links)):
        assert found, f"{surface} printed no link"
        broken = _follow(found, built_site)
        assert not broken, f"{surface}: {len(broken)} link(s) lead nowhere, e.g. {broken[:3]}"
