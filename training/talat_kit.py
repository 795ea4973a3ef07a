"""Talat's side of self-play training (:class:`training.pooled.PooledKit`): the games of
:class:`training.pooled.PooledSelfPlayEnv` over the rules core, a
:class:`tabletop.network.PlanesNet` policy (with the ``steps`` head if asked) and Talat's
player files."""

from __future__ import annotations

from typing import Any

from tabletop.netplayer import Shape
from talat_env.encoding import ACTION_PIXELS, LAYOUT_VERSION, NUM_ACTIONS, OBS_SHAPE
from talat_env.players.checkpoint import load_checkpoint, network_save, observe
from training.config import ConfigError
from training.pooled import PooledKit


def shape_of(network: Any) -> Shape:
    """The config's ``network`` section as a :class:`~tabletop.netplayer.Shape`."""
    return Shape(
        network.channels,
        network.blocks,
        network.features_dim,
        tuple(network.value_hidden),
        network.policy_head,
        stem=network.stem,
    )


class TalatKit(PooledKit):
    game = "talat"
    layout_version = LAYOUT_VERSION
    obs_shape = OBS_SHAPE
    num_actions = NUM_ACTIONS
    observe = staticmethod(observe)
    load_checkpoint = staticmethod(load_checkpoint)
    network_save = staticmethod(network_save)

    def check(self, config: Any) -> None:
        unsupported = [
            ("network.inputs", config.network.inputs, "planes"),
            ("perception.fraction", config.perception.fraction, 0.0),
        ]
        for name, value, only in unsupported:
            if value != only:
                raise ConfigError(f"{name} must be {only!r} for Talat, got {value!r}")

    def shape(self, network: Any) -> Shape:
        return shape_of(network)

    def policy_kwargs(self, shape: Any) -> dict[str, Any]:
        return shape_of(shape).policy_kwargs(ACTION_PIXELS)


KIT = TalatKit()
