"""Splut!'s side of self-play training (:class:`training.kits.TrainingKit`): the batched
self-play games of :mod:`training.selfplay`, the board network, the warm start of
:mod:`training.pretrain` and the perception phase of :mod:`training.perception`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from splut_env.encoding import LAYOUT_VERSION
from splut_env.players.checkpoint import load_checkpoint, save_player
from splut_env.players.network import BoardPolicy, PolicyAgent, build_policy
from tabletop.agents import Agent
from training.kits import TrainingKit
from training.pretrain import load_start, warm_start
from training.selfplay import SelfPlayVecEnv


class SplutKit(TrainingKit):
    game = "splut"
    layout_version = LAYOUT_VERSION
    policy_class = BoardPolicy
    load_checkpoint = staticmethod(load_checkpoint)

    def selfplay_env(self, config: Any) -> SelfPlayVecEnv:
        return SelfPlayVecEnv(
            config.n_envs,
            config.num_players,
            config.max_turns,
            config.pool,
            config.network,
            seed=config.seed,
            shaping=config.reward.shaping,
            gamma=config.ppo.gamma,
            opening_steps=config.opening_steps,
        )

    def policy_kwargs(self, shape: Any) -> dict[str, Any]:
        return shape.policy_kwargs()

    def build_policy(self, shape: Any, ortho_init: bool = True) -> Any:
        return build_policy(shape, ortho_init=ortho_init)

    def policy_agent(self, policy: Any, name: str, deterministic: bool, max_turns: int) -> Agent:
        return PolicyAgent(policy, name, deterministic=deterministic, max_turns=max_turns)

    def save_player(self, policy: Any, path: Path, config: Any, **facts: Any) -> Path:
        return save_player(
            policy, path, config.network, config.num_players, config.max_turns, **facts
        )

    def warm_start(self, policy: Any, config: Any) -> dict | None:
        return warm_start(policy, config)

    def load_start(self, policy: Any, config: Any) -> str:
        return load_start(policy, config)


KIT = SplutKit()
