"""What a game supplies to the play shells: a :class:`View`.

The session, the terminal and the web server are the same for every game; a view tells them
how this game looks: how to draw a position in the terminal, what JSON the page's board
script needs, how to say a move in words, which agents may sit at a table of N players,
and where the board script lives. A game's view is found by name in
:mod:`tabletop.play.views`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletop.agents import Agent
from tabletop.games import Game, get_game

if TYPE_CHECKING:
    from tabletop.play.session import Session

_BEST = re.compile(r"best:(\d+)p")


@dataclass(frozen=True)
class Offer:
    """A player file offered by the web server: ``make()`` builds a new agent over what was
    loaded once; ``num_players`` is the table size it was trained for (``None``: any)."""

    make: Callable[[], Agent]
    num_players: int | None = None


def seat_refusal(name: str, sizes: tuple[int, ...], num_players: int, trained: bool = False) -> str:
    """Why player ``name``, made (or ``trained``) for tables of ``sizes``, cannot sit at a
    table of ``num_players``."""
    made = "was trained" if trained else "is made"
    counts = " or ".join(map(str, sizes))
    return (
        f"player {name!r:.120} {made} for {counts} players and cannot sit at a table of "
        f"{num_players}"
    )


class View:
    """How one game looks in the play shells. Subclasses set :attr:`name` and the words, and
    override what their game draws; the defaults suit a game whose positions are their
    text."""

    #: The game's registry name (:func:`tabletop.games.get_game`).
    name: str
    #: What one move is called (``"step"`` in Splut!, where a turn has several).
    move_word: str = "move"
    #: What the counter in results and the move log counts: the game's turns, or moves.
    turn_word: str = "move"
    #: Examples of moves in the game's notation, for help texts.
    move_examples: str = ""
    #: What else than agent names a seat may take, for help texts: ``"a checkpoint (.zip)"``.
    player_files: str = ""
    #: The agent that sits opposite a human by default, and the one asked for hints when
    #: no agent sits at the table.
    default_opponent: str = "search:easy"
    hint_agent: str = "search:easy"
    #: The error raised for a move the session refuses (a ``ValueError`` subclass).
    illegal_error: type[ValueError] = ValueError
    #: CSS colours of the seats' colour names, for the page.
    colour_css: dict[str, str] = {}
    #: The folder holding the page's ``board.js`` and ``board.css``.
    static_dir: Path | None = None
    #: Keys the game's JSON also answers with, each an alias of a core key: ``{"spn":
    #: "position"}``.
    json_aliases: dict[str, str] = {}
    #: The "How to play" text of the page (HTML).
    help_html: str = ""
    #: Why the server gives a game's log only once the game is over (its start position holds
    #: what the players may not see, such as the decks' order); empty: the log is given at
    #: any time.
    log_hidden_while_running: str = ""

    @property
    def game(self) -> Game:
        """The game's descriptor."""
        return get_game(self.name)

    # --- seats and moves --------------------------------------------------------------------

    def seat_colours(self, num_players: int) -> list[str]:
        """The seats' colour names in turn order."""
        return self.game.seat_names(num_players)

    def normalise(self, text: str) -> str:
        """A move as typed, made ready for the rules (surrounding space removed)."""
        return text.strip()

    def describe(self, state: Any, move: str) -> str:
        """Legal ``move`` of ``state`` in words."""
        return move

    def move_json(self, state: Any, move: str) -> dict[str, Any]:
        """What the page's board script needs of legal ``move`` of ``state``."""
        return {"text": move}

    def move_menu(self, state: Any, moves: Sequence[str]) -> list[str] | None:
        """Lines that sum up ``moves`` in the terminal instead of listing each, or ``None``
        to list them numbered."""
        return None

    # --- positions --------------------------------------------------------------------------

    def diagram(self, state: Any, color: bool = True) -> str:
        """The position drawn as text for the terminal (ANSI colours if ``color``)."""
        return str(state)

    def turn_text(self, session: Session) -> str:
        """Where the game stands for the player to move: ``"turn 3, 2 step(s) left"``."""
        return f"{self.turn_word} {session.counter()}"

    def score_text(self, state: Any) -> str:
        """The scores in words, for results (empty for a game without scores)."""
        return ""

    def notes(self, session: Session) -> list[str]:
        """Lines the game adds to the summary after a game (who went out when)."""
        return []

    def position_json(self, session: Session) -> dict[str, Any]:
        """What the page's board script needs to draw the session's position."""
        return {}

    def player_json(self, session: Session, player: int) -> dict[str, Any]:
        """What the page shows of ``player`` besides its seat, colour and label."""
        return {}

    # --- who may sit where ------------------------------------------------------------------

    def table_sizes(self, agent: str) -> tuple[int, ...] | None:
        """The table sizes the agent named ``agent`` plays at, ``None`` for any: a name
        ``best:<n>p`` plays at ``n``."""
        match = _BEST.fullmatch(agent)
        return (int(match[1]),) if match else None

    def check_seat(self, agent: str, num_players: int) -> None:
        """Raise ``ValueError`` if the agent named ``agent`` cannot sit at a table of
        ``num_players`` (:meth:`table_sizes`)."""
        sizes = self.table_sizes(agent)
        if sizes is not None and num_players not in sizes:
            raise ValueError(seat_refusal(agent, sizes, num_players))

    def offer(self, paths: list[str] | None) -> dict[str, Offer]:
        """Player files offered by the web server, by the name a seat chooses: each of
        ``paths`` checked once here (a bad one raises ``ValueError`` naming it), or, for
        ``None``, the game's own default files (none here). This default makes a new agent
        from the file for every game; a view may load each file once and share it."""
        offered = {}
        for path in paths or ():
            made = self.game.make_agent(path).num_players
            offered[path] = Offer(partial(self.game.make_agent, path), made)
        return offered

    def __repr__(self) -> str:
        return f"<View {self.name!r}>"
