"""Names in no table: a family's naming rule derives them, says so, and never invents a counterpart
for a family that has none."""

from __future__ import annotations

import pytest

from xlate import kb


@pytest.fixture(scope="module")
def smap() -> kb.SymbolMap:
    return kb.load_symbols()


def _family(smap: kb.SymbolMap, name: str) -> kb.FamilyRule:
    (fam,) = [f for f in smap.families if f.family == name]
    return fam


def test_a_family_without_counterparts_derives_no_name(smap: kb.SymbolMap) -> None:
    fam = _family(smap, "cudnn")
    assert fam.relation == "none"
    entry = smap.get("cudnnXlateMadeUpCall")
    assert entry is not None and entry.derived and entry.kind == "derived"
    assert entry.hip is None and entry.hip_relation == "none"
    assert entry.hip_caveat == fam.caveat  # the family's own reason, not a derived-name note
    side = entry.side("hip")
    assert side is not None and side.relation == "none" and side.symbol is None and side.derived is True


def test_a_renaming_family_derives_a_name_and_says_it_may_not_exist(smap: kb.SymbolMap) -> None:
    entry = smap.get("cublasXlateMadeUpCall")
    assert entry is not None and entry.derived and entry.family == "cublas"
    assert (entry.hip, entry.hip_relation) == ("hipblasXlateMadeUpCall", "renamed")
    assert entry.hip_caveat.startswith(
        "cublasXlateMadeUpCall is in no table: hipblasXlateMadeUpCall is derived by the cublas naming rule and may not exist.")
    assert entry.side("hip").symbol == "hipblasXlateMadeUpCall"


def test_a_name_outside_every_family_is_unknown(smap: kb.SymbolMap) -> None:
    assert smap.get("xlateNoSuchCudaCall") is None


def test_lookup_json_carries_the_title_and_how_the_query_matched() -> None:
    index = kb.load_index()
    (m,) = kb.search(index, "wavefront", limit=1)
    out = kb.match_json(index, m)
    assert out["concept"] == m.concept and out["title"] == index["concepts"][m.concept]["title"]
    assert (out["matched"], out["matched_kind"], out["score"]) == (m.matched, m.kind, m.score)


def test_an_entry_without_a_row_has_no_sides() -> None:
    bare = kb.Entry("x", None, None, None, None, None, None, None, None, "symbol")
    assert bare.side("hip") is None and bare.roc is None


def test_suggestions_offer_spellings_that_only_rows_know() -> None:
    """A typo of a HIP name that only a symbol row knows (hipCUB's namespace macro, from HIPIFY's CUB
    table; no concept lists it) still gets that name back."""
    index = kb.load_index()
    target = "BEGIN_HIPCUB_NAMESPACE"
    assert [side for _, side in kb.find_rows(index, target)] == ["hip"]
    assert target in kb.suggestions(index, target[:-1])
