#!/usr/bin/env bash
# Set up (scripts/setup.sh and Debian's chromium), lint, build the documentation site offline in
# strict mode (a broken link, anchor or API reference fails it), and run the whole test suite on
# both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The browser test drives Debian's chromium through Playwright (no browser download).
if ! command -v chromium >/dev/null; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports --no-cache  # pyproject.toml's import contract: layers, no upward import
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$(mktemp -d)"
.venv/bin/python -m pytest -n 2 "$@"
