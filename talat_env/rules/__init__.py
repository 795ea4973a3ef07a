"""The rules core of Talat: pure Python, no imports beyond the standard library.

Its modules import only downwards: :mod:`~talat_env.rules.board` (tables and the move-id
layout) → :mod:`~talat_env.rules.frozen` (the exact frozen-board decision) →
:mod:`~talat_env.rules.notation` (move and position text) and
:mod:`~talat_env.rules.diagram` (the text diagram) → :mod:`~talat_env.rules.engine`
(:class:`State`, the fast mutable interface) → :mod:`~talat_env.rules.api`, the stable API
whose names this package exports (``from talat_env import rules; rules.play(s, "wb:L6@c1")``),
and :mod:`~talat_env.rules.speed` (random-playout speed).
"""

from talat_env.rules.api import *  # noqa: F403 (the API's names, listed once there)
from talat_env.rules.api import __all__ as __all__
