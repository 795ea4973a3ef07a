"""Shared helpers: positions written inline as SPN, steps as text."""

from __future__ import annotations

from splut_env import rules


def spn(
    s: str,
    n: str,
    rocks: str,
    to_move: str = "S",
    turn: int = 10,
    steps: int = 3,
    lev: str = "-",
    locked: str = "-",
    moved: str = "-",
) -> str:
    """A 2-player SPN from the S and N fields (``"e4,f2,-"``) and the rest."""
    return f"S:{s} N:{n} R:{rocks} {to_move} {turn} {steps} {lev} {locked} {moved}"


def legal(text: str) -> list[str]:
    return rules.legal_steps(rules.from_spn(text))


def after(text: str, *steps: str) -> str:
    state = rules.from_spn(text)
    for step in steps:
        state = rules.play(state, step)
    return rules.to_spn(state)
