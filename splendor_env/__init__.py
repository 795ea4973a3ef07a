"""Splendor for reinforcement learning. So far its rules core, :mod:`splendor_env.rules`
(pure Python: positions and moves as text, a fast engine over 77 move ids, a seat's view
and a determiniser)."""

from splendor_env import rules
from splendor_env.rules import IllegalMoveError, InvalidNotationError, State

__all__ = ["IllegalMoveError", "InvalidNotationError", "State", "rules"]
