"""The game-log format: one game per line, ``<start SPN> | <steps>`` (step notation,
space-separated); lines starting with ``#`` are comments. :class:`splut_env.play.session.Game`
saves and loads it, ``training.evaluate`` writes it and ``training.replay`` plays it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from splut_env.common.files import read_text
from splut_env.rules import from_spn, play
from splut_env.rules.engine import State

LOG_HEADER = "# splut-env game log: one game per line, '<start SPN> | <steps>'"


def log_line(start_spn: str, steps: Sequence[str]) -> str:
    """One game of a log: ``<start SPN> | <steps>``."""
    return f"{start_spn} | {' '.join(steps)}"


def read_games(path: str | Path) -> list[tuple[str, list[str]]]:
    """The ``(start SPN, steps)`` of every game in a log file; errors name the file and line."""
    return parse_games(read_text(path, "game log"), str(path))


def parse_games(text: str, where: str = "game log") -> list[tuple[str, list[str]]]:
    """:func:`read_games` on text; ``where`` names the source in errors."""
    games = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if "|" not in line:
            raise ValueError(f"{where}:{n}: expected '<start SPN> | <steps>', got {line[:80]!r}")
        spn, steps = line.split("|", 1)
        games.append((spn.strip(), steps.split()))
    return games


def positions(start: str, steps: Sequence[str], where: str = "game") -> list[State]:
    """Every position of a game, the start included; a bad step raises naming its number."""
    try:
        states = [from_spn(start)]
    except ValueError as err:
        raise ValueError(f"{where}: start position: {err}") from err
    for k, step in enumerate(steps, start=1):
        try:
            states.append(play(states[-1], step))
        except ValueError as err:
            raise ValueError(f"{where}: step {k}: {err}") from err
    return states
