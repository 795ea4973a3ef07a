"""Splendor for reinforcement learning: a rules core (:mod:`splendor_env.rules`), a
PettingZoo AEC environment (:func:`env`, :class:`raw_env`), a Gymnasium single-agent
environment registered as ``splendor_env/Splendor-v0`` and bots (:func:`make_agent`).

The package's rooms, each importing only those below it: :mod:`splendor_env.rules` (the
rules core, pure Python: positions and moves as text, a fast engine over 77 move ids, a
seat's view and a determiniser), :mod:`splendor_env.encoding` (observations and actions),
:mod:`splendor_env.players` (bots), :mod:`splendor_env.envs` (environments).
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
    "make_agent",
    "raw_env",
    "register_agent",
    "rules",
    "splendor_v0",
]
