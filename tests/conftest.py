"""Shared fixtures: a tiny valid glossary that tests copy and break one way at a time."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xlate import kb

REPO = Path(__file__).resolve().parents[1]
GLOSSARY = REPO / "glossary"


@functools.cache
def glossary_without_rows() -> kb.Glossary:
    """The repository's glossary without its symbol rows, loaded once for every test module that reads
    it (the vocabulary tests and their proofs)."""
    return kb.load_glossary(GLOSSARY, with_rows=False)

HEADER = kb.SCHEMA_COMMENT + "\n"

GOOD_CONCEPTS = {
    "execution-model/warp.yaml": """\
id: warp
title: Warp
category: execution-model
aliases: [wavefront]
summary: >-
  The group of threads that execute one instruction together. NVIDIA uses 32 lanes; AMD CDNA uses 64.
terms:
  cuda: {names: [warp], symbols: [warpSize], relation: same, docs: [https://docs.nvidia.com/cuda/index.html]}
  hip:
    names: [wavefront]
    symbols: [warpSize]
    relation: approximate
    caveat: 64 lanes on CDNA.
    docs: [https://rocm.docs.amd.com/projects/HIP/en/latest/index.html]
  metal: {names: [SIMD-group], relation: renamed, docs: [https://developer.apple.com/metal/]}
relations:
  - {type: part-of, target: thread-block}
  - {type: see-also, target: thread-block}
""",
    "execution-model/thread-block.yaml": """\
id: thread-block
title: Thread block
category: execution-model
aliases: [work-group, threadgroup]
summary: >-
  A group of threads that share fast on-chip memory and can synchronize. It runs on one SM or CU.
terms:
  cuda: {names: [thread block], symbols: [blockDim], relation: same, docs: [https://docs.nvidia.com/cuda/index.html]}
  hip: {names: [work-group], symbols: [blockDim], relation: same, docs: [https://rocm.docs.amd.com/projects/HIP/en/latest/index.html]}
  metal:
    names: [threadgroup]
    symbols: [threads_per_threadgroup]
    relation: renamed
    docs: [https://developer.apple.com/metal/]
relations:
  - {type: see-also, target: warp}
""",
}


def cuda_toolkit_root() -> Path:
    """The folder of the CUDA toolkit nvcc uses (nvcc on PATH may be a wrapper script elsewhere); skips the
    calling test when there is none."""
    from xlate import cuda_headers

    found = cuda_headers.find_cuda_headers()
    if found is None:
        pytest.skip(cuda_headers.absent_reason() + ": checked against the stored extract only")
    return found.include.parent


def cccl_extract_of_installed_toolkit(script_name: str) -> list[list[str]]:
    """What scripts/SCRIPT_NAME.py extracts from the installed CUDA 13.0 toolkit's CCCL headers; skips the
    calling test where there is no such toolkit (the stored extract is then the only proof)."""
    from scripts_loader import load_script

    cuda = cuda_toolkit_root()
    script = load_script(script_name)
    if not (cuda / script.FOLDER).is_dir():
        pytest.skip(f"no CCCL headers under {cuda}: checked against the stored extract only")
    if not script.versions(cuda).startswith("CUDA 13.0"):
        pytest.skip(f"the installed toolkit is {script.versions(cuda)}, the extract is of CUDA 13.0")
    return [list(r) for r in script.extract(cuda)]


def write_glossary(root: Path, files: dict[str, str] | None = None) -> Path:
    """Write a small valid glossary (plus overrides) under root/glossary and return that folder."""
    g = root / "glossary"
    g.mkdir(parents=True, exist_ok=True)
    shutil.copy(GLOSSARY / "sources.yaml", g / "sources.yaml")
    kb.write_schema(g)
    for rel, text in {**GOOD_CONCEPTS, **(files or {})}.items():
        path = g / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.startswith("#") else HEADER + text, encoding="utf-8")
    return g


@pytest.fixture
def tiny_glossary(tmp_path: Path) -> Path:
    return write_glossary(tmp_path)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the lookup index cache out of the user's home during tests."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def build_minimal_site(work: Path, root: Path, cache: Path, env: dict[str, str] | None = None,
                       args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """The project's own mkdocs config and hook on a small glossary, in `work`: one hand-written page
    and the generated ones. Returns the finished `mkdocs build` (the site is in work/site)."""
    docs = work / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# test\n")
    for sub in ("stylesheets", "javascripts"):
        shutil.copytree(REPO / "docs" / sub, docs / sub)
    config = (REPO / "mkdocs.yml").read_text()
    config = config.replace("custom_dir: src/", f"custom_dir: {REPO}/src/").replace("  - src/xlate/", f"  - {REPO}/src/xlate/")
    config = config.replace("strict: true", "strict: false")  # the hand-written pages of the nav are absent here
    (work / "mkdocs.yml").write_text(config)
    full_env = {"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "XLATE_GLOSSARY": str(root),
                "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": str(cache), **(env or {})}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args, "-f", str(work / "mkdocs.yml")],
                          capture_output=True, text=True, cwd=work, env=full_env)


def clang_builtins(clang: str, names: list[str], archs: tuple[str, ...]) -> set[str]:
    """Which of `names` clang knows as builtins (`__has_builtin`) in a HIP device pass for at least one
    of `archs`: the answer is per target, since it honours the target's features."""
    if not names:
        return set()
    source = "".join(f"#if __has_builtin({n})\n#warning HAS {n}\n#endif\n" for n in sorted(names))
    have: set[str] = set()
    for arch in archs:
        run = subprocess.run([clang, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-nogpulib", "-E", "-",
                              "-o", "/dev/null"], input=source, capture_output=True, text=True, timeout=120)
        have |= set(re.findall(r"HAS (\w+)", run.stderr))
    return have
