"""`xlate glossary check`: the real glossary passes, and each kind of defect is reported with file:line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GOOD_CONCEPTS, GLOSSARY, HEADER, write_glossary
from xlate import kb
from xlate.kb import REQUIRED_BACKENDS, Category

WARP = GOOD_CONCEPTS["execution-model/warp.yaml"]


@pytest.mark.slow
def test_real_glossary_passes_and_meets_the_content_bar() -> None:
    g, problems = kb.collect_problems(GLOSSARY)
    assert problems == [], "\n".join(map(str, problems[:20]))
    assert len(g.concepts) >= 150
    counts = kb.categories_in_use(g)
    assert all(counts[c] > 0 for c in Category), counts
    for concept in g.concepts.values():
        for backend in REQUIRED_BACKENDS:
            term = getattr(concept.terms, backend.value)
            # an equivalent cites documentation; a missing one says why
            assert (term.relation.value == "none" and term.caveat) or term.docs, f"{concept.id}: {backend.value}"


def test_tiny_glossary_passes(tiny_glossary: Path) -> None:
    _, problems = kb.collect_problems(tiny_glossary)
    assert problems == []


# Each case: files to override, then the file and line the report must name and a fragment of the message.
BROKEN = {
    "malformed-yaml": ({"execution-model/warp.yaml": WARP.replace("aliases: [wavefront]", "aliases: [wavefront")},
                       "execution-model/warp.yaml", None, "malformed YAML"),
    "missing-field": ({"execution-model/warp.yaml": WARP.replace("title: Warp\n", "")},
                      "execution-model/warp.yaml", 2, "title: Field required"),
    "duplicate-id": ({"memory/warp-copy.yaml": WARP.replace("category: execution-model", "category: memory")
                      .replace("aliases: [wavefront]", "aliases: []")},
                     "memory/warp-copy.yaml", 2, "must match the file name"),
    "dangling-edge": ({"execution-model/warp.yaml": WARP.replace("part-of, target: thread-block", "part-of, target: no-such-thing")},
                      "execution-model/warp.yaml", 18, "unknown concept 'no-such-thing'"),
    "one-sided-edge": ({"execution-model/thread-block.yaml": GOOD_CONCEPTS["execution-model/thread-block.yaml"].replace(
                        "relations:\n  - {type: see-also, target: warp}\n", "")},
                       "execution-model/warp.yaml", 19, "one-sided see-also"),
    "bad-url": ({"execution-model/warp.yaml": WARP.replace("https://docs.nvidia.com/cuda/index.html]}", "htp:/docs]}", 1)},
                "execution-model/warp.yaml", 9, "terms.cuda.docs.0"),
    "unofficial-host": ({"execution-model/warp.yaml": WARP.replace("https://docs.nvidia.com/cuda/index.html", "https://example.com/blog", 1)},
                        "execution-model/warp.yaml", 9, "not on an official documentation host"),
    "wrong-folder": ({"memory/warp.yaml": WARP}, "memory/warp.yaml", 4, "category 'execution-model' but the file is in memory/"),
    "duplicate-symbol": ({"execution-model/thread-block.yaml": GOOD_CONCEPTS["execution-model/thread-block.yaml"].replace(
                          "symbols: [blockDim], relation: same, docs: [https://docs.nvidia.com", "symbols: [warpSize], relation: same, docs: [https://docs.nvidia.com", 1)},
                         "execution-model/warp.yaml", 9, "cuda symbol 'warpSize' already belongs to concept 'thread-block'"),
    "duplicate-alias": ({"execution-model/thread-block.yaml": GOOD_CONCEPTS["execution-model/thread-block.yaml"].replace(
                         "aliases: [work-group, threadgroup]", "aliases: [work-group, wavefront]")},
                        "execution-model/warp.yaml", 5, "'wavefront' already names concept 'thread-block'"),
    "none-without-reason": ({"execution-model/warp.yaml": WARP.replace(
                             "metal: {names: [SIMD-group], relation: renamed, docs: [https://developer.apple.com/metal/]}", "metal: {relation: none}")},
                            "execution-model/warp.yaml", 16, "needs a caveat"),
    "approximate-without-caveat": ({"execution-model/warp.yaml": WARP.replace("    caveat: 64 lanes on CDNA.\n", "")},
                                   "execution-model/warp.yaml", 10, "'approximate' needs a caveat"),
    "duplicate-key": ({"execution-model/warp.yaml": WARP.replace("title: Warp\n", "title: Warp\ntitle: Again\n")},
                      "execution-model/warp.yaml", 4, "duplicate key 'title'"),
    "missing-schema-header": ({"execution-model/warp.yaml": "# no schema\n" + WARP}, "execution-model/warp.yaml", 1, "first line must be"),
    "not-a-mapping": ({"execution-model/warp.yaml": "- just\n- a list\n"}, "execution-model/warp.yaml", 1, "expected a mapping"),
    "not-utf8": ({}, "execution-model/latin1.yaml", 1, "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_defect_is_reported_with_file_and_line(tmp_path: Path, case: str) -> None:
    files, rel, line, fragment = BROKEN[case]
    root = write_glossary(tmp_path, files)
    if case == "not-utf8":
        (root / rel).write_bytes(HEADER.encode() + b"id: caf\xe9\n")
    _, problems = kb.collect_problems(root)
    hits = [p for p in problems if p.path.endswith(rel) and fragment in p.message]
    assert hits, f"expected {rel}:{line}: ...{fragment}... in:\n" + "\n".join(map(str, problems))
    if line is not None:
        assert hits[0].line == line, str(hits[0])


def test_check_command_exits_nonzero_with_file_line_and_no_traceback(tmp_path: Path) -> None:
    root = write_glossary(tmp_path, {"execution-model/warp.yaml": WARP.replace("title: Warp\n", "")})
    proc = subprocess.run([sys.executable, "-m", "xlate", "glossary", "check", "--glossary", str(root)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "glossary/execution-model/warp.yaml:2: title: Field required" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_check_command_on_missing_folder(tmp_path: Path) -> None:
    """Nothing to check is a refusal (exit 2), not a check that found problems (exit 1)."""
    proc = subprocess.run([sys.executable, "-m", "xlate", "glossary", "check", "--glossary", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == f"error: glossary folder not found: {tmp_path / 'nope'}; pass --glossary DIR or set XLATE_GLOSSARY\n"
    assert proc.stdout == ""


def test_schema_file_is_current() -> None:
    from xlate import kb

    assert kb.schema_is_current(GLOSSARY), "run `xlate glossary schema`"


def test_schema_validates_a_concept_file_as_editors_would() -> None:
    import json

    import jsonschema
    import yaml

    from xlate import kb

    validator = jsonschema.Draft202012Validator(json.loads((GLOSSARY / kb.SCHEMA_FILE).read_text()))
    good = yaml.safe_load(WARP)
    assert not list(validator.iter_errors(good))
    bad = dict(good, colour="blue")
    assert list(validator.iter_errors(bad))


def test_fix_edges_writes_the_missing_mirror(tmp_path: Path) -> None:
    from xlate.kb import add_edge_to_file, missing_mirrors

    root = write_glossary(tmp_path, {"execution-model/thread-block.yaml": GOOD_CONCEPTS["execution-model/thread-block.yaml"].replace(
        "relations:\n  - {type: see-also, target: warp}\n", "")})
    g = kb.load_glossary(root)
    fixes = missing_mirrors(g)
    assert [(c, t.value, x) for c, t, x in fixes] == [("thread-block", "see-also", "warp")]
    for cid, edge_type, target in fixes:
        add_edge_to_file(g.sources[cid].path, edge_type, target)
    _, problems = kb.collect_problems(root)
    assert problems == []


def test_path_between_concepts(tmp_path: Path) -> None:
    from xlate.kb import relation_path

    root = write_glossary(tmp_path, {
        "execution-model/warp.yaml": WARP.replace("  - {type: see-also, target: thread-block}\n", ""),
        "execution-model/thread-block.yaml": GOOD_CONCEPTS["execution-model/thread-block.yaml"].replace(
            "relations:\n  - {type: see-also, target: warp}\n", ""),
    })
    g = kb.load_glossary(root)
    assert relation_path(g, "warp", "thread-block") == [("warp", "part-of", "thread-block")]
    assert relation_path(g, "thread-block", "warp") == [("thread-block", "has part", "warp")]
