"""Pages rendered in the build's second process: the same site, the same messages, warnings that count."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from conftest import build_minimal_site, write_glossary
from xlate.docsgen import parallel


class _Page:
    class file:  # noqa: N801 - stands in for mkdocs' File
        src_uri = "glossary/x.md"

    markdown = "# X\n"


def test_a_result_replays_its_records_and_sets_what_rendering_sets(caplog: pytest.LogCaptureFixture) -> None:
    record = logging.LogRecord("mkdocs.structure.pages", logging.WARNING, __file__, 1, "broken link %s", ("a.md",), None)
    capture = parallel._Capture()
    capture.emit(record)
    page = _Page()
    result = {"markdown": parallel._digest(page.markdown), "content": "<h1>X</h1>", "toc": [], "title": "X",
              "anchors": {"x"}, "records": capture.records, "links": None}
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        parallel._apply(page, result, files=None)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(logging.WARNING, "broken link a.md")]
    assert page.content == "<h1>X</h1>" and page._title_from_render == "X" and page.present_anchor_ids == {"x"}


def test_results_arrive_in_order_and_a_missing_one_is_none() -> None:
    import pickle

    read, write = os.pipe()
    with os.fdopen(write, "wb") as out:
        for key in ("a.md", "b.md"):
            blob = pickle.dumps((key, {"k": key}))
            out.write(parallel._HEADER.pack(len(blob)) + blob)
    results = parallel._Results(read, pid=os.getpid())  # waiting for oneself fails quietly: no copy to reap
    assert results.take("b.md") == {"k": "b.md"} and results.take("a.md") == {"k": "a.md"}
    assert results.take("c.md") is None  # the stream ended: the caller renders the page itself


def test_off_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLATE_DOCS_JOBS", "1")
    assert not parallel.enabled()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform: the build renders in one process")
def test_the_same_site_and_messages_with_one_process_or_two(tmp_path: Path) -> None:
    root = write_glossary(tmp_path / "g")
    out = {}
    for jobs in ("1", "2"):
        work = tmp_path / f"jobs{jobs}"
        proc = build_minimal_site(work, root, tmp_path / "cache", env={"XLATE_DOCS_JOBS": jobs})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        site = work / "site"
        files = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
        log = [line.replace(str(work), "WORK") for line in proc.stderr.splitlines() if "Documentation built in" not in line]
        out[jobs] = (files, log)
    assert len([f for f in out["2"][0] if f.startswith("glossary/") and f.endswith(".html")]) >= 3
    assert out["1"][0] == out["2"][0]
    assert out["1"][1] == out["2"][1]
