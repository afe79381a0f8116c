"""Documentation headings of Triton, MLX and the Metal Shading Language as name lists
(glossary/vocabulary/names-triton-doc-sections.yaml, names-mlx-doc-sections.yaml, names-msl-sections.yaml):
each file is well formed (headings of several words, none a card's label, none in another list); each API
reference heading's card is still the card more than half of that section's functions reach in lookup
(the functions are kept below, as the cited reference pages list them; the Metal sections' names are
the records of glossary/symbols/specs/msl-spec-text.yaml and the entries of msl-spec-names.yaml, a
subsection's counting for its section); every function kept below exists in the
installed package; and lookup answers a sample of headings, in any case, with their card."""

from __future__ import annotations

import importlib
import io
import json
import re
from collections import Counter
from functools import cache

import pytest
import yaml

from conftest import GLOSSARY, glossary_without_rows
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
}
_MLX_MODULES = {"mx": "mlx.core", "nn": "mlx.nn", "optim": "mlx.optimizers", "mlx.utils": "mlx.utils"}

# How a group's section text says its headings are API reference sections (carded by majority).
_API_SECTION = {TRITON: "triton.language API reference section", MLX: "Python API reference page"}


def _names_list(names_of: str) -> kb.NameList:
    if names_of not in NAMES:
        pytest.skip(f"no {names_of} list")
    return NAMES[names_of]


def _headings(names_of: str, api_only: bool = False) -> dict[str, str | None]:
    """Each heading of one list -> its card; only the API reference sections when api_only."""
    out: dict[str, str | None] = {}
    for g in _names_list(names_of).groups:
        if not api_only or names_of == MSL or g.section.startswith(_API_SECTION[names_of]):
            out.update({n: g.card for n in g.names})
    return out


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
def test_every_heading_has_several_words_and_no_card_carries_it(names_of: str) -> None:
    headings = _headings(names_of)
    assert headings and all(" " in h for h in headings), [h for h in headings if " " not in h]
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


def test_the_kept_sections_are_the_listed_ones() -> None:
    """The function lists kept here cover exactly the API reference headings the files list."""
    assert set(_headings(TRITON, api_only=True)) == set(TRITON_SECTIONS)
    assert set(_headings(MLX, api_only=True)) == set(MLX_PAGES)
    assert set(_headings(MSL)) <= set(_msl_records())


# --- the functions exist ----------------------------------------------------------------------------------

def test_every_kept_triton_function_exists_in_triton_language() -> None:
    """A function of triton.language, or (advance, whose free function triton 3.9 no longer has) a
    method of its tensor."""
    tl = pytest.importorskip("triton.language")
    missing = [f for fs in TRITON_SECTIONS.values() for f in fs.split() if not (hasattr(tl, f) or hasattr(tl.tensor, f))]
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
