"""The rules core of Splendor: pure Python, no imports beyond the standard library.

Its modules import only downwards: :mod:`~splendor_env.rules.components` (colours, cards,
nobles, supply, read from the package's data files) → :mod:`~splendor_env.rules.moves` (the
move-id layout) → :mod:`~splendor_env.rules.notation` (move, position and view text, the
reading checks) → :mod:`~splendor_env.rules.engine` (:class:`State`, the fast mutable
interface) → :mod:`~splendor_env.rules.view` (a seat's view and the determiniser) →
:mod:`~splendor_env.rules.api`, the stable API whose names this package exports
(``from splendor_env import rules; rules.play(s, "take wbg")``), and
:mod:`~splendor_env.rules.speed` (random-playout speed).
"""

from splendor_env.rules.api import *  # noqa: F403 (the API's names, listed once there)
from splendor_env.rules.api import __all__ as __all__
