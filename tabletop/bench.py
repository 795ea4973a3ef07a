"""Throughput benchmark for any registered game:
``python -m tabletop.bench --game talat [--players N ...] [--seconds S] [--json]``.

For each table size it measures, in one run:

1. random playouts through the game's text API (``legal_moves`` + ``play``), moves/s;
2. the loops the game supplies (:meth:`tabletop.games.Game.benchmarks`: its engine's fast
   interface, a batched engine...);
3. the game's PettingZoo AEC environment as a user steps it (``env()`` with the standard
   wrappers, ``last()``, a random legal action) and PettingZoo's ``connect_four_v3`` stepped
   the same way, in alternating slices of time so that a change in the machine's load
   touches both alike, and their ratio;
4. :class:`tabletop.vector.GamesVectorEnv` (64 games, random opponents), learner steps/s.

Times are this process's CPU time, so other work on the machine slows no figure. With
``--json`` the lines go to stderr as progress and stdout gets one JSON object of every
figure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.agents import load_entry_point
from tabletop.cli import int_range, seconds
from tabletop.games import DEFAULT_GAME, Game, game_names, get_game


class AECRunner:
    """Plays random games through one AEC environment, a slice of CPU time at a time."""

    def __init__(self, make_env: Callable[[], Any], seed: int = 0) -> None:
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0
        self.run(0.0)  # one game first, uncounted: imports, compiled kernels, caches
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` of CPU time."""
        env, rng = self.env, self.rng
        start = time.process_time()
        deadline = start + seconds
        steps = 0
        while steps == 0 or time.process_time() < deadline:
            env.reset(seed=self.seed + self.games)
            self.games += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                env.step(action)
                steps += 1
        self.seconds = getattr(self, "seconds", 0.0) + time.process_time() - start
        self.steps = getattr(self, "steps", 0) + steps

    @property
    def rate(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def connect_four() -> Any:
    """PettingZoo's ``connect_four_v3`` AEC environment, the reference."""
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def aec_against_connect_four(
    game: Game, num_players: int, seconds: float = 4.0, slices: int = 8
) -> tuple[float, float]:
    """``(game, connect_four_v3)`` AEC steps per second, in alternating slices."""
    make = load_entry_point(game.env_entry_point)
    ours, c4 = AECRunner(lambda: make(num_players=num_players)), AECRunner(connect_four)
    for _ in range(slices):
        ours.run(seconds / (2 * slices))
        c4.run(seconds / (2 * slices))
    return ours.rate, c4.rate


def text_api_playouts(game: Game, num_players: int, seconds: float) -> float:
    """Moves per CPU second of random playouts through ``legal_moves`` and ``play``."""
    rng = random.Random(0)
    moves = 0
    start = time.process_time()
    while moves == 0 or time.process_time() - start < seconds:
        state = game.initial_state(num_players)
        while game.player_to_move(state) is not None and moves < 10**7:
            state = game.play(state, rng.choice(game.legal_moves(state)))
            moves += 1
            if game.turn(state) is not None and game.turn(state) > game.max_turns:
                break
    return moves / (time.process_time() - start)


def vector_steps(game: Game, num_players: int, seconds: float, num_envs: int = 64) -> float:
    """Learner steps per CPU second of :class:`GamesVectorEnv` with random opponents."""
    from tabletop.vector import GamesVectorEnv

    env = GamesVectorEnv(game, num_envs=num_envs, num_players=num_players, opponents="random")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    start = time.process_time()
    while steps == 0 or time.process_time() - start < seconds:
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += num_envs
    return steps / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, choices=game_names())
    parser.add_argument("--players", type=int_range(2, 8), nargs="+", help="table sizes")
    parser.add_argument("--seconds", type=seconds, default=2.0, help="per figure")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object of every figure on stdout"
    )
    args = parser.parse_args(argv)
    game = get_game(args.game)
    sizes = args.players or list(game.player_counts)
    for n in sizes:
        if n not in game.player_counts:
            parser.error(f"--players must be {game.counts_text()} for {game.title}, got {n}")
    out = sys.stderr if args.json else sys.stdout
    figures: dict[str, float] = {}

    def report(key: str, value: float, unit: str) -> None:
        figures[key] = value
        print(f"{key}: {value:,.0f} {unit}", file=out, flush=True)

    for n in sizes:
        report(f"{n}p text API playouts", text_api_playouts(game, n, args.seconds), "moves/s")
        for label, loop in game.benchmarks(n).items():
            report(f"{n}p {label}", loop(args.seconds), "moves/s")
        ours, c4 = aec_against_connect_four(game, n, 2 * args.seconds)
        report(f"{n}p AEC env", ours, "steps/s")
        report(f"{n}p connect_four_v3 (same run)", c4, "steps/s")
        figures[f"{n}p AEC env / connect_four_v3"] = ours / c4
        print(f"{n}p AEC env / connect_four_v3: {ours / c4:.2f}", file=out, flush=True)
        report(f"{n}p vector env (64 games)", vector_steps(game, n, args.seconds), "steps/s")
    if args.json:
        print(json.dumps({"game": game.name, **figures}))


if __name__ == "__main__":
    main()
