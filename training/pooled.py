"""Self-play for any game on :class:`tabletop.vector.GamesVectorEnv`: the games a learner
trains in, its opponents drawn at every reset from the snapshot pool
(:mod:`training.pool`) and the bots, as :class:`training.selfplay.SelfPlayVecEnv` does for
Splut!'s batched engine. A game's training kit (:mod:`training.kits`) builds it with the
factory that turns a snapshot's weights into a player."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.agents import Agent
from tabletop.games import get_game
from tabletop.netplayer import Shape
from tabletop.network import PlanesPolicy, PolicyAgent, build_policy
from tabletop.vector import GamesVectorEnv, active_games
from training import imitation
from training.config import ConfigError
from training.kits import TrainingKit
from training.pool import Snapshot, draw_opponent


class PooledSelfPlayEnv(GamesVectorEnv):
    """``num_envs`` self-play games of ``game``: each other player is, independently, the
    latest snapshot (``pool.p_latest``), an older one (``pool.p_past``) or a bot
    (``pool.p_bots`` by ``pool.bot_weights``); the learner's player index is drawn by
    ``pool.player_weights`` (uniform when empty). ``snapshot_agent(weights, label)`` makes the
    player of a snapshot. ``shaping`` adds ``shaping * (gamma * phi(s') - phi(s))`` to the
    learner's rewards, ``phi`` being :meth:`Game.potential` of the learner (0 once its game is
    over). A finished game's ``final_info`` holds its ``outcome`` (before shaping) and its
    ``opponents`` (snapshot labels or bot names)."""

    def __init__(
        self,
        game: Any,
        num_envs: int,
        num_players: int,
        max_turns: int,
        pool: Any,
        snapshot_agent: Callable[[dict, str], Agent],
        seed: int = 0,
        opening_steps: int = 0,
        shaping: float = 0.0,
        gamma: float = 0.99,
    ) -> None:
        self.pool_config = pool
        self.shaping, self.gamma = shaping, gamma
        self._snapshot_agent = snapshot_agent
        self._snapshots: dict[str, Agent] = {}
        self._order: list[str] = []
        super().__init__(
            game, num_envs, num_players, max_turns, opponents="random", opening_steps=opening_steps
        )
        self._rng = np.random.default_rng(seed)
        self._bot_slots = [self._slot(self.game.make_agent(name)) for name in pool.bots]
        self._labels = np.full((self.num_envs, num_players - 1), "", dtype=object)
        self._phi = np.zeros(self.num_envs)

    def set_pool(self, snapshots: Sequence[Snapshot]) -> None:
        """Take the current pool (weights are loaded for new snapshots only); games pick
        their opponents from it at their next reset."""
        for label, state in snapshots:
            if label not in self._snapshots:
                self._snapshots[label] = self._snapshot_agent(state, label)
        self._order = [label for label, _ in snapshots]
        in_play = set(self._seat_agent.ravel().tolist())
        for label in sorted(set(self._snapshots) - set(self._order)):
            agent = self._snapshots[label]
            index = next((i for i, known in enumerate(self._agents) if known is agent), None)
            if index is None or index not in in_play:
                del self._snapshots[label]

    def choose_opponents(self, rows: np.ndarray) -> np.ndarray:
        cfg = self.pool_config
        chosen = np.empty((len(rows), self.num_players - 1), dtype=np.int64)
        for j, row in enumerate(rows.tolist()):
            for k in range(self.num_players - 1):
                label, pick = draw_opponent(self._rng, cfg, self._order, len(self._bot_slots))
                if label is None:
                    self._labels[row, k] = cfg.bots[pick]
                    chosen[j, k] = self._bot_slots[pick]
                else:
                    self._labels[row, k] = label
                    chosen[j, k] = self._slot(self._snapshots[label])
        return chosen

    def choose_players(self, rows: np.ndarray) -> np.ndarray:
        weights = self.pool_config.player_weights
        if not weights:
            return super().choose_players(rows)
        p = np.asarray(weights, dtype=float)
        return self._rng.choice(len(p), size=len(rows), p=p / p.sum())

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, infos = super().reset(seed=seed, options=options)
        self._phi = self._potential()
        return obs, infos

    def _potential(self) -> np.ndarray:
        if not self.shaping:
            return np.zeros(self.num_envs)
        return np.array(
            [self.game.potential(s, int(k)) for s, k in zip(self.states, self.player, strict=True)]
        )

    @property
    def pool_labels(self) -> list[str]:
        """The snapshots games draw from, oldest first (the last is the latest)."""
        return list(self._order)

    def step(self, actions: Any, active: Any = None):
        """As :meth:`GamesVectorEnv.step`; games left out by ``active`` get no shaping."""
        labels = self._labels.copy()
        obs, rewards, terminated, truncated, infos = super().step(actions, active)
        stepped = active_games(active, self.num_envs)
        done = terminated | truncated
        if self.shaping:
            # The potential after the step: 0 for a game that ended, whose row now holds a
            # new game (whose own potential starts the next step's difference).
            phi = self._potential()
            after = np.where(done, 0.0, phi)
            shaped = self.shaping * (self.gamma * after - self._phi)
            rewards = rewards + np.where(stepped, shaped, 0.0).astype(np.float32)
            self._phi = np.where(stepped, phi, self._phi)
        if done.any():
            infos["final_info"]["opponents"] = labels
            infos["final_info"]["_opponents"] = done
        return obs, rewards, terminated, truncated, infos


class PooledKit(TrainingKit):
    """The kit of a game trained through the core (its :class:`~tabletop.games.Game`
    descriptor and a :mod:`tabletop.network` policy): self-play in
    :class:`PooledSelfPlayEnv`, the imitation warm start of :mod:`training.imitation`, and
    ``init_from`` from the game's player files. A game's kit names its game, layout and
    player-file functions, and says how a config's ``network`` becomes a
    :class:`~tabletop.netplayer.Shape` (:meth:`shape`) and its policy's keyword arguments."""

    policy_class = PlanesPolicy
    #: The observation dict of the player to move in a state.
    observe: Callable[[Any], dict]
    #: The game's observation shape and action count.
    obs_shape: tuple[int, ...]
    num_actions: int

    def shape(self, network: Any) -> Shape:
        """The config's ``network`` section as the player file's network shape."""
        raise NotImplementedError

    def network_save(self, policy: Any, path: Path, shape: Shape, players: int, **facts: Any):
        """Write the game's player file."""
        raise NotImplementedError

    def selfplay_env(self, config: Any) -> PooledSelfPlayEnv:
        def snapshot_agent(weights: dict, label: str) -> Agent:
            policy = self.build_policy(config.network, ortho_init=False)
            policy.load_state_dict(weights)
            return PolicyAgent(policy, self.observe, label, deterministic=False)

        return PooledSelfPlayEnv(
            get_game(self.game),
            config.n_envs,
            config.num_players,
            config.max_turns,
            config.pool,
            snapshot_agent,
            seed=config.seed,
            opening_steps=config.opening_steps,
            shaping=config.reward.shaping,
            gamma=config.ppo.gamma,
        )

    def build_policy(self, shape: Any, ortho_init: bool = True) -> Any:
        return build_policy(self.obs_shape, self.num_actions, self.policy_kwargs(shape), ortho_init)

    def policy_agent(self, policy: Any, name: str, deterministic: bool, max_turns: int) -> Agent:
        return PolicyAgent(policy, self.observe, name, deterministic=deterministic)

    def warm_start(self, policy: Any, config: Any) -> dict | None:
        """Imitation of ``pretrain.teacher`` and DAgger (:mod:`training.imitation`)."""
        return imitation.warm_start(get_game(self.game), policy, config)

    def load_start(self, policy: Any, config: Any) -> str:
        """Start from ``config.init_from``'s weights (a player file of the game, of the same
        table size and network shape); the value head is kept."""
        player = self.load_checkpoint(config.init_from)
        if player.num_players != config.num_players:
            raise ConfigError(
                f"init_from {config.init_from!r} plays {player.num_players} players; the run "
                f"trains {config.num_players}"
            )
        wanted = self.shape(config.network).to_json()
        if player.meta["network"] != wanted:
            raise ConfigError(
                f"init_from {config.init_from!r} has network {player.meta['network']}; the run "
                f"has {wanted}"
            )
        policy.load_state_dict(player.policy.state_dict())
        return "keep"

    def save_player(self, policy: Any, path: Path, config: Any, **facts: Any) -> Path:
        shape = self.shape(config.network)
        return self.network_save(policy, path, shape, config.num_players, **facts)
