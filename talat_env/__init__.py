"""Talat for reinforcement learning: a rules core (:mod:`talat_env.rules`), a PettingZoo AEC
environment (:func:`env`, :class:`raw_env`), a Gymnasium single-agent environment registered
as ``talat_env/Talat-v0``, bots and trained players (:func:`make_agent`).

The package's rooms, each importing only those below it: :mod:`talat_env.rules` (the rules
core, pure Python), :mod:`talat_env.encoding` (observations and actions),
:mod:`talat_env.players` (bots, player files), :mod:`talat_env.envs` (environments),
:mod:`talat_env.play` (terminal, browser). :mod:`talat_env.game` registers Talat with the
game-agnostic core, :mod:`tabletop`.
"""

from __future__ import annotations

import gymnasium

from tabletop.agents import Agent
from talat_env import rules, talat_v0
from talat_env.encoding import NUM_ACTIONS
from talat_env.envs.aec import env, raw_env
from talat_env.players import agent_names, make_agent, register_agent
from talat_env.rules import IllegalMoveError, InvalidNotationError, State

__version__ = "0.4.0"


def load_agent(path: str, num_players: int | None = None, deterministic: bool = True) -> Agent:
    """A trained Talat player file as an :class:`Agent` (needs the ``[train]`` extra); a
    file of another game is refused by name. See
    :func:`talat_env.players.checkpoint.load_agent`."""
    from talat_env.players.checkpoint import load_agent as _load

    return _load(path, num_players=num_players, deterministic=deterministic)


if "talat_env/Talat-v0" not in gymnasium.registry:
    gymnasium.register(id="talat_env/Talat-v0", entry_point="talat_env.envs.gym:TalatGymEnv")

__all__ = [
    "NUM_ACTIONS",
    "Agent",
    "IllegalMoveError",
    "InvalidNotationError",
    "State",
    "agent_names",
    "env",
    "load_agent",
    "make_agent",
    "raw_env",
    "register_agent",
    "rules",
    "talat_v0",
]
