"""Splut! self-play: the environment a learner trains in, its opponents drawn from the pool
(:mod:`training.pool`) and the bots, with reward shaping.

The learner is one player of :class:`splut_env.envs.gym.SplutGymEnv` (drawn each episode, by
``player_weights``, uniform when empty); every other player is, independently, the latest
snapshot (``p_latest``), an older snapshot (``p_past``, uniformly) or a bot (``p_bots``, by
``bot_weights``). The main process keeps the :class:`training.pool.SnapshotPool` and sends
it to the environment processes whenever it changes
(``vec_env.env_method("set_pool", pool.payload())``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import torch

from splut_env.common.agents import Agent
from splut_env.envs.gym import SplutGymEnv
from splut_env.players import make_agent
from splut_env.players.bots import evaluate
from splut_env.players.network import NetworkShape, PolicyAgent, build_policy
from training.config import PoolConfig
from training.pool import Snapshot, weighted_choice


class SelfPlayEnv(gymnasium.Wrapper):
    """:class:`SplutGymEnv` whose opponents are drawn from the pool at every reset.

    ``info["opponents"]`` names them (snapshot labels or bot names) at every step; at the
    end of an episode ``info["outcome"]`` is the learner's final reward."""

    def __init__(
        self,
        num_players: int,
        max_turns: int,
        pool: PoolConfig,
        network: NetworkShape,
        seed: int = 0,
        shaping: float = 0.0,
        gamma: float = 0.99,
    ) -> None:
        super().__init__(SplutGymEnv(num_players=num_players, max_turns=max_turns))
        torch.set_num_threads(1)
        self.pool_config = pool
        self.network = network
        self._rng = np.random.default_rng(seed)
        self._bots: dict[str, Agent] = {name: make_agent(name) for name in pool.bots}
        self._snapshots: dict[str, PolicyAgent] = {}
        self._order: list[str] = []
        self._opponents: list[str] = []
        self.shaping, self.gamma = shaping, gamma
        self._phi = 0.0

    def set_pool(self, snapshots: Sequence[Snapshot]) -> None:
        """Receive the current pool (weights are only rebuilt for new snapshots)."""
        keep = {label for label, _ in snapshots}
        self._snapshots = {k: v for k, v in self._snapshots.items() if k in keep}
        for label, state in snapshots:
            if label not in self._snapshots:
                policy = build_policy(self.network, ortho_init=False)
                policy.load_state_dict(state)
                self._snapshots[label] = PolicyAgent(policy, label, deterministic=False)
        self._order = [label for label, _ in snapshots]

    def _draw(self) -> str:
        cfg = self.pool_config
        r = self._rng.random()
        if self._order and r < cfg.p_latest:
            return self._order[-1]
        if self._order and r < cfg.p_latest + cfg.p_past:
            past = self._order[:-1] or self._order
            return past[int(self._rng.integers(len(past)))]
        if not self._bots:
            return self._order[-1]
        if cfg.bot_weights:
            return cfg.bots[weighted_choice(self._rng, cfg.bot_weights)]
        names = sorted(self._bots)
        return names[int(self._rng.integers(len(names)))]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        base: SplutGymEnv = self.env.unwrapped
        self._opponents = [self._draw() for _ in range(base.num_players - 1)]
        base.set_opponents(
            [self._snapshots.get(label) or self._bots[label] for label in self._opponents]
        )
        options = dict(options or {})
        weights = self.pool_config.player_weights
        if weights and "learner_player" not in options and base.learner_player is None:
            options["learner_player"] = weighted_choice(self._rng, weights)
        obs, info = self.env.reset(seed=seed, options=options)
        info["opponents"] = list(self._opponents)
        self._phi = self._potential(False)
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["opponents"] = list(self._opponents)
        if terminated or truncated:
            info["outcome"] = reward
        if self.shaping:
            phi = self._potential(terminated or truncated)
            reward += self.shaping * (self.gamma * phi - self._phi)
            self._phi = phi
        return obs, reward, terminated, truncated, info

    def _potential(self, over: bool) -> float:
        if over or not self.shaping:
            return 0.0
        base = self.env.unwrapped
        return max(-5.0, min(5.0, evaluate(base.game_state, base.seat)))

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()
