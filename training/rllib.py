"""Self-play PPO on a Ray cluster with RLlib (new API stack; the ``[ray]`` extra):

    python -m training.rllib --config configs/splut/rllib_2p.yaml [--address auto] [--num-env-runners N]
    python -m training.rllib --resume runs/<run> [iterations=N]

What is distributed: the env runners, one Ray actor each on any node of the cluster, play
the config's game (``game:``; Splut! by default) with its rules engine and in-game bots
(:class:`SplutMultiAgentEnv`, or :class:`GameMultiAgentEnv` for any other game on the core)
and run the policies to choose the players' steps. What is not: one learner, in this process, updates
the network from their samples and sends the new weights back at every iteration.

The players: the learner's seat is the agent ``"learner"``, mapped to the trained module
``"main"``; every other seat is, for each game, a bot played inside the environment
(``league.p_bots``) or an agent ``"opponent_k"`` mapped by :func:`opponent_mapping` to
``"main"`` itself (``league.p_latest``: shared-policy self-play) or to a frozen snapshot of it
(``league.p_past``). :class:`LeagueCallback` adds a snapshot when the learner won at least
``league.win_rate`` of the last iteration's games, and drops the oldest beyond
``league.max_snapshots``. The network is the project's own (:class:`BoardRLModule` holds the policy that the game's
training kit builds, :mod:`training.kits`, and masks illegal actions), so the run ends by
writing the game's player file (``player.zip``) that ``load_agent``, ``training.evaluate``
and the play front ends use as they use PPO's.

The batched env runner (``env_runner: batched``, as in ``configs/splut/rllib_2p.yaml``;
``env_runner=multi_agent`` for the one-game runner above; :mod:`training.rllib_vector`): each env
runner steps ``num_envs_per_env_runner`` games at once in the game's self-play vector env
(the one-machine trainer's, over Splut!'s batched engine or the core's
:class:`~tabletop.vector.GamesVectorEnv`) and asks the module for one batch of actions per
step. The learner is a single-agent PPO of :class:`BoardRLModule`;
every other seat is played inside the vector env, as the one-machine pool draws it: a
snapshot of the learner (the first one at the start, then one every
``league.snapshot_every`` env steps, sent to every runner by
:class:`~training.rllib_vector.PoolCallback`) or a bot (``league.p_bots``). ``shaping`` and
``opening_steps`` as in ``training.train``; ``ppo.n_steps`` (env steps per runner per
iteration) must be a multiple of ``num_envs_per_env_runner``. The learner's win rate per
opponent kind is in the results under ``env_runners/win_vs``. Sampling throughput of both
paths: ``python -m training.rllib_bench``.

The learner starts from ``init_from`` (a player file), from the warm start (``pretrain``,
the imitation of a bot that ``training.train`` runs, here in the driver before Ray starts),
or from random weights. Every ``checkpoint_every`` iterations and after the last, the run
folder gets a checkpoint ``checkpoints/iter_<n>/`` in safe files with a signed manifest
(:mod:`training.rllib_resume`; RLlib's own pickled checkpoints are never written or read)
and ``player.zip`` is rewritten (atomically). ``python -m training.rllib --resume <run
folder> [iterations=N]`` continues from the last checkpoint: the algorithm is rebuilt from
the saved config, the module's weights, the optimizer's state, the league and the counters
are loaded, and the iterations and env steps go on from where they were.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import ray
import torch
import yaml
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig as RLlibPPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    LEARNER_UPDATE_TIMER,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    TIMERS,
)
from ray.rllib.utils.torch_utils import FLOAT_MIN
from safetensors.torch import load_file, save_file

from splut_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    checked_step_id,
    legal_step_id,
    observation,
)
from splut_env.players import make_agent
from splut_env.players.bots import potential
from splut_env.players.checkpoint import (
    CheckpointError,
    load_agent,
)
from splut_env.players.network import NetworkShape
from splut_env.rules import State
from splut_env.rules.board import SEATS_IN_PLAY
from tabletop.games import get_game
from tabletop.playerfile import PlayerFileError
from training import manifest
from training.config import ConfigError, LeagueConfig, RLlibConfig, load_config, to_dict
from training.evaluate import evaluate_agent
from training.kits import training_kit
from training.pool import SnapshotPool, weighted_choice
from training.pretrain import start_weights
from training.reports import results_table
from training.rllib_resume import (
    PLAYER,
    checkpoint_name,
    load_optimizer,
    read_trainer,
    replace_file,
    save_optimizer,
    sign,
    verified_checkpoint,
)
from training.rllib_vector import (
    BatchedSelfPlayEnv,
    PoolCallback,
    batched_env_config,
    learner_weights,
    on_learner,
    pool_callback,
)

LEARNER = "learner"
MAIN = "main"


# --- the environment ----------------------------------------------------------------------


class SplutMultiAgentEnv(MultiAgentEnv):
    """Splut! from one learner's point of view as an RLlib ``MultiAgentEnv``: agents
    ``"learner"`` and ``"opponent_1"`` … (the seats after it in turn order that are not bots
    this game); only the agent to move gets an observation, in RLlib's action-masking
    convention ``{"observations": float32[22, 9, 9], "action_mask": float32[196]}``.
    Rewards: +1 to the winner, −1 to a player at the step its wizard dies; each agent gets a
    last observation (terminated) when it is out or the game ends, and every agent is
    truncated after ``max_turns`` turns. An illegal action ends the game, −1 to the agent that
    chose it, whose last info is ``{"illegal_action": True}`` (masked sampling never plays
    one; :class:`LeagueCallback` counts them as the metric ``illegal_actions``).

    ``config``: ``num_players``, ``max_turns``, ``p_bots``, ``bots``, ``bot_weights``,
    ``seed`` (each env runner adds its own index so that runners play different games), and
    ``shaping``, ``gamma``: potential-based reward shaping as in ``training.train``, each
    agent getting ``shaping * (gamma * phi(s') - phi(s))`` between two of its observations,
    ``phi`` being :func:`~splut_env.players.bots.potential` of its seat (0 once it ended).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        worker = int(getattr(config, "worker_index", 0))
        config = dict(config or {})
        self.num_players = int(config.get("num_players", 2))
        self.max_turns = int(config.get("max_turns", 200))
        self.p_bots = float(config.get("p_bots", 0.0))
        self.bots = list(config.get("bots", []))
        self.bot_weights = list(config.get("bot_weights", [])) or [1.0] * len(self.bots)
        self.shaping = float(config.get("shaping", 0.0))
        self.gamma = float(config.get("gamma", 0.99))
        self._phi: dict[str, float] = {}
        seed = int(config.get("seed", 0)) * 1009 + worker
        self._rng = np.random.default_rng(seed)
        self.possible_agents = [LEARNER] + [f"opponent_{k}" for k in range(1, self.num_players)]
        self.agents = []
        space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(NUM_ACTIONS))
        self.state = State.initial(self.num_players)
        self._seat_agent: dict[int, str] = {}
        self._bots: dict[int, Any] = {}
        self._illegal: str | None = None
        self._left: set[str] = set()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.num_players
        seats = SEATS_IN_PLAY[n]
        learner = int(self._rng.integers(n))
        self.state = State.initial(n)
        self._seat_agent, self._bots = {seats[learner]: LEARNER}, {}
        self._illegal, self._left, self._phi = None, set(), {}
        for k in range(1, n):
            seat = seats[(learner + k) % n]
            if self.bots and self._rng.random() < self.p_bots:
                name = self.bots[weighted_choice(self._rng, self.bot_weights)]
                self._bots[seat] = make_agent(name, seed=int(self._rng.integers(2**31)))
            else:
                self._seat_agent[seat] = f"opponent_{k}"
        self.agents = list(self._seat_agent.values())
        rewards: dict[str, float] = {}
        self._play_bots(rewards)
        obs, _, _, _, infos = self._outputs(rewards, ended=[])
        return obs, infos

    def step(self, action_dict: dict[str, Any]):
        self.agents = [agent for agent in self.agents if agent not in self._left]
        agent = None if self._over() else self._seat_agent.get(self.state.to_move)
        if set(action_dict) != {agent}:
            raise ValueError(
                f"expected one action, for {agent!r} (to move), got actions for "
                f"{sorted(action_dict)}"
            )
        rewards: dict[str, float] = {}
        action = action_dict[agent]
        if legal_step_id(self.state, self.state.to_move, action) < 0:
            self._illegal = agent
            rewards[agent] = -1.0
            return self._outputs(rewards, [agent])
        ended = self._apply(agent, action, rewards)
        if not self._over():
            ended += self._play_bots(rewards)
        return self._outputs(rewards, ended)

    def _apply(self, who: str, action: Any, rewards: dict[str, float]) -> list[str]:
        """Play one step; the agents whose wizard it killed."""
        state = self.state
        alive = state.alive_seats()
        state.apply(checked_step_id(state, state.to_move, int(action), who))
        ended = []
        for seat in alive:
            if not state.alive(seat) and seat in self._seat_agent:
                agent = self._seat_agent[seat]
                rewards[agent] = rewards.get(agent, 0.0) - 1.0
                ended.append(agent)
        if state.is_over() and state.winner() in self._seat_agent:
            winner = self._seat_agent[state.winner()]
            rewards[winner] = rewards.get(winner, 0.0) + 1.0
        return ended

    def _play_bots(self, rewards: dict[str, float]) -> list[str]:
        ended = []
        while not self._over() and self.state.to_move in self._bots:
            seat = self.state.to_move
            bot = self._bots[seat]
            obs = observation(self.state, seat, self.max_turns) if bot.needs_observation else None
            ended += self._apply(f"bot {bot.name}", bot.act(self.state, obs), rewards)
        return ended

    def _over(self) -> bool:
        return self._illegal is not None or self.state.is_over() or self.state.turn > self.max_turns

    def _outputs(self, rewards: dict[str, float], ended: list[str]):
        over = self._over()
        truncated = over and self._illegal is None and not self.state.is_over()
        done = set(ended) | (set(self.agents) if over else set())
        to_move = None if over else self._seat_agent.get(self.state.to_move)
        obs = {agent: self._observe(agent) for agent in done | ({to_move} - {None})}
        rewards = {**dict.fromkeys(obs, 0.0), **rewards}
        if self.shaping:
            for agent in obs:
                # Potential-based shaping between an agent's observations (0 once it ended).
                phi = 0.0 if agent in done else self._potential(agent)
                if agent in self._phi:
                    rewards[agent] += self.shaping * (self.gamma * phi - self._phi[agent])
                self._phi[agent] = phi
        terminateds = {agent: not truncated for agent in done}
        truncateds = {agent: truncated for agent in done}
        terminateds["__all__"], truncateds["__all__"] = over and not truncated, truncated
        # Agents that ended leave ``agents`` at the next step (RLlib checks that every
        # agent with an observation is in ``agents``).
        self._left = done
        infos = {self._illegal: {"illegal_action": True}} if self._illegal in done else {}
        return obs, rewards, terminateds, truncateds, infos

    def _seat(self, agent: str) -> int:
        return next(s for s, a in self._seat_agent.items() if a == agent)

    def _potential(self, agent: str) -> float:
        return potential(self.state, self._seat(agent))

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        planes = observation(self.state, seat, self.max_turns)
        return {
            "observations": planes["observation"],
            "action_mask": planes["action_mask"].astype(np.float32),
        }


class GameMultiAgentEnv(MultiAgentEnv):
    """Any game on the core (its :class:`~tabletop.games.Game` descriptor, ``config["game"]``)
    from one learner's point of view, as :class:`SplutMultiAgentEnv` plays Splut!: agents
    ``"learner"`` and ``"opponent_k"`` (the players after it in turn order that are not bots
    this game); only the agent to move gets an observation, ``{"observations": planes,
    "action_mask": float32[num_actions]}``. Every agent gets a last observation when the game
    ends, with the game's reward (:meth:`~tabletop.games.Game.rewards`: +1 to the winner, −1
    to the others, 0 for a shared win), or is truncated after ``max_turns`` moves. An illegal
    action ends the game, −1 to the agent that chose it (info ``{"illegal_action": True}``).
    Shaping as :class:`SplutMultiAgentEnv`'s, with the game's
    :meth:`~tabletop.games.Game.potential`. Other ``config`` keys as there."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        worker = int(getattr(config, "worker_index", 0))
        config = dict(config or {})
        self.game = get_game(config.get("game", "talat"))
        self.num_players = self.game.check_players(int(config.get("num_players", 2)))
        self.max_turns = int(config.get("max_turns", self.game.max_turns))
        self.p_bots = float(config.get("p_bots", 0.0))
        self.bots = list(config.get("bots", []))
        self.bot_weights = list(config.get("bot_weights", [])) or [1.0] * len(self.bots)
        self.shaping = float(config.get("shaping", 0.0))
        self.gamma = float(config.get("gamma", 0.99))
        self._rng = np.random.default_rng(int(config.get("seed", 0)) * 1009 + worker)
        self.possible_agents = [LEARNER] + [f"opponent_{k}" for k in range(1, self.num_players)]
        self.agents = []
        space = spaces.Dict(
            {
                "observations": spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (self.game.num_actions,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, spaces.Discrete(self.game.num_actions)
        )
        self.state = self.game.initial_state(self.num_players)
        self._player_agent: dict[int, str] = {}
        self._bots: dict[int, Any] = {}
        self._phi: dict[str, float] = {}
        self._illegal: str | None = None
        self._moves = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.num_players
        learner = int(self._rng.integers(n))
        deal = int(self._rng.integers(2**31)) if self.game.chance else None
        self.state = self.game.initial_state(n, deal)
        self._player_agent, self._bots = {learner: LEARNER}, {}
        self._illegal, self._phi, self._moves = None, {}, 0
        for k in range(1, n):
            player = (learner + k) % n
            if self.bots and self._rng.random() < self.p_bots:
                name = self.bots[weighted_choice(self._rng, self.bot_weights)]
                self._bots[player] = self.game.make_agent(name, seed=int(self._rng.integers(2**31)))
            else:
                self._player_agent[player] = f"opponent_{k}"
        self.agents = list(self._player_agent.values())
        self._play_bots()
        obs, _, _, _, infos = self._outputs({})
        return obs, infos

    def step(self, action_dict: dict[str, Any]):
        agent = None if self._over() else self._player_agent.get(self._to_move())
        if set(action_dict) != {agent}:
            raise ValueError(
                f"expected one action, for {agent!r} (to move), got actions for "
                f"{sorted(action_dict)}"
            )
        try:
            self.game.play_action(self.state, int(action_dict[agent]), who=agent)
        except ValueError:
            self._illegal = agent
            return self._outputs({agent: -1.0})
        self._moves += 1
        self._play_bots()
        return self._outputs({})

    def _to_move(self) -> int | None:
        return self.game.player_to_move(self.state)

    def _play_bots(self) -> None:
        while not self._over() and self._to_move() in self._bots:
            player = self._to_move()
            bot = self._bots[player]
            seen = (
                self.game.observe(self.state, player, self.max_turns)
                if bot.needs_observation
                else None
            )
            self.game.play_action(self.state, bot.act(self.state, seen), who=f"bot {bot.name}")
            self._moves += 1

    def _over(self) -> bool:
        return self._illegal is not None or self._to_move() is None or self._moves >= self.max_turns

    def _outputs(self, rewards: dict[str, float]):
        over = self._over()
        finished = self._illegal is None and self._to_move() is None
        truncated = over and self._illegal is None and not finished
        if over:
            agents = list(self.agents)
            if finished:
                final = self.game.rewards(self.state)
                for player, agent in self._player_agent.items():
                    rewards[agent] = final[player]
        else:
            agents = [self._player_agent[self._to_move()]]
        obs = {agent: self._observe(agent) for agent in agents}
        rewards = {**dict.fromkeys(obs, 0.0), **rewards}
        if self.shaping:
            for agent in obs:
                phi = 0.0 if over else self.game.potential(self.state, self._player(agent))
                if agent in self._phi:
                    rewards[agent] += self.shaping * (self.gamma * phi - self._phi[agent])
                self._phi[agent] = phi
        done = set(agents) if over else set()
        terminateds = {agent: not truncated for agent in done}
        truncateds = {agent: truncated for agent in done}
        terminateds["__all__"], truncateds["__all__"] = over and not truncated, truncated
        infos = {self._illegal: {"illegal_action": True}} if self._illegal in done else {}
        return obs, rewards, terminateds, truncateds, infos

    def _player(self, agent: str) -> int:
        return next(p for p, a in self._player_agent.items() if a == agent)

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seen = self.game.observe(self.state, self._player(agent), self.max_turns)
        return {
            "observations": np.asarray(seen["observation"], dtype=np.float32),
            "action_mask": np.asarray(seen["action_mask"], dtype=np.float32),
        }


# --- the network --------------------------------------------------------------------------


class BoardRLModule(TorchRLModule, ValueFunctionAPI):
    """The project's board network as an RLlib module: ``self.policy`` is the same
    ``MaskableActorCriticPolicy`` that ``training.train`` trains for the game
    ``model_config["game"]`` (Splut! by default), ``model_config["network"]`` its
    :class:`NetworkShape` as a dict; illegal actions get the lowest logit."""

    def setup(self) -> None:
        self.shape = NetworkShape(**self.model_config.get("network", {}))
        self.policy = training_kit(self.model_config.get("game", "splut")).build_policy(self.shape)

    def _features(self, batch: dict[str, Any]) -> torch.Tensor:
        return self.policy.extract_features(batch[Columns.OBS]["observations"])

    def _logits(self, batch: dict[str, Any], features: torch.Tensor) -> torch.Tensor:
        logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))
        return logits.masked_fill(batch[Columns.OBS]["action_mask"] < 0.5, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch, self._features(batch))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        features = self._features(batch)
        return {
            Columns.ACTION_DIST_INPUTS: self._logits(batch, features),
            Columns.EMBEDDINGS: features,
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        features = self._features(batch) if embeddings is None else embeddings
        return self.policy.value_net(self.policy.mlp_extractor.forward_critic(features)).squeeze(-1)


#: The name of :class:`BoardRLModule` before other games joined (Splut!'s network).
SplutRLModule = BoardRLModule


# --- the league ---------------------------------------------------------------------------


def opponent_mapping(snapshots: list[str], p_latest: float, p_past: float):
    """The agent → module mapping: the learner plays ``main``; an opponent seat ``main``
    with chance ``p_latest / (p_latest + p_past)``, else a snapshot (uniformly)."""
    share = p_latest / (p_latest + p_past) if snapshots and p_latest + p_past > 0 else 1.0
    snapshots = list(snapshots)

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        if agent_id == LEARNER or not snapshots:
            return MAIN
        rng = np.random.default_rng(abs(hash((episode.id_, agent_id))))
        if rng.random() < share:
            return MAIN
        return snapshots[int(rng.integers(len(snapshots)))]

    return mapping


class LeagueCallback(RLlibCallback):
    """Logs the learner's wins and adds snapshots of ``main`` to the league (module doc)."""

    def __init__(self, league: LeagueConfig) -> None:
        super().__init__()
        self.league = league
        self.snapshots: list[str] = []
        self.made = 0

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        illegal = sum(
            bool(agent.get_infos(-1).get("illegal_action"))
            for agent in episode.agent_episodes.values()
            if len(agent.infos)
        )
        metrics_logger.log_value("illegal_actions", illegal, reduce="lifetime_sum")
        learner = episode.agent_episodes.get(LEARNER)
        if learner is not None:
            result = learner.get_return()
            metrics_logger.log_value("learner_win", float(result > 0), reduce="mean")
            metrics_logger.log_value("learner_games", 1, reduce="sum")

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        runs = result.get(ENV_RUNNER_RESULTS, {})
        win, games = runs.get("learner_win", 0.0), runs.get("learner_games", 0)
        result["league_size"] = len(self.snapshots)
        league = self.league
        if games < league.min_games or win < league.win_rate:
            return
        self.made += 1
        self.add(algorithm, f"snapshot_{self.made}", algorithm.get_module(MAIN).get_state())
        result["league_size"] = len(self.snapshots)

    def add(self, algorithm: Any, new: str, state: dict[str, Any]) -> None:
        """Add the snapshot module ``new`` with the module state ``state`` to the league (on
        the learner and every env runner), dropping the oldest beyond
        ``league.max_snapshots``."""
        league = self.league
        self.snapshots.append(new)
        dropped = self.snapshots[: -league.max_snapshots]
        self.snapshots = self.snapshots[-league.max_snapshots :]
        mapping = opponent_mapping(self.snapshots, league.p_latest, league.p_past)
        algorithm.add_module(
            module_id=new,
            module_spec=RLModuleSpec.from_module(algorithm.get_module(MAIN)),
            new_agent_to_module_mapping_fn=mapping,
            new_should_module_be_updated=[MAIN],
        )
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {new: state}}}})
        for old in dropped:
            algorithm.remove_module(
                module_id=old,
                new_agent_to_module_mapping_fn=mapping,
                new_should_module_be_updated=[MAIN],
            )


# --- the run ------------------------------------------------------------------------------


def ppo_training(config: RLlibConfig) -> dict[str, Any]:
    """The ``.training(...)`` settings of both paths (``ppo.n_steps`` per env runner)."""
    ppo = config.ppo
    return {
        "train_batch_size_per_learner": ppo.n_steps * config.num_env_runners,
        "minibatch_size": ppo.batch_size,
        "num_epochs": ppo.n_epochs,
        "lr": ppo.learning_rate,
        "gamma": ppo.gamma,
        "lambda_": ppo.gae_lambda,
        "clip_param": ppo.clip_range,
        "entropy_coeff": ppo.ent_coef,
        "vf_loss_coeff": ppo.vf_coef,
        "grad_clip": ppo.max_grad_norm,
    }


def module_spec(config: RLlibConfig) -> RLModuleSpec:
    """:class:`BoardRLModule` for the config's game and network."""
    return RLModuleSpec(
        module_class=BoardRLModule,
        model_config={"game": config.game, "network": config.network.to_json()},
    )


def learner_module_id(config: RLlibConfig) -> str:
    """The trained module's id: ``main`` (multi-agent) or RLlib's default (batched)."""
    return DEFAULT_MODULE_ID if config.env_runner == "batched" else MAIN


def batched_algorithm_config(config: RLlibConfig) -> RLlibPPOConfig:
    """RLlib's PPO config for the batched env runner (the module doc)."""
    games = config.num_envs_per_env_runner
    league = config.league
    return (
        RLlibPPOConfig()
        .environment(BatchedSelfPlayEnv, env_config=batched_env_config(config))
        .framework("torch")
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=games,
            gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
            num_cpus_per_env_runner=1,
            rollout_fragment_length=config.ppo.n_steps // games,
        )
        .learners(num_learners=0)
        .fault_tolerance(restart_failed_env_runners=False)
        .rl_module(rl_module_spec=module_spec(config))
        .training(**ppo_training(config))
        .callbacks(lambda: PoolCallback(league))
        .debugging(seed=config.seed)
    )


def algorithm_config(config: RLlibConfig) -> RLlibPPOConfig:
    """RLlib's PPO config for ``config`` (either env runner)."""
    if config.env_runner == "batched":
        return batched_algorithm_config(config)
    league = config.league
    env_config = {
        "game": config.game,
        "num_players": config.num_players,
        "max_turns": config.max_turns,
        "p_bots": league.p_bots,
        "bots": league.bots,
        "bot_weights": league.bot_weights,
        "seed": config.seed,
        "shaping": config.shaping,
        "gamma": config.ppo.gamma,
    }
    module = module_spec(config)
    env = SplutMultiAgentEnv if config.game == "splut" else GameMultiAgentEnv
    return (
        RLlibPPOConfig()
        .environment(env, env_config=env_config)
        .framework("torch")
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=1,
            num_cpus_per_env_runner=1,
            rollout_fragment_length=config.ppo.n_steps,
        )
        .learners(num_learners=0)
        # An env runner's error stops training (instead of a restart that samples nothing).
        .fault_tolerance(restart_failed_env_runners=False)
        .multi_agent(
            policies={MAIN},
            policy_mapping_fn=opponent_mapping([], league.p_latest, league.p_past),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: module}))
        .training(**ppo_training(config))
        .callbacks(lambda: LeagueCallback(league))
        .debugging(seed=config.seed)
    )


def export_player(algorithm: Any, path: Path, config: RLlibConfig, **facts: Any) -> Path:
    """Write the learner's trained module as the game's player file (safetensors in a zip,
    nothing pickled)."""
    kit = training_kit(config.game)
    policy = kit.build_policy(config.network, ortho_init=False)
    policy.load_state_dict(learner_weights(algorithm, learner_module_id(config)))
    return kit.save_player(
        policy, path, config, trainer="rllib", reward_shaping=config.shaping, **facts
    )


def start_from(config: RLlibConfig) -> dict[str, torch.Tensor]:
    """The weights of ``config.init_from`` for ``main``, checked against the config's game,
    table size and network; raises ``ConfigError`` (or the game's player-file error)."""
    if config.game == "splut":
        return start_weights(config.init_from, config.network, config.num_players)
    kit = training_kit(config.game)
    probe = kit.build_policy(config.network, ortho_init=False)
    kit.load_start(probe, config)
    return {k: v.detach().clone() for k, v in probe.state_dict().items()}


def warm_start_weights(config: RLlibConfig) -> tuple[dict[str, torch.Tensor], dict | None]:
    """The warm start (``pretrain``) as ``training.train`` runs it, in this process: a new
    policy of the config's network (seeded by ``seed``) fitted by the game's kit to the
    teacher's games. Its weights and the fit's metrics."""
    torch.manual_seed(config.seed)
    kit = training_kit(config.game)
    policy = kit.build_policy(config.network)
    metrics = kit.warm_start(policy, config)
    return {k: v.detach().clone() for k, v in policy.state_dict().items()}, metrics


def initial_weights(config: RLlibConfig) -> tuple[dict[str, torch.Tensor] | None, dict | None]:
    """The learner's start: ``init_from``'s weights, the warm start's (with its metrics), or
    ``(None, None)`` for RLlib's random ones."""
    if config.init_from:
        return start_from(config), None
    if config.pretrain.games:
        return warm_start_weights(config)
    return None, None


def load_learner_weights(algorithm: Any, config: RLlibConfig, weights: dict[str, Any]) -> None:
    """Load policy ``weights`` into the learner's module and send them to every env runner."""
    module_id = learner_module_id(config)
    on_learner(algorithm, lambda learner: learner.module[module_id].policy.load_state_dict(weights))
    # Not EnvRunnerGroup.sync_weights: it sends without waiting and drops the request for a
    # runner that still has one of the algorithm's own syncs in flight.
    component = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}"
    state = algorithm.learner_group.get_state(components=component, inference_only=True)
    module_state = ray.put({COMPONENT_RL_MODULE: state[COMPONENT_LEARNER][COMPONENT_RL_MODULE]})
    algorithm.env_runner_group.foreach_env_runner(
        lambda runner: runner.set_state(ray.get(module_state)), local_env_runner=False
    )


def league_callback(algorithm: Any) -> LeagueCallback:
    """The driver's :class:`LeagueCallback` of an algorithm built for the multi-agent path."""
    for callback in algorithm.callbacks:
        if isinstance(callback, LeagueCallback):
            return callback
    raise ValueError(
        "the algorithm has no LeagueCallback: was it built with env_runner: multi_agent?"
    )


def league_pool(algorithm: Any, config: RLlibConfig) -> SnapshotPool:
    """The league's snapshots as a :class:`~training.pool.SnapshotPool` (the batched path's
    own; on the multi-agent path, the snapshot modules' ids and weights)."""
    if config.env_runner == "batched":
        return pool_callback(algorithm).pool
    names = league_callback(algorithm).snapshots
    pool = SnapshotPool(max(len(names), 1))
    pool.snapshots = [(name, learner_weights(algorithm, name)) for name in names]
    return pool


def save_checkpoint(
    algorithm: Any,
    config: RLlibConfig,
    out: Path,
    iteration: int,
    env_steps: int,
    pretrain: dict | None = None,
) -> Path:
    """Write ``out/checkpoints/iter_<n>/`` (:mod:`training.rllib_resume`: safe files and a
    signed manifest; it appears whole or not at all) and copy its player file over
    ``out/player.zip`` atomically. The checkpoint folder."""
    folder = out / "checkpoints" / checkpoint_name(iteration)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    module_id = learner_module_id(config)
    weights = {k: v.contiguous() for k, v in learner_weights(algorithm, module_id).items()}
    save_file(weights, tmp / "module.safetensors")
    save_optimizer(
        on_learner(algorithm, lambda learner: learner.get_optimizer(module_id).state_dict()), tmp
    )
    league_pool(algorithm, config).save(tmp)
    batched = config.env_runner == "batched"
    counters = {
        "iteration": iteration,
        "env_steps": env_steps,
        "next_snapshot": pool_callback(algorithm).next_snapshot if batched else 0,
        "made": 0 if batched else league_callback(algorithm).made,
        "pretrain": pretrain,
    }
    (tmp / "trainer.json").write_text(json.dumps(counters, indent=2))
    (tmp / "config.yaml").write_text(yaml.safe_dump(to_dict(config), sort_keys=False))
    export_player(algorithm, tmp / PLAYER, config, env_steps=env_steps)
    sign(tmp, config.game, iteration, env_steps)
    manifest.commit(tmp, folder)
    replace_file(folder / PLAYER, out / "player.zip")
    return folder


def load_checkpoint(algorithm: Any, config: RLlibConfig, folder: Path) -> dict[str, Any]:
    """Load a verified checkpoint (:func:`~training.rllib_resume.verified_checkpoint`) into a
    new algorithm built from its config: the module's weights (learner and env runners), the
    optimizer's state, the league's snapshots and counters. Its ``trainer.json``."""
    counters = read_trainer(folder)
    try:
        load_learner_weights(algorithm, config, load_file(folder / "module.safetensors"))
    except RuntimeError as err:  # a state dict of another network
        raise ValueError(
            f"{folder / 'module.safetensors'} does not fit the network: {err}"
        ) from err
    module_id = learner_module_id(config)

    def set_optimizer(learner: Any) -> None:
        optimizer = learner.get_optimizer(module_id)
        optimizer.load_state_dict(load_optimizer(folder, optimizer.state_dict()))

    on_learner(algorithm, set_optimizer)
    pool = SnapshotPool(config.league.max_snapshots)
    pool.load(folder)
    if config.env_runner == "batched":
        callback = pool_callback(algorithm)
        callback.pool = pool
        callback.next_snapshot = counters["next_snapshot"]
        callback.steps_offset = counters["env_steps"]
        callback.send_pool(algorithm)
    else:
        league = league_callback(algorithm)
        for name, state in pool.snapshots:
            league.add(algorithm, name, {f"policy.{k}": v for k, v in state.items()})
        league.made = counters["made"]
    return counters


def env_runner_nodes(algorithm: Any) -> list[str]:
    """The Ray node id of each remote env runner."""
    return algorithm.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )


#: What a resumed run may not change (its saved weights and optimizer would not fit).
FIXED_ON_RESUME = ("game", "num_players", "network", "env_runner")


def resume_config(checkpoint: Path, overrides: list[str]) -> RLlibConfig:
    """The config of a verified checkpoint with ``overrides`` (e.g. ``iterations=80``);
    ``ConfigError`` if they change what the checkpoint's files were made for."""
    saved = load_config(checkpoint / "config.yaml", [], kind=RLlibConfig)
    config = load_config(checkpoint / "config.yaml", overrides, kind=RLlibConfig)
    changed = [k for k in FIXED_ON_RESUME if getattr(saved, k) != getattr(config, k)]
    if changed:
        raise ConfigError(
            f"resuming {str(checkpoint)!r}: {', '.join(changed)} cannot change (the saved "
            "weights and optimizer are of the run's own)"
        )
    return config


def train(
    config: RLlibConfig,
    out: Path,
    progress: bool = True,
    resume: Path | None = None,
    start: tuple[dict[str, torch.Tensor] | None, dict | None] | None = None,
    before_training: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Build the algorithm and train up to ``config.iterations`` iterations, writing a
    checkpoint and ``out/player.zip`` every ``config.checkpoint_every`` iterations and
    after the last. ``resume``: a verified checkpoint to continue from (its counters go on);
    else the learner starts from ``start`` (:func:`initial_weights`, computed here when not
    given). ``before_training(algorithm)`` runs once everything is loaded. Returns figures
    of the run (steps sampled, steps/s, env runner nodes, each runner's modules and the
    league size at the end, illegal actions, the player file, the iterations and the
    checkpoints written; on the batched path also each runner's games, the win rates per
    opponent kind and the league's labels)."""
    torch.set_num_threads(config.torch_threads)
    counters: dict[str, Any] = {"iteration": 0, "env_steps": 0, "pretrain": None}
    weights, pretrain = (None, None)
    if resume is None:
        weights, pretrain = initial_weights(config) if start is None else start
    built = config
    if resume is not None:
        # Other env and sampling seeds than the first part's, so that it plays new games.
        iteration = read_trainer(resume)["iteration"]
        built = dataclasses.replace(config, seed=(config.seed + 1_000_003 * iteration) % 2**32)
    algorithm = algorithm_config(built).build_algo()
    batched = config.env_runner == "batched"
    out.mkdir(parents=True, exist_ok=True)
    begin = time.perf_counter()
    result: dict[str, Any] = {}
    checkpoints: list[str] = []
    try:
        if resume is not None:
            counters = load_checkpoint(algorithm, config, resume)
            pretrain = counters.get("pretrain")
        elif weights is not None:
            load_learner_weights(algorithm, config, weights)
        if batched and resume is None:
            pool_callback(algorithm).add_snapshot(algorithm, 0)
        if before_training is not None:
            before_training(algorithm)
        first, steps = counters["iteration"], counters["env_steps"]
        iteration = first
        for iteration in range(first + 1, config.iterations + 1):
            result = algorithm.train()
            runs = result.get(ENV_RUNNER_RESULTS, {})
            steps = counters["env_steps"] + int(runs.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
            if progress:
                rates = "".join(
                    f", vs {kind} {rate:.0%}"
                    for kind, rate in sorted(runs.get("win_vs", {}).items())
                )
                print(
                    f"iteration {iteration}/{config.iterations}: {steps:,} env steps, "
                    f"learner won {runs.get('learner_win', float('nan')):.0%} of "
                    f"{runs.get('learner_games', 0)} games{rates}, league "
                    f"{result.get('league_size', 0)}",
                    flush=True,
                )
            if iteration % config.checkpoint_every == 0 or iteration == config.iterations:
                folder = save_checkpoint(algorithm, config, out, iteration, steps, pretrain)
                checkpoints.append(str(folder))
        if not (out / "player.zip").is_file():  # nothing trained and nothing saved before
            save_checkpoint(algorithm, config, out, iteration, steps, pretrain)
        seconds = time.perf_counter() - begin
        sampled = steps - counters["env_steps"]
        timers = result.get(TIMERS, {})
        sample_s = float(timers.get(ENV_RUNNER_SAMPLING_TIMER, 0.0))
        learn_s = float(timers.get(LEARNER_UPDATE_TIMER, 0.0))
        batch = config.ppo.n_steps * config.num_env_runners
        facts = {
            "env_steps": steps,
            "sampled_env_steps": sampled,
            "iterations": iteration,
            "resumed_from": counters["iteration"] if resume is not None else None,
            "seconds": round(seconds, 1),
            "env_steps_per_s": round(sampled / seconds, 1),
            "sampling_steps_per_s": round(batch / sample_s, 1) if sample_s else None,
            "update_seconds": round(learn_s, 2),
            "env_runners": config.num_env_runners,
            "nodes": sorted(set(env_runner_nodes(algorithm))),
            "league_size": int(
                result.get("league_size", len(league_pool(algorithm, config).snapshots))
            ),
            "modules": algorithm.env_runner_group.foreach_env_runner(
                (lambda runner: [DEFAULT_MODULE_ID])
                if batched
                else (lambda runner: sorted(runner.module.keys())),
                local_env_runner=False,
            ),
            "illegal_actions": int(result.get(ENV_RUNNER_RESULTS, {}).get("illegal_actions", 0)),
            "pretrain": pretrain,
            "checkpoints": checkpoints,
        }
        if batched:
            runs = result.get(ENV_RUNNER_RESULTS, {})
            facts["games_per_env_runner"] = algorithm.env_runner_group.foreach_env_runner(
                lambda runner: runner.num_envs, local_env_runner=False
            )
            facts["win_vs"] = {k: round(float(v), 3) for k, v in runs.get("win_vs", {}).items()}
            facts["league"] = pool_callback(algorithm).pool.labels()
        facts["player"] = str(out / "player.zip")
        return facts
    finally:
        algorithm.stop()


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(
        prog="python -m training.rllib", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--config", default=None, help="YAML config (default configs/splut/rllib_2p.yaml)"
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="continue a run from its last checkpoint (a run folder or one of its "
        "checkpoints/iter_*/); overrides such as iterations=N still apply",
    )
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="resume from a checkpoint signed on another machine (its files must still match "
        "their SHA-256; nothing is unpickled)",
    )
    parser.add_argument(
        "--address", default=None, help="Ray cluster to join ('auto': the local one)"
    )
    parser.add_argument("--num-env-runners", type=int, default=None, help="overrides the config")
    parser.add_argument("--runs", default="runs", help="where run folders go")
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. iterations=5")
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("give either --config or --resume (a resumed run keeps its config)")
    overrides = list(args.overrides)
    if args.num_env_runners is not None:
        overrides.append(f"num_env_runners={args.num_env_runners}")
    checkpoint, start = None, None
    try:
        if args.resume is not None:
            checkpoint = verified_checkpoint(args.resume, args.trust_checkpoint)
            config = resume_config(checkpoint, overrides)
            out = checkpoint.parent.parent
            print(f"resuming {out} from {checkpoint.name}", flush=True)
        else:
            config = load_config(
                args.config or "configs/splut/rllib_2p.yaml", overrides, kind=RLlibConfig
            )
            stamp = time.strftime("%Y%m%d-%H%M%S")
            out = Path(args.runs) / f"{config.name}__seed{config.seed}__{stamp}"
            # Checked (init_from) or run (the warm start) before Ray starts anything.
            start = initial_weights(config)
    except (ConfigError, CheckpointError, PlayerFileError, ValueError, OSError) as err:
        parser.error(str(err))
    out.mkdir(parents=True, exist_ok=True)
    config_yaml = yaml.safe_dump(to_dict(config), sort_keys=False).rstrip()
    (out / "config.yaml").write_text(config_yaml + "\n")
    ray.init(address=args.address, include_dashboard=False)
    facts = train(config, out, resume=checkpoint, start=start)
    print(
        f"{facts['sampled_env_steps']:,} env steps in {facts['seconds']} s "
        f"({facts['env_steps_per_s']:,} steps/s; sampling alone {facts['sampling_steps_per_s']:,} "
        f"steps/s, one update {facts['update_seconds']} s) with {config.num_env_runners} env "
        f"runners on {len(facts['nodes'])} node(s)"
    )
    game = get_game(config.game)
    package = game.rules_module.split(".")[0]
    lines = [
        f"# Model card: {config.name} (RLlib, {game.title})",
        "",
        f"- player: `{facts['player']}` (load with `{package}.load_agent(path)`)",
        f"- players: {config.num_players}; max turns: {config.max_turns}; seed: {config.seed}",
        f"- env steps sampled: {facts['env_steps']:,}"
        + (f", the last {facts['sampled_env_steps']:,}" if facts["resumed_from"] else "")
        + f" in {facts['seconds']} s "
        f"({facts['env_steps_per_s']:,} steps/s; sampling alone "
        f"{facts['sampling_steps_per_s']:,} steps/s), {config.num_env_runners} env runners on "
        f"{len(facts['nodes'])} node(s); snapshots in the league at the end: "
        f"{facts['league_size']}",
        f"- iterations: {facts['iterations']}"
        + (f" (resumed after {facts['resumed_from']})" if facts["resumed_from"] else "")
        + f"; checkpoints in `{out / 'checkpoints'}` (continue with --resume {out})",
    ]
    if facts["pretrain"]:
        warm = facts["pretrain"]
        lines.append(
            f"- warm start: imitation of {config.pretrain.teacher} "
            f"({config.pretrain.games} games), teacher agreement "
            f"{100 * warm.get('accuracy', 0.0):.1f} %"
        )
    if config.eval_games:
        agent = (
            load_agent(facts["player"])
            if config.game == "splut"
            else game.make_agent(facts["player"])
        )
        results = evaluate_agent(
            agent,
            config.eval_bots,
            config.num_players,
            config.eval_games,
            config.seed,
            config.max_turns,
            progress=True,
            game=game,
        )
        lines += [
            "",
            f"Evaluation: deterministic policy, {config.eval_games} games per bot, seats "
            "alternated; 95 % Wilson intervals.",
            "",
            *results_table(results),
        ]
    lines += ["", "Configuration:", "", "```yaml", config_yaml, "```", ""]
    card = "\n".join(lines)
    (out / "MODEL_CARD.md").write_text(card)
    print(card)
    return Path(facts["player"])


if __name__ == "__main__":
    main()
