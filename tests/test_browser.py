"""The built site in a real browser: Debian's Chromium driven by Playwright, served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from conftest import REPO

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts" / "browser"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "xlate", "docs", "build", "--site-dir", str(out)],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser: object, server: str) -> Iterator[object]:
    """A page that records console errors and fails on any request that leaves 127.0.0.1."""
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []
    pg.foreign = []
    pg.on("console", lambda msg: msg.type == "error" and pg.console_errors.append(msg.text))
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))

    def guard(route: object) -> None:
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            pg.foreign.append(route.request.url)
            route.abort()

    pg.route("**/*", guard)
    yield pg
    assert pg.foreign == [], f"requests left 127.0.0.1: {pg.foreign}"
    assert pg.console_errors == [], f"console errors: {pg.console_errors}"
    context.close()


def _shot(pg: object, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


@pytest.mark.parametrize(
    ("query", "expected"),
    [("wavefront", "glossary/execution-model/warp.html"),
     ("LDS", "glossary/memory/shared-memory.html"),
     ("simd_shuffle_down", "glossary/warp-ops/warp-shuffle-down.html"),
     ("syncthreads", "glossary/synchronization/block-barrier.html"),
     ("Malloc", "glossary/host-api/device-malloc.html")],
)
def test_search_lands_on_the_right_page(page: object, server: str, query: str, expected: str) -> None:
    page.goto(server + "index.html")
    box = page.locator("input.md-search__input")
    box.wait_for(state="visible")
    box.click()
    results = page.locator("li.md-search-result__item > a.md-search-result__link")
    # Material builds its search index in a worker after the page loads; a query typed before the
    # index is ready may get no answer, so type it again until results appear (bounded).
    for attempt in range(3):
        box.fill("")
        box.fill(query)
        try:
            results.first.wait_for(timeout=10000)
            break
        except Exception:
            if attempt == 2:
                raise
    hrefs = [results.nth(i).get_attribute("href") for i in range(min(5, results.count()))]
    _shot(page, f"search-{re.sub(r'[^a-z0-9]+', '-', query.lower())}")
    assert any(expected in (h or "") for h in hrefs), hrefs


def test_concept_page_shows_table_and_diagram(page: object, server: str) -> None:
    page.goto(server + "glossary/warp-ops/warp-shuffle-down.html")
    assert page.locator("h1").inner_text().strip()
    table = page.locator("table").first
    assert "HIP / ROCm" in table.inner_text() and "Metal" in table.inner_text()
    assert page.locator("figure.xl-graph svg").count() == 1
    _shot(page, "concept-warp-shuffle-down")


def test_content_tabs_switch(page: object, server: str) -> None:
    page.goto(server + "kernels/reduction.html")
    labels = page.locator(".tabbed-labels label")
    assert labels.count() >= 3
    second = labels.nth(1)
    second.click()
    block = page.locator(".tabbed-content .tabbed-block").nth(1)
    assert block.is_visible()
    assert not page.locator(".tabbed-content .tabbed-block").nth(0).is_visible()
    _shot(page, "kernel-tabs")


def test_rosetta_filter_narrows_the_table(page: object, server: str) -> None:
    page.goto(server + "rosetta.html")
    rows = page.locator("#xl-rosetta tbody tr")
    total = rows.count()
    page.locator("input.xl-filter").fill("shuffle")
    visible = sum(1 for i in range(total) if rows.nth(i).is_visible())
    assert 0 < visible < total
    _shot(page, "rosetta-filter")


def test_hardware_page_has_roofline(page: object, server: str) -> None:
    page.goto(server + "hardware.html")
    assert page.locator("svg polyline").count() >= 5
    _shot(page, "hardware")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or (tag in ("img", "script") and name == "src")
                          or (tag == "link" and name == "href")):
                self.links.append(value)


def test_every_internal_link_resolves(site: Path) -> None:
    broken = []
    # 404.html is served at any address, so Material writes its links from the site root; skip it.
    pages = [p for p in site.rglob("*.html") if p.name != "404.html"]
    for html in pages:
        parser = _Links()
        parser.feed(html.read_text(encoding="utf-8"))
        for link in parser.links:
            parsed = urlparse(link)
            if parsed.scheme or link.startswith(("#", "mailto:", "//")):
                continue
            target = unquote(urlparse(urljoin(html.relative_to(site).as_posix(), link)).path)
            path = site / target
            if target.endswith("/"):
                path = path / "index.html"
            if not path.exists():
                broken.append(f"{html.relative_to(site)} -> {link}")
    assert len(pages) > 150
    assert broken == [], "\n".join(broken[:30])
