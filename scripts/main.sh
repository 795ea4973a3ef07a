#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job: a game between bots, shown in the terminal,
# with the final board saved to out/demo_final.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m splut_env.demo --players random random --seed 0 --image out/demo_final.png "$@"
