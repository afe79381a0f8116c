"""`xlate lsp`: the language server. One module per job:

- `protocol`: JSON-RPC over stdio that answers every request (InvalidParams, ParseError), reads
  bodies that are not UTF-8, negotiates `positionEncoding`;
- `positions`: columns between code points and the client's encoding;
- `passes` (server side) and `worker` (its process): diagnostics computed off the request thread,
  cancellable, within a time budget, with `$/progress`;
- `cards`: hover and completion text from the symbol rows;
- `settings`: backends to warn about, rule selection, the pass budget;
- `server`: the features.
"""

from __future__ import annotations


def main() -> None:
    from xlate.lsp.server import main as serve

    serve()
