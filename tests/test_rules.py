"""Hazard rules: registry completeness, fixture pairs per rule, and portable code staying quiet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xlate.cuda.parser import parse
from xlate.rules import REGISTRY, Hazard, Occurrence, Rule, Severity, SourceView, all_rules
from glossary_once import real_glossary

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
EXPECT = re.compile(r"//\s*expect\b")
DOC_FIELDS = ("summary", "why", "example", "fix", "fixed_example")
BACKENDS = {"hip", "metal"}
EQUIVALENTS = {"no-hip-equivalent", "no-metal-equivalent"}

# What the glossary's symbol map says for the few symbols the equivalents fixtures use (checked against
# xlate.symbols): concept, HIP name, HIP relation, Metal name, Metal relation. HIPIFY's runtime table lists
# cudaDeviceFlushGPUDirectRDMAWrites without a HIP name; stream capture has no Metal counterpart; the map has
# no Metal spelling for fmaxf and __expf yet (unknown); the driver API and NCCL have none on Metal.
SYMBOLS: dict[str, tuple[str | None, str | None, str | None, str | None, str | None]] = {
    "cudaDeviceFlushGPUDirectRDMAWrites": (None, None, "none", None, "unknown"),
    "cudaFlushGPUDirectRDMAWritesTargetCurrentDevice": (None, None, "none", None, "unknown"),
    "cudaFlushGPUDirectRDMAWritesToOwner": (None, None, "none", None, "unknown"),
    "cudaStreamBeginCapture": ("stream-capture", "hipStreamBeginCapture", "renamed", None, "none"),
    "cudaDeviceSynchronize": ("device-synchronize", "hipDeviceSynchronize", "renamed",
                              "wait on the last command buffer of each queue", "approximate"),
    "fmaxf": (None, "fmaxf", "same", None, "unknown"),
    "__expf": (None, "__expf", "same", None, "unknown"),
    "cuda.h": ("driver-api", "hipInit", "approximate", None, "none"),
    "nccl.h": ("collectives", "ncclAllReduce", "renamed", None, "none"),
}


def occurrences_by_hand(view: SourceView) -> list[Occurrence]:
    """Occurrences of the symbols above, found in code nodes only (never comments or strings)."""
    found = []
    for node in view.nodes("identifier"):
        name = node.text.decode()
        if name in SYMBOLS:
            concept, hip, hip_rel, metal, metal_rel = SYMBOLS[name]
            line, column = view.position(node)
            found.append(Occurrence(line, column, name, concept, hip, metal, node, hip_rel, metal_rel))
    for include in view.nodes("preproc_include"):  # the header named on an #include line
        path = include.child_by_field_name("path")
        name = path.text.decode().strip('<>"') if path is not None else ""
        if name in SYMBOLS:
            concept, hip, hip_rel, metal, metal_rel = SYMBOLS[name]
            line, column = view.position(path)
            found.append(Occurrence(line, column, name, concept, hip, metal, path, hip_rel, metal_rel))
    found.sort(key=lambda o: (o.line, o.column))
    return found


def view_of(path: Path) -> SourceView:
    source = path.read_bytes()
    view = SourceView(str(path), source, parse(source))
    view.occurrences = occurrences_by_hand(view)
    return view


def run_all(view: SourceView) -> list[Hazard]:
    return [h for rule in all_rules() for h in rule.check(view)]


def expected_lines(path: Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), start=1) if EXPECT.search(line)}


RULES = all_rules()
RULE_IDS = [r.name for r in RULES]


def test_enough_rules_with_required_names() -> None:
    names = {r.name for r in RULES}
    required = {
        "hardcoded-warp-size", "lane-mask-width", "inline-ptx", "warp-sync-mask", "launch-bounds-semantics",
        "dynamic-parallelism", "thread-block-cluster", "async-copy", "tensor-core-fragment",
        "shared-memory-capacity", "no-fp64-metal", "cooperative-grid-sync", "warpsize-not-constexpr",
        "cuda-arch-macro", "no-hip-equivalent", "no-metal-equivalent",
    }
    assert required <= names, required - names
    assert len(RULES) >= 25


def test_codes_and_names_unique_and_well_formed() -> None:
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"XL\d{3}", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert REGISTRY[rule.code] is rule


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_rule_documentation_complete(rule: Rule) -> None:
    for field in DOC_FIELDS:
        value = getattr(rule, field, "")
        assert isinstance(value, str) and value.strip(), f"{rule.name}: empty {field}"
    assert len(rule.why) > 80, f"{rule.name}: 'why' should explain the breakage"
    assert isinstance(rule.severity, Severity)
    assert rule.backends and set(rule.backends) <= BACKENDS
    for url in rule.references:
        assert url.startswith("https://"), url


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_fixture_pair_exists(rule: Rule) -> None:
    assert (FIXTURES / rule.name / "positive.cu").is_file()
    assert (FIXTURES / rule.name / "negative.cu").is_file()
    assert expected_lines(FIXTURES / rule.name / "positive.cu"), f"{rule.name}: positive fixture marks no line"


def test_every_fixture_directory_is_a_rule() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(RULE_IDS)


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_positive_fixture_triggers_exactly_its_rule(rule: Rule) -> None:
    path = FIXTURES / rule.name / "positive.cu"
    hazards = run_all(view_of(path))
    own = {h.line for h in hazards if h.name == rule.name}
    assert own == expected_lines(path)
    # Other rules stay quiet. The two symbol-map rules may both fire on a symbol missing everywhere.
    allowed = {rule.name} | (EQUIVALENTS if rule.name in EQUIVALENTS else set())
    others = [f"{h.line}: {h.name}" for h in hazards if h.name not in allowed]
    assert not others


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_negative_fixture_stays_quiet(rule: Rule) -> None:
    hazards = list(rule.check(view_of(FIXTURES / rule.name / "negative.cu")))
    assert not hazards, [f"{h.line}: {h.message}" for h in hazards]


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_hazards_are_well_formed(rule: Rule) -> None:
    view = view_of(FIXTURES / rule.name / "positive.cu")
    lines = view.source.decode().splitlines()
    for h in rule.check(view):
        assert h.rule == rule.code and h.name == rule.name and h.severity == rule.severity
        assert set(h.backends) <= set(rule.backends) and h.backends
        assert 1 <= h.line <= len(lines) and 1 <= h.column <= len(lines[h.line - 1]) + 1
        if h.end_line is not None and h.end_column is not None:
            assert (h.end_line, h.end_column) > (h.line, h.column)
        assert h.message and h.message[0].isascii()


PORTABLE_KERNEL = b"""
#include <cuda_runtime.h>

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    c[i] = a[i] + b[i];
  }
}

__global__ void block_sum(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_down(v, off);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < (blockDim.x + warpSize - 1) / warpSize; ++w) total += partial[w];
    atomicAdd(out, total);
  }
}

int main() {
  int n = 1 << 20;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  int warp = 0;
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  vector_add<<<256, 256>>>(a, b, c, n);
  block_sum<<<256, 256, (256 / warp) * sizeof(float)>>>(a, c, n);
  cudaDeviceSynchronize();
  cudaFree(a); cudaFree(b); cudaFree(c);
  return 0;
}
"""


def test_portable_kernel_has_no_hazards() -> None:
    view = SourceView("portable.cu", PORTABLE_KERNEL, parse(PORTABLE_KERNEL))
    hazards = run_all(view)
    assert not hazards, [f"{h.line}: {h.name}: {h.message}" for h in hazards]


def test_comments_and_strings_never_trigger() -> None:
    source = b"""
// threadIdx.x & 31; __ballot_sync(0xffffffff, x); asm("mov.u32 %0, %%laneid;"); double d;
/* __global__ void k() { child<<<1, 1>>>(); __shared__ float s[1 << 20]; } */
const char* text = "__CUDA_ARCH__ wmma::fragment cg::this_grid() clock64() printf";
"""
    view = SourceView("comments.cu", source, parse(source))
    assert run_all(view) == []


def test_rules_survive_broken_and_empty_sources() -> None:
    """Sources with nothing to flag give no finding; a hazard deep in nesting, or after a syntax
    error, is still found where it is."""
    # warp code (a shuffle), so that its `threadIdx.x & 31` is a lane index
    deep = (b"__global__ void k(int* x) { x[1] = __shfl_xor(x[1], 1); x[0] = " + b"(" * 5000 + b"threadIdx.x & 31"
            + b")" * 5000 + b"; }")
    broken = b"__global__ void k( {\n  unsigned m = __ballot_sync(0xffffffff, 1);\n"
    expected: dict[bytes, set[tuple[int, str]]] = {
        b"": set(),
        b"__global__ void k( {": set(),
        b"\xff\xfe garbage \x00": set(),
        b"{" * 500 + b"}" * 500: set(),
        deep: {(1, "hardcoded-warp-size")},
        broken: {(2, "lane-mask-width")},
    }
    for source, want in expected.items():
        view = SourceView("bad.cu", source, parse(source))
        assert {(h.line, h.name) for h in run_all(view)} == want, source[:40]


def test_shared_memory_backends_follow_the_limit() -> None:
    source = b"""
__global__ void a() { __shared__ float s[40 * 256]; }
__global__ void b() { __shared__ float s[80 * 256]; }
"""
    view = SourceView("smem.cu", source, parse(source))
    hazards = list(REGISTRY["XL040"].check(view))
    by_line = {h.line: h.backends for h in hazards}
    assert by_line == {2: ("metal",), 3: ("hip", "metal")}


def test_thread_index_followed_through_locals() -> None:
    source = b"""
__global__ void k(float* x) {
  int t = threadIdx.x;
  int l = t & 31;
  int m = x[0] > 0 ? 7 : 9;
  int q = m & 31;
  x[l + q] = __shfl_xor(x[0], 1);  // warp code: a 32 here is a warp width
}
"""
    view = SourceView("taint.cu", source, parse(source))
    lines = {h.line for h in REGISTRY["XL001"].check(view)}
    assert lines == {4}
    # Without a warp primitive the same `t & 31` only lays out data, and is not flagged.
    data_only = source.replace(b"__shfl_xor(x[0], 1)", b"0")
    view = SourceView("taint.cu", data_only, parse(data_only))
    assert not list(REGISTRY["XL001"].check(view))


def test_double_atomics_flagged_for_metal() -> None:
    source = b"__global__ void k(double* s, const float* x) { atomicAdd(s, (double)x[0]); }\n"
    view = SourceView("d.cu", source, parse(source))
    hazards = list(REGISTRY["XL052"].check(view))
    assert [h.line for h in hazards] == [1] and "double" in hazards[0].message


def _explain_available() -> bool:
    try:
        import xlate.explain  # noqa: F401
        import xlate.kb  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _explain_available(), reason="xlate.explain or the symbol map is not built")
@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_fixtures_through_explain(rule: Rule) -> None:
    """The same fixtures through `explain` with the real symbol map and parser error handling."""
    from xlate.explain import explain_source
    from xlate.kb import load_symbols as load

    smap = load()
    for kind in ("positive", "negative"):
        path = FIXTURES / rule.name / f"{kind}.cu"
        result = explain_source(str(path), path.read_bytes(), smap)
        assert not [e for e in result["errors"] if e.get("kind") == "rule"], result["errors"]
        own = {h["line"] for h in result["hazards"] if h["name"] == rule.name}
        assert own == (expected_lines(path) if kind == "positive" else set()), kind
        if kind == "positive":
            # Symbol-map findings depend on the map's coverage; every other rule must stay quiet.
            others = [h for h in result["hazards"] if h["name"] != rule.name and h["name"] not in EQUIVALENTS]
            assert not others, others


def test_linked_concepts_exist_in_the_glossary() -> None:

    concept_ids = set(real_glossary().concepts)
    assert "warp" in concept_ids and "h100-sxm" not in concept_ids
    missing = {r.name: [c for c in r.concepts if c not in concept_ids] for r in RULES}
    assert not {k: v for k, v in missing.items() if v}


def test_code_a_preprocessor_test_keeps_to_the_host_pass_is_not_device_code() -> None:
    """`#ifndef __CUDA_ARCH__` in a __host__ __device__ function (or the #else of `#ifdef __CUDA_ARCH__`)
    is compiled for the host only: the device-side runtime hazard does not fire there, and does in the
    device branch."""
    from xlate.cuda.parser import parse
    from xlate.cuda.source import SourceView

    code = (b"__host__ __device__ void hd() {\n#ifndef __CUDA_ARCH__\n  cudaDeviceSynchronize();\n#else\n"
            b"  cudaDeviceSynchronize();\n#endif\n#if defined(__CUDA_ARCH__)\n  x();\n#elif FOO\n  y();\n#endif\n"
            b"#if !__CUDA_ARCH__\n  z();\n#endif\n}\n")
    view = SourceView("k.cu", code, parse(code))
    calls = {(c.text or b"").decode(): c for c in view.nodes("call_expression")}
    host, device = view.calls(["cudaDeviceSynchronize"])
    assert not view.in_device_code(host) and view.in_device_code(device)
    assert view.in_device_code(calls["x()"]) and not view.in_device_code(calls["y()"])
    assert view.in_device_code(calls["z()"])  # a value test of the macro is left alone
