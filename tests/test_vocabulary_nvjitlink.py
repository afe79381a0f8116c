"""The nvJitLink name list (glossary/vocabulary/names-nvjitlink.yaml) against the names the header declares,
as scripts/list_c_header_names.py read them from the PyPI wheel nvidia-nvjitlink 13.5.37 (kept in
tests/data/nvjitlink_header_names.txt, which names its source on its first line). Nothing downloads: the
proof is the stored extract. Every extracted name is listed, once, on the card its group gives; no card or
row spells one; lookup answers each with that card; and the script reads a header as stated."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import glossary_without_rows
from scripts_loader import load_script
from xlate import kb, lookup

DATA = Path(__file__).parent / "data" / "nvjitlink_header_names.txt"
NAMES_OF = "nvJitLink.h name"


def _extract() -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in DATA.read_text().splitlines() if not line.startswith("#")]  # type: ignore[misc]


def _listed() -> dict[str, str | None]:
    names = {n.names_of: n for n in glossary_without_rows().name_lists}[NAMES_OF]
    return {n: g.card for g in names.groups for n in g.names}


def test_the_extract_names_its_source() -> None:
    head = DATA.read_text().splitlines()[0]
    assert head.startswith("# PyPI wheel nvidia-nvjitlink 13.5.37") and head.endswith("names declared in nvJitLink.h"), head
    assert f": {len(_extract())} names" in head


def test_every_extracted_name_is_listed_once_and_nothing_else() -> None:
    listed = [n for g in {n.names_of: n for n in glossary_without_rows().name_lists}[NAMES_OF].groups for n in g.names]
    assert sorted(listed) == sorted(n for _, n in _extract())
    assert len(listed) == len(set(listed))


def test_no_card_or_row_spells_a_listed_name() -> None:
    index = kb.load_index()
    labels = {label.casefold() for label, _, _, _ in index["labels"]}
    spelled = [n for n in _listed() if n.casefold() in labels or kb.find_rows(index, n, None)]
    assert not spelled, spelled


def test_lookup_answers_each_name_with_its_group_s_card() -> None:
    wrong = {}
    for name, card in _listed().items():
        out = io.StringIO()
        code = lookup.run(name, fmt="json", out=out)
        top = (json.loads(out.getvalue())["matches"] or [{}])[0]
        if code != 0 or top.get("concept") != card:
            wrong[name] = (card, top.get("concept"))
    assert not wrong, wrong


def test_the_script_reads_declarations_and_leaves_out_what_skip_matches(tmp_path: Path) -> None:
    header = tmp_path / "lib.h"
    header.write_text("#ifndef LIB_H\n#define LIB_H\ntypedef enum { LIB_OK, LIB_BAD } libResult;\n"
                      "libResult __libOpen_1_2(int);\n#define libOpen __libOpen_1_2\nlibResult libClose(void);\n#endif\n")
    out = io.StringIO()
    script = load_script("list_c_header_names")
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        assert script.main([str(header), "--label", "a test", "--skip", r"__lib\w+_\d+_\d+"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"# a test: {len(lines) - 1} names declared in lib.h"
    assert ("function", "__libOpen_1_2") not in [tuple(x.split("\t")) for x in lines[1:]]
    assert {"LIB_OK", "LIB_BAD", "libResult", "libOpen", "libClose"} <= {x.split("\t")[1] for x in lines[1:]}
