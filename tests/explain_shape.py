"""Checks that an `xlate explain --format json` document has the documented shape."""

from __future__ import annotations

from typing import Any


def check_document(doc: dict[str, Any]) -> None:
    assert isinstance(doc.get("files"), list)
    for f in doc["files"]:
        assert isinstance(f["path"], str)
        for a in f["annotations"]:
            assert isinstance(a["line"], int) and a["line"] >= 1
            assert isinstance(a["column"], int) and a["column"] >= 1
            assert isinstance(a["symbol"], str) and a["symbol"]
            assert a["concept"] is None or isinstance(a["concept"], str)
            assert set(a["equivalents"]) == {"hip", "metal"}
            for v in a["equivalents"].values():
                assert v is None or isinstance(v, str)
        for h in f["hazards"]:
            assert isinstance(h["line"], int) and h["line"] >= 1
            assert isinstance(h["column"], int) and h["column"] >= 1
            assert isinstance(h["rule"], str) and isinstance(h["name"], str)
            assert h["severity"] in ("info", "warning", "error")
            assert isinstance(h["backends"], list) and all(isinstance(b, str) for b in h["backends"])
            assert isinstance(h["message"], str) and h["message"]
        assert isinstance(f["errors"], list)
        for e in f["errors"]:
            assert isinstance(e["kind"], str) and isinstance(e["message"], str)
            if "line" in e:
                assert e["line"] >= 1 and e["column"] >= 1
