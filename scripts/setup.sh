#!/usr/bin/env bash
# Set up a fresh machine: a virtual environment in .venv with splut-env and everything the
# tests and the main job need. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# The CPU build of torch first, pinned: an unpinned torch can pull a multi-GB CUDA build.
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e ".[dev,train,web,ray,docs]"
# Compile the batched engine's kernels once (numba caches them on disk for every later run).
.venv/bin/python -c 'from splut_env.batched import compile_kernels as c; print(f"batched engine kernels ready ({c():.1f} s)")'
