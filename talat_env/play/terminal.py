"""Play Talat in the terminal: ``python -m talat_env.play --players human search:easy``.

Any seat (2 or 3) can be ``human`` or an agent (``random``, ``greedy``,
``search:easy|medium|hard|expert``, ``best:2p``, ``best:3p``). After every move the three
boards are drawn with the scores and piles; on a human's turn the legal moves are listed
(in the set-up, the towers left and the free start squares) and one is chosen by its
notation in any letter case (``wb:L6@c1``, ``wb:c1-d2``, ``gw:b4xc4``, ``pass``) or its
number in the sorted list. Commands: ``moves``, ``undo``, ``hint``, ``save [file]``,
``load <file>``, ``board``, ``help``, ``quit``. A mistyped or illegal entry gets a message
and the prompt again, and changes nothing. The prompt loop is the game-agnostic
:mod:`tabletop.play.terminal` with Talat's view.
"""

from __future__ import annotations

import sys

from tabletop.play.terminal import main as _main
from talat_env.play.view import VIEW


def main(argv: list[str] | None = None) -> int:
    """``python -m talat_env.play``: a game of Talat in the terminal."""
    return _main(argv, VIEW, prog="python -m talat_env.play")


if __name__ == "__main__":
    sys.exit(main())
