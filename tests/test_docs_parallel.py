"""Pages rendered in the build's second process: the same site, the same messages, warnings that count."""

from __future__ import annotations

import json
import logging
import os
import re
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
        proc = build_minimal_site(work, root, tmp_path / "cache", env={"XLATE_DOCS_JOBS": jobs}, args=("-v",))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        site = work / "site"
        files = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
        lines = proc.stderr.splitlines()
        log = [line.replace(str(work), "WORK") for line in lines
               if not line.startswith("DEBUG") and "Documentation built in" not in line]
        out[jobs] = (files, log, "\n".join(line for line in lines if "second process:" in line))
        # Every page entry was annotated for the search tuning as it was indexed, in either process.
        index = json.loads(files["search/search_index.json"])
        pages = [d for d in index["docs"] if "#across-vendors-" not in d["location"]]
        annotated = re.search(r"search: (\d+) page entries annotated", proc.stderr)
        assert annotated and int(annotated.group(1)) == len(pages) > 0, proc.stderr[-2000:]
        # With two processes the theme's templates were compiled once, by the helper (docsgen/templates.py).
        compiled = re.search(r"templates: (\d+) compiled by the helper", proc.stderr)
        assert (compiled is not None and int(compiled.group(1)) > 10) if jobs == "2" else compiled is None
    assert len([f for f in out["2"][0] if f.startswith("glossary/") and f.endswith(".html")]) >= 3
    # The second process did its share: it rendered and built pages (not only fell back to this one).
    done = re.search(r"second process: (\d+) pages rendered, (\d+) built", out["2"][2])
    assert done and int(done.group(1)) >= 1 and done.group(1) == done.group(2), out["2"][2]
    assert not out["1"][2]
    assert out["1"][0] == out["2"][0]
    assert out["1"][1] == out["2"][1]


class _Search:
    class search_index:  # noqa: N801 - stands in for Material's SearchIndex
        entries: list[dict[str, str]] = []


class _Config:
    def __init__(self, search: object) -> None:
        self.plugins = {"material/search": search}


def test_a_page_the_copy_built_adds_its_entries_and_one_it_did_not_is_built_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    built_here: list[str] = []
    monkeypatch.setattr(parallel, "_ORIGINAL_BUILD_PAGE", lambda page, *a, **k: built_here.append(page.file.src_uri))
    read, write = os.pipe()
    record = logging.LogRecord("mkdocs", logging.WARNING, __file__, 1, "from the copy", None, None)
    with os.fdopen(write, "wb") as out:
        blob = pickle.dumps((("built", "glossary/x.md"), {"entries": [{"location": "glossary/x.html"}], "records": [record]}))
        out.write(parallel._HEADER.pack(len(blob)) + blob)
    results = parallel._Results(read, pid=os.getpid())
    results.building = {"glossary/x.md", "glossary/y.md"}
    search = _Search()
    search.search_index.entries = [{"location": "index.html"}]
    page = _Page()

    class _Other:
        class file:  # noqa: N801
            src_uri = "glossary/y.md"

    results.build_page(page, _Config(search), [], None, None)
    results.build_page(_Other(), _Config(search), [], None, None)  # the copy sent nothing for it: built here
    assert search.search_index.entries == [{"location": "index.html"}, {"location": "glossary/x.html"}]
    assert built_here == ["glossary/y.md"] and results.built == 1


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
