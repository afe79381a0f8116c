"""`mkdocs serve` while the glossary is broken: every page says what failed, none hangs; fixed, the site is back."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO, write_glossary
from xlate.docsgen import serve_errors


def test_error_page_says_what_failed_and_escapes_it() -> None:
    page = serve_errors.error_page(RuntimeError("xlate: the glossary has 1 problem(s): <bad> in warp.yaml")).decode()
    assert "could not be rebuilt" in page and "&lt;bad&gt; in warp.yaml" in page and "<bad>" not in page
    assert 'http-equiv="refresh"' in page  # it turns back into the site by itself


def test_guard_serves_the_error_then_the_site_again(tmp_path: Path) -> None:
    class Server:
        root = str(tmp_path)
        error_handler = None

    calls = []

    def build() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("broken glossary")

    server = Server()
    server.builder = build
    serve_errors.on_serve(server, None, None)
    server.builder()  # fails: nothing raised to the server's loop, the error page answers
    assert server.root != str(tmp_path) and b"broken glossary" in server.error_handler(404)
    server.builder()  # fixed
    assert server.root == str(tmp_path) and server.error_handler is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 20) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


@pytest.mark.slow
def test_mkdocs_serve_shows_a_broken_glossary_as_an_error_page(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "g")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# test\n")
    for sub in ("stylesheets", "javascripts"):
        shutil.copytree(REPO / "docs" / sub, docs / sub)
    config = (REPO / "mkdocs.yml").read_text().replace("custom_dir: src/", f"custom_dir: {REPO}/src/")
    config = config.replace("  - src/xlate/", f"  - {REPO}/src/xlate/").replace("strict: true", "strict: false")
    (tmp_path / "mkdocs.yml").write_text(config)
    port = _free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "XLATE_GLOSSARY": str(root), "PYTHONPATH": str(REPO / "src"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}", "-f", str(tmp_path / "mkdocs.yml")],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/glossary/execution-model/warp.html"

    def wait_for(check, seconds: float = 120) -> tuple[int, str]:
        end = time.monotonic() + seconds
        got: tuple[int, str] = (0, "")
        while time.monotonic() < end:
            try:
                got = _get(url)
                if check(got):
                    return got
            except OSError:
                pass
            time.sleep(0.5)
        return got

    try:
        assert "Warp" in wait_for(lambda r: r[0] == 200)[1]
        warp = root / "execution-model" / "warp.yaml"
        good = warp.read_text()
        warp.write_text(good + "\nthis is: [not yaml\n")
        (docs / "index.md").write_text("# test again\n")  # docs/ is watched: a rebuild starts
        status, body = wait_for(lambda r: "could not be rebuilt" in r[1])
        assert "could not be rebuilt" in body and "warp.yaml" in body, (status, body[:500])
        warp.write_text(good)
        (docs / "index.md").write_text("# test\n")
        status, body = wait_for(lambda r: r[0] == 200 and "could not be rebuilt" not in r[1])
        assert status == 200 and "Warp" in body
    finally:
        proc.terminate()
        proc.wait(timeout=30)
