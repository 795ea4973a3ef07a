"""A game between humans and agents, one move at a time, for any game with a view.

:class:`Session` is the model behind the terminal (:mod:`tabletop.play.terminal`) and the
browser (:mod:`tabletop.play.web`): it holds who sits where and the history of positions
(for undo), checks every human move against the rules, asks agents for theirs, asks a hint
agent on request, and saves or loads the game as a log (:mod:`tabletop.gamelog`). It
reaches the game only through its :class:`~tabletop.games.Game` descriptor and its
:class:`~tabletop.play.view.View`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabletop.agents import Agent, agent_seed, check_table
from tabletop.gamelog import log_line, read_games
from tabletop.play.view import View
from tabletop.play.views import get_view

#: The player name of a seat taken by a person.
HUMAN = "human"


class Session:
    """A game of ``view``'s game between ``players``, each ``"human"`` or an agent (a name
        such as ``"search:easy"``, a player file the game reads, or an :class:`Agent`); player
        ``k`` sits at the k-th seat. ``start`` is a position text (default: the start of a game
        of ``len(players)``), ``moves`` are played from it (a loaded game), ``max_turns`` cuts
        the game (default: the game's), ``seed`` seeds the agents and, in a game of chance, the
    deal."""

    def __init__(
        self,
        view: View | str,
        players: Sequence[str | Agent],
        start: str | None = None,
        moves: Sequence[str] = (),
        max_turns: int | None = None,
        seed: int | None = None,
    ) -> None:
        self.view = get_view(view)
        self.game = game = self.view.game
        first = game.from_text(start) if start else None
        n = game.num_players(first) if first is not None else len(players)
        if first is None and n not in game.player_counts:
            raise ValueError(
                f"a game of {game.title} has {game.counts_text()} players, got {n}: "
                f"{list(map(str, players))!r:.200}"
            )
        if len(players) != n:
            raise ValueError(f"{len(players)} players given for a {n}-player position")
        self.max_turns = game.max_turns if max_turns is None else max_turns
        limit = game.max_turns_limit
        if type(self.max_turns) is not int or not 1 <= self.max_turns <= limit:
            raise ValueError(
                f"max_turns must be a whole number from 1 to {limit}, got {max_turns!r:.80}"
            )
        for p in players:
            if isinstance(p, str) and p != HUMAN:
                self.view.check_seat(p, n)
        self.labels = [p if isinstance(p, str) else p.name for p in players]
        self.agents: list[Agent | None] = []
        for k, p in enumerate(players):
            if p == HUMAN:
                self.agents.append(None)
                continue
            agent = game.make_agent(p)
            agent.reset(agent_seed(seed, k))
            self.agents.append(agent)
        check_table([a for a in self.agents if a is not None], n)
        self.states: list[Any] = [first if first is not None else game.initial_state(n, seed)]
        self.moves: list[str] = []
        self.movers: list[int] = []  # the player index of every move
        self.started = time.monotonic()
        for k, move in enumerate(moves, start=1):
            try:
                self._push(self._next(move), self.view.normalise(move))
            except ValueError as err:
                raise ValueError(f"{self.view.move_word} {k} of the loaded game: {err}") from err

    # --- who and what -------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current position (do not change it)."""
        return self.states[-1]

    @property
    def num_players(self) -> int:
        return len(self.labels)

    @property
    def seat_names(self) -> list[str]:
        """The seats' short names in turn order: ``['S', 'N']``."""
        return self.game.seat_names(self.num_players)

    @property
    def colours(self) -> list[str]:
        """The seats' colour names in turn order."""
        return self.view.seat_colours(self.num_players)

    def seat_name(self, player: int) -> str:
        """E.g. ``S (red, human)``."""
        return f"{self.seat_names[player]} ({self.colours[player]}, {self.labels[player]})"

    def counter(self, index: int = -1) -> int:
        """The number of the turn (or, for a game whose positions count none, the move) that
        position ``index`` of :attr:`states` is in."""
        index %= len(self.states)
        turn = self.game.turn(self.states[index])
        return index + 1 if turn is None else turn

    def is_over(self) -> bool:
        """Ended by the rules, or cut at ``max_turns``."""
        return self.game.player_to_move(self.state) is None or self.counter() > self.max_turns

    def to_move(self) -> int | None:
        """The player index to move, ``None`` once the game is over."""
        return None if self.is_over() else self.game.player_to_move(self.state)

    def human_to_move(self) -> bool:
        k = self.to_move()
        return k is not None and self.agents[k] is None

    def winner(self) -> int | None:
        """The winning player index, ``None`` while the game runs or without a single
        winner."""
        return self.game.winner(self.state)

    def sharing(self) -> list[int]:
        """The players sharing the win of a game the rules ended without a single winner
        (empty otherwise)."""
        if self.game.player_to_move(self.state) is not None or self.winner() is not None:
            return []
        firsts = [k for k, rank in enumerate(self.game.ranks(self.state)) if rank == 1]
        return firsts if len(firsts) > 1 else []

    def legal_moves(self) -> list[str]:
        """The legal moves of the player to move, sorted; empty once the game is over."""
        return [] if self.is_over() else self.game.legal_moves(self.state)

    def describe(self, move: str) -> str:
        """Legal ``move`` of the current position in words."""
        return self.view.describe(self.state, move)

    # --- moving -------------------------------------------------------------------------

    def _illegal(self, message: str) -> ValueError:
        return self.view.illegal_error(message)

    def _copy(self, state: Any) -> Any:
        copy = getattr(state, "copy", None)
        return copy() if callable(copy) else self.game.from_text(self.game.to_text(state))

    def _next(self, move: str) -> Any:
        """The position after ``move`` (text) if it is legal now; raises otherwise."""
        if self.is_over():
            raise self._illegal(f"illegal {self.view.move_word} {move!r:.40}: the game is over")
        return self.game.play(self.state, self.view.normalise(move))

    def _push(self, state: Any, move: str) -> str:
        self.movers.append(self.game.player_to_move(self.state))
        self.states.append(state)
        self.moves.append(move)
        return move

    def play(self, move: str) -> str:
        """Play a human's move given in the game's notation (letter case as the view reads
        it) and return its text; a refused move raises ``ValueError`` (the view's
        ``illegal_error`` or the rules' own) and changes nothing."""
        if not self.is_over() and not self.human_to_move():
            who = self.seat_name(self.game.player_to_move(self.state))
            raise self._illegal(
                f"{self.view.move_word} {move!r:.40}: it is {who}'s turn, not a human's"
            )
        nxt = self._next(move)
        return self._push(nxt, self.view.normalise(move))

    def agent_move(self) -> str:
        """Let the agent to move choose and play one move; returns its text."""
        k = self.to_move()
        if k is None:
            raise self._illegal("the game is over")
        agent = self.agents[k]
        if agent is None:
            word = self.view.move_word
            raise self._illegal(f"{self.seat_name(k)} is a human: play() their {word}")
        text, nxt = self._choose(agent)
        return self._push(nxt, text)

    def _choose(self, agent: Agent) -> tuple[str, Any]:
        """The move ``agent`` chooses now: its text and the position after it."""
        state = self.state
        player = self.game.player_to_move(state)
        obs = self.game.observe(state, player, self.max_turns) if agent.needs_observation else None
        action = agent.act(self._copy(state), obs)
        nxt = self._copy(state)
        text = self.game.apply_action(nxt, action, who=f"agent {agent!r}")
        return text, nxt

    def hint(self, agent: str | Agent | None = None) -> str:
        """The move ``agent`` would play for the player to move (default: the first agent at
        the table, else the view's hint agent)."""
        if self.is_over():
            raise self._illegal("the game is over: no hint")
        if agent is None:
            agent = next((a for a in self.agents if a is not None), None) or self.view.hint_agent
        if isinstance(agent, str):
            self.view.check_seat(agent, self.num_players)
        agent = self.game.make_agent(agent, seed=len(self.moves))
        check_table([agent], self.num_players)
        return self._choose(agent)[0]

    def undo(self) -> list[str]:
        """Take back the last human move and every agent move after it (all agents' moves
        when no human has moved); returns the moves taken back, last first."""
        humans = {k for k, a in enumerate(self.agents) if a is None}
        undone: list[str] = []
        while self.moves:
            undone.append(self.moves.pop())
            self.states.pop()
            if self.movers.pop() in humans:
                break
        return undone

    # --- logs ---------------------------------------------------------------------------

    def log_text(self) -> str:
        """The game as a one-game log (:mod:`tabletop.gamelog`)."""
        seats = " ".join(f"{s}={p}" for s, p in zip(self.seat_names, self.labels, strict=True))
        start = self.game.to_text(self.states[0])
        return (
            f"{self.game.log_header}\n# players: {seats}; {self.result_text()}\n"
            f"{log_line(start, self.moves)}\n"
        )

    def save(self, path: str | Path) -> Path:
        """Write :meth:`log_text` to ``path`` (folders created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.log_text())
        return path

    def reload(self, path: str | Path) -> Session:
        """The last game of the log at ``path``, continued by the same players."""
        return load_session(self.view, path, self.labels, max_turns=self.max_turns)

    # --- summary ------------------------------------------------------------------------

    def result_text(self) -> str:
        """``in progress, turn 3``, ``S (red, human) wins after 12 turns``, ..."""
        word = self.view.turn_word
        if not self.is_over():
            return f"in progress, {word} {self.counter()}"
        count = self.counter() if self.game.turn(self.state) is not None else len(self.moves)
        scores = self.view.score_text(self.state)
        tail = f" ({scores})" if scores else ""
        winner = self.winner()
        if winner is not None:
            return f"{self.seat_name(winner)} wins after {count} {word}s{tail}"
        sharing = self.sharing()
        if sharing:
            names = " and ".join(self.seat_name(k) for k in sharing)
            return f"{names} share the win after {count} {word}s{tail}"
        return f"no winner after {min(count, self.max_turns)} {word}s{tail}"

    def summary(self) -> str:
        """A few lines: the result, what the game notes, moves per player."""
        word = self.view.move_word
        lines = [f"Result: {self.result_text()}"]
        lines += [f"  {note}" for note in self.view.notes(self)]
        for k in range(self.num_players):
            lines.append(f"  {self.seat_name(k)}: {self.movers.count(k)} {word}s")
        minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
        lines.append(f"  {len(self.moves)} {word}s in {minutes} min {seconds} s")
        return "\n".join(lines)


def log_game(path: str | Path, index: int = -1) -> tuple[str, list[str]]:
    """The start position and moves of game ``index`` (default: the last) of a log file."""
    games = read_games(path)
    if not games:
        raise ValueError(f"game log {str(path)!r} holds no game")
    try:
        return games[index]
    except IndexError:
        raise ValueError(f"game log {str(path)!r} has {len(games)} game(s), no {index}") from None


def load_session(
    view: View | str,
    path: str | Path,
    players: Sequence[str | Agent],
    index: int = -1,
    **kwargs: Any,
) -> Session:
    """Game ``index`` (default: the last) of a log file, continued by ``players``; errors
    name the file."""
    start, moves = log_game(path, index)
    try:
        return Session(view, players, start=start, moves=moves, **kwargs)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err
