"""Splendor's side of self-play training (:class:`training.kits.TrainingKit`): the games of
:class:`training.pooled.PooledSelfPlayEnv` over the rules core, an ``mlp`` policy
(:class:`tabletop.network.MLPNet`) over :mod:`splendor_env.encoding`'s observation vector,
Splendor's player files and the imitation warm start of :mod:`training.imitation`.

The config's ``network`` section reads, for Splendor: ``blocks`` hidden layers of
``features_dim`` units each, and a value head of ``value_hidden`` layers (``channels`` is
not used; ``policy_head`` must be ``linear`` and ``inputs`` ``planes``, their defaults).

Every player in these games, the learner included, acts on its seat's observation, which
holds only what that seat may see (no deck order, no other player's reserved card).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from splendor_env.encoding import LAYOUT_VERSION, NUM_ACTIONS, OBS_SHAPE
from splendor_env.players.checkpoint import load_checkpoint, network_save, observe
from tabletop.agents import Agent
from tabletop.games import get_game
from tabletop.netplayer import LIMITS, MAX_HIDDEN_LAYERS, Shape
from tabletop.network import PlanesPolicy, PolicyAgent, build_policy
from training import imitation
from training.config import ConfigError
from training.kits import TrainingKit
from training.pooled import PooledSelfPlayEnv


def shape_of(network: Any) -> Shape:
    """The config's ``network`` section as an ``mlp`` :class:`~tabletop.netplayer.Shape`:
    ``blocks`` hidden layers of ``features_dim`` units."""
    return Shape(
        value_hidden=tuple(network.value_hidden),
        kind="mlp",
        hidden=(network.features_dim,) * network.blocks,
    )


class SplendorKit(TrainingKit):
    game = "splendor"
    layout_version = LAYOUT_VERSION
    policy_class = PlanesPolicy

    def describe_network(self, network: Any) -> str:
        return f"MLP, {network.blocks} hidden layers of {network.features_dim} units"

    def check(self, config: Any) -> None:
        network = config.network
        fixed = [
            ("network.policy_head", network.policy_head, "linear"),
            ("network.inputs", network.inputs, "planes"),
            ("perception.fraction", config.perception.fraction, 0.0),
        ]
        for name, value, only in fixed:
            if value != only:
                raise ConfigError(f"{name} must be {only!r} for Splendor, got {value!r}")
        if network.blocks > MAX_HIDDEN_LAYERS:
            raise ConfigError(
                f"network.blocks (hidden layers of Splendor's network) must be at most "
                f"{MAX_HIDDEN_LAYERS}, got {network.blocks}"
            )
        if network.features_dim > LIMITS["hidden"]:
            raise ConfigError(
                f"network.features_dim (units per hidden layer) must be at most "
                f"{LIMITS['hidden']}, got {network.features_dim}"
            )

    def selfplay_env(self, config: Any) -> PooledSelfPlayEnv:
        def snapshot_agent(weights: dict, label: str) -> Agent:
            policy = self.build_policy(config.network, ortho_init=False)
            policy.load_state_dict(weights)
            return PolicyAgent(policy, observe, label, deterministic=False)

        return PooledSelfPlayEnv(
            get_game("splendor"),
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
        return shape_of(shape).policy_kwargs()

    def build_policy(self, shape: Any, ortho_init: bool = True) -> Any:
        return build_policy(OBS_SHAPE, NUM_ACTIONS, self.policy_kwargs(shape), ortho_init)

    def policy_agent(self, policy: Any, name: str, deterministic: bool, max_turns: int) -> Agent:
        return PolicyAgent(policy, observe, name, deterministic=deterministic)

    def warm_start(self, policy: Any, config: Any) -> dict | None:
        """Imitation of ``pretrain.teacher`` and DAgger (:mod:`training.imitation`)."""
        return imitation.warm_start(get_game("splendor"), policy, config)

    def load_start(self, policy: Any, config: Any) -> str:
        """Start from ``config.init_from``'s weights (a Splendor player file of the same
        table size and network shape); the value head is kept."""
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


KIT = SplendorKit()
