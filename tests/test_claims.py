"""Evidence as data: claims are found, evidence is matched to them, stale evidence is an error, and the
claims the last review found wrong do not come back."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from conftest import GLOSSARY, GOOD_CONCEPTS, REPO, write_glossary
from xlate import kb
from glossary_once import real_glossary

WARP = GOOD_CONCEPTS["execution-model/warp.yaml"]


def _with_evidence(block: str) -> dict[str, str]:
    return {"execution-model/warp.yaml": WARP + "evidence:\n" + block}


def test_sentences_and_checkable() -> None:
    text = "NVIDIA uses 32 lanes; AMD CDNA uses 64. It is a group. HIP has no such call, e.g. none."
    parts = kb.claim_sentences(text)
    assert parts == ["NVIDIA uses 32 lanes; AMD CDNA uses 64.", "It is a group.", "HIP has no such call, e.g. none."]
    assert [kb.is_checkable_claim(p) for p in parts] == [True, False, True]


def test_claims_without_and_with_evidence(tmp_path: Path) -> None:
    root = write_glossary(tmp_path)
    found = kb.collect_claims(kb.load_glossary(root))
    hip = [c for c in found if c.item == "warp" and c.field == "hip.caveat"]
    assert hip and not hip[0].evidence  # "64 lanes on CDNA." has a number and no evidence

    root = write_glossary(tmp_path / "b", _with_evidence(
        "  - {field: hip.caveat, quote: 64 lanes on CDNA, url: 'https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html'}\n"))
    g = kb.load_glossary(root)
    assert not g.problems
    hip = [c for c in kb.collect_claims(g) if c.item == "warp" and c.field == "hip.caveat"]
    assert hip[0].evidence == [{"url": "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"}]


@pytest.mark.parametrize(("block", "message"), [
    ("  - {field: hip.caveat, quote: 32 lanes on CDNA, url: 'https://llvm.org/docs/AMDGPUUsage.html'}\n", "stale evidence"),
    ("  - {field: hip.bogus, quote: 64 lanes, url: 'https://llvm.org/docs/AMDGPUUsage.html'}\n", "not a text field"),
    ("  - {field: hip.caveat, quote: 64 lanes on CDNA}\n", "needs a url, a header or a command"),
])
def test_bad_evidence_is_a_check_problem(tmp_path: Path, block: str, message: str) -> None:
    g = kb.load_glossary(write_glossary(tmp_path, _with_evidence(block)))
    assert any(message in p.message for p in g.problems), [p.message for p in g.problems]


def test_cli_counts_and_max_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_glossary(tmp_path)
    assert kb.run_claims(root, "missing", "json") == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["claims"] == payload["with_evidence"] + payload["without_evidence"] > 0
    assert kb.run_claims(root, "missing", "text", max_missing=0) == 1
    assert "claims without evidence" in capsys.readouterr().err


@pytest.fixture(scope="module")
def real() -> kb.Glossary:
    return real_glossary()


def test_real_glossary_evidence_tests_exist(real: kb.Glossary) -> None:
    """Every `test:` an evidence entry names is a real test function, so the claim is rerun."""
    g = real
    assert not g.problems
    named = {ev.test for item in [*g.concepts.values(), *g.gpus.values()] for ev in item.evidence if ev.test}
    assert named
    for ref in named:
        path, _, func = ref.partition("::")
        tree = ast.parse((REPO / path).read_text())
        assert func in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, ref


# Statements a vendor review found wrong (issue 13); each must stay out of the glossary's prose.
RETRACTED = [
    r"wave64 is a compile option",
    r"-mwavefrontsize64 selects wave64",
    r"only memory capacity and bandwidth change",
    r"setmaxnreg exist only for sm_90a",
    r"kernels cannot lay out shared memory",
    r"--roof-only option skips counter collection",
    r"switch it on for MI300",
    r"there is no PTX-style JIT step",
    r"MI300 series builds a\s+GPU from eight XCD",
    r"Apple machines have one GPU and nothing to\s+query",
    r"Later MSL revisions extend the atomic overloads",
    r"Kernels tuned for gfx942 run",
    r"no fp8 dtype or fp8 matmul",
    r"AMD documents a comparable data movement engine",
    r"AMD HIP and Metal have no equivalent level",
    r"behind a 64 MB Infinity Cache",
    # The self-audit of 2026-12-07 (docs/contributing/audits/2026-12-07-self.md).
    r"No format holds both NVIDIA and AMD code",
    r"Blocks of a grid share only global memory",
    r"one wide instruction \(64 or 128 bits\)",
    r"so there is no per-GPU binary",
    r"Output is buffered on the device and flushed at the next synchronization",
    # The sweep and self-audit of 2026-12-08 (docs/contributing/audits/2026-12-08-self.md).
    r"64 on AMD CDNA and 32 on AMD RDNA under HIP",
    r"with no PTX fallback, a missing target means the kernel cannot run",
    r"errors and results appear only after synchronizing",
    r"no longer built in ROCm 10",
    r"No clusters, so an LDS allocation is private",
    r"Neither HIP nor Metal has a cross-block on-chip memory",
    r"a mandatory find step",
    r"The Metal compiler never sees a GPU model",
    # The self-audit of 2026-12-06, third record (docs/contributing/audits/2026-12-06-c-self.md).
    r"pipelining\); kernels cannot declare it",
    r"tcgen05 on Blackwell, MFMA on CDNA",
    r"Blocks of one grid run in any order and cannot wait",
    r"Kernel parameters cannot be references",
    r"adds 64-bit integers and half, float and double",
    # The self-audit of 2026-12-06, fourth record (docs/contributing/audits/2026-12-06-d-self.md).
    r"compiles for gfx942 but not for gfx90a, so check the target",
    r"No AMD part implements Hopper's features",
    r"warp-specialised code is generated by the compiler, not written by hand",
    r"there is no per-warp control in the language",
    r"Triton code is written per program \(block\), never per warp",
    r"on sm_90 \(num_warps must be a multiple of 4 for that\); kernels never name them",
    r"global memory only through tl\.load and tl\.store",
    r"arguments\. Only global memory can be targeted",
    r"The concept is NVIDIA-only",
    r"no larger issuing unit exists",
    r"Write a != b on half; the result is bool, as in CUDA",
    r"reads global memory only through tl\.load",
    # The sweep and self-audit of 2026-12-06, fifth record (docs/contributing/audits/2026-12-06-e-self.md).
    r"NVFP4 is NVIDIA-specific and has no AMD hardware path",
    r"but only gfx950 \(MI350 series\) accelerates them",
    r"Triton pointers always refer to global memory",
    r"Triton programs have no warp-level view",
    r"hardware-accelerated on Blackwell and on CDNA4, emulated",
    r"use TMA on NVIDIA GPUs that have it and fall back to ordinary loads elsewhere",
    r"One rounding per direction \(ties to even to floating point",
    r"one default rounding \(ties to even to floating point",
    r"llama\.cpp define their own __dp4a",
    # The self-audit of 2026-12-06, sixth record (docs/contributing/audits/2026-12-06-f-self.md).
    r"Metal converts with static_cast using one fixed rounding per conversion",
    r"Triton has no per-thread view at all",
    r"the compiler maps elements to threads\. Think in programs",
    r"Triton exposes no lanes",
    r"(fmin|fmax) on half2?: both return the other argument when one is NaN",
    r"Returns the other argument when one is NaN, as fm(in|ax)f does; with denormals",
    r"MI300 \(gfx940-gfx942\) has no image support",
    r"hip: \{symbol: surfCubemapLayeredwrite",
    # Independent audit of concept claims (c1 and c2 judged tables).
    r"No primitives library for Metal kernels",
    r"brings a cluster barrier, not shared LDS",
    r"comes with a cluster barrier but no access to another block's LDS",
    r"match-all returns the full mask",
    r"bit-cast them to uint2 first",
    r"On Hopper and Blackwell the fast paths are wgmma and tcgen05",
    r"NVIDIA's sparse figures \(2:4\) are twice the dense ones\.",
    r"which NVIDIA has no separate unit for",
    r"Like every atomic it only orders the one location",
    r"Doubling delta each step \(1, 2, 4, \.\.\.\) and adding builds",
    r"orders no global memory on gfx942",
    r"does not by itself make one thread's global stores visible",
]


def test_retracted_statements_stay_out() -> None:
    text = "\n".join(p.read_text() for p in sorted(GLOSSARY.rglob("*.yaml")))
    text = " ".join(text.split())
    for pattern in RETRACTED:
        assert not re.search(pattern, text), pattern


def test_corrected_cells(real: kb.Glossary) -> None:
    c = real.concepts
    assert c["fleet-monitoring"].terms.hip.relation.value == "approximate"
    assert c["gpudirect-storage"].terms.hip.relation.value == "renamed"
    assert "hipfile.h" in c["gpudirect-storage"].terms.hip.symbols
    assert "hiptensor/hiptensor.h" in c["tensor-contractions"].terms.hip.symbols
    assert "amd_smi/amdsmi.h" in c["management-library"].terms.hip.symbols
    assert c["topology-query"].terms.hip.symbols[0] == "amdsmi_topo_get_link_type"
    assert c["topology-query"].terms.metal.relation.value != "none"
    assert c["thread-block-cluster"].terms.hip.relation.value == "approximate"
    assert c["block-dimensions"].terms.mlx.relation.value == "approximate"


@pytest.mark.slow
def test_audit_sample_is_reproducible_and_excludes_audited() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_sample", REPO / "scripts" / "audit_sample.py")
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    first, size = sample.draw(11, 20, [])
    again, _ = sample.draw(11, 20, [])
    assert [c.key for c in first] == [c.key for c in again] and size > 1000
    audits = sorted((REPO / "docs" / "contributing" / "audits").glob("*.md"))
    assert audits, "no audit record"
    seen = sample._already_audited(audits)
    assert len(seen) >= 150
    fresh, fresh_size = sample.draw(11, 20, audits)
    assert fresh_size <= size - 140  # claims whose text changed since the audit come back, the rest stay out
    assert not {(c.item, c.field, sample._cell(c.text)[:60]) for c in fresh} & seen
