"""Play Splut! in the terminal: ``python -m splut_env.play --players human search:easy``.

Any seat can be ``human`` or an agent (a bot name such as ``greedy`` or ``search:hard``, or a
checkpoint path). After every step the board is drawn; on a human's turn the legal steps are
listed and one is chosen by its notation (``Dn``, ``Tnxe``, ``We@c5``) or its number.
Commands: ``steps``, ``undo``, ``hint``, ``save [file]``, ``load <file>``, ``board``,
``help``, ``quit``. A mistyped or illegal entry gets a message and the prompt again. The
prompt loop is the game-agnostic :mod:`tabletop.play.terminal` with Splut!'s view.
"""

from __future__ import annotations

import sys

from splut_env.play.view import VIEW
from tabletop.play.terminal import HELP
from tabletop.play.terminal import TerminalSession as TerminalGame
from tabletop.play.terminal import main as _main

__all__ = ["HELP", "TerminalGame", "main", "normalise"]


def normalise(text: str) -> str:
    """Accept any letter case: ``tnXE`` -> ``Tnxe``."""
    return VIEW.normalise(text)


def main(argv: list[str] | None = None) -> int:
    """``python -m splut_env.play``: a game of Splut! in the terminal."""
    return _main(argv, VIEW, prog="python -m splut_env.play")


if __name__ == "__main__":
    sys.exit(main())
