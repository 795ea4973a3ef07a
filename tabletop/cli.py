"""Argument types shared by the command lines: each turns a bad value into argparse's
one-line usage error that names the option and what was expected."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type: a whole number from ``low`` (to ``high``)."""
    expected = f"a whole number from {low}" + (f" to {high}" if high is not None else "")

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 12:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r:.40}")
        value = int(text)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
        return value

    return parse


def seconds(text: str) -> float:
    """An ``argparse`` type: a finite number of seconds, 0 or more (at most an hour)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 3600, got {text!r:.40}")
    return value
