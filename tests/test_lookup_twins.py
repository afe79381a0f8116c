"""A HIP API name that no row spells is read as the CUDA name it is spelled after (hipStreamGetId:
cudaStreamGetId), through the prefix pairs the rows themselves show, and lookup says so."""

from __future__ import annotations

import io
import json

from xlate import kb, lookup
from xlate.kb import _index


def _json(query: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = lookup.run(query, None, "json", 5, out=out)
    return code, json.loads(out.getvalue())


def test_the_prefix_pairs_come_from_the_rows_and_include_the_runtime_and_library_pairs() -> None:
    pairs = _index._twin_prefixes(kb.load_index())
    for pair in (("hip", "cuda"), ("HIP", "CUDA"), ("hip", "cu")):
        assert pair in pairs, pairs
    assert any(h.startswith("hipblas") or h.startswith("hipcub") for h, _ in pairs) or ("hip", "cu") in pairs


def test_rows_with_no_hip_spelling_are_reached_from_the_hip_twin_of_their_cuda_name() -> None:
    index = kb.load_index()
    spelled = set(_index.counterpart_spellings(index))
    tried, wrong = 0, []
    for name in _index.names(index)[::7]:
        if not name.startswith("cuda") or len(name) < 10:
            continue
        row = _index.rows_for(index, name)[0][0]
        side = row.side("hip")
        twin = "hip" + name[len("cuda"):]
        if side is None or side.symbol is not None or twin in spelled or row.concept is None:
            continue
        tried += 1
        top = kb.search(index, twin, limit=1)
        if not top or top[0].concept != row.concept:
            wrong.append((twin, [m.concept for m in top], row.concept))
    assert tried >= 20 and not wrong, (tried, wrong)


def test_a_twin_names_the_cuda_row_and_says_the_hip_name_is_in_no_row() -> None:
    code, payload = _json("hipStreamGetId")
    assert code == 0 and payload["rows"][0]["cuda"] == "cudaStreamGetId"
    assert payload["matches"][0]["matched_kind"] == "twin"
    out = io.StringIO()
    assert lookup.run("hipStreamGetId", None, "text", 5, out=out) == 0
    assert "no row spells this HIP name" in out.getvalue()


def test_a_real_hip_spelling_is_its_row_and_an_unknown_hip_name_is_nothing() -> None:
    index = kb.load_index()
    assert kb.search(index, "hipMalloc", limit=1)[0].kind == "symbol"
    assert kb.search(index, "hipNoSuchFunctionAnywhere", limit=1) == []
    # A name that is no API's (a HIP prefix on a plain word) has no twin.
    assert _index.twin_matches(index, "hipster", None) == []
