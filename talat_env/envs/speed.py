"""Stepping speed of the AEC environment as a user plays it: ``env()`` with PettingZoo's
standard wrappers, ``env.last()``, then a uniformly random legal action (``None`` for an
agent whose game is over), whole games from ``reset()``. PettingZoo's ``connect_four_v3``
is stepped the same way for comparison. Time is this process's CPU time, so other work on
the machine slows neither side::

    python -m talat_env.envs.speed
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


class _Runner:
    """Plays random games through one environment, a slice of time at a time."""

    def __init__(self, make_env: Callable[[], Any], seed: int = 0) -> None:
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0
        self.steps = 0
        self.seconds = 0.0
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
        self.seconds += time.process_time() - start
        self.steps += steps

    @property
    def rate(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def _talat(num_players: int) -> Callable[[], Any]:
    from talat_env.envs.aec import env

    return lambda: env(num_players=num_players)


def _connect_four() -> Any:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def aec_steps_per_second(num_players: int, seconds: float = 2.0) -> float:
    """Steps per second of Talat's AEC env (``talat_env.envs.aec.env``) under random play."""
    runner = _Runner(_talat(num_players))
    runner.run(seconds)
    return runner.rate


def connect_four_steps_per_second(seconds: float = 2.0) -> float:
    """Steps per second of PettingZoo's ``connect_four_v3`` stepped the same way."""
    runner = _Runner(_connect_four)
    runner.run(seconds)
    return runner.rate


def compare(num_players: int, seconds: float = 4.0, slices: int = 8) -> tuple[float, float]:
    """``(talat, connect_four_v3)`` steps per second, measured in alternating slices of
    time so that a change in the machine's load affects both alike."""
    talat, c4 = _Runner(_talat(num_players)), _Runner(_connect_four)
    for _ in range(slices):
        talat.run(seconds / (2 * slices))
        c4.run(seconds / (2 * slices))
    return talat.rate, c4.rate


def main() -> None:
    """Print both speeds and their ratio, for 2 and 3 players."""
    for n in (2, 3):
        talat, c4 = compare(n)
        print(
            f"talat_v0 {n}p: {talat:,.0f} steps/s; connect_four_v3: {c4:,.0f} steps/s; "
            f"ratio {talat / c4:.2f}"
        )


if __name__ == "__main__":
    main()
