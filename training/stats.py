"""Moved to :mod:`tabletop.stats`; these names stay importable from here."""

from tabletop.stats import *  # noqa: F403
from tabletop.stats import __all__ as __all__
