-- xlate language server for Neovim 0.7 (no vim.lsp.start): put this in init.lua.
-- One client, started on the first CUDA, HIP or Metal buffer and attached to every later one; the
-- FileType event fires again when a buffer is re-read (`:e`), so the buffer is attached again.
vim.cmd([[
  augroup xlate_filetypes
    autocmd!
    autocmd BufRead,BufNewFile *.hip setfiletype hip
    autocmd BufRead,BufNewFile *.metal setfiletype metal
  augroup END
]])

local xlate_client = nil

local function xlate_attach(args)
  -- get_client_by_id also knows a client still starting (client_is_stopped would call it stopped
  -- and start a second one for the next buffer).
  if xlate_client == nil or vim.lsp.get_client_by_id(xlate_client) == nil then
    xlate_client = vim.lsp.start_client({
      name = "xlate",
      cmd = vim.g.xlate_cmd or { "xlate", "lsp" },
      root_dir = vim.fn.getcwd(),
    })
  end
  if xlate_client ~= nil then
    vim.lsp.buf_attach_client(args.buf, xlate_client)
  end
end

vim.api.nvim_create_autocmd("FileType", {
  group = vim.api.nvim_create_augroup("xlate_lsp", { clear = true }),
  pattern = { "cuda", "hip", "metal" },
  callback = xlate_attach,
})
