"""The batched engine: many games in one array, stepped by compiled (numba) kernels.

:class:`BatchedGames` is the same game as :class:`splut_env.rules.State` (checked state by
state in the tests), with the legal-action masks and observation planes of
:mod:`splut_env.encoding` built in the kernels; :class:`BatchedBot` plays ``greedy`` and the
search bots (``search:expert`` included) in them. :mod:`splut_env.envs.vector` puts a
Gymnasium vector environment on top.

Kernels are compiled on first use and cached on disk (numba's ``cache=True``: next to the
sources, or under ``NUMBA_CACHE_DIR``), so only the first process pays the compile time.
"""

from __future__ import annotations

import time

import numpy as np

from splut_env.batched.bots import BatchedBot
from splut_env.batched.games import BatchedGames
from splut_env.batched.shield import CompiledTactics

__all__ = ["BatchedBot", "BatchedGames", "compile_kernels"]


def compile_kernels() -> float:
    """Compile every kernel, or load it from the cache; the seconds it took."""
    started = time.perf_counter()
    games = BatchedGames(2, 2)
    rng = np.random.default_rng(0)
    games.step(games.random_actions(rng))
    games.observations()
    games.action_masks(seats=[0, 0])
    games.evaluate([0, 0])
    games.perft(0, 2)
    BatchedBot("search:hard", seed=0).act_games(games, np.arange(2))
    BatchedBot("search:expert", seed=0, nodes=50).act_games(games, np.arange(2))
    tactics = CompiledTactics()
    state = games.state(0)
    tactics.escapes(state, min(tactics.tiers(state)))
    return time.perf_counter() - started
