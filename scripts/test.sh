#!/usr/bin/env bash
# The whole test suite on a fresh machine: install what the tests need, then run them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
export NO_MKDOCS_2_WARNING=1
# The linter and the type checker (settings in pyproject.toml) before the tests: either failing fails CI.
python3 -m ruff check src tests benchmarks scripts
python3 -m mypy
exec python3 -m pytest -q "$@"
