#!/usr/bin/env bash
# Set up (scripts/setup.sh), lint, and run the whole test suite on both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m pytest -n 2 "$@"
