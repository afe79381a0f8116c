-- xlate language server for Neovim 0.8 and newer: put this in init.lua.
-- vim.lsp.start reuses the running client for every buffer with the same name and root.
vim.filetype.add({ extension = { hip = "hip", metal = "metal" } })

vim.api.nvim_create_autocmd("FileType", {
  group = vim.api.nvim_create_augroup("xlate_lsp", { clear = true }),
  pattern = { "cuda", "hip", "metal" },
  callback = function(args)
    vim.lsp.start({
      name = "xlate",
      cmd = vim.g.xlate_cmd or { "xlate", "lsp" },
      root_dir = vim.fn.getcwd(),
    }, { bufnr = args.buf })
  end,
})
