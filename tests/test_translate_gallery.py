"""The gallery's CUDA kernels, translated as a tree (their shared harness header too), compile for
gfx942 and gfx90a with clang-19 against the ROCm 6.4 headers that scripts/install-test-deps.sh
unpacks. A kernel whose port needs a human (an API HIP lacks, a library Debian does not package) is
skipped with the reason, which the translation itself must state in its `// xlate:` comments or its
unknown names; its compile must still fail with the error that shows the reason, so a skip that no
longer holds is noticed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.translate_support import ARCHS, COMPILE_SKIP, REPO, compile_hip
from xlate.translate.cli import run
from xlate.translate.options import Options

KERNELS = REPO / "kernels"
EXAMPLES = sorted(p for p in (KERNELS / "examples").glob("*/*.cu"))
# Why a translated kernel cannot compile here, the text its translation must carry to say so, and
# the compiler error (ROCm 6.4 headers, clang-19) that shows it.
NEEDS_A_HUMAN = {
    "gemm.cu": ("WMMA tensor-core fragments and cp.async copies (cuda_pipeline.h) have no HIP API; rocWMMA is "
                "not packaged by Debian", "XL060 tensor-core-fragment", "'cuda_pipeline.h' file not found"),
    "scan.cu": ("__reduce_add_sync and __cvta_generic_to_shared have no HIP counterpart (ROCm 6.4 declares neither)",
                "__reduce_add_sync", "'__reduce_add_sync'"),
    "compaction.cu": ("cooperative_groups/scan.h has no HIP header", "cooperative_groups/scan.h",
                      "'cooperative_groups/scan.h' file not found"),
    "graphs.cu": ("L2 persistence (cudaLimitPersistingL2CacheSize, cudaStreamSetAttribute with an access-policy "
                  "window in a cudaStreamAttrValue) has no HIP equivalent in ROCm 6.4: keep it for NVIDIA or drop it",
                  "XL090 no-hip-equivalent", "use of undeclared identifier 'cudaLimitPersistingL2CacheSize'"),
    "precision.cu": ("its port uses rocWMMA (rocwmma/rocwmma.hpp), which Debian does not package", None,
                     "'rocwmma/rocwmma.hpp' file not found"),
    "hopper_gemm.cu": ("Hopper-only inline PTX (wgmma, TMA) and CUtensorMap have no HIP equivalent",
                       "XL020 inline-ptx", "'__cvta_generic_to_shared'"),
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
@pytest.mark.skipif(bool(COMPILE_SKIP), reason=COMPILE_SKIP or "compile checks run")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("cu", EXAMPLES, ids=lambda p: p.name)
def test_translated_gallery_kernel_compiles(cu: Path, arch: str, translated: tuple[Path, str]) -> None:
    out, summary = translated
    hip = out / cu.relative_to(KERNELS).with_suffix(".hip")
    text = hip.read_text(encoding="utf-8")
    if cu.name in NEEDS_A_HUMAN:
        reason, said, error = NEEDS_A_HUMAN[cu.name]
        assert said is None or said in text or said in summary, f"the translation of {cu.name} does not say {said!r}"
        done = compile_hip(hip, arch, "syntax")
        assert done.returncode != 0, f"{hip.name} now compiles for {arch}: drop it from NEEDS_A_HUMAN"
        assert error in done.stderr, done.stderr[-3000:]
        pytest.skip(f"{cu.name}: {reason}")
    for mode in ("syntax", "device"):
        done = compile_hip(hip, arch, mode)
        assert done.returncode == 0, f"{mode} compile of {hip.name} for {arch} failed:\n{done.stderr[-3000:]}"
