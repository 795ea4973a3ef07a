"""Talat's side of self-play training (:class:`training.kits.TrainingKit`): the games of
:class:`training.pooled.PooledSelfPlayEnv` over the rules core, a
:class:`tabletop.network.PlanesNet` policy and Talat's player files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tabletop.agents import Agent
from tabletop.games import get_game
from tabletop.netplayer import Shape
from tabletop.network import PlanesPolicy, PolicyAgent, build_policy
from talat_env.encoding import ACTION_PIXELS, LAYOUT_VERSION, NUM_ACTIONS, OBS_SHAPE
from talat_env.players.checkpoint import load_checkpoint, network_save, observe
from training import imitation
from training.config import ConfigError
from training.kits import TrainingKit
from training.pooled import PooledSelfPlayEnv


def shape_of(network: Any) -> Shape:
    """The config's ``network`` section as a :class:`~tabletop.netplayer.Shape`."""
    return Shape(
        network.channels,
        network.blocks,
        network.features_dim,
        tuple(network.value_hidden),
        network.policy_head,
    )


class TalatKit(TrainingKit):
    game = "talat"
    layout_version = LAYOUT_VERSION
    policy_class = PlanesPolicy

    def check(self, config: Any) -> None:
        unsupported = [
            ("network.inputs", config.network.inputs, "planes"),
            ("perception.fraction", config.perception.fraction, 0.0),
        ]
        for name, value, only in unsupported:
            if value != only:
                raise ConfigError(f"{name} must be {only!r} for Talat, got {value!r}")

    def selfplay_env(self, config: Any) -> PooledSelfPlayEnv:
        def snapshot_agent(weights: dict, label: str) -> Agent:
            policy = self.build_policy(config.network, ortho_init=False)
            policy.load_state_dict(weights)
            return PolicyAgent(policy, observe, label, deterministic=False)

        return PooledSelfPlayEnv(
            get_game("talat"),
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

    def policy_kwargs(self, shape: Any) -> dict[str, Any]:
        return shape_of(shape).policy_kwargs(ACTION_PIXELS)

    def build_policy(self, shape: Any, ortho_init: bool = True) -> Any:
        return build_policy(OBS_SHAPE, NUM_ACTIONS, self.policy_kwargs(shape), ortho_init)

    def policy_agent(self, policy: Any, name: str, deterministic: bool, max_turns: int) -> Agent:
        return PolicyAgent(policy, observe, name, deterministic=deterministic)

    def warm_start(self, policy: Any, config: Any) -> dict | None:
        """Imitation of ``pretrain.teacher`` and DAgger (:mod:`training.imitation`)."""
        return imitation.warm_start(get_game("talat"), policy, config)

    def load_start(self, policy: Any, config: Any) -> str:
        """Start from ``config.init_from``'s weights (a Talat player file of the same table
        size and network shape); the value head is kept."""
        player = load_checkpoint(config.init_from)
        if player.num_players != config.num_players:
            raise ConfigError(
                f"init_from {config.init_from!r} plays {player.num_players} players; the run "
                f"trains {config.num_players}"
            )
        if player.meta["network"] != shape_of(config.network).to_json():
            raise ConfigError(
                f"init_from {config.init_from!r} has network {player.meta['network']}; the run "
                f"has {shape_of(config.network).to_json()}"
            )
        policy.load_state_dict(player.policy.state_dict())
        return "keep"

    def save_player(self, policy: Any, path: Path, config: Any, **facts: Any) -> Path:
        return network_save(policy, path, shape_of(config.network), config.num_players, **facts)


KIT = TalatKit()
