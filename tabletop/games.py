"""Games by name: each game package describes itself with one :class:`Game`, and the core
reaches a game only through it (as Gymnasium's registry reaches environments, or
OpenSpiel's ``REGISTER_SPIEL_GAME``).

The core imports no game: :data:`KNOWN` maps the names of the games that ship with this
distribution to the ``"module:attribute"`` entry points of their descriptors, imported the
first time :func:`get_game` is asked for one; :func:`register_game` adds another.

A :class:`Game` is what the core's matches, evaluations, training and play shells need of a
game, in the game's own notation: positions and moves are text, a state is the game's own
object, and agents answer with action indices in the acting player's frame.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any

from tabletop.agents import Agent, AgentRegistry, load_entry_point
from tabletop.match import GameRecord, play_game

#: The games of this distribution: name → entry point of its :class:`Game`.
KNOWN: dict[str, str] = {
    "splut": "splut_env.game:GAME",
    "talat": "talat_env.game:GAME",
    "splendor": "splendor_env.game:GAME",
}
_LOADED: dict[str, Game] = {}
#: The game of a config, player file or command line that names none.
DEFAULT_GAME = "splut"


class Game(abc.ABC):
    """One game, as the core sees it. Subclasses set the attributes and implement the
    methods; ``players`` is the game's :class:`~tabletop.agents.AgentRegistry`."""

    #: Registry name, lower case: ``"splut"``, ``"talat"``.
    name: str
    #: Display name: ``"Splut!"``.
    title: str
    #: Table sizes the game is played at.
    player_counts: tuple[int, ...]
    #: The import path of the game's rules module.
    rules_module: str
    #: Entry points of the PettingZoo AEC factory ``env(num_players=..., ...)`` and the
    #: Gymnasium id of the single-agent environment.
    env_entry_point: str
    gym_id: str
    #: The turn a match is cut after by default, and the largest cut a user may set.
    max_turns: int
    max_turns_limit: int
    #: The observation planes' shape and the size of the action space (the same for every
    #: table size and seat: each player sees the game from its own side).
    observation_shape: tuple[int, ...]
    num_actions: int

    @property
    @abc.abstractmethod
    def players(self) -> AgentRegistry:
        """The game's agents by name and by file."""

    # --- positions --------------------------------------------------------------------------

    #: Whether the start is dealt at random (a shuffle): then :meth:`initial_state` draws it
    #: from its ``seed``.
    chance: bool = False

    @abc.abstractmethod
    def initial_state(self, num_players: int, seed: int | None = None) -> Any:
        """The start position (a fresh object the caller may change); a game with
        :attr:`chance` deals it from ``seed`` (``None``: any deal), the others ignore it."""

    @abc.abstractmethod
    def from_text(self, text: str) -> Any:
        """A position from its text; ``ValueError`` quoting it if malformed."""

    @abc.abstractmethod
    def to_text(self, state: Any) -> str:
        """The canonical text of ``state``."""

    @abc.abstractmethod
    def num_players(self, state: Any) -> int:
        """The table size of ``state``."""

    @abc.abstractmethod
    def player_to_move(self, state: Any) -> int | None:
        """The player index (0 = first seat) to move, ``None`` once the game is over."""

    @abc.abstractmethod
    def turn(self, state: Any) -> int | None:
        """The turn number, counted as the game's ``max_turns`` is; ``None`` for a game
        whose positions hold no counter (matches then count the moves they play)."""

    @abc.abstractmethod
    def legal_moves(self, state: Any) -> list[str]:
        """The legal moves' texts, sorted."""

    @abc.abstractmethod
    def play(self, state: Any, move: str) -> Any:
        """The position after ``move`` (``state`` unchanged); ``ValueError`` quoting it if
        malformed or illegal."""

    # --- agents -----------------------------------------------------------------------------

    @abc.abstractmethod
    def observe(self, state: Any, player: int, max_turns: int) -> dict[str, Any]:
        """``{"observation", "action_mask"}`` of ``player``, as the environments give it."""

    @abc.abstractmethod
    def apply_action(self, state: Any, action: int, who: str) -> str:
        """Play the acting player's ``action`` on ``state`` in place and return the move's
        text; an illegal action raises ``ValueError`` naming ``who``."""

    def play_action(self, state: Any, action: int, who: str) -> None:
        """:meth:`apply_action` for callers that need no move text (environments, searches,
        self-play); a game whose move text costs work to build plays without it."""
        self.apply_action(state, action, who)

    # --- results ----------------------------------------------------------------------------

    @abc.abstractmethod
    def winner(self, state: Any) -> int | None:
        """The winning player's index, ``None`` while running or with no single winner."""

    @abc.abstractmethod
    def ranks(self, state: Any) -> list[int]:
        """Each player's finishing rank (1 = best, ties share a rank), for ratings."""

    # --- what the core does the same way for every game, unless a game overrides it ------

    def rewards(self, state: Any) -> list[float]:
        """Each player's reward for a finished game: ``+1`` for the winner and ``-1`` for the
        others; with no single winner, ``0`` for the players ranked first and ``-1`` for the
        rest."""
        winner = self.winner(state)
        if winner is not None:
            return [1.0 if k == winner else -1.0 for k in range(self.num_players(state))]
        return [0.0 if rank == 1 else -1.0 for rank in self.ranks(state)]

    @property
    def log_header(self) -> str:
        """The first line of this game's logs (:mod:`tabletop.gamelog`)."""
        return f"# {self.name} game log: one game per line, '<start position> | <moves>'"

    def play_game(
        self,
        agents: Sequence[Agent],
        seed: int | None = None,
        max_turns: int | None = None,
        start: str | None = None,
    ) -> GameRecord:
        """One whole game between ``agents`` (:func:`tabletop.match.play_game`)."""
        return play_game(self, agents, seed=seed, max_turns=max_turns, start=start)

    def potential(self, state: Any, player: int) -> float:
        """A bounded estimate of how well ``player`` stands (about −1 to 1), for
        potential-based reward shaping in training; 0 (no shaping) by default."""
        return 0.0

    def benchmarks(self, num_players: int) -> dict[str, Any]:
        """The game's own loops for :mod:`tabletop.bench`: label → ``loop(seconds)`` giving a
        rate (moves per second). None by default."""
        return {}

    def random_opening(self, num_players: int, steps: int, rng: random.Random) -> str | None:
        """The text of the position after ``steps`` uniformly random legal moves from the
        start, drawn from ``rng``; ``None`` if the game ended on the way."""
        state = self.initial_state(num_players, rng.getrandbits(63) if self.chance else None)
        for _ in range(steps):
            state = self.play(state, rng.choice(self.legal_moves(state)))
            if self.player_to_move(state) is None:
                return None
        return self.to_text(state)

    def seat_names(self, num_players: int) -> list[str]:
        """The seats' short names in turn order (used in logs and tables)."""
        return [f"p{k}" for k in range(num_players)]

    def counts_text(self) -> str:
        """The table sizes in words: ``"2, 3 or 4"``."""
        *head, last = map(str, self.player_counts)
        return f"{', '.join(head)} or {last}" if head else last

    def check_players(self, num_players: Any) -> int:
        """``num_players`` if the game is played at that table size; else ``ValueError``."""
        if type(num_players) is not int or num_players not in self.player_counts:
            raise ValueError(
                f"num_players must be {self.counts_text()} for {self.title}, "
                f"got {num_players!r:.40}"
            )
        return num_players

    def make_agent(self, spec: str | Agent, seed: int | None = None) -> Agent:
        """An agent of this game by name, file or object."""
        return self.players.make(spec, seed=seed)

    def __repr__(self) -> str:
        return f"<Game {self.name!r}>"


def register_game(name: str, entry_point: str | Game) -> None:
    """Make :func:`get_game` return ``entry_point``'s game for ``name``."""
    if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
        raise ValueError(f"a game name must be a lower-case identifier, got {name!r:.60}")
    _LOADED.pop(name, None)
    if isinstance(entry_point, Game):
        _LOADED[name] = entry_point
        return
    KNOWN[name] = entry_point


def game_names() -> list[str]:
    """The names :func:`get_game` knows."""
    return sorted({*KNOWN, *_LOADED})


def get_game(name: str | Game | None = None) -> Game:
    """The game registered as ``name`` (``None``: :data:`DEFAULT_GAME`); ``ValueError``
    naming it and the known games otherwise."""
    if isinstance(name, Game):
        return name
    name = DEFAULT_GAME if name is None else name
    if name not in _LOADED:
        if not isinstance(name, str) or name not in KNOWN:
            raise ValueError(f"unknown game {name!r:.60}: expected one of {game_names()}")
        game = load_entry_point(KNOWN[name])
        if not isinstance(game, Game) or game.name != name:
            raise TypeError(f"{KNOWN[name]!r} is not the descriptor of game {name!r}")
        _LOADED[name] = game
    return _LOADED[name]


def seat_table(game: Game, labels: Sequence[str]) -> dict[str, str]:
    """Seat name → agent label for one game's table (labels in player order)."""
    return dict(zip(game.seat_names(len(labels)), labels, strict=True))
