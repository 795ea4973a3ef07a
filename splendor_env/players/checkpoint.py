"""Splendor's player files: a trained network as a player (:mod:`tabletop.netplayer`'s
format, which names the game, so a Splut! or Talat file handed to Splendor is refused by
name). A Splendor network is an ``mlp`` (:class:`tabletop.network.MLPNet`) over the
observation vector of :mod:`splendor_env.encoding`. Needs the ``[train]`` extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from splendor_env.encoding import (
    LAYOUT_VERSION,
    NUM_ACTIONS,
    OBS_SHAPE,
    action_mask,
    observation,
)
from splendor_env.rules import State
from tabletop import netplayer
from tabletop.agents import Agent
from tabletop.netplayer import Layout, NetworkPlayer, Shape, load_player, save_player
from tabletop.network import PolicyAgent
from tabletop.playerfile import PlayerFileError

__all__ = [
    "LAYOUT",
    "PlayerFileError",
    "Shape",
    "agent_from_spec",
    "load_agent",
    "load_checkpoint",
    "network_save",
    "observe",
]

#: What a Splendor network file must match.
LAYOUT = Layout("splendor", LAYOUT_VERSION, OBS_SHAPE, NUM_ACTIONS, (2, 3, 4), None, kinds=("mlp",))


def observe(state: State) -> dict[str, np.ndarray]:
    """The observation dict of the seat to move in ``state`` (what that seat may see)."""
    return {
        "observation": observation(state, state.to_move),
        "action_mask": action_mask(state, state.to_move),
    }


def load_checkpoint(path: str | Path) -> NetworkPlayer:
    """A Splendor player file, checked; raises :class:`PlayerFileError` naming the problem."""
    return load_player(path, LAYOUT)


def load_agent(
    path: str | Path, num_players: int | None = None, deterministic: bool = True
) -> PolicyAgent:
    """A Splendor player file as a player; ``num_players``, if given, must be its table
    size."""
    return netplayer.load_agent(path, LAYOUT, observe, num_players, deterministic)


def agent_from_spec(spec: str, seed: int | None = None) -> Agent | None:
    """The player a file spec names (``path.zip``), reset with ``seed``; ``None`` if
    ``spec`` names no file. This is how :func:`splendor_env.players.make_agent` reads files."""
    return netplayer.agent_from_spec(spec, LAYOUT, observe, seed)


def network_save(
    policy: Any, path: str | Path, shape: Shape, num_players: int, **facts: Any
) -> Path:
    """Write ``policy`` (an ``mlp`` network of ``shape``) as a Splendor player file."""
    if shape.kind not in LAYOUT.kinds:
        raise ValueError(f"a Splendor network is an 'mlp', got kind {shape.kind!r}")
    return save_player(policy, path, LAYOUT, shape, num_players, **facts)
