"""Shared helpers: positions written inline as SPN, steps as text, seeded bot games."""

from __future__ import annotations

from functools import cache
from itertools import pairwise

from splut_env import make_agent, rules
from splut_env.envs.gamelog import positions
from splut_env.envs.match import play_game
from splut_env.rules.engine import State


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


@cache
def greedy_turns(games: int = 5) -> tuple[tuple[State, State], ...]:
    """``(start, end)`` of every turn that does not end the game, in seeded games between
    two greedy players (shared between tests: copy a state before changing it)."""
    turns = []
    for seed in range(games):
        game = play_game(
            [make_agent("greedy", seed=seed), make_agent("greedy", seed=seed + 50)], seed=seed
        )
        states = positions(game.start_spn, game.steps)
        starts = [0] + [k for k in range(1, len(states)) if states[k].turn != states[k - 1].turn]
        turns += [(states[a], states[b]) for a, b in pairwise(starts) if not states[b].is_over()]
    return tuple(turns)


def small_league(snapshot_every: int) -> dict:
    """The league of the short RLlib runs in the tests: the latest snapshot, past ones and
    ``random``, at most two snapshots, one every ``snapshot_every`` env steps."""
    return {
        "p_latest": 0.5,
        "p_past": 0.2,
        "p_bots": 0.3,
        "bots": ["random"],
        "snapshot_every": snapshot_every,
        "max_snapshots": 2,
    }
