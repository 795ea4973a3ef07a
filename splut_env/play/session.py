"""A game of Splut! between humans and agents, one step at a time.

:class:`Game` is the game-agnostic :class:`~tabletop.play.session.Session` with Splut!'s view
(:mod:`splut_env.play.view`) and Splut!'s words: steps, seats by letter, a start position
as SPN. The terminal (:mod:`splut_env.play.terminal`) and browser (:mod:`splut_env.play.web`)
front ends play it; it saves and loads games as logs (:mod:`splut_env.envs.gamelog`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from splut_env.play.view import VIEW, StepInfo, step_info
from tabletop.agents import Agent
from tabletop.play.session import HUMAN, Session, log_game

__all__ = ["HUMAN", "Game", "StepInfo", "step_info"]


class Game(Session):
    """A game of 2-4 players, each ``"human"`` or an agent (a name such as ``"search:easy"``,
    a checkpoint path, or an :class:`Agent`). ``player_k`` sits at the k-th seat in play."""

    def __init__(
        self,
        players: Sequence[str | Agent],
        start_spn: str | None = None,
        steps: Sequence[str] = (),
        max_turns: int = 200,
        seed: int | None = None,
    ) -> None:
        super().__init__(
            VIEW, players, start=start_spn, moves=steps, max_turns=max_turns, seed=seed
        )

    @property
    def steps(self) -> list[str]:
        """The steps played, in notation."""
        return self.moves

    @property
    def seats(self) -> tuple[int, ...]:
        """The engine seats in play, in turn order."""
        return tuple(self.states[0].seats)

    def player_of(self, seat: int) -> int:
        return self.seats.index(seat)

    def legal_steps(self) -> list[StepInfo]:
        """The legal steps of the player to move, sorted by text; empty once over."""
        state = self.state
        return [VIEW.step_info(state, step) for step in self.legal_moves()]

    def agent_step(self) -> str:
        """Let the agent to move choose and play one step; returns it."""
        return self.agent_move()

    @classmethod
    def load(
        cls, path: str | Path, players: Sequence[str | Agent], game: int = -1, **kwargs: Any
    ) -> Game:
        """The game ``game`` (default: the last) of a log file, continued by ``players``."""
        start, steps = log_game(path, game)
        try:
            return cls(players, start_spn=start, steps=steps, **kwargs)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from err
