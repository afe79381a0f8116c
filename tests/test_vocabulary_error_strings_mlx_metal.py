"""The MLX Metal backend's error texts and Metal's command-buffer error texts as error-string vocabularies
(glossary/vocabulary/errors-mlx-metal*.yaml, one file per card, and errors-metal-command-buffer.yaml).
No Metal device is available to raise them, so the proof is the source and the logs each file cites;
here the files are checked for form (each loads, each message is long enough to be read anywhere in a
line, none repeats another error file's message) and for what lookup answers when a log line quotes
one."""

from __future__ import annotations

import pytest
import yaml

from conftest import GLOSSARY, glossary_without_rows
from error_string_files import check_listed_once, check_no_message_of_another_file
from xlate import kb

FOLDER = GLOSSARY / "vocabulary"
# Each file and the card it puts its messages on.
FILES = {
    "errors-mlx-metal.yaml": "error-handling",
    "errors-mlx-metal-malloc.yaml": "device-malloc",
    "errors-mlx-metal-library.yaml": "module-loading",
    "errors-mlx-metal-compile.yaml": "runtime-compilation",
    "errors-mlx-metal-stream.yaml": "stream",
    "errors-mlx-metal-capture.yaml": "debugger",
    "errors-metal-command-buffer.yaml": "error-handling",
}
# Descriptions whose words are too few to be read anywhere in a line keep the driver's code after them.
DRIVER_CODE = "kIOGPUCommandBufferCallbackError"


def _read(name: str) -> dict:
    return yaml.safe_load((FOLDER / name).read_text())


def _listed() -> list[tuple[str, str, str, str]]:
    """(file, card, name, message) for every message of the files."""
    return [(name, data["card"], e["name"], e["message"])
            for name in FILES for data in [_read(name)] for e in data["errors"]]


def test_the_files_are_the_ones_on_disk_and_name_their_cards() -> None:
    on_disk = {p.name for p in FOLDER.glob("errors-mlx-metal*.yaml")} | {"errors-metal-command-buffer.yaml"}
    assert set(FILES) == on_disk
    assert {name: _read(name)["card"] for name in FILES} == FILES


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


def test_every_message_is_four_words_or_keeps_the_driver_code() -> None:
    """A message of four words or more (as lookup reads it: words and numbers only) is found anywhere in
    a pasted line. Two of Metal's descriptions have fewer words of their own (Insufficient Memory,
    Impacting Interactivity); they keep the driver code Metal prints after them, which makes them
    four words and specific enough."""
    with_code = []
    for name, _, _, message in _listed():
        assert len(kb.message_key(message).split()) >= 4, (name, message)
        if DRIVER_CODE in message:
            with_code.append(message)
            assert len(kb.message_key(message.split("(")[0]).split()) < 4, message  # the code is needed
    assert sorted(with_code) == [
        "Impacting Interactivity (0000000e:kIOGPUCommandBufferCallbackErrorImpactingInteractivity)",
        "Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"]


def test_names_are_identifiers_and_messages_are_listed_once() -> None:
    check_listed_once(_listed())


def test_no_message_repeats_another_error_file() -> None:
    check_no_message_of_another_file({_read(f)["messages_of"] for f in FILES}, _listed())


@pytest.mark.parametrize(("name", "card", "error", "message"), _listed(), ids=lambda v: str(v)[:40])
def test_a_pasted_line_quoting_the_message_answers_its_card(name: str, card: str, error: str, message: str) -> None:
    got = kb.search(kb.load_index(), f"RuntimeError: {message}: (details)")
    assert got and (got[0].concept, got[0].kind, got[0].matched) == (card, "message", error), \
        [(m.concept, m.kind, m.matched) for m in got[:2]]


@pytest.mark.parametrize(("line", "card", "error"), [
    # MLX aborting on a command-buffer error: the longest text quoted is the one matched, MLX's own before
    # a timeout, Metal's description where it keeps the driver code.
    ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer "
     "execution failed: Caused GPU Timeout Error (00000002:kIOGPUCommandBufferCallbackErrorTimeout).",
     "error-handling", "MTLCommandBufferStatusError"),
    ("RuntimeError: [METAL] Command buffer execution failed: Impacting Interactivity "
     "(0000000e:kIOGPUCommandBufferCallbackErrorImpactingInteractivity).", "error-handling",
     "kIOGPUCommandBufferCallbackErrorImpactingInteractivity"),
    # Metal's own log lines, as other engines print them
    ("Error Domain=MTLCommandBufferErrorDomain Code=2 \"Caused GPU Hang Error "
     "(00000003:kIOGPUCommandBufferCallbackErrorHang)\"", "error-handling", "MTLCommandBufferErrorTimeout"),
    ("Discarded (victim of GPU error/recovery) (IOAF code 5)", "error-handling",
     "kIOGPUCommandBufferCallbackErrorInnocentVictim"),
    # MLX's own texts with their runtime detail
    ("RuntimeError: [metal::malloc] Attempting to allocate 137438953472 bytes which is greater than the "
     "maximum allowed buffer size of 77309411328 bytes.", "device-malloc", "malloc"),
    ("RuntimeError: [malloc] Unable to allocate 4294967296 bytes.", "device-malloc", "malloc"),
    ("RuntimeError: [metal::Device] Unable to load kernel gemv_float32_bm8_bn32\nFunction gemv_float32_bm8_bn32 "
     "was not found in the library", "module-loading", "get_kernel_"),
    ("RuntimeError: Failed to load the metallib mlx.metallib. We attempted to load it from </usr/lib/mlx.metallib>",
     "module-loading", "load_library"),
    ("RuntimeError: There is no Stream(gpu, 1) in current thread.", "stream", "get_command_encoder"),
    ("RuntimeError: [metal::start_capture] Failed to start: (the NSError's description)", "debugger",
     "start_capture"),
])
def test_a_real_log_line_answers_its_card(line: str, card: str, error: str) -> None:
    got = kb.search(kb.load_index(), line)
    assert got and (got[0].concept, got[0].matched) == (card, error), [(m.concept, m.kind, m.matched) for m in got[:2]]


def test_the_files_cite_their_sources() -> None:
    """Each file names where its texts come from: the MLX commit for MLX's texts, the header mirror and
    the issue logs for Metal's."""
    for name in FILES:
        text = (FOLDER / name).read_text()
        if name.startswith("errors-mlx-"):
            assert "846d176227a0ac13d2667e58d2bb68b322109ab0" in text, name
        else:
            assert "MTLCommandBuffer.hpp" in text and "flutter/flutter#146011" in text, name
