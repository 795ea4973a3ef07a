"""The rules core of Splut!: pure Python, no imports beyond the standard library.

Its modules import only downwards: :mod:`~splut_env.rules.board` (tables and limits) →
:mod:`~splut_env.rules.notation` (step notation and SPN) and
:mod:`~splut_env.rules.diagram` (the text diagram) → :mod:`~splut_env.rules.engine`
(:class:`State`) → :mod:`~splut_env.rules.api`, the stable API whose names this package
exports (``from splut_env import rules; rules.play(state, "Dn")``).
"""

from splut_env.rules.api import *  # noqa: F403 (the API's names, listed once there)
from splut_env.rules.api import __all__ as __all__
