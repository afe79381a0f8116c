"""The texts AMD's GPU runtime prints or returns when a HIP program fails, as error-string vocabularies:
ROCr's (glossary/vocabulary/errors-rocr*.yaml: the memory fault handler, hsa_status_string) and the
HIP runtime's log (errors-hip-runtime-log*.yaml, from ROCm/clr), one file per card. No AMD GPU is at
hand to raise them, so the proof is the source: every message must be read from the lists
scripts/list_rocm_runtime_messages.py wrote from one commit of each repository (tests/data/
rocm_runtime_messages_*.txt), none typed by hand. Here the files are checked for that, for form (each
loads, each message is long enough to be read anywhere in a line, none repeats another error file's
message) and for what lookup answers when a log line quotes one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import GLOSSARY, glossary_without_rows
from error_string_files import check_listed_once, check_no_message_of_another_file
from scripts_loader import load_script
from xlate import kb

FOLDER = GLOSSARY / "vocabulary"
DATA = Path(__file__).parent / "data"
ROCR = "c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9"
CLR = "f9f995c6d0aecec28debd3db0f41df0c15ec003d"
# Each extract: the repository and commit its first line must name.
EXTRACTS = {"rocm_runtime_messages_rocr.txt": ("ROCm/ROCR-Runtime", ROCR),
            "rocm_runtime_messages_clr.txt": ("ROCm/clr", CLR)}
# Each file, the extract its messages come from, and the card it puts them on.
FILES = {
    "errors-rocr.yaml": ("rocm_runtime_messages_rocr.txt", "error-handling"),
    "errors-rocr-malloc.yaml": ("rocm_runtime_messages_rocr.txt", "device-malloc"),
    "errors-rocr-free.yaml": ("rocm_runtime_messages_rocr.txt", "device-free"),
    "errors-rocr-code-object.yaml": ("rocm_runtime_messages_rocr.txt", "module-loading"),
    "errors-rocr-registers.yaml": ("rocm_runtime_messages_rocr.txt", "register-pressure"),
    "errors-rocr-image.yaml": ("rocm_runtime_messages_rocr.txt", "texture-memory"),
    "errors-rocr-driver.yaml": ("rocm_runtime_messages_rocr.txt", "kernel-driver"),
    "errors-hip-runtime-log.yaml": ("rocm_runtime_messages_clr.txt", "error-handling"),
    "errors-hip-runtime-log-code-object.yaml": ("rocm_runtime_messages_clr.txt", "offload-target"),
    "errors-hip-runtime-log-fat-binary.yaml": ("rocm_runtime_messages_clr.txt", "fat-binary"),
    "errors-hip-runtime-log-module.yaml": ("rocm_runtime_messages_clr.txt", "module-loading"),
    "errors-hip-runtime-log-malloc.yaml": ("rocm_runtime_messages_clr.txt", "device-malloc"),
    "errors-hip-runtime-log-pinned.yaml": ("rocm_runtime_messages_clr.txt", "pinned-host-memory"),
    "errors-hip-runtime-log-unified.yaml": ("rocm_runtime_messages_clr.txt", "unified-memory"),
    "errors-hip-runtime-log-vmm.yaml": ("rocm_runtime_messages_clr.txt", "virtual-memory-management"),
    "errors-hip-runtime-log-ipc.yaml": ("rocm_runtime_messages_clr.txt", "ipc-memory-handles"),
    "errors-hip-runtime-log-peer.yaml": ("rocm_runtime_messages_clr.txt", "peer-access"),
    "errors-hip-runtime-log-printf.yaml": ("rocm_runtime_messages_clr.txt", "device-printf"),
    "errors-hip-runtime-log-launch.yaml": ("rocm_runtime_messages_clr.txt", "kernel-launch"),
}
_PLACEHOLDER = re.compile(r"%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|j|z|t|L)?[diouxXeEfFgGaAcspn]")
# The HIP runtime's log prefix (rocclr/utils/debug.cpp log_printf: level, file, line, microseconds; the
# pid and thread only at AMD_LOG_LEVEL 4 or more).
PREFIX = ":1:hip_module.cpp          :84  : 0548417498 us:  "


def _read(name: str) -> dict:
    return yaml.safe_load((FOLDER / name).read_text())


def _listed() -> list[tuple[str, str, str, str]]:
    """(file, card, name, message) for every message of the files."""
    return [(name, data["card"], e["name"], e["message"])
            for name in FILES for data in [_read(name)] for e in data["errors"]]


def _extract(name: str) -> tuple[str, list[tuple[str, str, str, str, str]]]:
    """The first line and the rows (place, how, name, fixed, format) of a stored extract."""
    first, *rows = (DATA / name).read_text().splitlines()
    return first, [(r[0], r[1], r[2], r[3], r[4]) for r in (line.split("\t") for line in rows)]


def _unescape(shown: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), shown)


def _readings(how: str, fixed: str, fmt: str) -> set[str]:
    """What a file may list for one extract row: its FIXED text; each run of fixed words between two
    placeholders, outer spaces and separators trimmed (a text whose first run is too short); and for a
    status text, the enumerator that opens it."""
    out = {_unescape(fixed)}
    out |= {p.strip(" \t\n,;:") for p in _PLACEHOLDER.split(_unescape(fmt))}
    if how == "hsa_status_string":
        out.add(fixed.split(": ")[0])
    return out - {""}


def test_the_files_are_the_ones_on_disk_and_name_their_cards() -> None:
    on_disk = {p.name for p in FOLDER.glob("errors-rocr*.yaml")} | \
        {p.name for p in FOLDER.glob("errors-hip-runtime-log*.yaml")}
    assert set(FILES) == on_disk
    assert {name: _read(name)["card"] for name in FILES} == {name: card for name, (_, card) in FILES.items()}


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_file_passes_the_loader(name: str) -> None:
    """The glossary loader reports no problem at the file and holds its messages under its card."""
    glossary = glossary_without_rows()
    assert not [p for p in glossary.problems if name in str(p)]
    data = _read(name)
    wanted = [(e["name"], e["message"]) for e in data["errors"]]
    loaded = [m for m in glossary.error_messages
              if m.card == data["card"] and [(e.name, e.message) for e in m.errors] == wanted]
    assert len(loaded) == 1 and loaded[0].messages_of == data["messages_of"]


@pytest.mark.parametrize("name", sorted(EXTRACTS))
def test_each_extract_names_its_repository_and_commit(name: str) -> None:
    first, rows = _extract(name)
    repo, commit = EXTRACTS[name]
    assert first.startswith(f"# {repo} {commit}: {len(rows)} messages"), first
    assert all(re.fullmatch(r"[\w/.+-]+:\d+", r[0]) for r in rows)


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_file_cites_its_commit_and_extract(name: str) -> None:
    extract, _ = FILES[name]
    text = (FOLDER / name).read_text()
    data = _read(name)
    commit = EXTRACTS[extract][1]
    assert commit in data["source"] and commit in data["listed_by"] and extract in data["listed_by"]
    assert commit in text.split("\nmessages_of:")[0], "the header comment names the commit"


def test_every_message_is_read_from_the_stored_extract() -> None:
    """Each (name, message) pair is a row of its file's extract: the name the script found for the row,
    and a text the row gives (see _readings). No message is typed by hand."""
    rows = {name: _extract(name)[1] for name in EXTRACTS}
    missing = []
    for name, _, error, message in _listed():
        if not any(error == r[2] and message in _readings(r[1], r[3], r[4]) for r in rows[FILES[name][0]]):
            missing.append((name, error, message))
    assert not missing


def test_every_message_is_four_words() -> None:
    """A message of four words or more (as lookup reads it: words and numbers only) is found anywhere in
    a pasted line, so a log line that quotes it with its runtime detail still finds it."""
    assert [m for _, _, _, m in _listed() if len(kb.message_key(m).split()) < 4] == []


def test_messages_are_listed_once() -> None:
    check_listed_once(_listed())


def test_no_message_repeats_another_error_file() -> None:
    check_no_message_of_another_file({_read(f)["messages_of"] for f in FILES}, _listed())


@pytest.mark.parametrize(("name", "card", "error", "message"), _listed(), ids=lambda v: str(v)[:40])
def test_a_logged_line_quoting_the_message_answers_its_card(name: str, card: str, error: str, message: str) -> None:
    got = kb.search(kb.load_index(), f"{PREFIX}{message} 0x7f3a1c000000")
    assert got and (got[0].concept, got[0].kind, got[0].matched) == (card, "message", error), \
        [(m.concept, m.kind, m.matched) for m in got[:2]]


@pytest.mark.parametrize(("line", "card", "error"), [
    # ROCr's memory fault handler, before it aborts
    ("Memory access fault by GPU node-2 (Agent handle: 0x55d0) on address 0x7f. Reason: Page not present or "
     "supervisor privilege.", "error-handling", "VMFaultHandler"),
    ("Memory access fault by GPU node-4 (Agent handle: 0x55e6c3b0a2f0) on address 0x7f1a2b000000(may not be exact "
     "address). Reason: Write access to a read-only page.", "error-handling", "VMFaultHandler"),
    ("HW Exception by GPU node-1 (Agent handle: 0x5581d1c0) reason :GPU Hang", "error-handling", "HwExceptionHandler"),
    ("Memory critical error by agent node-1 (Agent handle: 0x1f2e) on address 0x7f00. Reason: Memory in use.",
     "device-free", "FreeMemory"),
    # The HIP runtime's queue callback quotes hsa_status_string's text; the enumerator answers it.
    (":0:rocdevice.cpp            :2998: 0548417498 us:  Callback: Queue 0x7f2a40000000 aborting with error : "
     "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal "
     "address. code: 0x29", "error-handling", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"),
    (":0:rocvirtual.cpp           :2892: 0548417498 us:  Callback: Queue 0x7f2a40000000 aborting with error : "
     "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016",
     "error-handling", "HSA_STATUS_ERROR_EXCEPTION"),
    (":0:rocdevice.cpp            :2994: 0548417498 us:  Callback: Queue 0x7f1c24200000 Aborting with error : "
     "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may "
     "also occur when the core runtime library needs to spawn threads or create internal OS-specific events. "
     "Code: 0x1008 Available Free mem : 0 MB", "device-malloc", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"),
    ("Queue at 0x7f0000000000 inactivated due to async error:", "error-handling", "DefaultErrorHandler"),
    ("HSA_STATUS_ERROR_OUT_OF_REGISTERS: Kernel has requested more VGPRs than are available on this agent",
     "register-pressure", "HSA_STATUS_ERROR_OUT_OF_REGISTERS"),
    ("HSA Error:  Incompatible kernel and userspace, AMD Radeon VII disabled. Upgrade amdgpu.",
     "kernel-driver", "DiscoverGpu"),
    # The HIP runtime's own log lines (AMD_LOG_LEVEL 1 or more, except the internal error)
    (":1:hip_code_object.cpp      :570 : 0548417498 us:  hipErrorNoBinaryForGpu: Unable to find code object for "
     "all current devices!", "offload-target", "extractCodeObjectFromFatBinary"),
    (":1:hip_fatbin.cpp           :277 : 0548417498 us:  Cannot find CO in the bundle /opt/app/libk.so for ISA: "
     "amdgcn-amd-amdhsa--gfx1100", "offload-target", "ExtractFatBinaryUsingCOMGR"),
    (":1:hip_memory.cpp           :333 : 0548417498 us:  Allocation failed : Device memory : required "
     ":68719476736 | free :34359738368 | total :68702699520", "device-malloc", "ihipMalloc"),
    (":1:hip_module.cpp           :84  : 0548417498 us:  Cannot find the function: _Z6kernelPf for module: "
     "0x5b1c2a0", "module-loading", "hipModuleGetFunction"),
    (":1:rocdevice.cpp            :2664: 0548417498 us:  hsa_amd_svm_attributes_set() failed. Advice: 1, "
     "status: 4096", "unified-memory", "SetSvmAttributesInt"),
    (":0:                         :0   : 0548417498 us:  An internal error has occurred. This may be due to "
     "insufficient memory.", "error-handling", "HIP_INIT_API_INTERNAL"),
])
def test_a_real_log_line_answers_its_card(line: str, card: str, error: str) -> None:
    got = kb.search(kb.load_index(), line)
    assert got and (got[0].concept, got[0].matched) == (card, error), [(m.concept, m.kind, m.matched) for m in got[:2]]


SAMPLE = r"""
// fprintf(stderr, "a comment is no call %d\n", 1);
bool Runtime::VMFaultHandler(hsa_signal_value_t val, void* arg) {
  if (x) {
    fprintf(stderr, "Memory access fault by GPU node-%u (Agent handle: %p) on address %p%s.\n",
            node, handle, address, "");
  }
}
#define HIP_INIT_X(noReturn)                 \
  if (!ok) {                                 \
    ClPrint(amd::LOG_NONE, amd::LOG_ALWAYS,  \
            "An internal error has occurred."  \
            " This may be due to insufficient memory."); \
  }
static void load(int device) {
  guarantee(f(a, b) == 0, "Cannot get Device Program for module: 0x%x", m);
  LogPrintfError("%s", "hipErrorNoBinaryForGpu: Unable to find code object!");
  LogPrintfError("    %s - [%s]", a, b);
  LogError(message.c_str());
}
hsa_status_t hsa_status_string(hsa_status_t status, const char** status_string) {
  switch (status) {
    case HSA_STATUS_ERROR_FATAL:
      *status_string =
          "HSA_STATUS_ERROR_FATAL: The queue received an error that may require process "
          "termination.";
      break;
  }
}
"""


def test_the_script_reads_calls_macros_and_status_strings() -> None:
    """The extract's reader on a small source: comments are no calls, adjacent literals join, a
    macro's continued lines are one call, the enclosing function or macro names each message, a format
    that is not a literal is skipped, and the text before the first placeholder is kept, a 0x that opens
    the value dropped."""
    script = load_script("list_rocm_runtime_messages")
    rocr = script.messages(SAMPLE, "rocr")
    assert [(line, how, name, script.fixed_part(fmt)) for line, how, name, fmt in rocr] == [
        (5, "fprintf", "VMFaultHandler", "Memory access fault by GPU node-")]
    clr = [(how, name, script.fixed_part(fmt)) for _, how, name, fmt in script.messages(SAMPLE, "clr")]
    assert clr == [
        ("ClPrint(LOG_NONE)", "HIP_INIT_X", "An internal error has occurred. This may be due to insufficient memory."),
        ("guarantee", "load", "Cannot get Device Program for module:"),
        ("LogPrintfError", "load", "hipErrorNoBinaryForGpu: Unable to find code object!"),
        ("LogPrintfError", "load", "")]
    assert script.status_strings(SAMPLE) == [
        (25, "HSA_STATUS_ERROR_FATAL", "HSA_STATUS_ERROR_FATAL: The queue received an error that may require "
                                       "process termination.")]
    assert script.fixed_part("100%% done at %d") == "100% done at"
