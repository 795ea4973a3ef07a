#!/usr/bin/env bash
# Reproduce the baseline bots' reference figures (README "Baseline bots"): 200 games per
# pairing, seats alternated, both cores; results under results/baselines/.
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
out=results/baselines
$py -m training.evaluate --agents greedy random --games 200 --seed 1 --out $out/greedy_vs_random
$py -m training.evaluate --agents search:easy greedy --games 200 --seed 2 --out $out/easy_vs_greedy
$py -m training.evaluate --agents search:hard search:easy --games 200 --seed 3 --out $out/hard_vs_easy
$py -m training.evaluate --agents random greedy search:easy search:medium --players 4 \
    --games 200 --seed 4 --out $out/four_players
