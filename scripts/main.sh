#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job: a short self-play training run on the
# default settings (about 10 minutes on 2 cores). It ends by printing its evaluation table
# and the path of its checkpoint (under runs/). Extra arguments go to training.train, e.g.
# total_steps=20000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m training.train --config configs/splut/default.yaml "$@"
