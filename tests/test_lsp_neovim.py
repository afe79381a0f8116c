"""The language server in a real editor: Debian's Neovim, headless, asks for a hover and diagnostics."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (apt-get install neovim)")]

# Neovim 0.7's API: start_client + buf_attach_client, then a synchronous hover request.
SCRIPT = r"""
local out_path = vim.env.XLATE_NVIM_OUT
local client_id = vim.lsp.start_client({
  cmd = { vim.env.XLATE_PYTHON, "-m", "xlate", "lsp" },
  root_dir = vim.fn.getcwd(),
  name = "xlate",
})
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)
local client = vim.lsp.get_client_by_id(client_id)
vim.wait(10000, function() return client.initialized end, 50)
local diagnostics = {}
vim.wait(10000, function()
  diagnostics = vim.diagnostic.get(bufnr)
  return #diagnostics > 0
end, 50)
local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 1, character = 20 } }
local results = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
local hover = nil
for _, res in pairs(results or {}) do
  if res.result and res.result.contents then hover = res.result.contents.value end
end
local codes = {}
for _, d in ipairs(diagnostics) do table.insert(codes, d.code or "") end
local f = io.open(out_path, "w")
f:write(vim.fn.json_encode({ initialized = client.initialized, hover = hover, codes = codes }))
f:close()
vim.lsp.stop_client(client_id)
vim.cmd("qa!")
"""


def test_neovim_gets_a_hover_and_diagnostics(tmp_path: Path) -> None:
    source = tmp_path / "kernel.cu"
    source.write_text("__global__ void k(float* v) {\n    float x = __shfl_down_sync(0xffffffff, v[0], 16);\n}\n")
    script = tmp_path / "hover.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "out.json"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XLATE_NVIM_OUT": str(out), "XLATE_PYTHON": sys.executable,
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([NVIM, "--headless", "--clean", "-c", "set filetype=cuda", "-c", f"luafile {script}", str(source)],
                          cwd=Path(__file__).resolve().parents[1], env=env, capture_output=True, text=True, timeout=120)
    assert out.exists(), proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    assert data["initialized"]
    assert data["hover"] and "simd_shuffle_down" in data["hover"]
    assert any("lane-mask-width" in c for c in data["codes"]), data["codes"]
