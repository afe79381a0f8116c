"""The gallery's CUDA kernels, translated as a tree (their shared harness header too), compile for
gfx942 and gfx90a with Debian's clang-19 and HIP headers. A kernel whose port needs a human (an
API HIP lacks, a header the Debian HIP 5.2 packages do not ship) is skipped with the reason, which
the translation itself must state in its `// xlate:` comments or its unknown names."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.translate_support import ARCHS, CLANG, HIP_INCLUDE, REPO, compile_hip
from xlate.translate.cli import run
from xlate.translate.options import Options

KERNELS = REPO / "kernels"
EXAMPLES = sorted(p for p in (KERNELS / "examples").glob("*/*.cu"))
# Why a translated kernel cannot compile here, and the text its translation must carry to say so.
# The reasons come from compiling the translations here (clang-19, Debian's HIP 5.2 headers).
NEEDS_A_HUMAN = {
    "gemm.cu": ("WMMA tensor-core fragments and cp.async copies have no HIP API (rocWMMA is not packaged here); "
                "hip/hip_bf16.h is newer than the Debian HIP 5.2 headers", "XL060 tensor-core-fragment"),
    "scan.cu": ("__reduce_add_sync has no HIP counterpart in these headers", "__reduce_add_sync"),
    "atomics.cu": ("__match_any_sync needs ROCm 6.2 headers; the *_block atomics have no HIP row and are not declared "
                   "by the HIP 5.2 headers", "__match_any_sync"),
    "compaction.cu": ("cooperative_groups/scan.h has no HIP header", "cooperative_groups/scan.h"),
    "graphs.cu": ("L2 persistence attributes have no HIP equivalent; hipDeviceSetLimit is newer than HIP 5.2; CUDA 13 "
                  "forms of cudaMemPrefetchAsync and cudaGraphInstantiate differ from HIP's", "XL090 no-hip-equivalent"),
    "grid_sync.cu": ("__ldcg is not declared by the Debian HIP 5.2 headers", None),
    "precision.cu": ("hip/hip_bf16.h is newer than the Debian HIP 5.2 headers", None),
    "hopper_gemm.cu": ("Hopper-only inline PTX (wgmma, TMA) and CUtensorMap have no HIP equivalent; hip/hip_bf16.h is "
                       "newer than the Debian HIP 5.2 headers", "XL020 inline-ptx"),
}


@pytest.fixture(scope="module")
def translated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("gallery") / "kernels"
    err = io.StringIO()
    code = run([str(KERNELS)], "hip", str(out), options=Options(), summary="json", jobs=1, stdout=io.StringIO(), stderr=err)
    assert code == 0, err.getvalue()
    return out, err.getvalue()


def test_gallery_examples_exist() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.slow
@pytest.mark.skipif(CLANG is None or not HIP_INCLUDE.is_dir(), reason="clang++-19 or the HIP headers are not installed")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("cu", EXAMPLES, ids=lambda p: p.name)
def test_translated_gallery_kernel_compiles(cu: Path, arch: str, translated: tuple[Path, str]) -> None:
    out, summary = translated
    hip = out / cu.relative_to(KERNELS).with_suffix(".hip")
    text = hip.read_text(encoding="utf-8")
    if cu.name in NEEDS_A_HUMAN:
        reason, said = NEEDS_A_HUMAN[cu.name]
        assert said is None or said in text or said in summary, f"the translation of {cu.name} does not say {said!r}"
        pytest.skip(f"{cu.name}: {reason}")
    for mode in ("syntax", "device"):
        done = compile_hip(hip, arch, mode)
        assert done.returncode == 0, f"{mode} compile of {hip.name} for {arch} failed:\n{done.stderr[-3000:]}"
