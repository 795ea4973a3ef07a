"""Moved to :mod:`tabletop.files`; these names stay importable from here."""

from tabletop.files import (
    MAX_TEXT_BYTES,
    read_text,
)

__all__ = ["MAX_TEXT_BYTES", "read_text"]
