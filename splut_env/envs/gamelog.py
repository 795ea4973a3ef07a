"""Splut!'s game logs: the format of :mod:`tabletop.gamelog`, with :func:`positions` read by
Splut!'s rules."""

from __future__ import annotations

from collections.abc import Sequence

from splut_env.rules.engine import State
from tabletop import gamelog
from tabletop.gamelog import (
    LOG_HEADER,
    GameHead,
    log_line,
    parse_games,
    parse_headed_games,
    read_games,
)

__all__ = [
    "LOG_HEADER",
    "GameHead",
    "log_line",
    "parse_games",
    "parse_headed_games",
    "positions",
    "read_games",
]


def positions(start: str, steps: Sequence[str], where: str = "game") -> list[State]:
    """Every position of a Splut! game, the start included; a bad step raises naming its
    number."""
    from tabletop.games import get_game

    return gamelog.positions(get_game("splut"), start, steps, where)
