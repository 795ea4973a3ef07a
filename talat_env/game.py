"""Talat as the core sees it: the :class:`~tabletop.games.Game` that registers it
(``tabletop.games.get_game("talat")``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tabletop.agents import AgentRegistry
from tabletop.games import Game
from talat_env import rules
from talat_env.encoding import NUM_ACTIONS, OBS_SHAPE, action_mask, checked_move_id, observation
from talat_env.players import PLAYERS
from talat_env.rules.engine import State

#: A Talat game ends by itself within some 500 moves (placements, steps, captures and forced
#: passes; TALAT_RULES.md §6.4), so a match's cap never cuts one.
MAX_MOVES = 1000
#: The score margin that :meth:`Talat.potential` counts as a whole point of shaping.
MARGIN_POINTS = 20.0


class Talat(Game):
    """Talat for 2 or 3 players; seats ``w``, ``b``, ``g`` in turn order."""

    name = "talat"
    title = "Talat"
    player_counts = (2, 3)
    rules_module = "talat_env.rules"
    env_entry_point = "talat_env.envs.aec:env"
    gym_id = "talat_env/Talat-v0"
    max_turns = MAX_MOVES
    max_turns_limit = MAX_MOVES
    observation_shape = OBS_SHAPE
    num_actions = NUM_ACTIONS

    @property
    def players(self) -> AgentRegistry:
        return PLAYERS

    def initial_state(self, num_players: int, seed: int | None = None) -> State:
        return rules.initial_state(num_players)

    def from_text(self, text: str) -> State:
        return rules.from_text(text)

    def to_text(self, state: State) -> str:
        return rules.to_text(state)

    def num_players(self, state: State) -> int:
        return state.num_players

    def player_to_move(self, state: State) -> int | None:
        return None if state.to_move < 0 else state.to_move

    def turn(self, state: State) -> int | None:
        """``None``: a position does not hold a move counter (the match counts moves)."""
        return None

    def legal_moves(self, state: State) -> list[str]:
        return rules.legal_moves(state)

    def play(self, state: State, move: str) -> State:
        return rules.play(state, move)

    def observe(self, state: State, player: int, max_turns: int) -> dict[str, Any]:
        return {
            "observation": observation(state, player),
            "action_mask": action_mask(state, player).astype(np.int8),
        }

    def apply_action(self, state: State, action: int, who: str) -> str:
        move = checked_move_id(state, state.to_move, action, who)
        text = rules.move_text(state, move)
        state.apply(move)
        return text

    def play_action(self, state: State, action: int, who: str) -> None:
        state.apply(checked_move_id(state, state.to_move, action, who))

    def winner(self, state: State) -> int | None:
        winners = state.winners()
        return winners[0] if len(winners) == 1 else None

    def ranks(self, state: State) -> list[int]:
        """The winners (after the tie-break) first, then the others by score."""
        scores = state.scores()
        winners = state.winners()
        standing = [(1, 0) if k in winners else (0, scores[k]) for k in range(len(scores))]
        return [1 + sum(other > mine for other in standing) for mine in standing]

    def seat_names(self, num_players: int) -> list[str]:
        return rules.seats(num_players)

    def potential(self, state: State, player: int) -> float:
        """The score margin (own score minus the best other score) over 20 points, clipped
        to ±1."""
        scores = state.scores()
        margin = scores[player] - max(s for k, s in enumerate(scores) if k != player)
        return max(-1.0, min(1.0, margin / MARGIN_POINTS))

    def benchmarks(self, num_players: int) -> dict[str, Any]:
        from talat_env.rules.speed import random_playout_rate

        return {
            "engine playouts (legal_ids + apply)": lambda seconds: random_playout_rate(
                seconds, players=(num_players,)
            )
        }

    def random_opening(self, num_players: int, steps: int, rng: random.Random) -> str | None:
        state = State.initial(num_players)
        for _ in range(steps):
            state.apply(rng.choice(state.legal_ids()))
            if state.is_over():
                return None
        return rules.to_text(state)


GAME = Talat()
