"""The batched env runner of ``training.rllib`` (``env_runner: batched``): each RLlib env
runner steps ``num_envs_per_env_runner`` games at once in the game's self-play vector env
(Splut!'s :class:`training.selfplay.SelfPlayVecEnv` over the batched engine, every other
game's :class:`training.pooled.PooledSelfPlayEnv`), built by the game's training kit as the
one-machine trainer builds it, and asks the module for one batch of actions per step.

- :class:`NextStepVectorEnv` adapts such an env to what RLlib's ``SingleAgentEnvRunner``
  expects: Gymnasium's ``AutoresetMode.NEXT_STEP`` (after a game's last step, the next
  ``step`` returns the first observation of its next game, reward 0, and does not play the
  action RLlib sends for it) and observations ``{"observations": planes, "action_mask":
  float32[num_actions]}`` (what :class:`training.rllib.BoardRLModule` reads).
- :class:`BatchedSelfPlayEnv` is the env RLlib builds on each runner
  (``gym_env_vectorize_mode=VECTOR_ENTRY_POINT``), from :func:`batched_env_config`'s keys.
- :class:`PoolCallback` plays the league as the one-machine pool does
  (:class:`training.pool.SnapshotPool`): in the driver, a snapshot of the learner's weights
  at the start and every ``league.snapshot_every`` env steps, sent to every runner's vector
  env, whose games draw their opponents from it and from the bots at each reset
  (``league.p_latest`` / ``p_past`` / ``p_bots``); on the runners, the learner's result in
  each finished game, overall (``learner_win``) and per opponent kind (``win_vs``:
  ``self-latest``, ``self-past`` or a bot's name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from types import SimpleNamespace
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from splut_env.players.network import NetworkShape
from training.config import LeagueConfig, PoolConfig, RLlibConfig
from training.kits import training_kit
from training.pool import SnapshotPool, opponent_kind

#: The keys :func:`selfplay_games` reads (besides ``num_envs``, which RLlib adds).
ENV_KEYS = (
    "game",
    "num_players",
    "max_turns",
    "seed",
    "shaping",
    "gamma",
    "opening_steps",
    "network",
    "pool",
)


class NextStepVectorEnv(VectorEnv):
    """A self-play vector env in ``AutoresetMode.SAME_STEP`` (whose ``step`` takes
    ``active=``, steps only those games and leaves the others untouched; and has
    ``action_masks()``) as a ``NEXT_STEP`` vector env with dict observations.

    At a game's last step this returns its last observation (``infos["final_obs"]`` of the
    env; its action mask all zeros) with the game's reward and end; at the next step, the
    game is left out of the env's step (RLlib's action for it is not played) and this
    returns the first observation of the game the env started in its place, reward 0, not
    done. ``infos`` of a finished game: ``outcome`` (the learner's result, before shaping),
    ``opponents`` (snapshot labels or bot names, in turn order after the learner),
    ``opponent_kinds`` (:func:`training.pool.opponent_kind` of each) and, where the env
    reports it, ``illegal_action``."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, env: Any) -> None:
        mode = getattr(env, "metadata", {}).get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"NextStepVectorEnv wraps a vector env in AutoresetMode.SAME_STEP, got "
                f"{type(env).__name__} with autoreset_mode {mode!r}"
            )
        self.env = env
        self.num_envs = env.num_envs
        planes = env.single_observation_space
        num_actions = int(env.single_action_space.n)
        self.single_observation_space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, planes.shape, dtype=np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32),
            }
        )
        self.single_action_space = env.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        #: Games whose next step returns their next game's first observation.
        self.restarting = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, _ = self.env.reset(seed=seed, options=options)
        self.restarting[:] = False
        return self._observations(obs, self.env.action_masks()), {}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} whole numbers (one per game), got "
                f"{str(actions)[:80]!r}"
            )
        obs, rewards, terminated, truncated, infos = self.env.step(acts, active=~self.restarting)
        masks = self.env.action_masks().astype(np.float32)
        done = terminated | truncated
        out: dict[str, Any] = {}
        if done.any():
            rows = np.flatnonzero(done)
            obs = obs.copy()
            obs[rows] = np.stack(infos["final_obs"][rows])
            masks[rows] = 0.0
            out = self._final_infos(infos["final_info"], done)
        self.restarting = done
        return (
            self._observations(obs, masks),
            np.asarray(rewards, dtype=np.float32),
            terminated,
            truncated,
            out,
        )

    def _final_infos(self, final: dict[str, Any], done: np.ndarray) -> dict[str, Any]:
        """The finished games' infos, in Gymnasium's vector form (``key`` and ``_key``)."""
        latest = (getattr(self.env, "pool_labels", None) or [None])[-1]
        opponents = np.full(self.num_envs, None, dtype=object)
        kinds = np.full(self.num_envs, None, dtype=object)
        labels = final.get("opponents")
        for row in np.flatnonzero(done).tolist():
            names = tuple(str(label) for label in labels[row]) if labels is not None else ()
            opponents[row] = names
            kinds[row] = tuple(opponent_kind(label, latest) for label in names)
        infos: dict[str, Any] = {
            "outcome": np.asarray(final["outcome"], dtype=np.float32),
            "_outcome": done,
            "opponents": opponents,
            "_opponents": done,
            "opponent_kinds": kinds,
            "_opponent_kinds": done,
        }
        if "illegal_action" in final:
            infos["illegal_action"] = np.asarray(final["illegal_action"], dtype=bool)
            infos["_illegal_action"] = done
        return infos

    def _observations(self, planes: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        return {
            "observations": np.asarray(planes, dtype=np.float32),
            "action_mask": np.asarray(masks, dtype=np.float32),
        }

    def close_extras(self, **kwargs: Any) -> None:
        env = getattr(self, "env", None)  # None: __init__ refused the env
        if env is not None:
            env.close(**kwargs)


# --- the env creator ----------------------------------------------------------------------


def pool_config(league: LeagueConfig) -> PoolConfig:
    """The one-machine pool's config with the league's draws and snapshot schedule."""
    return PoolConfig(
        p_latest=league.p_latest,
        p_past=league.p_past,
        p_bots=league.p_bots,
        bots=list(league.bots),
        bot_weights=list(league.bot_weights),
        snapshot_every=league.snapshot_every,
        max_snapshots=league.max_snapshots,
        player_weights=list(league.player_weights),
    )


def batched_env_config(config: RLlibConfig) -> dict[str, Any]:
    """The ``env_config`` of the batched env runners: plain values only (it travels to
    every runner)."""
    return {
        "game": config.game,
        "num_players": config.num_players,
        "max_turns": config.max_turns,
        "seed": config.seed,
        "shaping": config.shaping,
        "gamma": config.ppo.gamma,
        "opening_steps": config.opening_steps,
        "network": config.network.to_json(),
        "pool": asdict(pool_config(config.league)),
    }


def selfplay_games(env_config: dict[str, Any]) -> Any:
    """``env_config["num_envs"]`` self-play games of ``env_config["game"]`` (a
    ``SAME_STEP`` vector env), built by the game's training kit
    (:meth:`~training.kits.TrainingKit.selfplay_env`) as ``training.train`` builds them.
    Keys: :data:`ENV_KEYS` and ``num_envs``; ``ValueError`` naming missing ones."""
    missing = [key for key in (*ENV_KEYS, "num_envs") if key not in env_config]
    if missing:
        raise ValueError(f"the batched env's config lacks {missing}")
    kit = training_kit(str(env_config["game"]))
    settings = SimpleNamespace(
        game=kit.game,
        n_envs=int(env_config["num_envs"]),
        num_players=int(env_config["num_players"]),
        max_turns=int(env_config["max_turns"]),
        seed=int(env_config["seed"]),
        opening_steps=int(env_config["opening_steps"]),
        network=NetworkShape(**env_config["network"]),
        pool=PoolConfig(**env_config["pool"]),
        reward=SimpleNamespace(shaping=float(env_config["shaping"])),
        ppo=SimpleNamespace(gamma=float(env_config["gamma"])),
    )
    return kit.selfplay_env(settings)


class BatchedSelfPlayEnv(NextStepVectorEnv):
    """The env RLlib builds on each batched env runner (``.environment(BatchedSelfPlayEnv,
    env_config=batched_env_config(config))``; RLlib adds ``num_envs``): the game's
    self-play games (:func:`selfplay_games`) in :class:`NextStepVectorEnv`."""

    def __init__(self, env_config: dict[str, Any]) -> None:
        super().__init__(selfplay_games(env_config))


# --- the league ---------------------------------------------------------------------------


def on_learner(algorithm: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn(learner)`` on the algorithm's (one) learner; its error raised here."""
    first = next(iter(algorithm.learner_group.foreach_learner(fn)))
    value = first.get()
    if not first.ok:
        raise value
    return value


def learner_weights(algorithm: Any, module_id: str = DEFAULT_MODULE_ID) -> dict[str, Any]:
    """A CPU copy of the learner's policy weights (the module ``module_id``)."""

    def weights(learner: Any) -> dict[str, Any]:
        policy = learner.module[module_id].policy
        return {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}

    return on_learner(algorithm, weights)


class PoolCallback(RLlibCallback):
    """The batched path's league and win-rate logs (the module doc)."""

    def __init__(self, league: LeagueConfig) -> None:
        super().__init__()
        self.league = league
        self.pool = SnapshotPool(league.max_snapshots)
        self.next_snapshot = 0
        #: Env steps sampled before this algorithm was built (a resumed run's).
        self.steps_offset = 0

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        info = episode.get_infos(-1)
        if "outcome" not in info:
            return
        won = float(info["outcome"] > 0)
        metrics_logger.log_value("learner_win", won, reduce="mean")
        metrics_logger.log_value("learner_games", 1, reduce="sum")
        metrics_logger.log_value(
            "illegal_actions", int(bool(info.get("illegal_action"))), reduce="lifetime_sum"
        )
        for kind in info.get("opponent_kinds", ()):
            metrics_logger.log_value(("win_vs", kind), won, reduce="mean")

    def add_snapshot(self, algorithm: Any, steps: int) -> str:
        """Snapshot the learner at ``steps`` env steps and send the pool to every env
        runner's vector env; the new label."""
        label = self.pool.add_state(learner_weights(algorithm), steps)
        self.send_pool(algorithm)
        every = self.league.snapshot_every
        self.next_snapshot = (steps // every + 1) * every
        return label

    def send_pool(self, algorithm: Any) -> None:
        """Send the pool to every env runner's vector env."""
        payload = self.pool.payload()
        algorithm.env_runner_group.foreach_env_runner(
            lambda runner: runner.env is not None and runner.env.unwrapped.env.set_pool(payload),
            local_env_runner=False,
        )

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        runs = result.get(ENV_RUNNER_RESULTS, {})
        steps = self.steps_offset + int(runs.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
        if steps >= self.next_snapshot:
            self.add_snapshot(algorithm, steps)
        result["league_size"] = len(self.pool.snapshots)
        result["league"] = self.pool.labels()


def pool_callback(algorithm: Any) -> PoolCallback:
    """The driver's :class:`PoolCallback` of an algorithm built for the batched path."""
    for callback in algorithm.callbacks:
        if isinstance(callback, PoolCallback):
            return callback
    raise ValueError("the algorithm has no PoolCallback: was it built with env_runner: batched?")
