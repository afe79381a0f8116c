"""A backend filter that leaves a query unanswered because the name is another backend's spelling says so,
instead of offering the very name typed as the "nearest term"."""

from __future__ import annotations

import io

import pytest

from xlate import lookup


def test_another_backends_spelling_is_named_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    code = lookup.run("cg::reduce", "hip", "text", 5, out=io.StringIO())
    err = capsys.readouterr().err
    assert code == 1
    assert "no hip spelling matches 'cg::reduce'" in err and "cuda spelling" in err and "Warp reduction" in err
    assert "Nearest terms" not in err


def test_an_unknown_name_under_a_filter_still_gets_the_nearest_terms(capsys: pytest.CaptureFixture[str]) -> None:
    code = lookup.run("zzqxw", "hip", "text", 5, out=io.StringIO())
    assert code == 1
    assert "no concept, symbol or GPU matches 'zzqxw'" in capsys.readouterr().err
