"""Moved to :mod:`tabletop.cli`; these names stay importable from here."""

from tabletop.cli import (
    int_range,
    seconds,
)

__all__ = ["int_range", "seconds"]
