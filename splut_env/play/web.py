"""Play Splut! in the browser: ``python -m splut_env.web [--port 8000] [--agent ckpt.zip]``.

The game-agnostic server of :mod:`tabletop.play.web` with Splut!'s view: the board in SVG
(``static/board.js``), any seat a human or an agent (only those that can sit at the chosen
table are offered), the agents' steps animated one at a time, hints, undo, the step log with
a download link. Offered checkpoints (default: the loadable ``checkpoints/*.zip`` of the
working folder, when torch is installed) are loaded and checked once, when the app is made,
each also offered with its tactical shield (``<file>:shield``), and every game shares their
networks. See :mod:`tabletop.play.web` for the checks and the JSON API; Splut!'s game views
also carry ``steps`` (the moves) and ``spn`` (the position).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI

from splut_env.play.session import Game
from splut_env.play.view import VIEW, default_checkpoints, load_offered
from tabletop.play.web import (
    MAX_BODY_BYTES,
    BodyLimit,
    GameStore,
    MoveRequest,
    PlyRequest,
    new_game_model,
    session_json,
)
from tabletop.play.web import create_app as _create_app
from tabletop.play.web import main as _main

__all__ = [
    "MAX_BODY_BYTES",
    "STATIC",
    "BodyLimit",
    "GameStore",
    "NewGame",
    "PlyRequest",
    "StepRequest",
    "create_app",
    "default_checkpoints",
    "game_view",
    "load_offered",
    "main",
]

STATIC = Path(__file__).parent / "static"
NewGame = new_game_model(VIEW.game)
StepRequest = MoveRequest


def game_view(gid: str, game: Game) -> dict[str, Any]:
    """Everything the page draws, as JSON."""
    return session_json(gid, game)


def create_app(checkpoints: list[str] | None = None, max_games: int = 200) -> FastAPI:
    """The web app. ``checkpoints``: checkpoint files offered as players, each also with
    its tactical shield (``<file>:shield``), loaded once here (a bad one raises
    :class:`~splut_env.players.checkpoint.CheckpointError`) and shared by every game (default: the
    loadable ``checkpoints/*.zip`` of the working folder, when torch is installed)."""
    return _create_app(VIEW, checkpoints, max_games)


def main(argv: list[str] | None = None) -> None:
    """``python -m splut_env.web``: Splut! in the browser."""
    _main(argv, VIEW, prog="python -m splut_env.web")


if __name__ == "__main__":
    main()
