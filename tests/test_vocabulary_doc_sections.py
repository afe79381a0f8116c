"""Documentation headings of Triton, MLX and the Metal Shading Language as name lists
(glossary/vocabulary/names-triton-doc-sections.yaml, names-mlx-doc-sections.yaml, names-msl-sections.yaml):
each file is well formed (headings of several words, or one plain word that reaches a card; none a card's label;
none in another list); every Triton and MLX heading is one that scripts/list_doc_headings.py extracted
from the repository's documentation (the lists kept in tests/data/triton_doc_headings.txt and
mlx_doc_headings.txt, each naming its repository and commit on its first line); each API reference
heading's card is still the card more than half of that section's functions reach in lookup (the
functions are kept below, as the cited reference pages list them; the Metal sections' names are the
records of glossary/symbols/specs/msl-spec-text.yaml and the entries of msl-spec-names.yaml, a subsection's
counting for its section); every function kept below exists in the installed
package; and lookup answers a sample of headings, in any case (one-word headings as spelled), with their
card."""

from __future__ import annotations

import importlib
import io
import json
import re
from collections import Counter
from functools import cache

import pytest
import yaml

from conftest import GLOSSARY, REPO, glossary_without_rows
from xlate import kb, lookup

TRITON, MLX, MSL = "Triton documentation heading", "MLX documentation heading", "Metal Shading Language specification section"
NAMES = {n.names_of: n for n in glossary_without_rows().name_lists}
OURS = (TRITON, MLX, MSL)

# The sections of docs/python-api/triton.language.rst (triton-lang/triton 541bd9859d4e9f625ddf990fed1d65331b22c4d8)
# that the file lists, each with the functions the page lists under it (spelled tl.NAME in lookup).
TRITON_SECTIONS = {
    "Creation Ops": "arange cat full zeros zeros_like cast",
    "Shape Manipulation Ops": "broadcast broadcast_to expand_dims interleave join permute ravel reshape split trans view",
    "Linear Algebra Ops": "dot dot_scaled",
    "Memory/Pointer Ops": "load store make_block_ptr advance",
    "Indexing Ops": "flip where swizzle2d",
    "Math Ops": "abs cdiv ceil clamp cos div_rn erf exp exp2 fdiv floor fma log log2 maximum minimum rsqrt sigmoid sin "
                "softmax sqrt sqrt_rn umulhi",
    "Reduction Ops": "argmax argmin max min reduce sum xor_sum",
    "Random Number Generation": "randint4x randint rand randn",
    "Compiler Hint Ops": "assume debug_barrier max_constancy max_contiguous multiple_of",
    "Debug Ops": "static_print static_assert device_print device_assert",
}

# The sections of docs/gluon/api/language.rst (triton-lang/triton 63068fcc274cd152fb34abe1bcab10e5078b0df5) that
# the file lists, each with the functions and classes the page lists under it (spelled gl.NAME in lookup).
GLUON_SECTIONS = {
    "Layout Ops": "bank_conflicts convert_layout set_auto_layout to_linear_layout",
    "Memory Ops": "load store",
    "Scan Ops": "associative_scan histogram",
    "Layout Classes": "AutoLayout BlockedLayout CoalescedLayout DotOperandLayout DistributedLinearLayout NVMMADistributedLayout "
                      "NVMMASharedLayout PaddedSharedLayout SharedLinearLayout SliceLayout SwizzledSharedLayout",
    "Compiler Hints and Debugging": "assume max_constancy max_contiguous multiple_of static_assert static_print device_assert "
                                    "device_print",
}

# The Python API reference pages of ml-explore/mlx v0.32.1 (docs/src/python/) that the file lists, each with
# the entries of its autosummary under its currentmodule, as lookup spells them.
MLX_PAGES = {
    "Data Types": "mx.Dtype mx.DtypeCategory mx.issubdtype mx.finfo mx.iinfo",
    "Devices and Streams": "mx.Device mx.Stream mx.ThreadLocalStream mx.default_device mx.set_default_device mx.default_stream "
                           "mx.new_stream mx.new_thread_local_stream mx.new_thread_unsafe_stream mx.set_default_stream "
                           "mx.stream mx.synchronize mx.clear_streams mx.device_count mx.device_info",
    "Distributed Communication": "mx.distributed.Group mx.distributed.is_available mx.distributed.init mx.distributed.all_max "
                                 "mx.distributed.all_min mx.distributed.all_sum mx.distributed.all_gather mx.distributed.send "
                                 "mx.distributed.recv mx.distributed.recv_like mx.distributed.sum_scatter",
    "Linear Algebra": "mx.linalg.inv mx.linalg.tri_inv mx.linalg.norm mx.linalg.cholesky mx.linalg.cholesky_inv mx.linalg.cross "
                      "mx.linalg.det mx.linalg.qr mx.linalg.svd mx.linalg.eigvals mx.linalg.eig mx.linalg.eigvalsh "
                      "mx.linalg.eigh mx.linalg.lu mx.linalg.lu_factor mx.linalg.pinv mx.linalg.slogdet mx.linalg.solve "
                      "mx.linalg.solve_triangular",
    "Export Functions": "mx.export_function mx.import_function mx.exporter mx.export_to_dot",
    "Loss Functions": "nn.losses.binary_cross_entropy nn.losses.cosine_similarity_loss nn.losses.cross_entropy "
                      "nn.losses.gaussian_nll_loss nn.losses.hinge_loss nn.losses.huber_loss nn.losses.kl_div_loss "
                      "nn.losses.l1_loss nn.losses.log_cosh_loss nn.losses.margin_ranking_loss nn.losses.mse_loss "
                      "nn.losses.nll_loss nn.losses.smooth_l1_loss nn.losses.triplet_loss",
    "Common Optimizers": "optim.SGD optim.RMSprop optim.Adagrad optim.Adafactor optim.AdaDelta optim.Adam optim.AdamW "
                         "optim.Adamax optim.Lion optim.MultiOptimizer optim.Muon",
    "Print Options": "mx.PrintOptions mx.set_printoptions mx.printoptions mx.get_printoptions",
    "Tree Utils": "mlx.utils.tree_flatten mlx.utils.tree_unflatten mlx.utils.tree_map mlx.utils.tree_map_with_path "
                  "mlx.utils.tree_reduce mlx.utils.tree_merge",
    "Random": "mx.random.bernoulli mx.random.categorical mx.random.gumbel mx.random.key mx.random.normal "
              "mx.random.multivariate_normal mx.random.randint mx.random.seed mx.random.split mx.random.truncated_normal "
              "mx.random.uniform mx.random.laplace mx.random.permutation",
    "Transforms": "mx.eval mx.async_eval mx.compile mx.checkpoint mx.custom_function mx.disable_compile mx.enable_compile "
                  "mx.grad mx.value_and_grad mx.jvp mx.vjp mx.vmap",
}
_MLX_MODULES = {"mx": "mlx.core", "nn": "mlx.nn", "optim": "mlx.optimizers", "mlx.utils": "mlx.utils"}

# How a group's section text says its headings are API reference sections (carded by majority).
_API_SECTION = {TRITON: "triton.language API reference section", MLX: "Python API reference page"}
_GLUON_SECTION = "Gluon language API reference section"

# The heading lists scripts/list_doc_headings.py wrote, by the list whose headings they hold.
EXTRACTED = {TRITON: REPO / "tests" / "data" / "triton_doc_headings.txt", MLX: REPO / "tests" / "data" / "mlx_doc_headings.txt"}
# Headings listed although the extracted commit does not have them, each with where it was read. The
# test fails once the extraction finds one, so that it leaves this table.
NOT_EXTRACTED = {
    TRITON: {"Multi-CTA Matrix Multiplication": "title of python/tutorials/12-multicta-matmul.py at triton-lang/triton "
                                                "commit 1c9b78744f79f20c649d60f3b5c59f531e58e093, a file the extracted "
                                                "commit's tree does not hold"},
}
# A heading ending in a parenthesized abbreviation ("Floating-Point Sanitizer (FpSan)") may also be
# listed without it, as people cite it.
_ABBREVIATED = re.compile(r"^(.+?) \([A-Za-z0-9]+\)$")


def _names_list(names_of: str) -> kb.NameList:
    if names_of not in NAMES:
        pytest.skip(f"no {names_of} list")
    return NAMES[names_of]


def _headings(names_of: str, api_only: bool = False, section_prefix: str | None = None) -> dict[str, str | None]:
    """Each heading of one list -> its card; only the API reference sections when api_only (those whose
    section text starts with section_prefix, when given)."""
    prefix = section_prefix or _API_SECTION.get(names_of, "")
    out: dict[str, str | None] = {}
    for g in _names_list(names_of).groups:
        if not api_only or names_of == MSL or g.section.startswith(prefix):
            out.update({n: g.card for n in g.names})
    return out


@cache
def _extracted(names_of: str) -> tuple[str, str, frozenset[str]]:
    """The repository and commit an extracted heading list names on its first line, and its headings
    (with the form without a trailing parenthesized abbreviation added)."""
    first, *lines = EXTRACTED[names_of].read_text(encoding="utf-8").splitlines()
    provenance = re.match(r"^# ([\w.-]+/[\w.-]+) ([0-9a-f]{40}) \S", first)
    assert provenance, f"{EXTRACTED[names_of].name}: the first line must name the repository and commit: {first!r}"
    headings = {line.split("\t", 1)[1] for line in lines}
    headings |= {m.group(1) for h in headings if (m := _ABBREVIATED.match(h))}
    return provenance.group(1), provenance.group(2), frozenset(headings)


def _majority(cards: list[str | None]) -> str | None:
    """The card more than half of the functions reach (a function that reaches none counts too), else None."""
    card, count = Counter(cards).most_common(1)[0] if cards else (None, 0)
    return card if count * 2 > len(cards) else None


@cache
def _index() -> kb.Index:
    return kb.load_index()


def _reached(query: str, backend: str | None = None) -> str | None:
    top = kb.search(_index(), query, backend=backend, limit=1)
    return top[0].concept if top else None


@cache
def _msl_records() -> dict[str, list[str]]:
    """The Metal section titles of chapters 5 and 6 that the spec-text records or the stored spec tables
    (Table 5.8, section 6.15) cite -> the names they place there. A name in a numbered subsection also
    counts for each enclosing section whose number the stored headings give (6.15.4.1 for 6.15.4 and 6.15)."""
    specs = GLOSSARY / "symbols" / "specs"
    text = yaml.safe_load((specs / "msl-spec-text.yaml").read_text(encoding="utf-8"))
    tables = yaml.safe_load((specs / "msl-spec-names.yaml").read_text(encoding="utf-8"))
    titles = {h["number"]: h["title"] for h in tables["headings"]}
    attributes = tables["kernel_input_attributes"]
    cited = [(r["section"], r["name"]) for r in text["records"]]
    cited += [(e["section"], e["name"]) for e in tables["atomics"]["entries"]]
    cited += [(attributes["section"], e["name"]) for e in attributes["entries"]]
    out: dict[str, list[str]] = {}
    for section, name in cited:
        for part in re.split(r";\s*", section):
            found = re.match(r"([56](?:\.\d+)*) (.*?)(?:, Table [\d.]+)?$", part.strip())
            if not found:
                continue
            number, title = found.groups()
            enclosing = [titles[number[:i]] for i, c in enumerate(number) if c == "." and number[:i] in titles]
            for heading in [title, *enclosing]:
                if name not in out.get(heading, []):
                    out.setdefault(heading, []).append(name)
    return out


# --- well formed ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("names_of", OURS)
def test_every_heading_has_several_words_or_a_card_and_no_card_carries_it(names_of: str) -> None:
    """A heading of one plain word (Compilation, Random) is matched as spelled and claims that word for
    its list, so it must name a card's topic: none is listed without a card. A module or function name
    (triton.testing, shard_linear) means only itself."""
    headings = _headings(names_of)
    assert headings, names_of
    cardless = [h for h, card in headings.items() if re.fullmatch(r"[A-Za-z-]+", h) and card is None]
    assert not cardless, f"one-word headings without a card: {cardless}"
    labels = {label.casefold(): cid for label, cid, kind, _ in _index()["labels"]}
    carried = {h: labels[h.casefold()] for h in headings if h.casefold() in labels}
    assert not carried, f"headings a card or row already spells (lookup answers them from there): {carried}"


def test_no_heading_is_listed_twice_in_any_name_list() -> None:
    """The loader keeps the first list's entry, so a heading in two lists would answer from whichever
    file sorts first; case aside, as lookup matches headings."""
    present = [n for n in OURS if n in NAMES]
    if not present:
        pytest.skip("no documentation heading list")
    owners: dict[str, list[str]] = {}
    for names in NAMES.values():
        for g in names.groups:
            for n in g.names:
                if " " in n:
                    owners.setdefault(n.casefold(), []).append(names.names_of)
    twice = {h: o for h, o in owners.items() if len(o) > 1 and any(n in o for n in present)}
    assert not twice, twice


@pytest.mark.parametrize("names_of", [TRITON, MLX])
def test_every_heading_is_one_the_documentation_has(names_of: str) -> None:
    """Each listed heading is in the list extracted from the repository's documentation at the commit
    that list names, but for the few NOT_EXTRACTED says where they were read."""
    repo, commit, extracted = _extracted(names_of)
    assert repo in {"triton-lang/triton", "ml-explore/mlx"} and commit
    exceptions = NOT_EXTRACTED.get(names_of, {})
    stale = sorted(set(exceptions) & extracted)
    assert not stale, f"extracted now, remove them from NOT_EXTRACTED: {stale}"
    absent = sorted(set(_headings(names_of)) - extracted - set(exceptions))
    assert not absent, f"not headings of {repo} at {commit}: {absent}"


def test_the_kept_sections_are_the_listed_ones() -> None:
    """The function lists kept here cover exactly the API reference headings the files list."""
    assert set(_headings(TRITON, api_only=True)) == set(TRITON_SECTIONS)
    assert set(_headings(TRITON, api_only=True, section_prefix=_GLUON_SECTION)) == set(GLUON_SECTIONS)
    assert set(_headings(MLX, api_only=True)) == set(MLX_PAGES)
    assert set(_headings(MSL)) <= set(_msl_records())


# --- the functions exist ----------------------------------------------------------------------------------

def test_every_kept_triton_function_exists_in_triton_language() -> None:
    """A function of triton.language, or (advance, whose free function triton 3.9 no longer has) a
    method of its tensor."""
    tl = pytest.importorskip("triton.language")
    missing = [f for fs in TRITON_SECTIONS.values() for f in fs.split() if not (hasattr(tl, f) or hasattr(tl.tensor, f))]
    assert not missing, missing


def test_every_kept_gluon_name_exists_in_gluon_language() -> None:
    gl = pytest.importorskip("triton.experimental.gluon.language")
    missing = [f for fs in GLUON_SECTIONS.values() for f in fs.split() if not hasattr(gl, f)]
    assert not missing, missing


def test_every_kept_mlx_entry_exists_in_mlx() -> None:
    pytest.importorskip("mlx.core")
    missing = []
    for spelled in (s for entries in MLX_PAGES.values() for s in entries.split()):
        prefix = next(p for p in sorted(_MLX_MODULES, key=len, reverse=True) if spelled.startswith(p + "."))
        *inner, name = spelled[len(prefix) + 1:].split(".")
        module = importlib.import_module(".".join([_MLX_MODULES[prefix], *inner]))
        if not hasattr(module, name):
            missing.append(spelled)
    assert not missing, missing


# --- each API section's card is its functions' majority card ----------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("heading", sorted(TRITON_SECTIONS))
def test_a_triton_section_card_is_the_card_most_of_its_functions_reach(heading: str) -> None:
    reached = [_reached(f"tl.{f}") for f in TRITON_SECTIONS[heading].split()]
    assert _headings(TRITON, api_only=True)[heading] == _majority(reached), (heading, Counter(reached).most_common())


@pytest.mark.slow
@pytest.mark.parametrize("heading", sorted(GLUON_SECTIONS))
def test_a_gluon_section_card_is_the_card_most_of_its_functions_reach(heading: str) -> None:
    reached = [_reached(f"gl.{f}") for f in GLUON_SECTIONS[heading].split()]
    listed = _headings(TRITON, api_only=True, section_prefix=_GLUON_SECTION)
    assert listed[heading] == _majority(reached), (heading, Counter(reached).most_common())


@pytest.mark.slow
@pytest.mark.parametrize("heading", sorted(MLX_PAGES))
def test_an_mlx_page_card_is_the_card_most_of_its_entries_reach(heading: str) -> None:
    reached = [_reached(s) for s in MLX_PAGES[heading].split()]
    assert _headings(MLX, api_only=True)[heading] == _majority(reached), (heading, Counter(reached).most_common())


@pytest.mark.slow
def test_a_metal_section_card_is_the_card_most_of_its_records_reach() -> None:
    records = _msl_records()
    wrong = {}
    for heading, card in _headings(MSL).items():
        reached = [_reached(n, backend="metal") for n in records[heading]]
        if card != _majority(reached):
            wrong[heading] = (card, Counter(reached).most_common())
    assert not wrong, wrong


# --- lookup -----------------------------------------------------------------------------------------------

SAMPLE = [
    (TRITON, "Memory/Pointer Ops", "global-memory"),
    (TRITON, "compiler hint ops", "vectorized-memory-access"),
    (TRITON, "DEBUG OPS", "device-printf"),
    (TRITON, "Indexing Ops", None),
    (TRITON, "Persistent Matmul", "grid-stride-loop"),
    (TRITON, "Libdevice (tl.extra.libdevice) function", "device-math-functions"),
    (TRITON, "fused softmax", "dnn"),
    (TRITON, "vector addition", None),
    (MLX, "Devices and Streams", "stream"),
    (MLX, "linear algebra", "solver"),
    (MLX, "Launching Distributed Programs", "collectives"),
    (MLX, "CUSTOM METAL KERNELS", "framework-custom-kernels"),
    (MLX, "Tree Utils", None),
    (MLX, "Compilation", "function-transformations"),
    (MLX, "Random", "rng"),
    (MLX, "data parallelism", "collectives"),
    (MLX, "Multi-Layer Perceptron", "dnn"),
    (MLX, "SELECTING BACKEND", "collectives"),
    (MLX, "mlx.distributed_config", "collectives"),
    (MLX, "when to evaluate", "lazy-evaluation"),
    (MLX, "Exporting Modules", None),
    (TRITON, "Triton Semantics", None),
    (TRITON, "type promotion", "type-conversions"),
    (TRITON, "Triton MLIR Dialects and Ops", "triton-backend"),
    (TRITON, "Floating-Point Sanitizer", "sanitizer"),
    (TRITON, "Floating-Point Sanitizer (FpSan)", "sanitizer"),
    (TRITON, "debugging triton", "debugger"),
    (TRITON, "triton.language", None),
    (TRITON, "Layout Classes", "warp-level-primitives"),
    (TRITON, "Multi-CTA", "thread-block-cluster"),
    (TRITON, "Blocked-Scaled Matrix Multiplication", "block-scaled-formats"),
    (MSL, "Threadgroup and SIMD-Group Synchronization Functions", "block-barrier"),
    (MSL, "cube texture array", "texture-memory"),
    (MSL, "Atomic Fetch and Modify Functions", None),
    (MSL, "atomic load functions", "scoped-atomics"),
    (MSL, "Atomic Modify Functions (64 Bits)", "atomic-min-max"),
    (MSL, "ATOMIC FUNCTIONS", None),
]


@pytest.mark.parametrize(("names_of", "query", "card"), SAMPLE, ids=[q for _, q, _ in SAMPLE])
def test_lookup_answers_a_heading_in_any_case_with_its_card(names_of: str, query: str, card: str | None) -> None:
    listed = {h.casefold(): c for h, c in _headings(names_of).items()}
    assert listed.get(query.casefold(), "unlisted") == card, f"{query!r} is not listed with {card!r}"
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    if card is None:
        # Named for what it is (the heading, its list and section), and no card guessed from its words.
        assert code == 1 and not payload["matches"], payload["matches"][:1]
        assert payload["package"]["card"] is None and names_of in payload["package"]["section"]
    else:
        top = payload["matches"][0] if payload["matches"] else {}
        assert code == 0 and top.get("concept") == card and top.get("matched_kind") == "package", top
