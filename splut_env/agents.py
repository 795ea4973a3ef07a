"""The :class:`Agent` interface shared by opponents, bots and trained policies, and a
registry that builds agents from names such as ``"random"``.

An agent is asked to act for the seat to move in a position. It gets the rules state (for
bots that search) and, when its ``needs_observation`` is true, the observation dict
``{"observation": planes, "action_mask": int8[196]}`` of that seat (for learned policies).
It returns an action index in that seat's frame (:mod:`splut_env.encoding`).
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Mapping

import numpy as np

from splut_env.encoding import step_id_to_action
from splut_env.engine import State


class Agent(abc.ABC):
    """A Splut! player. Subclasses implement :meth:`act` and may override :meth:`reset`."""

    #: Whether :meth:`act` needs the observation dict (otherwise ``None`` may be passed).
    needs_observation: bool = True
    name: str = "agent"

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; reseed any randomness from ``seed``."""

    @abc.abstractmethod
    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        """Choose an action, in the frame of seat ``state.to_move``, among its legal ones."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomAgent(Agent):
    """Plays a uniformly random legal step."""

    needs_observation = False
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return step_id_to_action(state.to_move, self._rng.choice(state.legal_ids()))


_REGISTRY: dict[str, Callable[..., Agent]] = {"random": RandomAgent}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)``."""
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return sorted(_REGISTRY)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (e.g. ``"random"``), or ``spec`` itself if it is one."""
    if isinstance(spec, Agent):
        return spec
    factory = _REGISTRY.get(spec) if isinstance(spec, str) else None
    if factory is None:
        raise ValueError(f"unknown agent {spec!r}: expected an Agent or one of {agent_names()}")
    return factory(seed=seed)
