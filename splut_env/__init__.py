"""Splut! for reinforcement learning: a fast rules engine (:mod:`splut_env.rules`), a
PettingZoo AEC environment (:func:`env`, :class:`raw_env`) and a Gymnasium single-agent
environment registered as ``splut_env/Splut-v0``."""

from __future__ import annotations

import gymnasium

from splut_env import bots, splut_v0  # noqa: F401  (bots registers greedy and search:*)
from splut_env.aec_env import env, raw_env
from splut_env.agents import Agent, RandomAgent, make_agent, register_agent
from splut_env.encoding import NUM_ACTIONS
from splut_env.notation import IllegalStepError, InvalidNotationError

__version__ = "0.2.0"


def load_agent(
    path: str, num_players: int | None = None, deterministic: bool = True, shield: bool = False
) -> Agent:
    """A trained checkpoint as an :class:`Agent` (needs the ``[train]`` extra); ``shield``
    adds the rules' tactical check (kills, forced kills, safety). See
    :func:`splut_env.policy.load_agent`."""
    from splut_env.policy import load_agent as _load

    return _load(path, num_players=num_players, deterministic=deterministic, shield=shield)


if "splut_env/Splut-v0" not in gymnasium.registry:
    gymnasium.register(id="splut_env/Splut-v0", entry_point="splut_env.gym_env:SplutGymEnv")

__all__ = [
    "NUM_ACTIONS",
    "Agent",
    "IllegalStepError",
    "InvalidNotationError",
    "RandomAgent",
    "env",
    "load_agent",
    "make_agent",
    "raw_env",
    "register_agent",
    "splut_v0",
]
