"""Play Splendor in the browser: ``python -m splendor_env.play.web [--port 8000]``.

The game-agnostic server of :mod:`tabletop.play.web` with Splendor's view: nobles, the
market with the deck sizes, the supply and every player's tableau drawn by
``static/board.js``; tokens taken by clicking gems in the supply, cards bought or reserved
by clicking them (a deck to reserve its top card, a card of one's own hand to buy it),
tokens over 10 returned and a noble chosen by clicking, hints and undo.

The page shows what the human's seat may see (:mod:`splendor_env.play.view`), and so do
the server's answers: a refused move's message quotes the position as that seat sees it
(:class:`~splendor_env.play.view.PlayedGame`), and the log of a game, whose start position
holds the decks' order, is given only once the game is over (the view's
``log_hidden_while_running``, which the core's server honours for any entry point). See :mod:`tabletop.play.web` for the checks and the JSON API.
"""

from __future__ import annotations

import argparse

from fastapi import FastAPI

from splendor_env.play.view import VIEW
from tabletop.cli import int_range
from tabletop.play.web import create_app as _create_app


def create_app(
    checkpoints: list[str] | None = None, max_games: int = 200, hint: str | None = None
) -> FastAPI:
    """The web app of Splendor. ``checkpoints``: player files offered as players, each
    checked once here; ``hint``: the agent asked for hints (default: the first agent at the
    table, else ``search:easy``)."""
    return _create_app(VIEW, checkpoints, max_games=max_games, hint=hint)


def main(argv: list[str] | None = None) -> None:
    """``python -m splendor_env.play.web``: Splendor in the browser (the options of
    :func:`tabletop.play.web.main`, with the app of :func:`create_app`)."""
    import uvicorn

    parser = argparse.ArgumentParser(
        prog="python -m splendor_env.play.web",
        description="Play Splendor in the browser, against agents or people.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default local)")
    parser.add_argument("--port", type=int_range(1, 65535), default=8000)
    parser.add_argument(
        "--agent", action="append", metavar="FILE", help="a player file offered as a player"
    )
    parser.add_argument("--hint", help="agent asked for hints (default: first agent at the table)")
    args = parser.parse_args(argv)
    if args.hint:
        try:
            VIEW.game.make_agent(args.hint)
        except (ValueError, OSError, ImportError) as err:
            parser.error(f"--hint {args.hint}: {err}")
    try:
        app = create_app(args.agent, hint=args.hint)
    except ValueError as err:
        parser.error(f"--agent: {err}")
    print(f"Splendor at http://{args.host}:{args.port}/  (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
