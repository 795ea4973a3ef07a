"""The game-log format, the same for every game: one game per line, ``<start position> |
<moves>`` (the game's position and move notations; moves separated by spaces, or by ``;``
in a game whose moves hold spaces, such as Splendor's ``take2 w``); lines starting with
``#`` are comments. The play sessions save and load it, :mod:`tabletop.evaluate` writes
it (each game after a :class:`GameHead` comment naming its table and result) and
``training.replay`` plays it back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletop.files import read_text

if TYPE_CHECKING:
    from tabletop.games import Game

#: The first line of Splut!'s logs (other games name themselves: :func:`log_header`).
LOG_HEADER = "# splut-env game log: one game per line, '<start SPN> | <steps>'"


def log_header(game: Game) -> str:
    """The first line of a log of ``game``."""
    return game.log_header


#: Separates the moves of a game whose moves hold spaces.
MOVE_SEPARATOR = "; "


def log_line(start_spn: str, steps: Sequence[str]) -> str:
    """One game of a log: ``<start SPN> | <steps>`` (steps joined by spaces, or by ``; `` when
    one of them holds a space)."""
    joiner = MOVE_SEPARATOR if any(" " in step for step in steps) else " "
    return f"{start_spn} | {joiner.join(steps)}"


def split_moves(text: str) -> list[str]:
    """The moves of a log line's ``<steps>`` part (see :func:`log_line`)."""
    if ";" in text:
        return [move.strip() for move in text.split(";") if move.strip()]
    return text.split()


def read_games(path: str | Path) -> list[tuple[str, list[str]]]:
    """The ``(start SPN, steps)`` of every game in a log file; errors name the file and line."""
    return parse_games(read_text(path, "game log"), str(path))


def parse_games(text: str, where: str = "game log") -> list[tuple[str, list[str]]]:
    """:func:`read_games` on text; ``where`` names the source in errors."""
    return [(spn, steps) for _, _, spn, steps in _lines(text, where)]


@dataclass
class GameHead:
    """The comment before a game of an evaluation's log: the game's number, who sat where
    (seat letter to agent name, in turn order), the winner's name (``None``: no winner) and
    the turns played: ``# game 3: S=greedy N=search:hard; greedy wins after 41 turns``."""

    index: int
    seated: dict[str, str]
    winner: str | None
    turns: int

    def line(self) -> str:
        seated = " ".join(f"{seat}={name}" for seat, name in self.seated.items())
        result = "no winner" if self.winner is None else f"{self.winner} wins"
        return f"# game {self.index}: {seated}; {result} after {self.turns} turns"

    @classmethod
    def parse(cls, line: str) -> GameHead | None:
        """The head on ``line``, or ``None`` if the line is not one."""
        match = _HEAD.fullmatch(line)
        if match is None:
            return None
        seated = dict(re.findall(r"([A-Za-z]\w*)=(.*?)(?= [A-Za-z]\w*=|$)", match["table"]))
        return cls(int(match["index"]), seated, match["winner"], int(match["turns"]))


_HEAD = re.compile(
    r"# game (?P<index>\d+): (?P<table>.*); (?:no winner|(?P<winner>.*) wins) "
    r"after (?P<turns>\d+) turns"
)


def parse_headed_games(text: str, where: str = "game log") -> list[tuple[GameHead, str, list[str]]]:
    """The ``(head, start SPN, steps)`` of every game of an evaluation's log; a game without a
    :class:`GameHead` line before it is named by its line."""
    games = []
    for n, head, spn, steps in _lines(text, where):
        if head is None:
            raise ValueError(f"{where}:{n}: expected a '# game' line before each game")
        games.append((head, spn, steps))
    return games


def _lines(text: str, where: str) -> Iterator[tuple[int, GameHead | None, str, list[str]]]:
    """Each game's line number, the :class:`GameHead` just before it (or ``None``), its start
    and steps."""
    head = None
    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            head = GameHead.parse(line)
            continue
        if not line.strip():
            continue
        if "|" not in line:
            raise ValueError(f"{where}:{n}: expected '<start SPN> | <steps>', got {line[:80]!r}")
        spn, steps = line.split("|", 1)
        yield n, head, spn.strip(), split_moves(steps)
        head = None


def positions(game: Game, start: str, steps: Sequence[str], where: str = "game") -> list[Any]:
    """Every position of a game of ``game``, the start included; a bad step raises naming
    its number."""
    try:
        states = [game.from_text(start)]
    except ValueError as err:
        raise ValueError(f"{where}: start position: {err}") from err
    for k, step in enumerate(steps, start=1):
        try:
            states.append(game.play(states[-1], step))
        except ValueError as err:
            raise ValueError(f"{where}: step {k}: {err}") from err
    return states
