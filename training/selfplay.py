"""Splut! self-play in one process: the games a learner trains in, its opponents drawn from
the pool (:mod:`training.pool`) and the bots, with reward shaping computed in the kernels.

:class:`SelfPlayVecEnv` is a :class:`splut_env.envs.vector.SplutVectorEnv` whose opponents
are drawn for every game at every reset: each other player is, independently, the latest
snapshot (``p_latest``), an older snapshot (``p_past``, uniformly) or a bot (``p_bots``, by
``bot_weights``); the learner's player index is drawn by ``player_weights`` (uniform when
empty). Snapshots play batched: one forward pass per snapshot for every game where it is to
move. When a game ends, ``infos["final_info"]`` holds its ``outcome`` (the learner's final
reward, before shaping) and its ``opponents`` (snapshot labels or bot names). After
:meth:`~SelfPlayVecEnv.record_positions`, every step keeps the positions the learner acted
in (the batched engine's game rows), for labelling them afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from splut_env.envs.vector import SplutVectorEnv
from splut_env.players import make_agent
from splut_env.players.bots import POTENTIAL_BOUND
from splut_env.players.network import NetworkShape, PolicyAgent, build_policy
from tabletop.vector import active_games
from training.config import PoolConfig
from training.pool import Snapshot, draw_opponent


class SelfPlayVecEnv(SplutVectorEnv):
    """``num_envs`` self-play games; see the module doc. ``shaping`` adds
    ``shaping * (gamma * phi(s') - phi(s))`` to the learner's rewards, ``phi`` being the bots'
    static evaluation for the learner clipped to ±``POTENTIAL_BOUND`` (the batched form of
    :func:`splut_env.players.bots.potential`; 0 once its game is over). Each game starts
    after ``opening_steps`` random steps."""

    def __init__(
        self,
        num_envs: int,
        num_players: int,
        max_turns: int,
        pool: PoolConfig,
        network: NetworkShape,
        seed: int = 0,
        shaping: float = 0.0,
        gamma: float = 0.99,
        opening_steps: int = 0,
    ) -> None:
        self.pool_config = pool
        self.network = network
        self.shaping, self.gamma = shaping, gamma
        self._snapshots: dict[str, PolicyAgent] = {}
        self._order: list[str] = []
        super().__init__(
            num_envs, num_players, max_turns, opponents="random", opening_steps=opening_steps
        )
        self._rng = np.random.default_rng(seed)
        self._bot_slots = [self._slot(name, make_agent(name)) for name in pool.bots]
        self._labels = np.full((self.num_envs, num_players - 1), "", dtype=object)
        self._phi = np.zeros(self.num_envs)
        self._positions: list[np.ndarray] | None = None

    def record_positions(self) -> None:
        """From now on keep, at every step, the game rows the learner's actions were chosen
        in (:meth:`take_positions`)."""
        self._positions = []

    def take_positions(self) -> np.ndarray:
        """The rows kept since the last call, ``int64[steps, num_envs, row]``; starts afresh."""
        if self._positions is None:
            raise RuntimeError("take_positions() needs record_positions() first")
        width = self.games.games.shape[1]
        rows = (
            np.stack(self._positions)
            if self._positions
            else np.empty((0, self.num_envs, width), np.int64)
        )
        self._positions = []
        return rows

    def set_pool(self, snapshots: Sequence[Snapshot]) -> None:
        """Take the current pool (weights are only loaded for new snapshots); games pick
        their opponents from it at their next reset."""
        for label, state in snapshots:
            if label not in self._snapshots:
                policy = build_policy(self.network, ortho_init=False)
                policy.load_state_dict(state)
                self._snapshots[label] = PolicyAgent(
                    policy, label, deterministic=False, max_turns=self.max_turns
                )
        self._order = [label for label, _ in snapshots]
        for label in sorted(set(self._snapshots) - set(self._order)):
            if self.drop_agent(self._snapshots[label]):
                del self._snapshots[label]

    def choose_opponents(self, rows: np.ndarray) -> np.ndarray:
        cfg, rng = self.pool_config, self._rng
        chosen = np.empty((len(rows), self.num_players - 1), dtype=np.int64)
        for j, row in enumerate(rows.tolist()):
            for k in range(self.num_players - 1):
                label, pick = draw_opponent(rng, cfg, self._order, len(self._bot_slots))
                if label is None:
                    self._labels[row, k] = cfg.bots[pick]
                    chosen[j, k] = self._bot_slots[pick]
                    continue
                self._labels[row, k] = label
                chosen[j, k] = self._slot(label, self._snapshots[label])
        return chosen

    def choose_players(self, rows: np.ndarray) -> np.ndarray:
        weights = self.pool_config.player_weights
        if not weights:
            return super().choose_players(rows)
        p = np.asarray(weights, dtype=float)
        return self._rng.choice(len(p), size=len(rows), p=p / p.sum())

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, infos = super().reset(seed=seed, options=options)
        self._phi = self._potential(np.arange(self.num_envs))
        return obs, infos

    @property
    def pool_labels(self) -> list[str]:
        """The snapshots games draw from, oldest first (the last is the latest)."""
        return list(self._order)

    def step(self, actions: Any, active: Any = None):
        """As :meth:`SplutVectorEnv.step`; games left out by ``active`` get no shaping."""
        labels = self._labels.copy()
        if self._positions is not None:
            self._positions.append(self.games.games.copy())
        obs, rewards, terminated, truncated, infos = super().step(actions, active)
        stepped = active_games(active, self.num_envs)
        done = terminated | truncated
        if self.shaping:
            # The potential after the step: 0 for a game that ended, whose row now holds a
            # new game (whose own potential starts the next step's difference).
            phi = self._potential(np.arange(self.num_envs))
            after = np.where(done, 0.0, phi)
            shaped = self.shaping * (self.gamma * after - self._phi)
            rewards = rewards + np.where(stepped, shaped, 0.0).astype(np.float32)
            self._phi = np.where(stepped, phi, self._phi)
        if done.any():
            infos["final_info"]["opponents"] = labels
            infos["final_info"]["_opponents"] = done
        return obs, rewards, terminated, truncated, infos

    def _potential(self, rows: np.ndarray) -> np.ndarray:
        if not self.shaping:
            return np.zeros(len(rows))
        bound = POTENTIAL_BOUND
        return np.clip(self.games.evaluate(self.seat[rows], rows), -bound, bound)
