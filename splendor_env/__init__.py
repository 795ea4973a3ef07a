"""Splendor for reinforcement learning: a rules core (:mod:`splendor_env.rules`), a
PettingZoo AEC environment (:func:`env`, :class:`raw_env`), a Gymnasium single-agent
environment registered as ``splendor_env/Splendor-v0``, bots and trained players
(:func:`make_agent`, :func:`load_agent`).

The package's rooms, each importing only those below it: :mod:`splendor_env.rules` (the
rules core, pure Python: positions and moves as text, a fast engine over 77 move ids, a
seat's view and a determiniser), :mod:`splendor_env.encoding` (observations and actions),
:mod:`splendor_env.players` (bots, player files), :mod:`splendor_env.envs` (environments).
:mod:`splendor_env.game` registers Splendor with the game-agnostic core, :mod:`tabletop`.
"""

from __future__ import annotations

import gymnasium

from splendor_env import rules, splendor_v0
from splendor_env.encoding import NUM_ACTIONS
from splendor_env.envs.aec import env, raw_env
from splendor_env.players import agent_names, make_agent, register_agent
from splendor_env.rules import IllegalMoveError, InvalidNotationError, State
from tabletop.agents import Agent

__version__ = "0.1.0"


def load_agent(path: str, num_players: int | None = None, deterministic: bool = True) -> Agent:
    """A trained Splendor player file as an :class:`Agent` (needs the ``[train]`` extra); a
    file of another game is refused by name. See
    :func:`splendor_env.players.checkpoint.load_agent`."""
    from splendor_env.players.checkpoint import load_agent as _load

    return _load(path, num_players=num_players, deterministic=deterministic)


if "splendor_env/Splendor-v0" not in gymnasium.registry:
    gymnasium.register(
        id="splendor_env/Splendor-v0", entry_point="splendor_env.envs.gym:SplendorGymEnv"
    )

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
    "splendor_v0",
]
