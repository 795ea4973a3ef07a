"""Play Splendor in the terminal: ``python -m splendor_env.play --players human greedy``.

2, 3 or 4 seats, each ``human`` or an agent (``random``, ``greedy``,
``search:easy|medium|hard``). After every move the public table is drawn: supply, nobles,
market with the deck sizes, and every player's tokens, bonuses, points, cards, nobles and
reserved cards (their backs only). On a human's turn the prompt shows that player's own
reserved cards and the legal moves, numbered, in words; one is chosen by its notation in
any letter case (``take wbg``, ``take2 r``, ``reserve 1.3``, ``reserve deck 2``,
``buy 2.0``, ``buy r0``, ``return k``, ``noble 4``, ``pass``) or its number. Returning
tokens over 10 and choosing among several nobles are moves of their own, asked in turn.
Commands: ``moves``, ``undo``, ``hint``, ``save [file]``, ``load <file>``, ``board``,
``help``, ``quit``. A mistyped or illegal entry gets a message and the prompt again, and
changes nothing. The prompt loop is the game-agnostic :mod:`tabletop.play.terminal` with
Splendor's view.
"""

from __future__ import annotations

import sys

from splendor_env.play.view import VIEW
from tabletop.play.terminal import main as _main


def main(argv: list[str] | None = None) -> int:
    """``python -m splendor_env.play``: a game of Splendor in the terminal."""
    return _main(argv, VIEW, prog="python -m splendor_env.play")


if __name__ == "__main__":
    sys.exit(main())
