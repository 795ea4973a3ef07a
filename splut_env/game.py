"""Splut! as the core sees it: the :class:`~tabletop.games.Game` that registers it
(``tabletop.games.get_game("splut")``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from splut_env import rules
from splut_env.encoding import NUM_ACTIONS, OBS_SHAPE, checked_step_id, observation
from splut_env.envs.match import play_game
from splut_env.players import PLAYERS
from splut_env.rules.board import MAX_TURN
from splut_env.rules.engine import State
from splut_env.rules.notation import step_text
from tabletop.agents import Agent, AgentRegistry
from tabletop.gamelog import LOG_HEADER
from tabletop.games import Game
from tabletop.match import GameRecord


class Splut(Game):
    """Splut! for 2, 3 or 4 players; seats ``S``, ``W``, ``N``, ``E`` in turn order."""

    name = "splut"
    title = "Splut!"
    player_counts = (2, 3, 4)
    rules_module = "splut_env.rules"
    env_entry_point = "splut_env.envs.aec:env"
    gym_id = "splut_env/Splut-v0"
    max_turns = 200
    max_turns_limit = MAX_TURN
    observation_shape = OBS_SHAPE
    num_actions = NUM_ACTIONS

    @property
    def players(self) -> AgentRegistry:
        return PLAYERS

    @property
    def log_header(self) -> str:
        return LOG_HEADER

    def initial_state(self, num_players: int, seed: int | None = None) -> State:
        return rules.initial_state(num_players)

    def from_text(self, text: str) -> State:
        return rules.from_spn(text)

    def to_text(self, state: State) -> str:
        return rules.to_spn(state)

    def num_players(self, state: State) -> int:
        return len(state.seats)

    def player_to_move(self, state: State) -> int | None:
        return None if state.to_move < 0 else state.seats.index(state.to_move)

    def turn(self, state: State) -> int:
        return state.turn

    def legal_moves(self, state: State) -> list[str]:
        return rules.legal_steps(state)

    def play(self, state: State, move: str) -> State:
        return rules.play(state, move)

    def observe(self, state: State, player: int, max_turns: int) -> dict[str, Any]:
        return observation(state, state.seats[player], max_turns)

    def apply_action(self, state: State, action: int, who: str) -> str:
        step = checked_step_id(state, state.to_move, action, who=who)
        state.apply(step)
        return step_text(step)

    def winner(self, state: State) -> int | None:
        w = state.winner()
        return state.seats.index(w) if w >= 0 else None

    def ranks(self, state: State) -> list[int]:
        """From the position alone: the players still in share first place, the others the
        next (a match records the order they went out in, which ranks them fully)."""
        alive = state.alive_seats()
        return [1 if s in alive else 2 for s in state.seats]

    def seat_names(self, num_players: int) -> list[str]:
        return rules.seats(num_players)

    def play_game(
        self,
        agents: Sequence[Agent],
        seed: int | None = None,
        max_turns: int | None = None,
        start: str | None = None,
    ) -> GameRecord:
        turns = self.max_turns if max_turns is None else max_turns
        return play_game(agents, seed=seed, max_turns=turns, start_spn=start)

    def benchmarks(self, num_players: int) -> dict[str, Any]:
        from splut_env.bench import engine_playouts

        return {
            "engine playouts (legal_ids + apply)": lambda seconds: engine_playouts(
                num_players, seconds
            )
        }

    def random_opening(self, num_players: int, steps: int, rng: random.Random) -> str | None:
        state = State.initial(num_players)
        for _ in range(steps):
            state.apply(rng.choice(state.legal_ids()))
            if state.is_over():
                return None
        return rules.to_spn(state)


GAME = Splut()
