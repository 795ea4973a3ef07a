"""Throughput benchmark: ``python -m splut_env.bench [--seconds S] [--players N] [--json]``.

Prints, measured in one run on one core, random-playout steps per second through:

1. the engine's fast interface (``State.legal_ids`` + ``State.apply``),
2. the string API (``rules.legal_steps`` + ``rules.play``),
3. the wrapped PettingZoo AEC env (``splut_env.env()``), with ``last()`` building the
   observation and mask before every step,
4. ``pettingzoo.classic.connect_four_v3.env()`` in the same loop (turns per second),
5. the batched engine (:class:`splut_env.batched.BatchedGames`, ``--batch`` games, default
   1,024) stepping every game with a random legal action, its masks kept up to date, and
6. the same with the observation planes of every game after every step,

the ratios of (3) to (4) and of (5) and (6) to (1), and the batched engine's compile times:
from scratch (in a child process with an empty cache) and loading the cached kernels. With
``--json`` the lines go to stderr as progress and stdout gets one JSON object with every
figure, for tools to read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from splut_env import rules
from splut_env.batched import BatchedGames, compile_kernels
from splut_env.envs.aec import env as splut_aec_env
from tabletop.cli import seconds


def engine_playouts(players: int, seconds: float) -> float:
    rng = random.Random(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = rules.initial_state(players)
        while not state.is_over() and state.turn <= 200:
            state.apply(rng.choice(state.legal_ids()))
            steps += 1
    return steps / (time.perf_counter() - start)


def string_api_playouts(players: int, seconds: float) -> float:
    rng = random.Random(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = rules.initial_state(players)
        while not rules.is_over(state) and state.turn <= 200:
            state = rules.play(state, rng.choice(rules.legal_steps(state)))
            steps += 1
    return steps / (time.perf_counter() - start)


def aec_playouts(make_env: Callable, seconds: float) -> float:
    """Agent steps per second of a masked AEC env driven by uniformly random legal actions."""
    rng = random.Random(0)
    env = make_env()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=steps)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            steps += 1
    env.close()
    return steps / (time.perf_counter() - start)


def batched_playouts(players: int, batch: int, seconds: float, planes: bool) -> float:
    """Steps per second of ``batch`` games stepped together with random legal actions
    (finished or capped games restart), optionally building every game's planes."""
    rng = np.random.default_rng(0)
    games = BatchedGames(batch, players, 200)
    out = np.empty((batch, 22, 9, 9), dtype=np.float32)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        games.step(games.random_actions(rng), autoreset=True)
        if planes:
            games.observations(out=out)
        steps += batch
    return steps / (time.perf_counter() - start)


def compile_seconds() -> float:
    """Seconds to compile every kernel from scratch, in a child process whose kernel cache
    is an empty folder."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        code = "from splut_env.batched import compile_kernels; print(compile_kernels())"
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=seconds, default=5.0, help="time per measurement")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument(
        "--batch", type=int, default=1024, help="games stepped together by the batched engine"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object of every figure on stdout"
    )
    args = parser.parse_args(argv)
    out = sys.stderr if args.json else sys.stdout
    figures: dict[str, float | int | str | None] = {
        "players": args.players,
        "seconds_per_figure": args.seconds,
    }

    def report(key: str, label: str, rate: float, unit: str = "steps/s") -> float:
        print(f"{label:<48} {rate:>12,.0f} {unit}", file=out, flush=True)
        figures[key] = rate
        return rate

    print(
        f"Splut! benchmark, {args.players} players, {args.seconds:g} s per line, one core",
        file=out,
    )
    engine = report(
        "engine_steps_per_s",
        "engine (legal_ids + apply)",
        engine_playouts(args.players, args.seconds),
    )
    report(
        "string_api_steps_per_s",
        "string API (legal_steps + play)",
        string_api_playouts(args.players, args.seconds),
    )
    splut = report(
        "aec_steps_per_s",
        "AEC env() with observation + mask every step",
        aec_playouts(lambda: splut_aec_env(num_players=args.players), args.seconds),
    )
    figures["connect_four_turns_per_s"] = figures["aec_over_connect_four"] = None
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as err:  # connect four's module needs pygame
        print(f"connect_four_v3 unavailable ({err}); pip install 'splut-env[dev]'", file=out)
    else:
        c4 = report(
            "connect_four_turns_per_s",
            "pettingzoo connect_four_v3 env(), same loop",
            aec_playouts(connect_four_v3.env, args.seconds),
            "turns/s",
        )
        figures["aec_over_connect_four"] = splut / c4
        print(f"{'ratio splut AEC / connect four':<48} {splut / c4:>12.2f} x", file=out)
    figures["batch"] = args.batch
    cached = figures["compile_cached_s"] = compile_kernels()
    print(f"{'batched engine: kernels loaded from the cache':<48} {cached:>12.2f} s", file=out)
    compiled = compile_seconds()
    figures["compile_from_scratch_s"] = compiled
    print(f"{'batched engine: kernels compiled from scratch':<48} {compiled:>12.2f} s", file=out)
    for key, label, planes in (
        ("batched_masks", "masks", False),
        ("batched_planes", "masks + planes", True),
    ):
        rate = report(
            f"{key}_steps_per_s",
            f"batched engine, {args.batch} games, {label}",
            batched_playouts(args.players, args.batch, args.seconds, planes),
        )
        figures[f"{key}_over_engine"] = rate / engine
        print(f"{'  ratio to the engine':<48} {rate / engine:>12.1f} x", file=out, flush=True)
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
