"""The :class:`Agent` interface shared by opponents, bots and trained policies, and a
registry that builds agents from names such as ``"random"``.

An agent is asked to act for the seat to move in a position. It gets the rules state (for
bots that search) and, when its ``needs_observation`` is true, the observation dict
``{"observation": planes, "action_mask": int8[196]}`` of that seat (for learned policies).
It returns an action index in that seat's frame (:mod:`splut_env.encoding`).
"""

from __future__ import annotations

import abc
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from splut_env.encoding import (
    checked_step_id,
    observation,
    step_id_to_action,
)
from splut_env.engine import State


class Agent(abc.ABC):
    """A Splut! player. Subclasses implement :meth:`act` and may override :meth:`reset`."""

    #: Whether :meth:`act` needs the observation dict (otherwise ``None`` may be passed).
    needs_observation: bool = True
    name: str = "agent"
    #: The table size it was made for (a trained policy's), or ``None`` for any.
    num_players: int | None = None

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
SHIELD_SUFFIX = ":shield"


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)``."""
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return sorted(_REGISTRY)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (e.g. ``"random"``, ``"search:hard"``), a checkpoint
    path (``*.zip``, see :func:`splut_env.policy.load_agent`; ``*.zip:shield`` adds the
    rules' tactical check, :class:`splut_env.policy.ShieldedAgent`), or ``spec``
    itself."""
    if isinstance(spec, Agent):
        return spec
    factory = _REGISTRY.get(spec) if isinstance(spec, str) else None
    if factory is not None:
        return factory(seed=seed)
    shield = isinstance(spec, str) and spec.endswith(SHIELD_SUFFIX)
    path = spec[: -len(SHIELD_SUFFIX)] if shield else spec
    if isinstance(path, str) and (path.endswith(".zip") or os.path.isfile(path)):
        from splut_env.policy import load_agent

        agent = load_agent(path, shield=shield)
        agent.reset(seed)
        return agent
    raise ValueError(
        f"unknown agent {spec!r}: expected an Agent, a checkpoint path (*.zip, or "
        f"*.zip{SHIELD_SUFFIX}) or one of "
        f"{agent_names()}"
    )


def agent_seed(seed: int | None, player: int) -> int | None:
    """The seed of ``player``'s agent in a game seeded with ``seed`` (``None``: unseeded)."""
    return None if seed is None else seed * 7919 + player


def check_table(agents: Sequence[Agent], num_players: int) -> None:
    """Raise ``ValueError`` if an agent was made for another number of players."""
    for agent in agents:
        made = getattr(agent, "num_players", None)
        if made is not None and made != num_players:
            raise ValueError(
                f"{agent!r} was trained for {made} players and cannot play at a table of "
                f"{num_players}"
            )


@dataclass
class GameRecord:
    """One finished (or truncated) game: everything needed to score and replay it."""

    start_spn: str
    steps: list[str]
    winner: int | None  # player index (seat order of the game), None for no winner
    eliminated: list[int]  # player indices in the order their wizards died
    turns: int
    final_spn: str
    think_seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)


def play_game(
    agents: Sequence[Agent],
    seed: int | None = None,
    max_turns: int = 200,
    start_spn: str | None = None,
) -> GameRecord:
    """Play one game, ``agents[k]`` as ``player_k``; each agent is reset with a seed derived
    from ``seed``. Raises :class:`IllegalStepError` naming an agent that plays illegally."""
    from splut_env.notation import format_spn, step_text
    from splut_env.rules import from_spn

    n = len(agents)
    state = from_spn(start_spn) if start_spn else State.initial(n)
    if len(state.seats) != n:
        raise ValueError(f"{n} agents given for a {len(state.seats)}-player position")
    check_table(agents, n)
    for k, agent in enumerate(agents):
        agent.reset(seed=agent_seed(seed, k))
    player = {seat: k for k, seat in enumerate(state.seats)}
    record = GameRecord(format_spn(state), [], None, [], state.turn, "", [0.0] * n, [0] * n)
    alive = set(state.alive_seats())
    while not state.is_over() and state.turn <= max_turns:
        seat = state.to_move
        k = player[seat]
        agent = agents[k]
        obs = observation(state, seat, max_turns) if agent.needs_observation else None
        start = time.perf_counter()
        action = agent.act(state, obs)
        record.think_seconds[k] += time.perf_counter() - start
        record.decisions[k] += 1
        step = checked_step_id(state, seat, action, who=f"agent {agent!r} (player_{k})")
        record.steps.append(step_text(step))
        state.apply(step)
        now = set(state.alive_seats())
        record.eliminated += [player[s] for s in sorted(alive - now)]
        alive = now
    winner = state.winner()
    record.winner = player[winner] if winner >= 0 else None
    record.turns = min(state.turn, max_turns)
    record.final_spn = format_spn(state)
    return record
