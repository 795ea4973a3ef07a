"""Talat's player files: a trained network as a player (:mod:`tabletop.netplayer`'s format,
which names the game, so a Splut! file handed to Talat is refused by name), alone or guiding
the expert's search (``path.zip:expert``, :mod:`talat_env.players.guided`). Needs the
``[train]`` extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop import netplayer
from tabletop.agents import Agent
from tabletop.netplayer import Layout, NetworkPlayer, Shape, load_player, save_player
from tabletop.network import PolicyAgent
from tabletop.playerfile import PlayerFileError
from talat_env.encoding import (
    ACTION_PIXELS,
    LAYOUT_VERSION,
    NUM_ACTIONS,
    OBS_SHAPE,
    action_mask,
    observation,
)
from talat_env.players.guided import GuidedSearchAgent, parse_guided
from talat_env.rules.engine import State

__all__ = [
    "LAYOUT",
    "PlayerFileError",
    "Shape",
    "agent_from_spec",
    "load_agent",
    "load_checkpoint",
    "observe",
    "save_player",
]

#: What a Talat network file must match.
LAYOUT = Layout("talat", LAYOUT_VERSION, OBS_SHAPE, NUM_ACTIONS, (2, 3), ACTION_PIXELS)


def observe(state: State) -> dict[str, np.ndarray]:
    """The observation dict of the player to move in ``state``."""
    return {
        "observation": observation(state, state.to_move),
        "action_mask": action_mask(state, state.to_move),
    }


def load_checkpoint(path: str | Path) -> NetworkPlayer:
    """A Talat player file, checked; raises :class:`PlayerFileError` naming the problem."""
    return load_player(path, LAYOUT)


def load_agent(
    path: str | Path, num_players: int | None = None, deterministic: bool = True
) -> PolicyAgent:
    """A Talat player file as a player; ``num_players``, if given, must be its table
    size."""
    return netplayer.load_agent(path, LAYOUT, observe, num_players, deterministic)


def agent_from_spec(spec: str, seed: int | None = None) -> Agent | None:
    """The player a file spec names (``path.zip``, or ``path.zip:expert`` /
    ``path.zip:expert=N`` for :class:`~talat_env.players.guided.GuidedSearchAgent`), reset
    with ``seed``; ``None`` if ``spec`` names no file. Raises ``ValueError`` naming ``spec``
    for a bad ``N``. This is how :func:`talat_env.players.make_agent` reads files."""
    guided = parse_guided(spec)
    if guided is None:
        return netplayer.agent_from_spec(spec, LAYOUT, observe, seed)
    path, nodes = guided
    agent = GuidedSearchAgent(load_agent(path), nodes=nodes, seed=seed)
    agent.reset(seed)
    return agent


def network_save(
    policy: Any, path: str | Path, shape: Shape, num_players: int, **facts: Any
) -> Path:
    """Write ``policy`` as a Talat player file."""
    return save_player(policy, path, LAYOUT, shape, num_players, **facts)
