"""The index cache key is the glossary's content hash: an edit that leaves a file's size and
modification time as they were is still seen, and an unchanged glossary is not read again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xlate.kb import _paths


@pytest.fixture
def glossary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "glossary"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "a.yaml").write_text("id: a\ntitle: first\n", encoding="utf-8")
    return root


def _rewrite_keeping_stat_times(path: Path, text: str) -> None:
    before = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns


def test_same_size_edit_with_the_old_mtime_changes_the_key(glossary: Path) -> None:
    first = _paths.content_key(glossary)
    assert first == _paths.content_hash(glossary)
    _rewrite_keeping_stat_times(glossary / "memory" / "a.yaml", "id: a\ntitle: secnd\n")
    second = _paths.content_key(glossary)
    assert second != first and second == _paths.content_hash(glossary)


def test_a_racy_stamp_is_not_trusted(glossary: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the stamps cannot tell two contents apart (a coarse clock, no ctime), a file as young as
    the last hashing is hashed again."""
    sig, _ = _paths._stat_signature(glossary)
    first = _paths.content_key(glossary)
    (glossary / "memory" / "a.yaml").write_text("id: a\ntitle: secnd\n", encoding="utf-8")
    young = os.stat(glossary / "memory" / "a.yaml").st_mtime_ns
    monkeypatch.setattr(_paths, "_stat_signature", lambda root: (sig, young))  # the stamps look unchanged
    assert _paths.content_key(glossary) == _paths.content_hash(glossary) != first


def test_an_unchanged_old_glossary_is_not_hashed_again(glossary: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = 1_000_000_000 * 1_000_000_000  # 2001: far older than any hashing
    os.utime(glossary / "memory" / "a.yaml", ns=(old, old))
    sig, _ = _paths._stat_signature(glossary)
    key = _paths.content_key(glossary)
    monkeypatch.setattr(_paths, "_stat_signature", lambda root: (sig, old))  # ctime, too, as old

    def fail(root: Path) -> str:
        raise AssertionError("hashed again")

    monkeypatch.setattr(_paths, "content_hash", fail)
    assert _paths.content_key(glossary) == key
