"""A game between humans and agents, one step at a time.

:class:`Game` is the model behind the terminal (:mod:`splut_env.play.terminal`) and browser
(:mod:`splut_env.play.web`) front ends: it holds who sits where, the history of positions
(for undo), checks every human step against the rules, asks agents for theirs, and saves or
loads the game as a log (:mod:`splut_env.envs.gamelog`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from splut_env.encoding import checked_step_id, observation
from splut_env.envs.gamelog import LOG_HEADER, log_line, read_games
from splut_env.players import make_agent
from splut_env.rules import from_spn, step_id
from splut_env.rules.board import (
    DIRS,
    KINDS,
    NEIGHBOUR,
    SEATS,
    SQUARE_NAMES,
    TROLL,
    WIZARD,
    decode_id,
    turn_cap,
)
from splut_env.rules.diagram import SEAT_COLOURS
from splut_env.rules.engine import State
from splut_env.rules.notation import IllegalStepError, format_spn, step_text
from tabletop.agents import Agent, agent_seed, check_table

HUMAN = "human"
PIECE_NAMES = ("wizard", "troll", "dwarf")
DIR_NAMES = {"n": "north", "e": "east", "s": "south", "w": "west"}


@dataclass(frozen=True)
class StepInfo:
    """What a step does, for front ends: the piece, where it goes, and its option."""

    text: str
    piece: str  # "W", "T" or "D"
    src: str  # square names
    dst: str
    option: str  # "move", "pull", "throw" or "levitate"
    throw: str | None = None  # throw direction n/e/s/w
    rock: str | None = None  # square of the levitated rock

    def describe(self) -> str:
        """The step in words, e.g. ``troll f2 -> f3, throws the rock north``."""
        words = f"{PIECE_NAMES[KINDS.index(self.piece)]} {self.src} -> {self.dst}"
        if self.option == "pull":
            return words + ", pulls the rock behind it"
        if self.option == "throw":
            return words + f", throws the rock {DIR_NAMES[self.throw or 'n']}"
        if self.option == "levitate":
            return words + f", levitates the rock on {self.rock}"
        return words


def step_info(state: State, step: int) -> StepInfo:
    """Describe legal step ``step`` (an engine id) of the player to move in ``state``."""
    kind, d, extra = decode_id(step)
    src = state.pos[state.to_move * 3 + kind]
    dst = NEIGHBOUR[d][src]
    option: dict[str, str] = {"option": "move"}
    if kind == WIZARD and extra >= 0:
        option = {"option": "levitate", "rock": SQUARE_NAMES[extra]}
    elif kind == TROLL and extra == 1:
        option = {"option": "pull"}
    elif kind == TROLL and extra >= 2:
        option = {"option": "throw", "throw": DIRS[extra - 2]}
    return StepInfo(step_text(step), KINDS[kind], SQUARE_NAMES[src], SQUARE_NAMES[dst], **option)


class Game:
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
        start = from_spn(start_spn) if start_spn else None
        n = len(start.seats) if start else len(players)
        if start is None and n not in (2, 3, 4):
            raise ValueError(f"a game has 2, 3 or 4 players, got {n}: {list(players)!r}")
        if len(players) != n:
            raise ValueError(f"{len(players)} players given for a {n}-player position")
        turn_cap(max_turns)
        self.labels = [p if isinstance(p, str) else p.name for p in players]
        self.agents: list[Agent | None] = []
        for k, p in enumerate(players):
            if p == HUMAN:
                self.agents.append(None)
            else:
                agent = make_agent(p)
                agent.reset(agent_seed(seed, k))
                self.agents.append(agent)
        check_table([a for a in self.agents if a is not None], n)
        self.max_turns = max_turns
        self.states = [start or State.initial(n)]
        self.steps: list[str] = []
        self.movers: list[int] = []  # player index of every step
        self.started = time.monotonic()
        for k, step in enumerate(steps, start=1):
            try:
                self._apply(self._checked(step))
            except ValueError as err:
                raise ValueError(f"step {k} of the loaded game: {err}") from err

    # --- who and what --------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current position (do not mutate it)."""
        return self.states[-1]

    @property
    def num_players(self) -> int:
        return len(self.labels)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(self.states[0].seats)

    def player_of(self, seat: int) -> int:
        return self.seats.index(seat)

    def seat_name(self, player: int) -> str:
        """E.g. ``S (red, human)``."""
        seat = self.seats[player]
        return f"{SEATS[seat]} ({SEAT_COLOURS[seat]}, {self.labels[player]})"

    def is_over(self) -> bool:
        """Won, or stopped at the turn limit."""
        return self.state.is_over() or self.state.turn > self.max_turns

    def to_move(self) -> int | None:
        """The player index to move, ``None`` once the game is over."""
        return None if self.is_over() else self.player_of(self.state.to_move)

    def human_to_move(self) -> bool:
        k = self.to_move()
        return k is not None and self.agents[k] is None

    def winner(self) -> int | None:
        """The winning player index, or ``None`` (game on, or ended without a winner)."""
        w = self.state.winner()
        return self.player_of(w) if w >= 0 else None

    def legal_steps(self) -> list[StepInfo]:
        """The legal steps of the player to move, sorted by text; empty once over."""
        if self.is_over():
            return []
        infos = [step_info(self.state, i) for i in self.state.legal_ids()]
        return sorted(infos, key=lambda s: s.text)

    # --- moving ----------------------------------------------------------------------------

    def _apply(self, step: int) -> str:
        """Play legal engine step ``step`` of the player to move; returns its notation."""
        nxt = self.state.copy()
        nxt.apply(step)
        self.movers.append(self.player_of(self.state.to_move))
        self.states.append(nxt)
        self.steps.append(step_text(step))
        return self.steps[-1]

    def _checked(self, step: str) -> int:
        """The engine id of ``step`` (notation) if it is legal now; raises otherwise."""
        if self.is_over():
            raise IllegalStepError(f"illegal step {step!r}: the game is over")
        return step_id(self.state, step)

    def play(self, step: str) -> str:
        """Play a human's step given in notation; raises :class:`InvalidNotationError` or
        :class:`IllegalStepError` (both ``ValueError``) and changes nothing then."""
        if not self.is_over() and not self.human_to_move():
            who = self.seat_name(self.player_of(self.state.to_move))
            raise IllegalStepError(f"step {step!r}: it is {who}'s turn, not a human's")
        return self._apply(self._checked(step))

    def agent_step(self) -> str:
        """Let the agent to move choose and play one step; returns it."""
        k = self.to_move()
        if k is None:
            raise IllegalStepError("the game is over")
        agent = self.agents[k]
        if agent is None:
            raise IllegalStepError(f"{self.seat_name(k)} is a human: play() their step")
        return self._apply(self._choose(agent))

    def _choose(self, agent: Agent) -> int:
        state, seat = self.state, self.state.to_move
        obs = observation(state, seat, self.max_turns) if agent.needs_observation else None
        action = agent.act(state.copy(), obs)
        return checked_step_id(state, seat, action, who=f"agent {agent!r}")

    def hint(self, agent: str | Agent | None = None) -> str:
        """The step ``agent`` would play for the player to move (default: the first agent at
        the table, else ``search:easy``)."""
        if self.is_over():
            raise IllegalStepError("the game is over: no hint")
        if agent is None:
            agent = next((a for a in self.agents if a is not None), None) or "search:easy"
        agent = make_agent(agent, seed=len(self.steps))
        check_table([agent], self.num_players)
        return step_text(self._choose(agent))

    def undo(self) -> list[str]:
        """Take back the last human step and every agent step after it (all agents' steps
        when no human has moved); returns the steps taken back, last first."""
        humans = [k for k, a in enumerate(self.agents) if a is None]
        undone: list[str] = []
        while self.steps:
            undone.append(self.steps.pop())
            self.states.pop()
            if self.movers.pop() in humans:
                break
        return undone

    # --- logs ----------------------------------------------------------------------------

    def log_text(self) -> str:
        """The game as a one-game log (see :func:`read_games`)."""
        seats = " ".join(f"{SEATS[s]}={p}" for s, p in zip(self.seats, self.labels, strict=True))
        return (
            f"{LOG_HEADER}\n# players: {seats}; {self.result_text()}\n"
            f"{log_line(format_spn(self.states[0]), self.steps)}\n"
        )

    def save(self, path: str | Path) -> Path:
        """Write :meth:`log_text` to ``path`` (folders created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.log_text())
        return path

    @classmethod
    def load(
        cls, path: str | Path, players: Sequence[str | Agent], game: int = -1, **kwargs
    ) -> Game:
        """The game ``game`` (default: the last) of a log file, continued by ``players``."""
        games = read_games(path)
        if not games:
            raise ValueError(f"game log {str(path)!r} holds no game")
        try:
            start, steps = games[game]
        except IndexError:
            raise ValueError(
                f"game log {str(path)!r} has {len(games)} game(s), no {game}"
            ) from None
        try:
            return cls(players, start_spn=start, steps=steps, **kwargs)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from err

    # --- summary -------------------------------------------------------------------------

    def result_text(self) -> str:
        if not self.is_over():
            return f"in progress, turn {self.state.turn}"
        w = self.winner()
        if w is not None:
            return f"{self.seat_name(w)} wins after {self.state.turn} turns"
        return f"no winner after {min(self.state.turn, self.max_turns)} turns"

    def summary(self) -> str:
        """A few lines: the result, who was eliminated when, steps per player."""
        lines = [f"Result: {self.result_text()}"]
        alive = set(self.states[0].alive_seats())
        for k in range(1, len(self.states)):
            now = set(self.states[k].alive_seats())
            for seat in sorted(alive - now):
                who = self.seat_name(self.player_of(seat))
                lines.append(
                    f"  {who} eliminated by step {k} ({self.steps[k - 1]}, turn "
                    f"{self.states[k - 1].turn})"
                )
            alive = now
        for k in range(self.num_players):
            lines.append(f"  {self.seat_name(k)}: {self.movers.count(k)} steps")
        minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
        lines.append(f"  {len(self.steps)} steps in {minutes} min {seconds} s")
        return "\n".join(lines)
