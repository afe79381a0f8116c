"""The clang builtin vocabularies (glossary/vocabulary/names-amdgcn-builtins.yaml and
names-nvptx-builtins.yaml): every listed name is a builtin clang 19 knows for at least one GPU target, and
lookup answers a listed name with its group's card (or says no card covers it), ahead of any guess from
its words."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import glossary_without_rows
from xlate import kb

_LISTS = {n.names_of: n for n in glossary_without_rows().name_lists}
AMDGPU = "AMDGPU clang builtin"
NVPTX = "NVPTX clang builtin"

# The device passes the files' headers name: a HIP pass per AMD target (clang 19 has no gfx950 or
# gfx1250) and a CUDA pass for sm_90 with PTX ISA 8.5 pinned, so the answer does not depend on which CUDA
# installation clang finds. -nogpuinc keeps the ROCm and CUDA headers out: __has_builtin reads only
# clang's own builtin table and the target's features.
_HIP = ["-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc"]
_PASSES = {
    AMDGPU: {
        "gfx942": [*_HIP, "--offload-arch=gfx942"],
        "gfx1200": [*_HIP, "--offload-arch=gfx1200"],
        "gfx1200 wave64": [*_HIP, "--offload-arch=gfx1200", "-mwavefrontsize64"],
    },
    NVPTX: {
        "sm_90": ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
                  "-Xclang", "-target-feature", "-Xclang", "+ptx85"],
    },
}


def _names(names_of: str) -> dict[str, tuple[str, str | None]]:
    """Each listed name -> (its group's section, card)."""
    if names_of not in _LISTS:
        pytest.skip(f"no {names_of} list in this glossary")
    return {n: (g.section, g.card) for g in _LISTS[names_of].groups for n in g.names}


def _has_builtin(clang: str, flags: list[str], names: list[str], tmp: Path) -> set[str]:
    """The names clang's preprocessor reports with __has_builtin in one device pass: one run for all."""
    source = tmp / "builtins.c"
    source.write_text("".join(f"HB {n} __has_builtin({n})\n" for n in names))
    run = subprocess.run([clang, *flags, "-E", "-P", str(source), "-o", "-"], capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return {m.group(1) for m in re.finditer(r"^HB (\w+) 1$", run.stdout, re.M)}


@pytest.mark.slow
@pytest.mark.parametrize("names_of", [AMDGPU, NVPTX])
def test_every_listed_builtin_is_one_clang_19_knows_for_a_target(names_of: str, tmp_path: Path) -> None:
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed")
    names = sorted(_names(names_of))
    known: dict[str, set[str]] = {target: _has_builtin(clang, flags, names, tmp_path)
                                  for target, flags in _PASSES[names_of].items()}
    unknown = sorted(set(names) - set().union(*known.values()))
    assert not unknown, unknown
    if names_of == AMDGPU:
        # What the header says of the targets: matrix and split-barrier builtins of gfx11/gfx12 are not
        # gfx942's, and a WMMA builtin's _w32 and _w64 forms each need their own wavefront size.
        gfx12 = {n for n in names if re.search(r"_(wmma|swmmac)_|_s_barrier_signal", n)}
        assert gfx12 and not gfx12 & known["gfx942"]
        assert gfx12 <= known["gfx1200"] | known["gfx1200 wave64"]
        w32 = {n for n in gfx12 if "_w32" in n}
        w64 = {n for n in gfx12 if "_w64" in n}
        assert w32 and w64 and not w64 & known["gfx1200"] and not w32 & known["gfx1200 wave64"]


def _samples(names_of: str) -> list[tuple[str, str | None]]:
    """The first and last name of each group, with the group's card."""
    groups = _LISTS[names_of].groups if names_of in _LISTS else []
    return [(n, g.card) for g in groups for n in dict.fromkeys([g.names[0], g.names[-1]])]


@pytest.mark.parametrize(("name", "card"), _samples(AMDGPU) + _samples(NVPTX), ids=lambda v: str(v))
def test_lookup_answers_a_listed_builtin_with_its_groups_card(name: str, card: str | None) -> None:
    index = kb.load_index()
    got = kb.search(index, name, limit=1)
    entry = kb.vocabulary_entry(index, name)
    assert entry is not None and entry[0] == card
    if card is None:
        assert got == []  # named for what it is, and no guess from its words
    else:
        # Through the list, not a card's or row's own spelling: such a name must not be listed.
        assert got and got[0].concept == card and got[0].kind == "package", got


@pytest.mark.parametrize(("name", "card"), [
    ("__builtin_amdgcn_s_setprio", "wave-ping-pong"),
    ("__builtin_amdgcn_sched_group_barrier", "wave-ping-pong"),
    ("__builtin_amdgcn_iglp_opt", "wave-ping-pong"),
    ("__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", "warp-mma"),
    ("__builtin_amdgcn_permlane64", "cross-lane-hardware"),
    ("__builtin_amdgcn_workitem_id_x", "thread-index"),
    ("__builtin_amdgcn_raw_buffer_load_b128", "load-store-unit"),
    ("__builtin_amdgcn_image_bvh_intersect_ray", None),
    ("__nvvm_read_ptx_sreg_ctaid_x", "block-index"),
    ("__nvvm_shfl_sync_idx_i32", "warp-shuffle"),
    ("__nvvm_cp_async_wait_group", "async-copy"),
    ("__hmma_m16n16k16_mma_f32f32", "warp-mma"),
    ("__nvvm_read_ptx_sreg_clock64", None),
])
def test_the_builtins_code_calls_reach_their_cards(name: str, card: str | None) -> None:
    index = kb.load_index()
    got = kb.search(index, name, limit=1)
    assert (got[0].concept if got else None) == card, got


def test_no_listed_builtin_is_a_spelling_of_a_card_or_row() -> None:
    """A name a card or row spells answers from there; listing it too would hide a mistake in either."""
    index = kb.load_index()
    spelled = []
    for names_of in (AMDGPU, NVPTX):
        for name in _names(names_of):
            got = kb.search(index, name, limit=1)
            if got and got[0].kind != "package":
                spelled.append((name, got[0].concept, got[0].kind))
    assert not spelled, spelled[:20]
