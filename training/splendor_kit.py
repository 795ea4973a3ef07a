"""Splendor's side of self-play training (:class:`training.pooled.PooledKit`): the games of
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

from typing import Any

from splendor_env.encoding import LAYOUT_VERSION, NUM_ACTIONS, OBS_SHAPE
from splendor_env.players.checkpoint import load_checkpoint, network_save, observe
from tabletop.netplayer import LIMITS, MAX_HIDDEN_LAYERS, Shape
from training.config import ConfigError
from training.pooled import PooledKit


def shape_of(network: Any) -> Shape:
    """The config's ``network`` section as an ``mlp`` :class:`~tabletop.netplayer.Shape`:
    ``blocks`` hidden layers of ``features_dim`` units."""
    return Shape(
        value_hidden=tuple(network.value_hidden),
        kind="mlp",
        hidden=(network.features_dim,) * network.blocks,
    )


class SplendorKit(PooledKit):
    game = "splendor"
    layout_version = LAYOUT_VERSION
    obs_shape = OBS_SHAPE
    num_actions = NUM_ACTIONS
    observe = staticmethod(observe)
    load_checkpoint = staticmethod(load_checkpoint)
    network_save = staticmethod(network_save)

    def describe_network(self, network: Any) -> str:
        return f"MLP, {network.blocks} hidden layers of {network.features_dim} units"

    def check(self, config: Any) -> None:
        network = config.network
        fixed = [
            ("network.policy_head", network.policy_head, "linear"),
            ("network.inputs", network.inputs, "planes"),
            ("network.stem", network.stem, 3),
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

    def shape(self, network: Any) -> Shape:
        return shape_of(network)

    def policy_kwargs(self, shape: Any) -> dict[str, Any]:
        return shape_of(shape).policy_kwargs()


KIT = SplendorKit()
