"""Play Talat in the browser: ``python -m talat_env.play.web [--port 8000]``.

The game-agnostic server of :mod:`tabletop.play.web` with Talat's view: the three boards
drawn as a triangle (``static/board.js``), towers by colour with their height and shape,
frozen boards marked, placement by choosing a tower in the tray and then a square, steps
and captures by clicking a tower and then its target, scores and piles, hints and undo.
See :mod:`tabletop.play.web` for the checks and the JSON API.
"""

from __future__ import annotations

from fastapi import FastAPI

from tabletop.play.web import create_app as _create_app
from tabletop.play.web import main as _main
from talat_env.play.view import VIEW


def create_app(
    checkpoints: list[str] | None = None, max_games: int = 200, hint: str | None = None
) -> FastAPI:
    """The web app of Talat. ``checkpoints``: player files offered as players, each checked
    once here; ``hint``: the agent asked for hints (default: the first agent at the table,
    else ``search:easy``)."""
    return _create_app(VIEW, checkpoints, max_games=max_games, hint=hint)


def main(argv: list[str] | None = None) -> None:
    """``python -m talat_env.play.web``: Talat in the browser."""
    _main(argv, VIEW, prog="python -m talat_env.play.web")


if __name__ == "__main__":
    main()
