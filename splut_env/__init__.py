"""Splut! for reinforcement learning: a fast rules engine (:mod:`splut_env.rules`), a
PettingZoo AEC environment (:func:`env`, :class:`raw_env`) and a Gymnasium single-agent
environment registered as ``splut_env/Splut-v0``.

The package's rooms, each importing only those below it: :mod:`splut_env.common`
(game-agnostic agent interface and registry), :mod:`splut_env.rules` (the rules core),
:mod:`splut_env.encoding` (observations and actions), :mod:`splut_env.players` (bots,
tactics, the network, checkpoints), :mod:`splut_env.envs` (environments, matches, game logs),
:mod:`splut_env.play` (terminal, browser, demo).
"""

from __future__ import annotations

import gymnasium

from splut_env import rules, splut_v0
from splut_env.encoding import NUM_ACTIONS
from splut_env.envs.aec import env, raw_env
from splut_env.players import agent_names, make_agent, register_agent
from splut_env.rules import IllegalStepError, InvalidNotationError, State
from tabletop.agents import Agent

__version__ = "0.3.0"


def load_agent(
    path: str,
    num_players: int | None = None,
    deterministic: bool = True,
    shield: bool = False,
    mirror: bool = False,
) -> Agent:
    """A trained checkpoint as an :class:`Agent` (needs the ``[train]`` extra); ``shield``
    adds the rules' tactical check (kills, forced kills, safety), ``mirror`` (2-player
    networks) the mean over each position and its reflection. See
    :func:`splut_env.players.checkpoint.load_agent`."""
    from splut_env.players.checkpoint import load_agent as _load

    return _load(
        path, num_players=num_players, deterministic=deterministic, shield=shield, mirror=mirror
    )


def __getattr__(name: str) -> object:
    if name == "RandomAgent":  # the bots are imported when first asked for
        from splut_env.players.bots import RandomAgent

        return RandomAgent
    raise AttributeError(f"module 'splut_env' has no attribute {name!r}")


if "splut_env/Splut-v0" not in gymnasium.registry:
    gymnasium.register(id="splut_env/Splut-v0", entry_point="splut_env.envs.gym:SplutGymEnv")

__all__ = [
    "NUM_ACTIONS",
    "Agent",
    "IllegalStepError",
    "InvalidNotationError",
    "RandomAgent",
    "State",
    "agent_names",
    "env",
    "load_agent",
    "make_agent",
    "raw_env",
    "register_agent",
    "rules",
    "splut_v0",
]
