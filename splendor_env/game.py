"""Splendor as the core sees it: the :class:`~tabletop.games.Game` that registers it
(``tabletop.games.get_game("splendor")``).

Splendor has chance (:attr:`~tabletop.games.Game.chance`): a start is a shuffle.
:meth:`Splendor.initial_state` deals it from the seed it is given (the core's matches, vector
environments, warm starts and RLlib environments pass one drawn from their own seeds), or
from the descriptor's own generator without one; :meth:`Splendor.random_opening` shuffles
from its ``rng``. Seeded matches, evaluations and training runs so replay exactly.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from splendor_env import rules
from splendor_env.encoding import NUM_ACTIONS, OBS_SHAPE, action_mask, checked_move_id, observation
from splendor_env.players import PLAYERS
from splendor_env.rules import State
from splendor_env.rules.components import ROUND_CAP, WIN_POINTS
from tabletop.agents import AgentRegistry
from tabletop.games import Game

#: The rules end every game by 100 rounds (§6), 400 turns at 4 players, so a match's cap
#: never cuts one.
MAX_TURNS = ROUND_CAP * 4


class Splendor(Game):
    """Splendor for 2, 3 or 4 players; seats ``P0`` … in turn order, ``P0`` starts."""

    name = "splendor"
    chance = True
    title = "Splendor"
    player_counts = (2, 3, 4)
    rules_module = "splendor_env.rules"
    env_entry_point = "splendor_env.envs.aec:env"
    gym_id = "splendor_env/Splendor-v0"
    max_turns = MAX_TURNS
    max_turns_limit = MAX_TURNS
    observation_shape = OBS_SHAPE
    num_actions = NUM_ACTIONS

    def __init__(self) -> None:
        self._rng = random.Random()

    @property
    def players(self) -> AgentRegistry:
        return PLAYERS

    def initial_state(self, num_players: int, seed: int | None = None) -> State:
        """A start shuffled from ``seed`` (``None``: from the descriptor's generator, a
        different one each call)."""
        return rules.initial_state(num_players, self._rng if seed is None else seed)

    def from_text(self, text: str) -> State:
        return rules.from_text(text)

    def to_text(self, state: State) -> str:
        return rules.to_text(state)

    def num_players(self, state: State) -> int:
        return state.num_players

    def player_to_move(self, state: State) -> int | None:
        return None if state.to_move < 0 else state.to_move

    def turn(self, state: State) -> int:
        """Completed turns (a turn is a main action and its returns and noble choice)."""
        return state.turn

    def legal_moves(self, state: State) -> list[str]:
        return rules.legal_moves(state)

    def play(self, state: State, move: str) -> State:
        return rules.play(state, move)

    def observe(self, state: State, player: int, max_turns: int) -> dict[str, Any]:
        return {
            "observation": observation(state, player),
            "action_mask": action_mask(state, player).view(np.int8),
        }

    def apply_action(self, state: State, action: int, who: str) -> str:
        move = checked_move_id(state, state.to_move, action, who)
        state.apply(move)
        return rules.move_text(move)

    def winner(self, state: State) -> int | None:
        return rules.winner(state)

    def ranks(self, state: State) -> list[int]:
        """The winners first; then by points, then fewer purchased cards. A game over with
        no winner (§6) ranks everyone first."""
        n = state.num_players
        if state.to_move < 0 and not state.winners():
            return [1] * n
        winners = state.winners()
        standing = [
            (1, 0, 0) if k in winners else (0, state.points[k], -len(state.bought[k]))
            for k in range(n)
        ]
        return [1 + sum(other > mine for other in standing) for mine in standing]

    def seat_names(self, num_players: int) -> list[str]:
        return [f"P{k}" for k in range(num_players)]

    def potential(self, state: State, player: int) -> float:
        """The prestige margin (own points minus the best other) over 15, clipped to ±1."""
        points = state.points
        margin = points[player] - max(v for k, v in enumerate(points) if k != player)
        return max(-1.0, min(1.0, margin / WIN_POINTS))

    def benchmarks(self, num_players: int) -> dict[str, Any]:
        from splendor_env.rules.speed import random_playout_rate

        return {
            "engine playouts (legal_move_ids + apply)": lambda seconds: random_playout_rate(
                seconds, players=(num_players,)
            )
        }

    def random_opening(self, num_players: int, steps: int, rng: random.Random) -> str | None:
        """A start shuffled from ``rng``, then ``steps`` random legal moves from ``rng``."""
        state = State.initial(num_players, rng)
        for _ in range(steps):
            state.apply(rng.choice(state.legal_move_ids()))
            if state.is_over():
                return None
        return rules.to_text(state)


GAME = Splendor()
