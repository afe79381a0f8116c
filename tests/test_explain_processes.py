"""Worker processes of `xlate explain DIR --jobs 3` (two forked copies besides itself) and `xlate
translate DIR --jobs 2` (two pool workers) end with their parent, however the parent ends.

Each test starts a real run over a tree big enough to keep two workers busy for a while, waits for
the workers to exist, signals the parent, and checks 3 s later that no worker is left running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")]

BLOCK = """
__global__ void k{i}(float* x, int n) {{
  int lane = threadIdx.x % 32;
  for (int o = 16; o > 0; o /= 2) x[lane] += __shfl_down_sync(0xffffffff, x[lane], o);
  if (lane == 0) atomicAdd(x, 1.0f);
  cudaMemcpyAsync(x, x, n, cudaMemcpyDeviceToDevice, 0);
}}
"""


def _tree(root: Path, files: int = 160, blocks: int = 400) -> Path:
    tree = root / "tree"
    tree.mkdir()
    text = "#include <cuda_runtime.h>\n" + "".join(BLOCK.format(i=i) for i in range(blocks))
    for k in range(files):
        (tree / f"f{k}.cu").write_text(text)
    return tree


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie (an exited child nobody has reaped yet is not running)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _command(name: str, tree: Path) -> list[str]:
    if name == "translate":
        return ["translate", "--to", "hip", str(tree), "-o", str(tree.parent / "out"), "--jobs", "2", "--summary", "none"]
    # explain counts itself among its --jobs processes: 3 gives two forked copies
    return ["explain", str(tree), "--jobs", "3", "--format", "json"]


def _start(tree: Path, tmp_path: Path, command: str = "explain") -> tuple[subprocess.Popen[bytes], set[int]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "xlate", *_command(command, tree)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 2:
            time.sleep(0.5)  # let them start on their first files
            return proc, _children(proc.pid) | workers
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    pytest.fail(f"the run never showed two workers (exit {proc.returncode})")


@pytest.mark.parametrize("command", ["explain", "translate"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_workers_end_when_the_parent_is_killed(tmp_path: Path, sig: signal.Signals, command: str) -> None:
    proc, workers = _start(_tree(tmp_path), tmp_path, command)
    assert workers
    os.kill(proc.pid, sig)
    proc.wait(timeout=10)
    time.sleep(3)
    left = sorted(p for p in workers if _running(p))
    assert not left, f"workers still running 3 s after {sig.name} to the parent: {left}"


@pytest.mark.parametrize("command", ["explain", "translate"])
def test_ctrl_c_ends_the_run_at_once_with_exit_130(tmp_path: Path, command: str) -> None:
    proc, workers = _start(_tree(tmp_path), tmp_path, command)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run did not end within 10 s of Ctrl-C")
    took = time.monotonic() - t0
    assert proc.returncode == 130
    assert b"interrupted" in err and b"Traceback" not in err, err.decode(errors="replace")
    assert took < 3, f"took {took:.1f} s to end after Ctrl-C"
    time.sleep(3)
    assert not [p for p in workers if _running(p)]
