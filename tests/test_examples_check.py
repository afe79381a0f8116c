"""Links between kernel examples and the glossary: `xlate glossary check` catches broken ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from xlate import examples_check as ec
from xlate import kb
from glossary_once import real_glossary

REPO = Path(__file__).resolve().parents[1]
GLOSSARY = REPO / "glossary"
EXAMPLES = REPO / "kernels" / "examples"


@pytest.fixture(scope="module")
def real() -> kb.Glossary:
    return real_glossary()


def _tree(tmp_path: Path, yaml_text: str, files: dict[str, str]) -> Path:
    """A glossary root whose sibling kernels/examples holds one example, `demo`."""
    folder = tmp_path / "kernels" / "examples" / "demo"
    folder.mkdir(parents=True)
    (folder / "example.yaml").write_text(yaml_text, encoding="utf-8")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (tmp_path / "glossary").mkdir()
    return tmp_path / "glossary"


HEAD = "title: Demo\nteaches: Shows one shuffle.\nconcepts:\n"
CU = "__global__ void k(float* x) {\n  float v = __shfl_down_sync(0xffffffffu, x[0], 1);\n  x[0] = v;\n}\n"


def test_the_gallery_links_are_all_valid(real: kb.Glossary) -> None:
    assert ec.problems(GLOSSARY, real) == []


def test_good_link_passes(tmp_path: Path, real: kb.Glossary) -> None:
    root = _tree(tmp_path, HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n", {"demo.cu": CU})
    assert ec.problems(root, real) == []


def test_unknown_concept_is_reported_with_its_line(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n  - concept: no-such-concept\n    symbols: {cuda: __shfl_down_sync}\n"
    root = _tree(tmp_path, text, {"demo.cu": CU})
    found = ec.problems(root, real)
    assert [(p.path, p.line) for p in found] == [("kernels/examples/demo/example.yaml", 6)]
    assert "unknown concept 'no-such-concept'" in found[0].message


def test_a_concept_listed_twice_is_reported(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n" \
                  "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n"
    root = _tree(tmp_path, text, {"demo.cu": CU})
    (p,) = ec.problems(root, real)
    assert p.line == 6 and "listed twice (first on line 4)" in p.message


def test_symbol_missing_from_file_is_reported(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: warp-shuffle-down\n    symbols:\n      cuda: __shfl_up_sync\n"
    root = _tree(tmp_path, text, {"demo.cu": CU})
    (p,) = ec.problems(root, real)
    assert p.line == 6 and "'__shfl_up_sync' does not occur" in p.message and "demo.cu" in p.message


def test_symbol_only_in_a_comment_does_not_count(tmp_path: Path, real: kb.Glossary) -> None:
    cu = "// __shfl_xor_sync would also work here\n/* __shfl_xor_sync */\n" + CU
    py = '"""tl.sum is mentioned in the docstring."""\n# tl.sum in a comment\nx = 1\n'
    text = HEAD + ("  - concept: warp-shuffle-xor\n    symbols: {cuda: __shfl_xor_sync}\n"
                   "  - concept: warp-reduce\n    symbols: {triton: tl.sum}\n")
    root = _tree(tmp_path, text, {"demo.cu": cu, "demo_triton.py": py})
    assert len(ec.problems(root, real)) == 2


def test_partial_identifier_does_not_count(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down}\n"
    root = _tree(tmp_path, text, {"demo.cu": CU})  # the file has __shfl_down_sync, not __shfl_down
    assert len(ec.problems(root, real)) == 1


def test_unknown_backend_and_missing_file(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync, sycl: x, hip: __shfl_down}\n"
    root = _tree(tmp_path, text, {"demo.cu": CU})
    messages = sorted(p.message for p in ec.problems(root, real))
    assert any("unknown backend 'sycl'" in m for m in messages)
    assert any("demo.hip does not exist" in m for m in messages)


def test_malformed_example_yaml(tmp_path: Path, real: kb.Glossary) -> None:
    root = _tree(tmp_path, "title: [unclosed\n", {})
    (p,) = ec.problems(root, real)
    assert p.path.endswith("example.yaml") and "malformed YAML" in p.message


def test_metal_symbols_may_live_in_the_launching_mlx_file(tmp_path: Path, real: kb.Glossary) -> None:
    text = HEAD + "  - concept: kernel-launch\n    symbols: {metal: mx.fast.metal_kernel}\n"
    files = {"demo.metal": "uint i = thread_position_in_grid.x;\n",
             "demo_mlx.py": "import mlx.core as mx\nk = mx.fast.metal_kernel(name='k', input_names=[], output_names=[], source='')\n"}
    assert ec.problems(_tree(tmp_path, text, files), real) == []


def test_coverage_lists_backends_without_examples(real: kb.Glossary) -> None:
    rows = {r.concept: r for r in ec.coverage(GLOSSARY, real)}
    shuffle = rows["warp-shuffle-down"]
    assert {"cuda", "hip", "metal"} <= set(shuffle.covered)
    assert "reduction" in shuffle.covered["cuda"]
    assert not set(shuffle.missing) & {"cuda", "hip", "metal"}
    # hardware concepts are not code-level and are not listed
    assert all(r.category != "hardware" for r in rows.values())
    unlinked = [r for r in rows.values() if not r.covered]
    assert unlinked and all(r.missing or r.not_applicable for r in unlinked)
    text = ec.render_coverage(list(rows.values()))
    assert "code-level concepts" in text.splitlines()[-1]


def test_concepts_list_their_examples_through_the_index() -> None:
    links = kb.example_links(GLOSSARY)
    reduction = [link for link in links["warp-shuffle-down"] if link["example"] == "reduction"]
    assert reduction and reduction[0]["symbols"]["hip"] == "__shfl_down"


def test_every_example_links_at_least_three_concepts() -> None:
    import yaml

    for path in sorted(EXAMPLES.glob("*/example.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert len(data["concepts"]) >= 3, path


def test_copied_gallery_with_a_renamed_symbol_fails(tmp_path: Path, real: kb.Glossary) -> None:
    shutil.copytree(EXAMPLES / "reduction", tmp_path / "kernels" / "examples" / "reduction")
    (tmp_path / "glossary").mkdir()
    hip = tmp_path / "kernels" / "examples" / "reduction" / "reduction.hip"
    hip.write_text(hip.read_text(encoding="utf-8").replace("__shfl_down(", "__shfl_xor("), encoding="utf-8")
    found = ec.problems(tmp_path / "glossary", real)
    assert len(found) == 1 and "'__shfl_down'" in found[0].message


def test_every_remaining_backend_has_a_recorded_reason(real: kb.Glossary) -> None:
    rows = ec.coverage(GLOSSARY, real)
    unexplained = [(r.concept, b) for r in rows for b in r.missing if b not in r.reasons]
    assert unexplained == []
    text = ec.render_coverage(rows)
    assert "0 of them without a recorded reason" in text.splitlines()[-1]
    assert "NO REASON" not in text


def test_reasons_file_problems_are_reported(tmp_path: Path, real: kb.Glossary) -> None:
    root = _tree(tmp_path, HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n", {"demo.cu": CU})
    (tmp_path / "kernels" / "not-shown.yaml").write_text(
        "warp-shuffle-down:\n  cuda: This one is demonstrated by the demo example.\n"
        "no-such-concept:\n  cuda: Some reason that is long enough.\n"
        "warp-ballot:\n  sycl: Some reason that is long enough.\n  cuda: short\n", encoding="utf-8")
    messages = sorted(p.message for p in ec.problems(root, real))
    assert any("demonstrated by an example; drop the reason" in m for m in messages)
    assert any("unknown concept 'no-such-concept'" in m for m in messages)
    assert any("unknown backend 'sycl'" in m for m in messages)
    assert any("reason must say why" in m for m in messages)


def test_coverage_prints_the_reason_under_the_concept(tmp_path: Path, real: kb.Glossary) -> None:
    root = _tree(tmp_path, HEAD + "  - concept: warp-shuffle-down\n    symbols: {cuda: __shfl_down_sync}\n", {"demo.cu": CU})
    (tmp_path / "kernels" / "not-shown.yaml").write_text("warp-ballot:\n  hip: No AMD example was written for this one.\n",
                                                         encoding="utf-8")
    text = ec.render_coverage([r for r in ec.coverage(root, real) if r.concept == "warp-ballot"])
    assert "hip: No AMD example was written for this one." in text
    assert "cuda: NO REASON" in text
