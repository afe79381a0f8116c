"""NCCL's and RCCL's names as name lists (glossary/vocabulary/names-nccl-env.yaml, names-rccl-env.yaml,
names-nccl-header.yaml, names-rccl-header.yaml, names-nccl-guide-sections.yaml).

What is checked: the files load with no problem and name existing cards; scripts/list_nccl_names.py reads
header declarations and environment reads as the C++ sources write them (its output, kept in tests/data/
nccl_header_names.txt, nccl_env.txt, rccl_header_names.txt and rccl_env.txt with the repository and commit
on the first line, is what the lists are checked against); the NCCL list holds every variable NCCL 2.30.7
reads but the ones the collectives card spells, the RCCL list every variable RCCL reads that the NCCL list
does not (and the recorder's two, tests/data/rccl_env_recorder.txt), and a group says so where no code
reads a declared variable; the header lists hold exactly the declared names for which lookup leads with
no row of their own (nothing, a loose match, or a near spelling's row); every guide heading is one tests/data/nccl_doc_headings.txt holds, on a page its group cites;
lookup answers the names the lists were made for with their cards, while the names a card or row already
answers keep that answer; and (slow) without the files, lookup answered no listed name with its card
through a card's or row's own spelling."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shutil
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import yaml

import heading_lists
from conftest import GLOSSARY, REPO, glossary_without_rows
from xlate import kb, lookup

DATA = REPO / "tests" / "data"
NCCL_ENV, RCCL_ENV = "NCCL environment variable", "RCCL environment variable"
NCCL_API, RCCL_API = "nccl.h name", "rccl.h name"
GUIDE = "NCCL user guide section heading"
FILES = {NCCL_ENV: "names-nccl-env.yaml", RCCL_ENV: "names-rccl-env.yaml", NCCL_API: "names-nccl-header.yaml",
         RCCL_API: "names-rccl-header.yaml", GUIDE: "names-nccl-guide-sections.yaml"}
IDENTIFIERS = (NCCL_ENV, RCCL_ENV, NCCL_API, RCCL_API)
NCCL_COMMIT = "73cf112295c33aee2b895f329f592f2a9b4b0f97"  # NVIDIA/nccl v2.30.7-1
RCCL_COMMIT = "0cbce2a7571c907554199fad7e905f16ec0a565c"  # ROCm/rccl develop, October 2024
DOCS = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
# The first line of a kept list: `# OWNER/NAME COMMIT [(REF)]: N names ...`.
PROVENANCE = re.compile(r"^# (?P<repo>[\w.-]+/[\w.-]+) (?P<commit>[0-9a-f]{40})\b[^:]*: (?P<count>\d+) names\b")
UNREAD = {NCCL_ENV: "no code of 2.30.7 reads it", RCCL_ENV: "no code of the snapshot reads it"}


def _lists() -> dict[str, kb.NameList]:
    return {n.names_of: n for n in glossary_without_rows().name_lists}


def _names(names_of: str) -> dict[str, str | None]:
    lists = _lists()
    assert names_of in lists, f"no {names_of} list"
    return {n: g.card for g in lists[names_of].groups for n in g.names}


@cache
def _kept(file: str) -> tuple[re.Match[str], list[list[str]]]:
    first, *lines = (DATA / file).read_text(encoding="utf-8").splitlines()
    provenance = PROVENANCE.match(first)
    assert provenance, f"{file}'s first line names no repository, commit and count: {first!r}"
    return provenance, [line.split("\t") for line in lines]


def _env(file: str) -> dict[str, set[str]]:
    """Each variable of a kept environment list -> how it is read (one line per way)."""
    out: dict[str, set[str]] = {}
    for name, how, _path in _kept(file)[1]:
        out.setdefault(name, set()).add(how)
    return out


def _header(file: str) -> dict[str, str]:
    return {name: kind for kind, name in _kept(file)[1]}


def _script() -> ModuleType:
    name = "list_nccl_names"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@cache
def _index() -> kb.Index:
    return kb.load_index()


# --- well formed ----------------------------------------------------------------------------------------

def test_the_files_load_and_every_card_exists() -> None:
    glossary = glossary_without_rows()
    mine = [p for p in glossary.problems if any(f in p.path for f in FILES.values())]
    assert not mine, mine
    for names_of, file in FILES.items():
        raw = yaml.safe_load((GLOSSARY / "vocabulary" / file).read_text(encoding="utf-8"))
        assert raw["names_of"] == names_of
        cards = {g["card"] for g in raw["groups"]} - {None}
        assert cards <= set(glossary.concepts), (file, sorted(cards - set(glossary.concepts)))


def test_no_name_is_in_two_lists_or_a_package_vocabulary() -> None:
    """The index keeps the first entry of a name, so a name held twice would answer from whichever file
    sorts first."""
    mine = {n: names_of for names_of in FILES for n in _names(names_of)}
    elsewhere = {n: other.names_of for other in _lists().values() if other.names_of not in FILES
                 for g in other.groups for n in g.names}
    twice = {n: (mine[n], elsewhere[n]) for n in mine if n in elsewhere}
    assert not twice, twice
    owners: dict[str, list[str]] = {}
    for names_of in FILES:
        for n in _names(names_of):
            owners.setdefault(n, []).append(names_of)
    assert not {n: o for n, o in owners.items() if len(o) > 1}


def test_the_kept_lists_name_their_sources_and_hold_what_they_count() -> None:
    for file, repo, commit in (("nccl_header_names.txt", "NVIDIA/nccl", NCCL_COMMIT), ("nccl_env.txt", "NVIDIA/nccl", NCCL_COMMIT),
                               ("rccl_header_names.txt", "ROCm/rccl", RCCL_COMMIT), ("rccl_env.txt", "ROCm/rccl", RCCL_COMMIT)):
        provenance, rows = _kept(file)
        assert (provenance["repo"], provenance["commit"]) == (repo, commit), file
        width = 2 if "header" in file else 3
        assert all(len(r) == width for r in rows), (file, [r for r in rows if len(r) != width][:3])
        distinct = {r[1] if width == 2 else r[0] for r in rows}
        assert int(provenance["count"]) == len(distinct), file
    lists = _lists()
    for names_of in (NCCL_ENV, NCCL_API, GUIDE):
        assert NCCL_COMMIT in lists[names_of].listed_by, names_of
    for names_of in (RCCL_ENV, RCCL_API):
        assert RCCL_COMMIT in lists[names_of].listed_by, names_of


# --- the script reads the sources as C++ writes them -------------------------------------------------------

HEADER_SNIPPET = """\
#ifndef NCCL_H_
#define NCCL_H_
#define NCCL_MAJOR 2
#define NCCL_VERSION(X,Y,Z) ((X) * 10000 + (Y) * 100 + (Z))
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ncclComm* ncclComm_t;  // a comment naming notDeclared(x);
/* ncclCommented(void); */
typedef enum { ncclSuccess = 0,
               ncclSystemError = 2 } ncclResult_t;
#define NCCL_CONFIG_INITIALIZER {                \\
  sizeof(ncclConfig_t), /* size */              \\
}
typedef struct ncclConfig_v1 {
  int blocking;
  const char *netName;
} ncclConfig_t;
typedef void (*ncclCallback_t)(int);
ncclResult_t  ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
    ncclComm_t comm, cudaStream_t stream);
ncclResult_t pncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
    ncclComm_t comm, cudaStream_t stream);
const char*  ncclGetErrorString(ncclResult_t result);
#ifdef NCCL_OS_LINUX
  __attribute__ ((deprecated("not part of the API (really)")))
  void  ncclResetDebugInit();
#else
  #define ncclResetDebugInit()
#endif
#ifdef __cplusplus
} // end extern "C"
#endif
#endif
"""


def test_the_script_reads_a_header_s_declarations() -> None:
    got = _script().header_names(HEADER_SNIPPET)
    assert got == [
        ("type", "ncclComm_t"), ("enumerator", "ncclSuccess"), ("enumerator", "ncclSystemError"), ("type", "ncclResult_t"),
        ("type", "ncclConfig_t"), ("type", "ncclCallback_t"), ("function", "ncclAllReduce"), ("function", "pncclAllReduce"),
        ("function", "ncclGetErrorString"), ("function", "ncclResetDebugInit"),
        ("macro", "NCCL_MAJOR"), ("macro", "NCCL_VERSION"), ("macro", "NCCL_CONFIG_INITIALIZER"),
    ]


SOURCE_SNIPPET = """\
#define NCCL_PARAM(name, env, deftVal) \\
  int64_t ncclParam##name() { return ncclLoadParam("NCCL_" env, deftVal); }
NCCL_PARAM(BuffSize, "BUFFSIZE", -2);
RCCL_PARAM(EnableClique, "ENABLE_CLIQUE", 0);  // RCCL_ is pasted on
// NCCL_PARAM(Commented, "COMMENTED", 0);
DEFINE_NCCL_PARAM(ncclParamDebugLevel, ncclDebugLogLevel, NCCL_DEBUG, NCCL_LOG_NONE,
                  NCCL_PARAM_FLAG_NONE, parser, "The debug level");
static void f() {
  const char* a = ncclGetEnv("NCCL_COMM_ID");
  const char* b = std::getenv("NCCL_CONF_FILE");
  char* c = getenv("RCCL_TREES");
  char* d = getenv("HOME");  // not NCCL's
  const char* e = ncclGetEnv(name);  // a variable, not a literal
  NCCLCHECK(ncclGetLevel(&level, "NCCL_P2P_DISABLE",
                         "NCCL_P2P_LEVEL"));
  WARN("set NCCL_IGNORED to silence this");  // a message, not a read
}
"""


def test_the_script_reads_each_way_a_source_reads_the_environment() -> None:
    assert _script().env_reads(SOURCE_SNIPPET) == [
        ("NCCL_BUFFSIZE", "NCCL_PARAM"), ("RCCL_ENABLE_CLIQUE", "RCCL_PARAM"), ("NCCL_DEBUG", "DEFINE_NCCL_PARAM"),
        ("NCCL_COMM_ID", "ncclGetEnv"), ("NCCL_CONF_FILE", "getenv"), ("RCCL_TREES", "getenv"),
        ("NCCL_P2P_DISABLE", "ncclGetLevel"), ("NCCL_P2P_LEVEL", "ncclGetLevel"),
    ]


# --- the environment lists against the sources -------------------------------------------------------------

def _carded(card: str) -> set[str]:
    """The names a card spells (its aliases, names and symbols), as lookup's labels hold them."""
    return {label for label, cid, _kind, _ in _index()["labels"] if cid == card}


def test_the_nccl_list_holds_every_variable_nccl_reads_but_those_the_collectives_card_spells() -> None:
    read = set(_env("nccl_env.txt"))
    listed = set(_names(NCCL_ENV))
    assert not listed - read, f"listed, but NCCL 2.30.7 reads no such variable: {sorted(listed - read)}"
    left_out = read - listed
    assert left_out <= _carded("collectives"), f"read, not listed, and no card spells them: {sorted(left_out - _carded('collectives'))}"
    assert len(left_out) == 7, sorted(left_out)


def test_the_rccl_list_holds_every_variable_rccl_reads_that_the_nccl_list_does_not() -> None:
    read = set(_env("rccl_env.txt")) | set(_env("rccl_env_recorder.txt"))
    listed = set(_names(RCCL_ENV))
    assert not listed - read, f"listed, but RCCL reads no such variable: {sorted(listed - read)}"
    assert _kept("rccl_env_recorder.txt")[0]["repo"] == "ROCm/rccl"
    nccl = set(_env("nccl_env.txt"))
    assert not listed & nccl, sorted(listed & nccl)
    missing = read - listed - nccl
    assert not missing, f"RCCL reads these, and neither list holds them: {sorted(missing)}"
    assert all(n.startswith("RCCL_") for n in _env("rccl_env_recorder.txt"))


@pytest.mark.parametrize(("names_of", "file"), [(NCCL_ENV, "nccl_env.txt"), (RCCL_ENV, "rccl_env.txt")])
def test_a_group_says_so_exactly_where_no_code_reads_a_declared_variable(names_of: str, file: str) -> None:
    """A parameter whose getter no code calls, and which nothing else reads, changes nothing when set."""
    script = _script()
    unread = {n for n, hows in _env(file).items() if all(h.endswith(script.UNCALLED) for h in hows)}
    said = {n for g in _lists()[names_of].groups if UNREAD[names_of] in g.section for n in g.names}
    assert said == unread & set(_names(names_of)), (sorted(said), sorted(unread))
    assert unread, "the kept list marks no parameter as never read: the check above would prove nothing"


# --- the header lists against the headers ------------------------------------------------------------------

NEAR = "near spelling"  # the section of the names lookup took for another function's row


def _rows_spell_themselves(names: set[str]) -> dict[str, object]:
    """Each name whose lookup does not lead with a row spelling the name itself -> what it led with."""
    wrong: dict[str, object] = {}
    for name in sorted(names):
        _, _, payload = _top(name)
        rows = payload["rows"]
        if not rows or name not in (rows[0]["cuda"], (rows[0]["sides"].get("hip") or {}).get("symbol")) or payload["lead"] != "row":
            wrong[name] = [r["cuda"] for r in rows] or payload["matches"][:1]
    return wrong


def _check_header_list(names_of: str, declared: set[str]) -> None:
    """Listed: the declared names lookup answered with nothing, a loose match or another name's row.
    Not listed: the names lookup leads with their own row (a symbol row or the nccl naming rule)."""
    listed = set(_names(names_of))
    assert listed <= declared, sorted(listed - declared)
    wrong = _rows_spell_themselves(declared - listed)
    assert not wrong, f"declared, not listed, and lookup leads with no row of their own: {wrong}"
    smap = kb.load_symbols()
    with_rule = {n for n in listed if smap.get(n) is not None}
    near = {n for g in _lists()[names_of].groups if NEAR in g.section for n in g.names}
    assert with_rule == near, f"listed names a row or naming rule answers, outside the near-spelling group: {sorted(with_rule ^ near)}"
    # With the list, a listed name answers its card, and never with another name's row.
    for name in sorted(listed):
        code, top, payload = _top(name)
        assert (code, top.get("matched_kind")) == (0, "package"), payload
        assert all(r["cuda"] == name for r in payload["rows"]), payload["rows"]


@pytest.mark.slow
def test_the_nccl_header_list_is_every_declared_name_lookup_missed() -> None:
    _check_header_list(NCCL_API, set(_header("nccl_header_names.txt")))


def test_the_rccl_header_list_is_every_name_rccl_adds_that_lookup_missed() -> None:
    _check_header_list(RCCL_API, set(_header("rccl_header_names.txt")) - set(_header("nccl_header_names.txt")))


def test_no_listed_identifier_is_a_label_of_a_card() -> None:
    labels = {label: cid for label, cid, _kind, _ in _index()["labels"]}
    spelled = {n: labels[n] for names_of in IDENTIFIERS for n in _names(names_of) if n in labels}
    assert not spelled, f"a card or row spells these already (lookup answers them from there): {spelled}"


# --- the guide headings --------------------------------------------------------------------------------------

def test_every_heading_has_several_words_and_no_card_carries_it() -> None:
    heading_lists.check_several_words_and_no_card_label(GUIDE)


def test_no_heading_is_in_another_name_list() -> None:
    heading_lists.check_in_no_other_list(GUIDE)


def test_every_heading_is_on_an_api_or_usage_page_its_group_cites() -> None:
    first, rows = (DATA / "nccl_doc_headings.txt").read_text(encoding="utf-8").splitlines()[0], \
        [line.split("\t") for line in (DATA / "nccl_doc_headings.txt").read_text(encoding="utf-8").splitlines()[1:]]
    assert first.startswith(f"# NVIDIA/nccl {NCCL_COMMIT} docs/userguide/source")
    where: dict[str, set[str]] = {}
    for path, text in rows:
        page = path.removeprefix("docs/userguide/source/")
        if re.match(r"(api|usage)(\.rst|/)", page):
            where.setdefault(text, set()).add(DOCS + page.removesuffix(".rst") + ".html")
    wrong = {}
    for g in _lists()[GUIDE].groups:
        for name in g.names:
            if not any(url in g.section for url in where.get(name, ())):
                wrong[name] = sorted(where.get(name, ())) or "on no API or usage page"
    assert not wrong, wrong


def test_lookup_answers_one_heading_of_every_group_in_any_case_with_its_card() -> None:
    heading_lists.check_lookup_answers_one_heading_per_group(GUIDE)


# --- lookup -----------------------------------------------------------------------------------------------------

def _top(query: str) -> tuple[int, dict, dict]:
    out = io.StringIO()
    code = lookup.run(query, fmt="json", out=out)
    payload = json.loads(out.getvalue())
    return code, (payload["matches"][0] if payload["matches"] else {}), payload


@pytest.mark.parametrize(("query", "card"), [
    ("NCCL_MIN_CTAS", "collectives"),
    ("NCCL_CUMEM_ENABLE", "virtual-memory-management"),
    ("NCCL_NET_GDR_LEVEL", "gpudirect-rdma"),
    ("NCCL_NVLS_ENABLE", "gpu-switch"),
    ("NCCL_GRAPH_MIXING_SUPPORT", "graphs"),
    ("NCCL_TOPO_FILE", "topology-query"),
    ("NCCL_PXN_DISABLE", "collectives"),  # lookup read it as NCCL_P2P_DISABLE, a near spelling
    ("NCCL_MEM_SYNC_DOMAIN", "collectives"),  # ... and this one as a block barrier, from its words
    ("RCCL_LOG_LEVEL", "collectives"),
    ("RCCL_MSCCL_ENABLE", "collectives"),
    ("RCCL_USE_ROCM_SMI_LIB", "management-library"),
    ("pncclAllReduce", "collectives"),
    ("NCCL_CONFIG_INITIALIZER", "collectives"),
    ("mscclRunAlgo", "collectives"),
    ("Group Calls", "collectives"),
    ("User Defined Reduction Operators", "collectives"),
    ("point to point communication functions", "collectives"),
    ("Using NCCL with CUDA Graphs", "graphs"),
    ("GIN Device Kernel", "gpu-initiated-communication"),
])
def test_lookup_answers_the_names_the_lists_were_made_for(query: str, card: str) -> None:
    code, top, payload = _top(query)
    assert (code, top.get("concept"), top.get("matched_kind")) == (0, card, "package"), payload


@pytest.mark.parametrize(("query", "card", "kind"), [
    ("NCCL_DEBUG", "collectives", "alias"),
    ("NCCL_P2P_DISABLE", "collectives", "alias"),
])
def test_a_name_a_card_spells_keeps_the_card_s_answer(query: str, card: str, kind: str) -> None:
    code, top, payload = _top(query)
    assert (code, top.get("concept"), top.get("matched_kind")) == (0, card, kind), payload


@pytest.mark.parametrize("query", ["ncclAllReduce", "ncclCommSplit", "ncclGather"])
def test_a_name_with_a_row_keeps_its_row(query: str) -> None:
    code, _, payload = _top(query)
    assert code == 0 and payload["lead"] == "row" and payload["rows"][0]["cuda"] == query, payload
    assert payload["rows"][0]["concept"] == "collectives"


# --- listed only where lookup missed ----------------------------------------------------------------------

LOOSE = {"words", "span", "prefix", "fuzzy", "text"}  # matches on words or near spellings, not a card's own


@pytest.mark.slow
def test_without_the_files_lookup_answered_no_listed_name_with_its_card_through_a_card_s_spelling(tmp_path: Path) -> None:
    """Rebuilt from a copy of the glossary without the five files: no listed identifier had a symbol row or
    a card that spells it, only loose matches or none; no carded heading was answered with its card at all
    (the rule of the CUDA and HIP guide lists)."""
    root = tmp_path / "glossary"
    shutil.copytree(GLOSSARY, root)
    for file in FILES.values():
        (root / "vocabulary" / file).unlink()
    index = kb.load_index(root)
    already = {}
    for names_of in IDENTIFIERS:
        for name, card in _names(names_of).items():
            if kb.find_rows(index, name):
                already[name] = "a symbol row"
                continue
            top = kb.search(index, name, limit=1)
            if top and top[0].concept == card and top[0].kind not in LOOSE:
                already[name] = f"{card} ({top[0].kind})"
    for heading, card in _names(GUIDE).items():
        top = kb.search(index, heading, limit=1)
        if card is not None and top and top[0].concept == card:
            already[heading] = card
    assert not already, f"lookup already answered these with their card: {already}"
