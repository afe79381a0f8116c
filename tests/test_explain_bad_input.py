"""Bad input: each file gets a clear error of its own, the run goes on, and nothing raises."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explain_shape import check_document
from xlate import explain

GOOD = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def _run(paths: list[str]) -> tuple[int, dict]:
    out = io.StringIO()
    code = explain.run(paths, fmt="json", out=out, jobs=1)
    doc = json.loads(out.getvalue())
    check_document(doc)
    return code, doc


def _file(doc: dict, name: str) -> dict:
    return next(f for f in doc["files"] if Path(f["path"]).name == name)


def _kinds(f: dict) -> set[str]:
    return {e["kind"] for e in f["errors"]}


def test_non_utf8_is_reported_and_still_explained(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.cu"
    bad.write_bytes(b"// caf\xe9\n__global__ void k() { __syncthreads(); }\n")
    code, doc = _run([str(bad)])
    f = _file(doc, "latin1.cu")
    err = next(e for e in f["errors"] if e["kind"] == "encoding")
    assert err["line"] == 1 and "UTF-8" in err["message"]
    assert {a["symbol"] for a in f["annotations"]} >= {"__global__", "__syncthreads"}
    assert code == explain.EXIT_OK


def test_binary_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "blob.cu").write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    (tmp_path / "empty.cu").write_bytes(b"")
    (tmp_path / "good.cu").write_text(GOOD)
    code, doc = _run([str(tmp_path / "blob.cu"), str(tmp_path / "empty.cu"), str(tmp_path / "nope.cu"), str(tmp_path / "good.cu")])
    assert "binary" in _kinds(_file(doc, "blob.cu"))
    assert "empty" in _kinds(_file(doc, "empty.cu"))
    missing = _file(doc, "nope.cu")
    assert missing["errors"][0]["message"] == "no such file or directory"
    assert _file(doc, "good.cu")["annotations"]  # the run went on
    assert code == explain.EXIT_ERROR


def test_twenty_megabyte_file_is_refused_clearly(tmp_path: Path) -> None:
    big = tmp_path / "huge.cu"
    line = b"__device__ float f(float x) { return x * 2.0f; }\n"
    with big.open("wb") as fh:
        for _ in range(20 * 1024 * 1024 // len(line) + 1):
            fh.write(line)
    assert big.stat().st_size >= 20 * 1024 * 1024
    (tmp_path / "good.cu").write_text(GOOD)
    code, doc = _run([str(big), str(tmp_path / "good.cu")])
    err = _file(doc, "huge.cu")["errors"][0]
    assert err["kind"] == "too-large" and "MB" in err["message"]
    assert _file(doc, "good.cu")["annotations"]
    assert code == explain.EXIT_ERROR


@pytest.mark.parametrize("depth", [2000, 20000])
def test_deeply_nested_code(tmp_path: Path, depth: int) -> None:
    src = tmp_path / "deep.cu"
    body = "(" * depth + "threadIdx.x" + ")" * depth
    braces = "{" * depth + "}" * depth
    src.write_text(f"__global__ void k(int* o) {{ o[0] = {body}; {braces} __syncthreads(); }}\n")
    code, doc = _run([str(src)])
    f = _file(doc, "deep.cu")
    assert not (_kinds(f) & {"internal"}), f["errors"]
    assert "__syncthreads" in {a["symbol"] for a in f["annotations"]}


def test_symlink_loops(tmp_path: Path) -> None:
    loop = tmp_path / "loop.cu"
    os.symlink(loop, loop)
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "a" / "k.cu").write_text(GOOD)
    os.symlink(tree, tree / "a" / "back")  # a folder link back to the top
    os.symlink(tree / "self.cu", tree / "self.cu")
    code, doc = _run([str(loop), str(tree)])
    assert _file(doc, "loop.cu")["errors"][0]["message"] == "symbolic link loop"
    assert "symbolic link loop" in _file(doc, "self.cu")["errors"][0]["message"]
    assert len([f for f in doc["files"] if Path(f["path"]).name == "k.cu"]) == 1
    assert code == explain.EXIT_ERROR


def test_unreadable_path_via_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "secret.cu"
    src.write_text(GOOD)
    real_open = open

    def deny(path, *args, **kwargs):  # what a permission-denied read looks like to the process
        if str(path) == str(src):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", deny)
    code, doc = _run([str(src)])
    assert _file(doc, "secret.cu")["errors"][0]["message"] == "cannot read: permission denied"
    assert code == explain.EXIT_ERROR


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_path_by_mode(tmp_path: Path) -> None:
    src = tmp_path / "secret.cu"
    src.write_text(GOOD)
    src.chmod(0)
    try:
        code, doc = _run([str(src)])
    finally:
        src.chmod(0o644)
    assert "permission denied" in _file(doc, "secret.cu")["errors"][0]["message"]


@pytest.mark.slow
def test_command_line_never_prints_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "blob.cu").write_bytes(b"\x00\xff" * 64)
    (tmp_path / "latin1.cu").write_bytes(b"__global__ void k() {} // \xff\n")
    os.symlink(tmp_path / "loop.cu", tmp_path / "loop.cu")
    args = [str(tmp_path / n) for n in ("blob.cu", "latin1.cu", "loop.cu", "missing.cu")]
    for fmt in ("text", "json", "markdown", "sarif"):
        proc = subprocess.run([sys.executable, "-m", "xlate", "explain", "--format", fmt, *args],
                              capture_output=True, text=True, timeout=120)
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        assert proc.returncode == explain.EXIT_ERROR
        assert "symbolic link loop" in proc.stdout


def test_pipes_and_devices_are_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.cu"
    os.mkfifo(fifo)
    code, doc = _run([str(fifo), "/dev/zero"])
    assert "not a regular file" in _file(doc, "pipe.cu")["errors"][0]["message"]
    assert "not a regular file" in _file(doc, "zero")["errors"][0]["message"]
    assert code == explain.EXIT_ERROR


def test_walk_skips_pipes_in_a_tree(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.cpp")
    (tmp_path / "k.cu").write_text(GOOD)
    code, doc = _run([str(tmp_path)])
    assert [Path(f["path"]).name for f in doc["files"]] == ["k.cu"]
    assert code == explain.EXIT_OK
