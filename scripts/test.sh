#!/usr/bin/env bash
# The whole test suite on a fresh machine: install what the tests need, then run them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
export NO_MKDOCS_2_WARNING=1
exec python3 -m pytest -q "$@"
